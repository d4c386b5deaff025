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

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

// WriteRealistic writes the per-invocation table of wall-clock medians,
// or of CPU-time medians when cpu is set.
func WriteRealistic(w io.Writer, results []*Result, cpu bool) {
	med := (*Result).Median
	if cpu {
		med = (*Result).CPU
	}
	hasRef := len(results) > 0 && len(results[0].Samples[Reference]) > 0
	if hasRef {
		fmt.Fprintln(w, "| command | reference | ours | reference / ours | target | floor (git only) | ours / floor | target | ours --version | git processes (ref / ours / floor) | same output |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---|---:|---:|---|---:|---|---|")
	} else {
		fmt.Fprintln(w, "| command | ours | floor (git only) | ours / floor | target | ours --version | git processes (ours / floor) |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---|---:|---|")
	}
	for _, r := range results {
		c := r.Case
		ours, floor := med(r, Ours), med(r, Floor)
		fr := ratio(ours, floor)
		floorCell := fmt.Sprintf("≤ %.2f× %s", c.MaxFloorRatio, verdict(fr <= c.MaxFloorRatio))
		if hasRef {
			ref := med(r, Reference)
			sp := ratio(ref, ours)
			fmt.Fprintf(w, "| `%s` | %s | %s | %.2f× | ≥ %.0f× %s | %s | %.2f× | %s | %s | %d / %d / %d | %s |\n",
				c.Name, FormatDuration(ref), FormatDuration(ours), sp, c.MinSpeedup, verdict(sp >= c.MinSpeedup),
				FormatDuration(floor), fr, floorCell, FormatDuration(med(r, Startup)),
				len(r.Git[Reference]), len(r.Git[Ours]), len(r.Git[Floor]), r.Same)
		} else {
			fmt.Fprintf(w, "| `%s` | %s | %s | %.2f× | %s | %s | %d / %d |\n",
				c.Name, FormatDuration(ours), FormatDuration(floor), fr, floorCell, FormatDuration(med(r, Startup)), len(r.Git[Ours]), len(r.Git[Floor]))
		}
	}
}

// WriteSequences writes, for each result with extra floors, the time of
// each git sequence against the current one.
func WriteSequences(w io.Writer, results []*Result) {
	for _, r := range results {
		if len(r.Case.Extra) == 0 {
			continue
		}
		floor := r.Median(Floor)
		floorCPU := r.CPU(Floor)
		fmt.Fprintf(w, "| `%s` git sequence | processes | wall | saved | CPU | saved |\n", r.Case.Name)
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
		fmt.Fprintf(w, "| current (`%s`) | %d | %s | – | %s | – |\n", Floor, len(r.Git[Floor]), FormatDuration(floor), FormatDuration(floorCPU))
		for _, name := range sortedKeys(r.Case.Extra) {
			m, mc := r.Median(name), r.CPU(name)
			fmt.Fprintf(w, "| `%s` | %d | %s | %s (%.0f%%) | %s | %s (%.0f%%) |\n", name, len(r.Git[name]),
				FormatDuration(m), FormatDuration(floor-m), 100*float64(floor-m)/float64(floor),
				FormatDuration(mc), FormatDuration(floorCPU-mc), 100*float64(floorCPU-mc)/float64(floorCPU))
		}
		fmt.Fprintln(w)
	}
}

// WriteLarge writes the large-input table.
func WriteLarge(w io.Writer, results []*Result) {
	fmt.Fprintln(w, "| case | input / output | reference | ours | reference / ours | target | floor (git only) | floor, git's output piped | ours / floor | CPU: reference / ours / floor | peak RSS: ours (own) | git (own, largest of the floor's) | rusage: ours with git | rusage: reference with git | RSS target | same output |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---|---|")
	for _, r := range results {
		c := r.Case
		ref, ours, floor, pipe := r.Median(Reference), r.Median(Ours), r.Median(Floor), r.Median(Floor+"-pipe")
		sp := ratio(ref, ours)
		spCell := "–"
		refCell := "–"
		if ref > 0 {
			refCell = FormatDuration(ref)
			spCell = fmt.Sprintf("≥ %.2f× %s", c.MinSpeedup, verdict(sp >= c.MinSpeedup))
		}
		input := FormatBytes(r.OutBytes) + " out"
		if c.InputBytes > 0 {
			input = FormatBytes(c.InputBytes) + " in, " + input
			mbps := func(d time.Duration) string {
				if d == 0 {
					return "–"
				}
				return fmt.Sprintf("%.0f MB/s", float64(c.InputBytes)/1e6/d.Seconds())
			}
			refCell += " (" + mbps(ref) + ")"
			input += "; ours " + mbps(ours)
		}
		oursTree, oursOwn := PeakRSS(r.Samples[Ours])
		refTree, _ := PeakRSS(r.Samples[Reference])
		_, floorOwn := PeakRSS(r.Samples[Floor])
		fr := ratio(ours, floor)
		frCell := fmt.Sprintf("%.3f×", fr)
		if c.MaxFloorRatio > 0 {
			frCell += fmt.Sprintf(" (≤ %.2f× %s)", c.MaxFloorRatio, verdict(fr <= c.MaxFloorRatio))
		}
		cpuCell := FormatDuration(r.CPU(Reference)) + " / " + FormatDuration(r.CPU(Ours)) + " / " + FormatDuration(r.CPU(Floor))
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %.3f× | %s | %s | %s | %s | %s | %s | %s | %s | %s | < %s %s | %s |\n",
			c.Name, input, refCell, FormatDuration(ours), sp, spCell, FormatDuration(floor), FormatDuration(pipe), frCell, cpuCell,
			FormatBytes(oursOwn), FormatBytes(floorOwn), FormatBytes(oursTree), FormatBytes(refTree),
			FormatBytes(c.MaxRSS), verdict(oursOwn > 0 && oursOwn < c.MaxRSS), orDash(r.Same))
	}
	if len(results) > 0 {
		fmt.Fprintf(w, "\nOwn peaks are VmHWM sampled from /proc every 2 ms. The rusage columns (ru_maxrss from\n"+
			"ProcessState.SysUsage, which covers waited-for children) cannot go below the harness's own peak, %s\n"+
			"here: Go starts children with vfork, so a child's high-water mark starts at its parent's.\n", FormatBytes(results[0].HarnessRSS))
	}
}

// WriteGitCalls lists the git command lines each variant ran once.
func WriteGitCalls(w io.Writer, results []*Result) {
	for _, r := range results {
		for _, v := range []string{Reference, Ours} {
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
