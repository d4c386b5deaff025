package plantask

import (
	"bytes"
	"io"
	"testing"
	"unicode/utf8"
)

var errEOF = io.EOF

// FuzzExtract checks that extraction never panics, that it agrees with the
// regular-expression statement of the rules, and that every line it emits
// is a line of the input.
func FuzzExtract(f *testing.F) {
	f.Add([]byte("# Plan\n## Task 1: a\nx\n```\n## Task 2\n```\n## Task 2\ny"), "1")
	f.Add([]byte("##\tTask\t10\r\n~~~\n  ```\n## Task 1\n"), "10")
	f.Add([]byte("## Task  1\n"), " ")
	f.Add([]byte("\xff## Task 1\x00\n"), "1.")
	f.Fuzz(func(t *testing.T, plan []byte, task string) {
		var out bytes.Buffer
		n, err := Extract(bytes.NewReader(plan), &out, task)
		if err != nil {
			t.Fatalf("error on in-memory plan: %v", err)
		}
		got := out.String()
		if int64(bytes.Count(out.Bytes(), []byte("\n"))) != n {
			t.Fatalf("count %d does not match %q", n, got)
		}
		// The oracle's regexp cannot hold invalid UTF-8 in its pattern.
		if utf8.ValidString(task) {
			if want := oracle(string(plan), task); got != want {
				t.Fatalf("got %q want %q", got, want)
			}
		}
		input := map[string]bool{}
		for _, l := range bytes.SplitAfter(plan, []byte("\n")) {
			input[string(bytes.TrimSuffix(l, []byte("\n")))] = true
		}
		for _, l := range bytes.SplitAfter(out.Bytes(), []byte("\n")) {
			if len(l) == 0 {
				continue
			}
			if !input[string(bytes.TrimSuffix(l, []byte("\n")))] {
				t.Fatalf("emitted line %q is not a line of the input", l)
			}
		}
	})
}
