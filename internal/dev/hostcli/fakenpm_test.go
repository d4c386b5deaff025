package hostcli

import (
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// FakeNPM writes an npm stand-in for tests of an install and returns its
// path and the lines of its calls so far (its arguments, a line a call).
// `npm install … --prefix P SPEC` writes each file of files[SPEC], paths
// relative to P, executable, with its content; another spec fails. It is
// a shell script: the test is skipped on Windows.
func FakeNPM(t testing.TB, files map[string]map[string]string) (npm string, calls func() []string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the npm stand-in is a shell script")
	}
	dir := t.TempDir()
	npm, log := filepath.Join(dir, "npm"), filepath.Join(dir, "calls")
	var s strings.Builder
	s.WriteString("#!/bin/sh\necho \"$*\" >> " + shellQuote(log) + "\n" +
		"for a; do spec=$a; done\n" +
		"while [ $# -gt 0 ]; do case $1 in --prefix) shift; prefix=$1 ;; esac; shift; done\n" +
		"case $spec in\n")
	for _, spec := range slices.Sorted(maps.Keys(files)) {
		s.WriteString(shellQuote(spec) + ")\n")
		for _, f := range slices.Sorted(maps.Keys(files[spec])) {
			p := `"$prefix"/` + shellQuote(f)
			s.WriteString("\tmkdir -p \"$(dirname " + p + ")\" && printf '%s' " + shellQuote(files[spec][f]) + " > " + p + " && chmod 755 " + p + " || exit 1\n")
		}
		s.WriteString("\t;;\n")
	}
	s.WriteString("*) echo \"no such package: $spec\" >&2; exit 1 ;;\nesac\n")
	if err := os.WriteFile(npm, []byte(s.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	return npm, func() []string {
		b, err := os.ReadFile(log)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	}
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
