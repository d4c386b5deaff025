package plantask

import (
	"bytes"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func extract(t *testing.T, plan, task string) (string, int64) {
	t.Helper()
	var out bytes.Buffer
	n, err := Extract(strings.NewReader(plan), &out, task)
	require.NoError(t, err)
	return out.String(), n
}

func TestExtract(t *testing.T) {
	cases := []struct {
		name, plan, task, want string
	}{
		{"heading to next task", "# P\n## Task 1: a\nx\n## Task 2: b\ny\n", "1", "## Task 1: a\nx\n"},
		{"last task to end", "## Task 1\nx\n## Task 2\ny\n## Final Review\nz\n", "2", "## Task 2\ny\n## Final Review\nz\n"},
		{"any depth", "#### Task 3\nx\n# Task 4\n", "3", "#### Task 3\nx\n"},
		{"tabs", "##\tTask\t7\tx\nbody\n", "7", "##\tTask\t7\tx\nbody\n"},
		{"Task 10 is not Task 1", "## Task 10\nten\n## Task 1\none\n", "1", "## Task 1\none\n"},
		{"Task 1.5 is task 1", "## Task 1.5\nhalf\n## Task 2\n", "1", "## Task 1.5\nhalf\n"},
		{"lowercase is not a heading", "## Task 1\na\n## task 2\nb\n", "1", "## Task 1\na\n## task 2\nb\n"},
		{"vertical tab is not a blank", "## Task 1\na\n##\vTask 2\nb\n", "1", "## Task 1\na\n##\vTask 2\nb\n"},
		{"no space after hashes", "## Task 1\na\n##Task 2\nb\n", "1", "## Task 1\na\n##Task 2\nb\n"},
		{"fenced heading ignored", "## Task 1\n```\n## Task 2\n```\nend\n## Task 2\n", "1", "## Task 1\n```\n## Task 2\n```\nend\n"},
		{"fence with info string", "## Task 1\n```go\n## Task 2\n```\n", "1", "## Task 1\n```go\n## Task 2\n```\n"},
		{"indented fence does not count", "## Task 1\n  ```\n## Task 2\nb\n", "2", "## Task 2\nb\n"},
		{"tilde fence does not count", "## Task 1\n~~~\n## Task 2\nb\n~~~\n", "2", "## Task 2\nb\n~~~\n"},
		{"unclosed fence swallows the rest", "## Task 1\n```\n## Task 2\nb\n", "1", "## Task 1\n```\n## Task 2\nb\n"},
		{"CRLF kept", "## Task 1\r\nx\r\n## Task 2\r\n", "1", "## Task 1\r\nx\r\n"},
		{"last line without newline", "## Task 1\nx", "1", "## Task 1\nx\n"},
		{"not found", "## Task 1\nx\n", "2", ""},
		{"heading in fence before task", "```\n## Task 1\n```\n## Task 1\nreal\n", "1", "## Task 1\nreal\n"},
		{"invalid UTF-8 kept", "## Task 1\n\xff\xfe\x00x\n", "1", "## Task 1\n\xff\xfe\x00x\n"},
		{"literal number, not a regexp", "## Task 12\nx\n## Task 1.\ny\n", "1.", "## Task 1.\ny\n"},
		{"empty line counted", "## Task 1\n\n\n", "1", "## Task 1\n\n\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, n := extract(t, c.plan, c.task)
			assert.Equal(t, c.want, got)
			assert.Equal(t, int64(strings.Count(c.want, "\n")), n)
		})
	}
}

// oracle is the awk program's rules with a regular expression, task quoted
// (our literal matching); it holds the whole plan, which Extract must not.
func oracle(plan, task string) string {
	heading := regexp.MustCompile(`^#+[ \t]+Task[ \t]+[0-9]+`)
	mine := regexp.MustCompile(`^#+[ \t]+Task[ \t]+` + regexp.QuoteMeta(task) + `([^0-9]|$)`)
	var out strings.Builder
	inFence, inTask := false, false
	lines := strings.SplitAfter(plan, "\n")
	for _, l := range lines {
		if l == "" {
			continue
		}
		l = strings.TrimSuffix(l, "\n")
		if strings.HasPrefix(l, "```") {
			inFence = !inFence
		}
		if !inFence && heading.MatchString(l) {
			inTask = mine.MatchString(l)
		}
		if inTask {
			out.WriteString(l + "\n")
		}
	}
	return out.String()
}

func TestExtractAgreesWithRegexp(t *testing.T) {
	pieces := []string{"#", "##", " ", "\t", "Task", "task", "1", "2", "12", "0", ".", "x", "```", "~~~", "\r", "\v", "\n", "\n", "\n", "\xff", " 1", "Task 1", "## Task 1\n", "## Task 2\n", "```\n"}
	tasks := []string{"1", "2", "12", "", " ", " 1", "\t1", "1 ", "1.", "x"}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		var b strings.Builder
		for j := rng.Intn(40); j > 0; j-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		plan, task := b.String(), tasks[rng.Intn(len(tasks))]
		got, _ := extract(t, plan, task)
		if want := oracle(plan, task); got != want {
			t.Fatalf("task %q plan %q:\n got %q\nwant %q", task, plan, got, want)
		}
	}
}

func TestClassifyBlankTasks(t *testing.T) {
	// A task number made of blanks must fit inside the blank run.
	cases := []struct {
		line, task string
		match      bool
	}{
		{"## Task  1", " ", false},
		{"## Task   1", " ", true},
		{"## Task 1", "", false},
		{"## Task  1", "", true},
		{"## Task \t 1", "\t", true},
		{"## Task\t\t1", " ", false},
		{"## Task  1", " 1", true},
		{"## Task 1", " 1", false},
	}
	for _, c := range cases {
		decided, heading, match := Classify([]byte(c.line), true, c.task)
		require.True(t, decided)
		require.True(t, heading)
		assert.Equal(t, c.match, match, "%q with task %q", c.line, c.task)
		assert.Equal(t, regexp.MustCompile(`^#+[ \t]+Task[ \t]+`+regexp.QuoteMeta(c.task)+`([^0-9]|$)`).MatchString(c.line), match)
	}
}

func TestLongLinesStream(t *testing.T) {
	long := strings.Repeat("y", 3*MaxHeadingPrefix+17)
	plan := "## Task 1 " + long + "\r\n" + long + "\n## Task 2\n" + long
	got, n := extract(t, plan, "1")
	assert.Equal(t, int64(2), n)
	assert.Equal(t, "## Task 1 "+long+"\r\n"+long+"\n", got)
	got, n = extract(t, plan, "2")
	assert.Equal(t, int64(2), n)
	assert.Equal(t, "## Task 2\n"+long+"\n", got)
}

// A line whose run of '#', blanks and "Task" does not fit the buffer is
// refused, with its number, rather than read whole (docs/spec.md diff9).
func TestAbsurdHeadingPrefixRefused(t *testing.T) {
	plan := "## Task 1\nx\n" + strings.Repeat("#", MaxHeadingPrefix+100) + "\n"
	_, err := Extract(strings.NewReader(plan), &bytes.Buffer{}, "1")
	var tooLong *HeadingTooLongError
	require.ErrorAs(t, err, &tooLong)
	assert.Equal(t, int64(3), tooLong.Line)

	// Just under the limit is still decided.
	plan = "## Task 1\nx\n" + strings.Repeat("#", MaxHeadingPrefix-10) + " Task 1\ny\n"
	got, _ := extract(t, plan, "1")
	assert.True(t, strings.HasSuffix(got, "Task 1\ny\n"))
}

// A read of one byte at a time must give the same answer as one big read.
func TestTinyReads(t *testing.T) {
	plan := "## Task 1\n```\n## Task 2\n```\nbody\r\n## Task 2\nz"
	var out bytes.Buffer
	_, err := Extract(&oneByteReader{s: plan}, &out, "1")
	require.NoError(t, err)
	assert.Equal(t, oracle(plan, "1"), out.String())
}

type oneByteReader struct {
	s string
	i int
}

func (r *oneByteReader) Read(p []byte) (int, error) {
	if r.i >= len(r.s) {
		return 0, errEOF
	}
	p[0] = r.s[r.i]
	r.i++
	return 1, nil
}

// A size hint only sizes the read buffer: whatever it says (exact, too
// small as for a plan that grew, too large, unknown), the brief is the same.
func TestSizeHintChangesNothing(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	long := strings.Repeat("x", 9000) // longer than the smallest buffer
	pieces := []string{"## Task 1\n", "## Task 2: b\n", "```\n", "body\n", long + "\n", "## Task 12\n", "\r\n", "### Task 2\n"}
	for i := 0; i < 300; i++ {
		var b strings.Builder
		for j := rng.Intn(40); j > 0; j-- {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		plan := b.String()
		want, wantN := extract(t, plan, "2")
		for _, hint := range []int64{-1, 0, 1, int64(len(plan)), int64(len(plan)) / 3, int64(len(plan)) * 2} {
			var out bytes.Buffer
			n, err := ExtractSized(strings.NewReader(plan), &out, "2", hint)
			require.NoError(t, err)
			assert.Equal(t, want, out.String(), "hint %d", hint)
			assert.Equal(t, wantN, n)
		}
	}
}
