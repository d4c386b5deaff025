package compat

import (
	"bytes"
	"math/rand/v2"
	"strings"
)

// pick returns one element of xs.
func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// chance is true with probability p.
func chance(r *rand.Rand, p float64) bool { return r.Float64() < p }

// taskNumbers are the numbers plans use: 1 and 10 (a prefix trap), 1.5 (a
// heading whose number is 1, then ".5"), gaps (missing tasks).
var taskNumbers = []string{"1", "2", "3", "4", "10", "11", "12", "1.5", "01", "2a"}

// genPlan writes a plan in one of the shapes docs/spec.md names and returns it
// with the task numbers its headings use (a number the extraction may find).
func genPlan(r *rand.Rand) ([]byte, []string) {
	var lines []string
	var nums []string
	add := func(s ...string) { lines = append(lines, s...) }

	add(pick(r, "# Implementation Plan", "# Plan: "+pick(r, "widgets", "naïve café", "x"), "Plan without a title line"))
	if chance(r, 0.5) {
		add("", "Goal: build the thing.", "")
	}
	count := r.IntN(6)
	used := map[string]bool{}
	for i := 0; i < count; i++ {
		var n string
		if i < 4 && chance(r, 0.6) {
			n = taskNumbers[i] // mostly in order: 1, 2, 3, 4
		} else {
			n = pick(r, taskNumbers...)
		}
		if used[n] && chance(r, 0.5) {
			n = pick(r, taskNumbers...)
		}
		used[n] = true
		h, real := genHeading(r, n)
		add(h)
		if real {
			nums = append(nums, n)
		}
		add(genBody(r)...)
	}
	if chance(r, 0.3) {
		add(pick(r, "## Final Review", "# Appendix", "### Notes", "Final words"), "Review everything.")
	}
	if chance(r, 0.1) {
		// A task heading inside an unclosed fence at the end of the plan.
		add("```", "## Task "+pick(r, taskNumbers...)+": fenced, never closed")
	}

	eol := "\n"
	mixed := false
	switch {
	case chance(r, 0.15):
		eol = "\r\n"
	case chance(r, 0.08):
		mixed = true
	}
	var b bytes.Buffer
	for i, l := range lines {
		b.WriteString(l)
		last := i == len(lines)-1
		if last && chance(r, 0.2) {
			break // last line without a newline
		}
		if mixed && i%2 == 0 {
			b.WriteString("\r\n")
		} else {
			b.WriteString(eol)
		}
	}
	if chance(r, 0.03) {
		b.Reset() // an empty plan
	}
	return b.Bytes(), nums
}

// genHeading returns a heading line for task n and whether it is a real task
// heading by docs/spec.md tb4 (column 0 hashes, space/tab blanks, "Task").
func genHeading(r *rand.Rand, n string) (string, bool) {
	real := true
	hashes := strings.Repeat("#", 1+r.IntN(6))
	if chance(r, 0.03) {
		hashes = "#######" // seven: still "any number of #"
	}
	sep1 := " "
	if chance(r, 0.3) {
		sep1 = pick(r, "\t", "  ", " \t", "\v", "\f", "\r", "")
		real = real && !strings.ContainsAny(sep1, "\v\f\r") && sep1 != ""
	}
	word := "Task"
	if chance(r, 0.1) {
		word = pick(r, "task", "TASK", "Tasks")
		real = false
	}
	sep2 := " "
	if chance(r, 0.3) {
		sep2 = pick(r, "\t", "  ", "\t ", "\v", "\f", "\r", "")
		real = real && !strings.ContainsAny(sep2, "\v\f\r") && sep2 != ""
	}
	suffix := pick(r, ": Do the thing", "", ":", " - part two", " (optional)", ".", "x")
	prefix := ""
	if chance(r, 0.04) {
		prefix = pick(r, " ", "\t", ">")
		real = false
	}
	return prefix + hashes + sep1 + word + sep2 + n + suffix, real
}

// genBody returns a task body: prose, steps, fences of every kind (closed,
// unclosed, indented, tildes, with a language), headings inside fences,
// non-task headings, long lines, invalid UTF-8 and NUL bytes.
func genBody(r *rand.Rand) []string {
	var out []string
	for k := r.IntN(5); k > 0; k-- {
		switch r.IntN(14) {
		case 0, 1:
			out = append(out, "Some prose about the task.")
		case 2:
			out = append(out, "")
		case 3:
			out = append(out, "- [ ] Step: run `go test ./...`")
		case 4, 5:
			open := pick(r, "```", "```go", "```bash", "~~~", "   ```", "\t```")
			out = append(out, open, "func main() {}", "## Task "+pick(r, taskNumbers...)+": inside a fence")
			if chance(r, 0.8) {
				out = append(out, pick(r, open, "```", "~~~"))
			}
		case 6:
			out = append(out, pick(r, "## Notes", "### Step 1", "#Task 2", "#\tTask\t3", "Task 1 is mentioned here"))
		case 7:
			out = append(out, "bytes \xff\xfe\xc3 invalid utf-8")
		case 8:
			out = append(out, "a NUL \x00 byte")
		case 9:
			if chance(r, 0.3) {
				out = append(out, strings.Repeat("long line ", 2000+r.IntN(20000)))
			}
		case 10:
			out = append(out, "trailing spaces   ", "\ttabbed line")
		case 11:
			out = append(out, "carriage\rreturn inside")
		case 12:
			out = append(out, "```", "```") // an empty fence
		default:
			out = append(out, "Expected: PASS")
		}
	}
	return out
}
