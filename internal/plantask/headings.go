package plantask

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Heading is one task heading of a plan: the task's number as the
// heading writes it, and the rest of the heading (its title).
type Heading struct{ Number, Title string }

// maxTitle bounds the title kept of a heading; the number is never cut.
const maxTitle = 200

// Tasks lists a plan's task headings in plan order, each number once (its
// first heading), by Extract's rules: a heading inside a ``` fence does
// not count. It streams the plan; a line longer than the buffer is only
// looked at as far as deciding whether it is a heading needs.
func Tasks(plan io.Reader) ([]Heading, error) {
	r := bufio.NewReaderSize(plan, MaxHeadingPrefix+64)
	var out []Heading
	seen := map[string]bool{}
	inFence := false
	var lineNo int64
	for {
		chunk, rerr := r.ReadSlice('\n')
		if len(chunk) == 0 && rerr != nil {
			if rerr == io.EOF {
				return out, nil
			}
			return out, rerr
		}
		lineNo++
		whole := rerr == nil || rerr == io.EOF
		if rerr != nil && rerr != io.EOF && !errors.Is(rerr, bufio.ErrBufferFull) {
			return out, rerr
		}
		text := bytes.TrimSuffix(chunk, []byte("\n"))
		if bytes.HasPrefix(text, []byte("```")) {
			inFence = !inFence
		}
		if !inFence {
			decided, heading, _ := Classify(text, whole, "")
			if !decided {
				return out, &HeadingTooLongError{Line: lineNo}
			}
			if heading {
				if h := headingOf(text); !seen[h.Number] {
					seen[h.Number] = true
					out = append(out, h)
				}
			}
		}
		if err := skipRest(r, whole); err != nil {
			return out, err
		}
		if rerr == io.EOF {
			return out, nil
		}
	}
}

// headingOf reads the number and title of a line Classify found to be a
// task heading: #…# Task <digits><rest>; the title is the rest without
// its leading blanks, colon or dot, and trailing blanks and CR.
func headingOf(line []byte) Heading {
	i := bytes.Index(line, []byte("Task")) + len("Task")
	i = skipBlanks(line, i)
	j := i
	for j < len(line) && isDigit(line[j]) {
		j++
	}
	title := bytes.TrimLeft(line[j:], " \t:.")
	title = bytes.TrimRight(title, " \t\r")
	if len(title) > maxTitle {
		title = title[:maxTitle]
	}
	return Heading{Number: string(line[i:j]), Title: string(title)}
}

// Constraints copies the plan's constraint sections to w: a heading (one
// or more '#' and a space) outside a ``` fence whose line holds
// "constraint" in any case starts one, with everything under it; it ends
// at the next heading outside a fence of its level or above, or at a task
// heading. These are the rules every subagent of a run is told to keep.
func Constraints(plan io.Reader, w io.Writer) error {
	r := bufio.NewReaderSize(plan, 64<<10)
	out := bufio.NewWriter(w)
	inFence, on := false, false
	level := 0
	var held heldLines
	for {
		chunk, rerr := r.ReadSlice('\n')
		if len(chunk) == 0 && rerr != nil {
			if rerr == io.EOF {
				break
			}
			return rerr
		}
		whole := rerr == nil || rerr == io.EOF
		if rerr != nil && rerr != io.EOF && !errors.Is(rerr, bufio.ErrBufferFull) {
			return rerr
		}
		text := bytes.TrimSuffix(chunk, []byte("\n"))
		if bytes.HasPrefix(text, []byte("```")) {
			inFence = !inFence
		}
		if n := headingLevel(text); !inFence && n > 0 && whole {
			fields := bytes.Fields(text)
			if on && (n <= level || len(fields) > 1 && string(fields[1]) == "Task") {
				on = false
				if err := held.end(out); err != nil {
					return err
				}
			}
			if !on && bytes.Contains(bytes.ToLower(text), []byte("constraint")) {
				on, level = true, n
			}
		}
		if on && whole && !inFence && (len(bytes.TrimSpace(text)) == 0 || isRule(text)) {
			// A blank line or a rule: the section's end, or not; a rule
			// that ends a section (writing-plans puts "---" after the
			// plan's header) is no constraint.
			held.lines = append(held.lines, append([]byte(nil), text...))
		} else if on {
			if err := held.flush(out); err != nil {
				return err
			}
			if _, err := out.Write(text); err != nil {
				return err
			}
			if !whole {
				var err error
				if rerr, err = copyRest(r, out); err != nil {
					return err
				}
			}
			if err := out.WriteByte('\n'); err != nil {
				return err
			}
		} else if err := skipRest(r, whole); err != nil {
			return err
		}
		if rerr == io.EOF {
			break
		}
	}
	if err := held.end(out); err != nil {
		return err
	}
	return out.Flush()
}

// heldLines are a section's blank lines and rules not yet written: all of
// them when more of the section follows, only the blank ones at its end.
type heldLines struct{ lines [][]byte }

func (h *heldLines) flush(w *bufio.Writer) error { return h.write(w, true) }
func (h *heldLines) end(w *bufio.Writer) error   { return h.write(w, false) }

func (h *heldLines) write(w *bufio.Writer, rules bool) error {
	for _, l := range h.lines {
		if !rules && isRule(l) {
			continue
		}
		if _, err := w.Write(l); err != nil {
			return err
		}
		if err := w.WriteByte('\n'); err != nil {
			return err
		}
	}
	h.lines = h.lines[:0]
	return nil
}

// isRule reports a Markdown thematic break: three or more of one of -, *
// or _, blanks between them allowed, up to three blanks before.
func isRule(line []byte) bool {
	t := bytes.TrimRight(line, " \t\r")
	if lead := len(t) - len(bytes.TrimLeft(t, " ")); lead > 3 {
		return false
	}
	t = bytes.ReplaceAll(bytes.ReplaceAll(bytes.TrimSpace(t), []byte(" "), nil), []byte("\t"), nil)
	return len(t) >= 3 && (bytes.Count(t, []byte("-")) == len(t) || bytes.Count(t, []byte("*")) == len(t) || bytes.Count(t, []byte("_")) == len(t))
}

// headingLevel is the number of '#' a markdown heading line starts with
// when a space follows them, else 0.
func headingLevel(line []byte) int {
	n := 0
	for n < len(line) && line[n] == '#' {
		n++
	}
	if n == 0 || n == len(line) || line[n] != ' ' {
		return 0
	}
	return n
}
