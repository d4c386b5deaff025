package plantask

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sdd-go/sdd-go/internal/lazyre"
)

// A batch is consecutive small tasks of one shape given to one
// implementer, one review and one fix loop (docs/protocol.md, "Batches of
// small tasks"). Whether a task may join one is the controller's to judge
// (it needs no judgment, defines nothing later tasks build on, waits on no
// question for the human); these are the mechanical signals the commands
// read from its text, to propose a batch and to refuse one.
const (
	MaxBatch      = 10 // tasks a batch holds at most
	MaxBatchLines = 40 // lines of a task's text, heading included
	MaxBatchFiles = 2  // files its Files list names
)

// Texts returns the text of each task of numbers (its heading to the next
// task heading, as Extract reads it; the first heading of a number), read
// in one pass of the plan; a text over max bytes is cut there and marked
// by truncated.
func Texts(plan io.Reader, numbers []string, max int) (texts map[string]string, truncated map[string]bool, err error) {
	want := map[string]bool{}
	for _, n := range numbers {
		want[n] = true
	}
	texts, truncated, _, err = readTexts(plan, func(n string) bool { return want[n] }, max)
	return texts, truncated, err
}

// readTexts is Texts for the tasks want takes, with their numbers in
// plan order.
func readTexts(plan io.Reader, want func(string) bool, max int) (texts map[string]string, truncated map[string]bool, order []string, err error) {
	texts, truncated = map[string]string{}, map[string]bool{}
	r := bufio.NewReaderSize(plan, MaxHeadingPrefix+64)
	inFence := false
	cur := ""
	var b bytes.Buffer
	done := func() {
		if cur != "" {
			texts[cur] = b.String()
		}
		cur = ""
		b.Reset()
	}
	var lineNo int64
	for {
		chunk, rerr := r.ReadSlice('\n')
		if len(chunk) == 0 && rerr != nil {
			if rerr == io.EOF {
				done()
				return texts, truncated, order, nil
			}
			return texts, truncated, order, rerr
		}
		lineNo++
		whole := rerr == nil || rerr == io.EOF
		if rerr != nil && rerr != io.EOF && !errors.Is(rerr, bufio.ErrBufferFull) {
			return texts, truncated, order, rerr
		}
		text := bytes.TrimSuffix(chunk, []byte("\n"))
		if bytes.HasPrefix(text, []byte("```")) {
			inFence = !inFence
		}
		if !inFence {
			decided, heading, _ := Classify(text, whole, "")
			if !decided {
				return texts, truncated, order, &HeadingTooLongError{Line: lineNo}
			}
			if heading {
				done()
				if h := headingOf(text); want(h.Number) {
					if _, seen := texts[h.Number]; !seen {
						cur = h.Number
						order = append(order, cur)
					}
				}
			}
		}
		if cur != "" {
			if !whole || b.Len()+len(chunk) > max {
				truncated[cur] = true
			} else {
				b.Write(chunk)
			}
		}
		if err := skipRest(r, whole); err != nil {
			return texts, truncated, order, err
		}
		if rerr == io.EOF {
			done()
			return texts, truncated, order, nil
		}
	}
}

var (
	filesRe    = lazyre.New(`(?i)^\s*\*\*files:?\*\*:?\s*$`)
	fileItemRe = lazyre.New("^\\s*[-*]\\s+(?:\\*\\*)?([A-Za-z]+)(?:\\*\\*)?:\\s*`([^`]+)`")
	stepTestRe = lazyre.New(`(?i)\*\*step [0-9]+:[^*]*\btests?\b`)
	producesRe = lazyre.New(`(?i)^\s*[-*]\s+(?:\*\*)?produces(?:\*\*)?:\s*(.*)$`)
	// nestedItemRe is a list item indented under another.
	nestedItemRe = lazyre.New(`^\s+[-*]\s+(.*)$`)
)

// Unbatchable says why a task with this text cannot join a batch, by the
// mechanical signals: "" when it can. It must be short, name its one or
// two files in a Files list (the change spelled out where the plan puts
// it), have no test of its own (a Test file, a step about a test), and
// produce nothing later tasks build on (its Interfaces' Produces).
func Unbatchable(text string, truncated bool) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if truncated || len(lines) > MaxBatchLines {
		return fmt.Sprintf("its text is over %d lines", MaxBatchLines)
	}
	files, inFiles, inProduces := 0, false, false
	for _, l := range lines {
		if inProduces {
			// A Produces whose items are a nested list under it.
			if m := nestedItemRe().FindStringSubmatch(l); m != nil {
				if !nothing(m[1]) {
					return "it produces something later tasks build on"
				}
				continue
			}
			inProduces = false
		}
		switch {
		case filesRe().MatchString(l):
			inFiles = true
			continue
		case inFiles:
			if m := fileItemRe().FindStringSubmatch(l); m != nil {
				if role := strings.ToLower(m[1]); role == "test" || role == "tests" {
					return "its Files list names a test of its own"
				}
				files++
				continue
			}
			inFiles = false
		}
		if stepTestRe().MatchString(l) {
			return "a step of it is about a test of its own"
		}
		if m := producesRe().FindStringSubmatch(l); m != nil {
			if strings.TrimSpace(m[1]) == "" {
				inProduces = true
			} else if !nothing(m[1]) {
				return "it produces something later tasks build on"
			}
		}
	}
	switch {
	case files == 0:
		return "it has no Files list naming its files"
	case files > MaxBatchFiles:
		return fmt.Sprintf("its Files list names %d files", files)
	}
	return ""
}

func nothing(s string) bool {
	s = strings.ToLower(strings.Trim(strings.TrimSpace(s), ".`*_"))
	return s == "" || s == "none" || s == "nothing" || s == "-" || s == "n/a"
}
