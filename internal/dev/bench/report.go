package bench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// FormatDuration prints d in milliseconds below a second, else seconds.
func FormatDuration(d time.Duration) string {
	if d == 0 {
		return "–"
	}
	if d < time.Second {
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// FormatBytes prints n in MiB with one decimal, or KiB below 1 MiB.
func FormatBytes(n int64) string {
	switch {
	case n == 0:
		return "–"
	case n < MiB:
		return fmt.Sprintf("%.0f KiB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/MiB)
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

// goal renders a ratio against its goal: "1.04× (≤ 1.10× met)".
func goal(r float64, atMost bool, target float64) string {
	if r == 0 {
		return "–"
	}
	cell := fmt.Sprintf("%.2f×", r)
	switch {
	case target == 0:
		return cell
	case atMost:
		return cell + fmt.Sprintf(" (≤ %.2f× %s)", target, verdict(r <= target))
	default:
		return cell + fmt.Sprintf(" (≥ %.2f× %s)", target, verdict(r >= target))
	}
}

// WriteRealistic writes the per-invocation table: wall-clock medians, and
// the medians of the per-round ratios ours / floor and reference / ours.
func WriteRealistic(w io.Writer, results []*Result) {
	fmt.Fprintln(w, "| command | reference | ours | floor | ours / floor | reference / ours | ours --version | go start | peak RSS: ours / floor | git processes (ref / ours / floor) | same output |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
	for _, r := range results {
		c := r.Case
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s / %s | %d / %d / %d | %s |\n",
			c.Name, FormatDuration(r.Median(Reference)), FormatDuration(r.Median(Ours)), FormatDuration(r.Median(Floor)),
			goal(r.Ratio(Ours, Floor), true, c.MaxFloorRatio), goal(r.Ratio(Reference, Ours), false, c.MinSpeedup),
			FormatDuration(r.Median(Startup)), FormatDuration(r.Median(GoStart)),
			FormatBytes(r.PeakRSS[Ours]), FormatBytes(r.PeakRSS[Floor]),
			len(r.Git[Reference]), len(r.Git[Ours]), len(r.Git[Floor]), orDash(r.Same))
	}
}

// WriteLarge writes the large-input table.
func WriteLarge(w io.Writer, results []*Result) {
	fmt.Fprintln(w, "| case | input / output | reference | ours | floor | ours / floor | reference / ours | CPU: reference / ours / floor | peak RSS: ours / floor | same output |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---|---:|---|")
	for _, r := range results {
		c := r.Case
		ref, ours := r.Median(Reference), r.Median(Ours)
		input := FormatBytes(r.OutBytes) + " out"
		refCell, oursCell := FormatDuration(ref), FormatDuration(ours)
		if c.InputBytes > 0 {
			input = FormatBytes(c.InputBytes) + " in, " + input
			mbps := func(d time.Duration) string {
				if d == 0 {
					return ""
				}
				return fmt.Sprintf(" (%.0f MB/s)", float64(c.InputBytes)/1e6/d.Seconds())
			}
			refCell += mbps(ref)
			oursCell += mbps(ours)
		}
		rss := FormatBytes(r.PeakRSS[Ours])
		if c.MaxRSS > 0 {
			rss += fmt.Sprintf(" (< %s %s)", FormatBytes(c.MaxRSS), verdict(r.PeakRSS[Ours] > 0 && r.PeakRSS[Ours] < c.MaxRSS))
		}
		cpu := FormatDuration(r.CPU(Reference)) + " / " + FormatDuration(r.CPU(Ours)) + " / " + FormatDuration(r.CPU(Floor))
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s |\n",
			c.Name, input, refCell, oursCell, FormatDuration(r.Median(Floor)),
			goal(r.Ratio(Ours, Floor), true, c.MaxFloorRatio), goal(r.Ratio(Reference, Ours), false, c.MinSpeedup),
			cpu, rss, FormatBytes(r.PeakRSS[Floor]), orDash(r.Same))
	}
	fmt.Fprintln(w, "\nPeak RSS is the command process's own VmHWM (git left out), sampled from /proc.")
}

// WriteGitCalls lists the git command lines each variant ran once.
func WriteGitCalls(w io.Writer, results []*Result) {
	for _, r := range results {
		for _, v := range []string{Reference, Ours, Floor} {
			calls, ok := r.Git[v]
			if !ok {
				continue
			}
			fmt.Fprintf(w, "- `%s`, %s (%d): %s\n", r.Case.Name, v, len(calls), codeList(calls, r.Case.Repo.Base))
		}
	}
}

// codeList quotes calls, BASE's full name shortened to "BASE".
func codeList(calls []string, base string) string {
	if len(calls) == 0 {
		return "none"
	}
	parts := make([]string, len(calls))
	for i, c := range calls {
		if base != "" {
			c = strings.ReplaceAll(c, base, "BASE")
		}
		parts[i] = "`git " + c + "`"
	}
	return strings.Join(parts, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
