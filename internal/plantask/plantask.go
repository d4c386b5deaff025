// Package plantask extracts one task's text from a markdown implementation
// plan, streaming: it never holds more than one buffer of the plan, however
// long the plan or its lines.
//
// The rules are the bash script's awk program, restated so that they need
// no regular expression and no awk (see Extract). TASK_NUMBER is compared
// literally: awk pasted it into a regular expression, so "1." also matched
// "Task 12"; for digits-only numbers the two agree.
package plantask

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxHeadingPrefix is how many bytes of a line may be needed to decide
// whether it is a task heading, beyond the task number itself. Only a line
// that starts with this many '#', blanks and "Task" characters can need
// more; such a line is refused rather than buffered.
const MaxHeadingPrefix = 1 << 20

// HeadingTooLongError reports a line whose heading prefix exceeds
// MaxHeadingPrefix.
type HeadingTooLongError struct{ Line int64 }

func (e *HeadingTooLongError) Error() string {
	return fmt.Sprintf("line %d starts with more than %d bytes of '#', blanks and \"Task\": too long to tell whether it is a task heading", e.Line, MaxHeadingPrefix)
}

// Extract copies the lines of task from plan to w and returns how many lines
// (newlines) it wrote; zero means the task was not found.
//
// A line is everything up to a newline (a carriage return belongs to the
// line; the last line may lack its newline). A line starting at column 0
// with three backticks toggles "in fence". A line outside a fence (after its
// own toggle) that reads `#…# Task <digits>` — one or more '#', blanks,
// "Task", blanks, a digit, blanks being only space and tab — is a task
// heading and turns "in task" on when its number is task (not followed by
// another digit), off otherwise. Every line while "in task" is on, headings
// and fences included, is written followed by a newline.
func Extract(plan io.Reader, w io.Writer, task string) (lines int64, err error) {
	return ExtractSized(plan, w, task, -1)
}

// ExtractSized is Extract for a plan known to be size bytes long (-1 when
// unknown): a plan shorter than the read buffer gets a buffer that just
// holds it, so a short plan does not pay for a megabyte it never uses. A
// plan that grows while it is read is still read whole; only a heading
// prefix longer than the smaller buffer would then be refused.
func ExtractSized(plan io.Reader, w io.Writer, task string, size int64) (lines int64, err error) {
	bufSize := MaxHeadingPrefix + len(task) + 64
	if size >= 0 && size < int64(bufSize) {
		bufSize = max(int(size)+1, 4096)
	}
	r := bufio.NewReaderSize(plan, bufSize)
	out := bufio.NewWriterSize(w, 64<<10)
	var inFence, inTask bool
	var lineNo int64
	for {
		chunk, rerr := r.ReadSlice('\n')
		if len(chunk) == 0 && rerr != nil {
			if rerr == io.EOF {
				break
			}
			return lines, rerr
		}
		lineNo++
		whole := rerr == nil || rerr == io.EOF // else bufio.ErrBufferFull: the line goes on
		if rerr != nil && rerr != io.EOF && !errors.Is(rerr, bufio.ErrBufferFull) {
			return lines, rerr
		}
		text := bytes.TrimSuffix(chunk, []byte("\n"))
		if bytes.HasPrefix(text, []byte("```")) {
			inFence = !inFence
		}
		if !inFence {
			decided, heading, match := Classify(text, whole, task)
			if !decided {
				return lines, &HeadingTooLongError{Line: lineNo}
			}
			if heading {
				inTask = match
			}
		}
		if !inTask {
			if err := skipRest(r, whole); err != nil {
				return lines, err
			}
			if rerr == io.EOF {
				break
			}
			continue
		}
		if _, err := out.Write(text); err != nil {
			return lines, err
		}
		if !whole {
			if rerr, err = copyRest(r, out); err != nil {
				return lines, err
			}
		}
		if err := out.WriteByte('\n'); err != nil {
			return lines, err
		}
		lines++
		if rerr == io.EOF {
			break
		}
	}
	return lines, out.Flush()
}

// skipRest discards the remainder of a line whose first chunk was not whole.
func skipRest(r *bufio.Reader, whole bool) error {
	for !whole {
		_, err := r.ReadSlice('\n')
		if err == nil || err == io.EOF {
			return nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
	return nil
}

// copyRest writes the remainder of a line, without its newline, to w and
// returns io.EOF when the plan ended with that line.
func copyRest(r *bufio.Reader, w io.Writer) (eof error, err error) {
	for {
		chunk, rerr := r.ReadSlice('\n')
		if rerr != nil && rerr != io.EOF && !errors.Is(rerr, bufio.ErrBufferFull) {
			return nil, rerr
		}
		if _, err := w.Write(bytes.TrimSuffix(chunk, []byte("\n"))); err != nil {
			return nil, err
		}
		if rerr == nil {
			return nil, nil
		}
		if rerr == io.EOF {
			return io.EOF, nil
		}
	}
}

// Classify decides from the start of a line (line; whole says whether it is
// the entire line) whether it is a task heading and whether it is task's.
// decided is false when line is not whole and too short to tell.
func Classify(line []byte, whole bool, task string) (decided, heading, match bool) {
	undecided := func() (bool, bool, bool) {
		if whole {
			return true, false, false
		}
		return false, false, false
	}
	i := 0
	for i < len(line) && line[i] == '#' {
		i++
	}
	if i == len(line) && i > 0 || len(line) == 0 {
		return undecided()
	}
	if i == 0 {
		return true, false, false
	}
	j := skipBlanks(line, i)
	if j == i {
		return true, false, false
	}
	if j == len(line) {
		return undecided()
	}
	const word = "Task"
	for k := 0; k < len(word); k++ {
		if j+k == len(line) {
			return undecided()
		}
		if line[j+k] != word[k] {
			return true, false, false
		}
	}
	rest := line[j+len(word):] // starts with the blanks before the number
	b := skipBlanks(rest, 0)
	if b == 0 {
		if len(rest) == 0 {
			return undecided()
		}
		return true, false, false
	}
	if b == len(rest) {
		return undecided()
	}
	if !isDigit(rest[b]) {
		return true, false, false
	}
	// A task heading. Is it task's? The number must follow at least one
	// of the b blanks, literally, and not be followed by a digit.
	need := b + len(task) + 1
	if len(rest) < need && !whole {
		return false, true, false
	}
	return true, true, matchNumber(rest, b, task)
}

// matchNumber reports whether rest (blanks[0:b] then a digit) matches the
// tail `[ \t]+<task>([^0-9]|$)` of the heading pattern with task literal.
func matchNumber(rest []byte, b int, task string) bool {
	p := 0
	for p < len(task) && (task[p] == ' ' || task[p] == '\t') {
		p++
	}
	if p < len(task) {
		// task has a non-blank core, so its blank prefix must end the
		// blank run exactly: the core starts at rest[b].
		k := b - p
		return k >= 1 && followsLiterally(rest, k, task)
	}
	// task is all blanks (or empty): it must fit inside the blank run after
	// at least one blank, ending before the digit, which would otherwise be
	// the character after it. The leftmost fit is the one to test.
	if b < 2 {
		return false
	}
	at := bytes.Index(rest[1:b], []byte(task))
	return at >= 0 && 1+at+len(task) < b
}

// followsLiterally reports whether rest[k:] starts with task and the byte
// after it is not a digit (or there is none).
func followsLiterally(rest []byte, k int, task string) bool {
	if !bytes.HasPrefix(rest[k:], []byte(task)) {
		return false
	}
	end := k + len(task)
	return end == len(rest) || !isDigit(rest[end])
}

func skipBlanks(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
