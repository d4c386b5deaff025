package ledger

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzUnits: whatever a ledger holds (lines sampled, shuffled, cut; the
// third review found about one in seven such ledgers made a verb panic or
// hand git an empty sha), the facts are read without a panic, and every
// row names a step whose needs the facts meet: the sha a package starts
// from, the heads a round is between, the findings a breaker rules on. A
// ledger that cannot meet them is at row rewritten (shas=missing), which
// stops for the human.
//
// The corpus in testdata/fuzz/FuzzUnits holds the seeds (shuffles of a
// whole run's lines, made by seedLedgers) and what the fuzzer found.
func FuzzUnits(f *testing.F) {
	for _, s := range seedLedgers(rand.New(rand.NewSource(1)), 12) {
		f.Add(s, "Spec: ❌\nOpen: F1 [Important] a.go:1 x\nMinor: m\n")
	}
	f.Add("", "F1: NOT ADDRESSED\nNew: F2 [Critical] b\nOut of scope: none\n")
	f.Fuzz(func(t *testing.T, text, review string) {
		var ls []Line
		for _, s := range strings.Split(text, "\n") {
			if l, ok := Parse(s); ok {
				ls = append(ls, l)
			}
		}
		src := fuzzSource(ls, review)
		us, err := Units(ls, []string{"1", "2"}, src)
		if err != nil {
			return
		}
		for _, u := range us {
			if why := unmetNeed(u); why != "" {
				t.Fatalf("%s at row %s: %s\n%s\nledger:\n%s", u.Unit, u.Row, why, u.StateLine(), text)
			}
		}
	})
}

// unmetNeed says what the step of u's row needs and u lacks, or "".
func unmetNeed(u *Facts) string {
	heads := len(u.Heads())
	switch u.Row {
	case RowImplement, RowPackage:
		if u.Base() == "" {
			return "no base= to package from"
		}
	case RowReview, RowFinalReview, RowReReview, RowRefix, RowFix, RowClose, RowCheck, RowRuled, RowLate:
		if u.Base() == "" || heads == 0 {
			return "no base= or reviewed_head= for the step"
		}
	case RowRecord, RowRecordClose:
		if heads < 2 || u.LastReReview() == nil {
			return "no two heads or no re-review for the round"
		}
	case RowBreaker:
		if u.Open <= 0 || len(u.OpenFindings) != u.Open {
			return "no open findings to rule on"
		}
	}
	if u.Open >= 0 && len(u.OpenFindings) != u.Open {
		return fmt.Sprintf("open=%d but %d findings", u.Open, len(u.OpenFindings))
	}
	return ""
}

// fuzzSource is a workspace holding a package, and the review text, for
// every range the ledger's shas make, and a git in which each sha has 0
// or 1 commits after it.
func fuzzSource(ls []Line, review string) source {
	s := source{after: map[string]int{}, files: map[string]string{}}
	var prev string
	for _, l := range ls {
		if l.Kind != KindBase && l.Kind != KindReviewedHead {
			continue
		}
		s.after[l.Value] = int(l.Value[0]) % 2
		if prev != "" && l.Kind == KindReviewedHead {
			s.files[pkg(prev, l.Value)+".diff"] = "d"
			s.files[pkg(prev, l.Value)+".md"] = review
		}
		prev = l.Value
	}
	return s
}

// seedLedgers are n ledgers made of a whole run's lines, sampled and
// shuffled.
func seedLedgers(r *rand.Rand, n int) []string {
	f1 := Finding{ID: "F1", Text: "a.go:1 x"}
	run := []string{
		FormatBase("Task 1", shaA), FormatImplementer("Task 1", "a1"), FormatReviewedHead("Task 1", shaB),
		FormatReviewedHead("Task 1", shaC), FormatMinor("Task 1", "m"),
		FormatRound("Task 1", 1, 0, []Finding{f1}, "bbbbbbb", "ccccccc"), FormatRound("Task 1", 5, 0, []Finding{f1}, "ccccccc", "ccccccc"),
		FormatFinding("Task 1", Finding{ID: "F2", Text: "check fails"}), FormatParked("Task 1", f1, "no"),
		FormatBlocked("Task 1", "stuck"), FormatUnblocked("Task 1", "go on"), FormatSettled("Task 1", "x"),
		FormatComplete("Task 1", "aaaaaaa", "ccccccc", "review clean"), FormatBase("Task 2", shaC),
		FormatReviewedHead("Task 2", shaA), FormatBase("Final", shaA), FormatReviewedHead("Final", shaC),
		FormatRound("Final", 1, 1, nil, "aaaaaaa", "ccccccc"), FormatRestarted("reset"),
		FormatBatch([]string{"1", "2"}), FormatBatched("Task 2", "Task 1"),
	}
	out := make([]string, n)
	for i := range out {
		k := 1 + r.Intn(len(run))
		pick := append([]string(nil), run...)
		r.Shuffle(len(pick), func(a, b int) { pick[a], pick[b] = pick[b], pick[a] })
		out[i] = strings.Join(pick[:k], "\n")
	}
	return out
}

// TestWriteFuzzSeeds writes 110 shuffled ledgers into the fuzz corpus
// when SDD_WRITE_FUZZ_SEEDS is set (a maintainer's step, done once; the
// files are committed).
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("SDD_WRITE_FUZZ_SEEDS") == "" {
		t.Skip("set SDD_WRITE_FUZZ_SEEDS=1 to rewrite testdata/fuzz/FuzzUnits/seed-*")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzUnits")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	review := "Spec: ⚠️\nOpen: none\nMinor: a; b\nNot verifiable: run it\n"
	for i, s := range seedLedgers(rand.New(rand.NewSource(28)), 110) {
		body := fmt.Sprintf("go test fuzz v1\nstring(%q)\nstring(%q)\n", s, review)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%03d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
