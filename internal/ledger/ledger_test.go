package ledger

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	shaA = strings.Repeat("a", 40)
	shaB = strings.Repeat("b", 40)
	shaC = strings.Repeat("c", 40)
)

// TestFormatsParse: every line the formats make parses back as its kind.
func TestFormatsParse(t *testing.T) {
	f1 := Finding{ID: "F1", Text: "a.go:1 off by one; really"}
	for _, c := range []struct {
		line string
		kind Kind
	}{
		{FormatBase("Task 2", shaA), KindBase},
		{FormatImplementer("Task 2", "agent-1"), KindImplementer},
		{FormatReviewedHead("Final", shaB), KindReviewedHead},
		{FormatMinor("Task 2", "naming — drift"), KindMinor},
		{FormatSettled("Task 2", "Parse returns (int, error)"), KindSettled},
		{FormatFinding("Task 2", f1), KindFinding},
		{FormatRound("Task 2", 3, 1, []Finding{f1}, "abcd123", "abcd124"), KindFix},
		{FormatRound("Final", 1, 0, nil, "abcd123", "abcd123"), KindFix},
		{FormatParked("Task 2", f1, "the reviewer misread it"), KindParked},
		{FormatBlocked("Final", "F1: Task 3 needs it"), KindBlocked},
		{FormatComplete("Task 2", "abcd120", "abcd124", Outcome(2)), KindComplete},
		{FormatComplete("Task 2", "abcd120", "abcd124", "earlier run, human confirmed"), KindComplete},
		{FormatBatch([]string{"2", "3", "4"}), KindBatch},
		{FormatBatched("Task 3", "Task 2"), KindBatched},
		{FormatUnblocked("Task 2", "the plan now says bye"), KindUnblocked},
		{FormatRestarted("rebased onto main"), KindRestarted},
		{FormatSide(3), KindSide},
		{FormatBranch("Task 2", BranchName("my plan.v2", "2")), KindBranch},
		{FormatJoined("Task 2", shaB), KindJoined},
	} {
		l, ok := Parse(c.line)
		require.True(t, ok, c.line)
		assert.Equal(t, c.kind, l.Kind, c.line)
	}
	l, _ := Parse(FormatRound("Task 2", 3, 1, []Finding{f1}, "abcd123", "abcd124"))
	assert.Equal(t, []Finding{f1}, l.Findings)
	assert.Equal(t, 3, l.Round)
	l, _ = Parse(FormatParked("Task 2", f1, "no"))
	assert.Equal(t, "F1 a.go:1 off by one; really", l.Value)
	assert.Equal(t, "sdd/my-plan-v2/task-2", BranchName("my plan.v2", "2"), "bytes a branch name may not hold")
}

// TestSide: the epoch's last side line counts; none, or one before a
// restart, is one at a time.
func TestSide(t *testing.T) {
	parse := func(ss ...string) []Line {
		var ls []Line
		for _, s := range ss {
			l, ok := Parse(s)
			require.True(t, ok, s)
			ls = append(ls, l)
		}
		return ls
	}
	assert.Equal(t, 1, Side(nil))
	assert.Equal(t, 2, Side(parse(FormatSide(3), FormatSide(2))))
	assert.Equal(t, 1, Side(parse(FormatSide(3), FormatRestarted("rebased"))))
	for _, s := range []string{"Run: side by side — 0 at a time", "Run: side by side — 10 at a time", "Task 2: branch=a b", "Task 2: branch=/a", "Task 2: joined=abc"} {
		_, ok := Parse(s)
		assert.False(t, ok, s)
	}
}

// TestParseRefuses: lines in no format of the protocol.
func TestParseRefuses(t *testing.T) {
	for _, s := range []string{
		"", "# SDD ledger — plan: x.md", "Task 2 base=" + shaA, "Task 2: base=abc", "Task x: base=" + shaA,
		"Task 2: fix round 3/4 (1 addressed, 0 open — none; commits a..b)", // a task's cap is 5
		"Final: fix round 1/5 (1 addressed, 0 open — none; commits abcd..abce)",
		"Task 2: parked — F1 x", "Task 2: finding — x without an id", "Task 2: done",
		"Task 2: batch — Tasks 3, 4", "Task 2: batch — Tasks 2", "Task 2: batch — Tasks 2, x", "Task 2: batched — in Task 2", "Task 2: batched — in Final",
		"Run: complete (commits a..b, x)", "Task 02x: base=" + shaA,
	} {
		_, ok := Parse(s)
		assert.False(t, ok, "%q", s)
	}
	_, ok := Parse(FormatBase("Task 2", shaA) + "\r")
	assert.True(t, ok, "a CR ends a line written on Windows")
}

func TestCheckText(t *testing.T) {
	assert.NoError(t, CheckText("x", "a finding — with a dash; and $HOME"))
	for _, s := range []string{"", "  ", "two\nlines", "a\rb", "x — ruling: y", "bell\a"} {
		assert.Error(t, CheckText("x", s), "%q", s)
	}
}

func TestCheckFinding(t *testing.T) {
	assert.NoError(t, CheckFinding("x", "check.sh fails; see F9 of the plan"))
	assert.Error(t, CheckFinding("x", ""))
	// A round line lists findings split before "; F<k> ": this text would
	// read back as two findings.
	s := "check.sh fails; F9 is not a finding"
	assert.ErrorContains(t, CheckFinding("x", s), `"; F9 "`)
	fs, err := ParseFindings(JoinFindings([]Finding{{ID: "F1", Text: s}}))
	require.NoError(t, err)
	assert.Len(t, fs, 2, "why it is refused")
}

func TestIdentity(t *testing.T) {
	p, ok := IdentityPlan(Identity("docs/p.md") + " \t\r")
	assert.True(t, ok)
	assert.Equal(t, "docs/p.md", p)
	_, ok = IdentityPlan("# SDD ledger - plan: docs/p.md")
	assert.False(t, ok, "a hyphen is not the em dash")
}

func TestReviews(t *testing.T) {
	r, err := ParseReview("Spec: ⚠️\nOpen: none\nMinor: a; b\nNot verifiable: run it\nReview: x.md\n\n## Details\nSpec: ❌\n")
	require.NoError(t, err)
	assert.Equal(t, Review{Spec: "⚠️", Minors: []string{"a", "b"}, NotVerifiable: "run it"}, r)
	_, err = ParseReview("Spec: ❌\nOpen: none\nMinor: none\n")
	assert.ErrorContains(t, err, "Spec: ❌ with Open: none")
	_, err = ParseReview("Open: none\n")
	assert.ErrorContains(t, err, `"Spec:"`)
	rr, err := ParseReReview("F1: ADDRESSED — gone\nF2: NOT ADDRESSED — still\nNew: F3 [Important] b.go:2 new\nOut of scope: style\nReview: y.md\n", []string{"F1", "F2"})
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{"F1": true, "F2": false}, rr.Addressed)
	assert.Equal(t, []Finding{{ID: "F3", Grade: "Important", Text: "b.go:2 new"}}, rr.New)
	_, err = ParseReReview("F1: maybe\nNew: none\nOut of scope: none\n", []string{"F1"})
	assert.Error(t, err)
	// Numbered minors keep a "; " of their own (issue 36, item 13).
	r, err = ParseReview("Spec: ✅\nOpen: none\nMinor: M1 use a; b for it; M2 naming\nNot verifiable: none\n")
	require.NoError(t, err)
	assert.Equal(t, []string{"use a; b for it", "naming"}, r.Minors)
	rr, err = ParseReReview("F1: ADDRESSED\nNew: none\nOut of scope: M1 x; y\n", []string{"F1"})
	require.NoError(t, err)
	assert.Equal(t, []string{"x; y"}, rr.OutOfScope)
}

// source is a workspace and a git for the facts: the commits after each
// sha, and the files by name.
type source struct {
	after     map[string]int
	files     map[string]string
	gone, off map[string]bool
}

func (s source) Files() []string {
	var out []string
	for n := range s.files {
		out = append(out, n)
	}
	return out
}
func (s source) Read(name string) (string, error) { return s.files[name], nil }

// PlanTitles and BriefTitles: the plan's tasks are those the test names,
// every brief as the plan has it.
func (s source) PlanTitles() map[string]string          { return map[string]string{"1": "One", "2": "Two"} }
func (s source) BriefTitles(n string) map[string]string { return s.PlanTitles() }
func (s source) Waits(n string) ([]string, []string)    { return nil, nil }
func (s source) Commits(shas, _ []string) (gone, off map[string]bool, err error) {
	gone, off = map[string]bool{}, map[string]bool{}
	for _, sha := range shas {
		if s.gone[sha] {
			gone[sha] = true
		} else if s.off[sha] {
			off[sha] = true
		}
	}
	return gone, off, nil
}
func (s source) After(sha, _ string) (int, error) {
	n, ok := s.after[sha]
	if !ok {
		return 0, fmt.Errorf("no commit %s", sha)
	}
	return n, nil
}

func lines(t *testing.T, text ...string) []Line {
	var out []Line
	for _, s := range text {
		l, ok := Parse(s)
		require.True(t, ok, s)
		out = append(out, l)
	}
	return out
}

// pkg is the package file of a..b as review-package names it.
func pkg(a, b string) string { return "review-" + a[:7] + ".." + b[:7] }

// TestFacts: a task's life, line by line, and the row each state picks.
func TestFacts(t *testing.T) {
	review := pkg(shaA, shaB) + ".md"
	rereview := pkg(shaB, shaC) + ".md"
	src := source{after: map[string]int{shaA: 2, shaB: 1, shaC: 0}, files: map[string]string{
		pkg(shaA, shaB) + ".diff": "d", review: "Spec: ❌\nOpen: F1 [Important] a.go:1 x; F2 [Spec] y missing\nMinor: m1\nNot verifiable: none\n",
		pkg(shaB, shaC) + ".diff": "d",
	}}
	base := FormatBase("Task 1", shaA)
	head1 := FormatReviewedHead("Task 1", shaB)
	head2 := FormatReviewedHead("Task 1", shaC)
	for _, c := range []struct {
		name  string
		lines []string
		files map[string]string // more files
		want  string            // the facts as Look prints them
	}{
		{"none", nil, nil, "last=none after=- review=- pass=- spec=- open=0 round=0 left=5 shas=ok plan=ok needs=- row=start"},
		{"base, commits after", []string{base}, nil, "last=base after=2 review=- pass=- spec=- open=0 round=0 left=5 shas=ok plan=ok needs=- row=package"},
		{"review out", []string{base, head1}, map[string]string{review: ""}, "last=reviewed_head after=1 review=out pass=first spec=- open=- round=0 left=5 shas=ok plan=ok needs=- row=review"},
		{"review in, findings", []string{base, head1}, nil, "last=reviewed_head after=1 review=in pass=first spec=❌ open=2 round=0 left=5 shas=ok plan=ok needs=- row=refix"},
		{"re-review out", []string{base, head1, head2}, nil, "last=reviewed_head after=0 review=out pass=re spec=- open=- round=0 left=5 shas=ok plan=ok needs=- row=re-review"},
		{"re-review in, one left", []string{base, head1, head2}, map[string]string{rereview: "F1: ADDRESSED\nF2: NOT ADDRESSED\nNew: none\nOut of scope: none\n"},
			"last=reviewed_head after=0 review=in pass=re spec=- open=1 round=0 left=5 shas=ok plan=ok needs=- row=record"},
		{"round recorded", []string{base, head1, head2, FormatRound("Task 1", 1, 1, []Finding{{ID: "F2", Text: "y missing"}}, "bbbbbbb", "ccccccc")}, nil,
			"last=fix after=0 review=out pass=re spec=- open=1 round=1 left=4 shas=ok plan=ok needs=- row=fix"},
		{"round 5", []string{base, head1, head2, FormatRound("Task 1", 5, 0, []Finding{{ID: "F2", Text: "y missing"}}, "bbbbbbb", "ccccccc")}, nil,
			"last=fix after=0 review=out pass=re spec=- open=1 round=5 left=0 shas=ok plan=ok needs=- row=breaker"},
		{"parked", []string{base, head1, head2, FormatRound("Task 1", 5, 0, []Finding{{ID: "F2", Text: "y missing"}}, "bbbbbbb", "ccccccc"),
			FormatParked("Task 1", Finding{ID: "F2", Text: "y missing"}, "no")}, nil,
			"last=parked after=0 review=out pass=re spec=- open=0 round=5 left=0 shas=ok plan=ok needs=- row=ruled"},
		{"a failed check", []string{base, head1, FormatFinding("Task 1", Finding{ID: "F3", Text: "check fails"})}, map[string]string{review: "Spec: ⚠️\nOpen: none\nMinor: none\n"},
			"last=finding after=1 review=in pass=first spec=- open=1 round=0 left=5 shas=ok plan=ok needs=- row=refix"},
		{"complete", []string{base, head1, FormatComplete("Task 1", "aaaaaaa", "bbbbbbb", "review clean")}, nil,
			"last=complete after=- review=in pass=first spec=- open=0 round=0 left=5 shas=ok plan=ok needs=- row=done"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := source{after: src.after, files: map[string]string{}}
			for k, v := range src.files {
				s.files[k] = v
			}
			for k, v := range c.files {
				if v == "" {
					delete(s.files, k)
				} else {
					s.files[k] = v
				}
			}
			us, err := Units(lines(t, c.lines...), []string{"1"}, s)
			require.NoError(t, err)
			u := us[0]
			assert.Equal(t, "Task 1: "+c.want, u.StateLine())
		})
	}
}

func TestMatch(t *testing.T) {
	f := map[string]string{"last": "fix", "open": "2", "after": "-"}
	for when, want := range map[string]bool{"last=fix open>1": true, "last=base,fix": true, "open<2": false, "after>0": false, "after=-": true} {
		got, err := Match(when, f)
		require.NoError(t, err)
		assert.Equal(t, want, got, when)
	}
	_, err := Match("round=1", f)
	assert.Error(t, err)
	_, err = Match("open>x", f)
	assert.Error(t, err)
}

// TestRowsAreReachable: every row of the table is the first that fits
// some state, so no row hides behind an earlier one.
func TestRowsAreReachable(t *testing.T) {
	values := map[string][]string{
		"unit": {"task", "final"}, "last": {"none", "base", "reviewed_head", "finding", "fix", "parked", "blocked", "complete", "batched", "joined"},
		"after": {"-", "0", "1"}, "review": {"-", "in", "out"}, "pass": {"-", "first", "re"},
		"spec": {"-", "✅", "⚠️", "❌", "n/a"}, "open": {"-", "0", "1"}, "round": {"0", "1", "3", "5"}, "left": {"0", "1"},
		"shas": {"ok", "rewritten", "gone", "missing"}, "plan": {"ok", "renumbered"}, "needs": {"-"},
	}
	names := FactNames[1:]
	hit := map[Row]bool{}
	var walk func(i int, f map[string]string)
	walk = func(i int, f map[string]string) {
		if i == len(names) {
			hit[Pick(f)] = true
			return
		}
		for _, v := range values[names[i]] {
			f[names[i]] = v
			walk(i+1, f)
		}
	}
	walk(0, map[string]string{})
	hit[Pick(map[string]string{"ledger": "other"})] = true
	hit[Pick(map[string]string{"ledger": "none"})] = true
	for _, r := range Rows() {
		assert.True(t, hit[r], "row %s is never the first that fits", r)
	}
	assert.Equal(t, RowForeign, Pick(map[string]string{"ledger": "other"}))
	assert.Equal(t, RowNew, Pick(map[string]string{"ledger": "none"}))
}

// TestAppend: lines go at the end in one write; a last line without its
// newline gets one first; nothing before is touched.
func TestAppend(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	require.NoError(t, os.WriteFile(p, []byte(Identity("p.md")+"\nTask 1: base="+shaA), 0o644))
	f, err := Open(p)
	require.NoError(t, err)
	require.NoError(t, f.Append(context.Background(), FormatReviewedHead("Task 1", shaB), FormatMinor("Task 1", "x")))
	require.NoError(t, f.Close())
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, Identity("p.md")+"\nTask 1: base="+shaA+"\nTask 1: reviewed_head="+shaB+"\nTask 1: minor (deferred): x\n", string(b))
	_, err = Create(context.Background(), p, Identity("p.md"))
	assert.ErrorIs(t, err, os.ErrExist, "a ledger is never created over another")
	f, err = Open(p)
	require.NoError(t, err)
	assert.Error(t, f.Append(context.Background(), "two\nlines"))
	f.Close()
}

// TestAppendTakenBackWhenStopped: an append whose command is stopped (a
// signal caught) before or during its write leaves the ledger's bytes as
// they were, and says why.
func TestAppendTakenBackWhenStopped(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	before := Identity("p.md") + "\nTask 1: base=" + shaA + "\n"
	require.NoError(t, os.WriteFile(p, []byte(before), 0o644))
	stop := errors.New("interrupted by terminated")
	for name, during := range map[string]bool{"before the write": false, "during the write": true} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			if during {
				afterWrite = func() { cancel(stop) }
				defer func() { afterWrite = func() {} }()
			} else {
				cancel(stop)
			}
			f, err := Open(p)
			require.NoError(t, err)
			defer f.Close()
			err = f.Append(ctx, FormatReviewedHead("Task 1", shaB), FormatSettled("Task 1", strings.Repeat("x", 5000)))
			assert.ErrorIs(t, err, stop)
			b, rerr := os.ReadFile(p)
			require.NoError(t, rerr)
			assert.Equal(t, before, string(b))
		})
	}
}
