package compat

import (
	"bytes"
	"regexp"
	"strings"
)

// toolErrorPatterns recognise the only stderr lines of the reference whose
// bytes ours cannot reproduce because bash or a coreutil wrote them, not the
// scripts: each captures the path (or command) the message is about.
//
//	/abs/dir/task-brief: line 28: out/x.md: No such file or directory   (bash redirection)
//	/abs/dir/sdd-workspace: line 37: git: command not found              (bash, git not on PATH)
//	/abs/dir/sdd-workspace: line 35: /t/git: cannot execute: required file not found (bash, git's #! interpreter missing)
//	/abs/dir/sdd-workspace: line 35: /t/git: cannot execute binary file: Exec format error (bash, git not a format)
//	mkdir: cannot create directory '/r/.superpowers': Not a directory    (mkdir -p)
//	awk: cannot open plan.md (No such file or directory)                 (awk opening the plan)
var toolErrorPatterns = []*regexp.Regexp{
	regexp.MustCompile(`^/.*/(?:sdd-workspace|task-brief|review-package): line [0-9]+: (.*): (?:` + strerrors + `|command not found|cannot execute: required file not found|cannot execute binary file: Exec format error)$`),
	regexp.MustCompile(`^mkdir: cannot create directory '(.*)': (?:` + strerrors + `)$`),
	regexp.MustCompile(`^awk: cannot open (.*) \((?:` + strerrors + `)\)$`),
}

// strerrors are the C library messages those tools end their lines with.
const strerrors = `No such file or directory|Is a directory|Not a directory|Permission denied|File exists|Read-only file system|No space left on device|Too many levels of symbolic links|File name too long`

// toolErrorEquivalent is the one normalisation the checker applies to
// stderr (docs/spec.md, the preamble on byte-identical stderr): ours may stand in for a message written by bash or
// a coreutil in place of the reference's own words. It accepts only when,
// after removing the lines both stderrs share at the start and at the end
// (git's fatal lines, the scripts' own "bad BASE" lines), the reference has
// exactly one line left and it matches a toolErrorPatterns entry, and ours
// has exactly one line left that names the same path (or command). Exit
// statuses are compared separately and must be equal. Everything else on
// stderr must be byte-identical.
func toolErrorEquivalent(ref, ours []byte) bool {
	r, okR := splitLines(ref)
	o, okO := splitLines(ours)
	if !okR || !okO {
		return false
	}
	for len(r) > 0 && len(o) > 0 && r[0] == o[0] {
		r, o = r[1:], o[1:]
	}
	for len(r) > 0 && len(o) > 0 && r[len(r)-1] == o[len(o)-1] {
		r, o = r[:len(r)-1], o[:len(o)-1]
	}
	if len(r) != 1 || len(o) != 1 {
		return false
	}
	for _, re := range toolErrorPatterns {
		if m := re.FindStringSubmatch(r[0]); m != nil {
			// An empty OUTFILE has no name to look for: one line suffices.
			return strings.Contains(o[0], m[1])
		}
	}
	return false
}

// splitLines splits newline-terminated text into its lines; false when the
// text does not end in a newline (a message always does).
func splitLines(b []byte) ([]string, bool) {
	if len(b) == 0 {
		return nil, true
	}
	if !bytes.HasSuffix(b, []byte("\n")) {
		return nil, false
	}
	return strings.Split(string(b[:len(b)-1]), "\n"), true
}
