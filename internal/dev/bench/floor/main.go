//go:build unix

// Command floor is the least a Go program can do to be each of the three
// commands on their common path: the yardstick `make bench` holds ours
// against. It starts exactly the git processes the command must start, in
// the command's order, side by side where the command runs them so (the
// package's four calls, in a repository that is no partial clone), writes
// the same files with the same bytes and prints the same line, and does
// nothing else: no argument
// checking beyond the plan's, no error messages, no signal handling, no
// framework, no allocation it can avoid. It is never shipped.
//
//	floor sdd-workspace PLAN_FILE
//	floor task-brief PLAN_FILE TASK_NUMBER
//	floor review-package PLAN_FILE BASE HEAD
//	floor                          (nothing: the cost of starting a Go program)
//
// Each step below is one the contract (docs/spec.md) requires; a failure
// just exits 1.
package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/sdd-go/sdd-go/internal/plantask"
)

func main() {
	if len(os.Args) < 2 {
		return
	}
	args := os.Args[2:]
	switch os.Args[1] {
	case "sdd-workspace":
		os.Stdout.WriteString(workspace(args[0], gitOut("rev-parse", "--show-toplevel")) + "\n")
	case "task-brief":
		taskBrief(args[0], args[1])
	case "review-package":
		reviewPackage(args[0], args[1], args[2])
	}
}

func check(err error) {
	if err != nil {
		os.Exit(1)
	}
}

// gitPath is git's place on PATH: a command must look it up, as the shell
// does, at one stat per directory until found.
var gitPath = func() string {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		p := dir + "/git"
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	os.Exit(1)
	return ""
}()

// git runs git with args, its stdout going to out (a file, or a pipe's
// write end), inheriting stdin and stderr. It starts git with ForkExec, the
// least the Go runtime offers, and reaps it with wait4.
func git(out *os.File, args ...string) int {
	pid, err := syscall.ForkExec(gitPath, append([]string{"git"}, args...),
		&syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, out.Fd(), 2}})
	check(err)
	return pid
}

func reap(pid int) {
	var ws syscall.WaitStatus
	_, err := syscall.Wait4(pid, &ws, 0, nil)
	if err != nil || ws.ExitStatus() != 0 {
		os.Exit(1)
	}
}

// gitOut runs git and returns its stdout without trailing newlines, as $(…).
func gitOut(args ...string) string {
	r, w, err := os.Pipe()
	check(err)
	pid := git(w, args...)
	w.Close()
	out, err := io.ReadAll(r)
	check(err)
	reap(pid)
	return string(bytes.TrimRight(out, "\n"))
}

// start starts git with its stdout read into memory; the returned
// function waits for it and returns the output.
func start(args ...string) func() []byte {
	r, w, err := os.Pipe()
	check(err)
	pid := git(w, args...)
	w.Close()
	done := make(chan []byte, 1)
	go func() {
		out, err := io.ReadAll(r)
		check(err)
		reap(pid)
		done <- out
	}()
	return func() []byte { return <-done }
}

// workspace makes plan's workspace under root and returns it: the plan
// must be a regular file; the directory is <root>/.superpowers/sdd/<slug>;
// its marker must name the plan (written when missing, compared when not),
// which takes the plan's and the root's real paths; and the .gitignore is
// rewritten.
func workspace(plan, root string) string {
	fi, err := os.Stat(plan)
	check(err)
	if !fi.Mode().IsRegular() {
		os.Exit(2)
	}
	base := root + "/.superpowers/sdd"
	dir := base + "/" + strings.TrimSuffix(filepath.Base(plan), ".md")
	check(os.MkdirAll(dir, 0o777))
	real, err := filepath.EvalSymlinks(plan)
	check(err)
	realRoot, err := filepath.EvalSymlinks(root)
	check(err)
	abs := real
	if !filepath.IsAbs(real) {
		wd, err := os.Getwd()
		check(err)
		abs = filepath.Join(wd, real)
	}
	id, err := filepath.Rel(realRoot, abs)
	check(err)
	if strings.HasPrefix(id, "..") {
		id = abs // outside the repository: the absolute path
	}
	marker := dir + "/plan-path"
	if b, err := os.ReadFile(marker); err == nil {
		if string(b) != id+"\n" {
			os.Exit(1) // another plan's: the command moves on; the floor's cases never collide
		}
	} else {
		check(os.WriteFile(marker, []byte(id+"\n"), 0o666))
	}
	check(os.WriteFile(base+"/.gitignore", []byte("*\n"), 0o666))
	return dir
}

// output makes the temporary file a complete output is renamed from.
func output(path string) *os.File {
	f, err := os.OpenFile(filepath.Dir(path)+"/.sdd-floor.tmp", os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
	check(err)
	return f
}

func publish(f *os.File, path string) {
	check(f.Close())
	check(os.Rename(f.Name(), path))
}

func taskBrief(plan, n string) {
	dir := workspace(plan, gitOut("rev-parse", "--show-toplevel"))
	path := dir + "/task-" + n + "-brief.md"
	out := output(path)
	in, err := os.Open(plan)
	check(err)
	fi, err := in.Stat()
	check(err)
	lines, err := plantask.ExtractSized(in, out, n, fi.Size())
	check(err)
	publish(out, path)
	os.Stdout.WriteString("wrote " + path + ": " + strconv.FormatInt(lines, 10) + " lines\n")
}

func reviewPackage(plan, base, head string) {
	rng := base + ".." + head
	// The calls before the package, in the script's order, one after another.
	gitOut("rev-parse", "--verify", "--quiet", base)
	gitOut("rev-parse", "--verify", "--quiet", head)
	dir := workspace(plan, gitOut("rev-parse", "--show-toplevel"))
	path := dir + "/review-" + gitOut("rev-parse", "--short", base) + ".." + gitOut("rev-parse", "--short", head) + ".diff"
	out := output(path)
	// The package's four calls at once: the commit list straight into the
	// package, the stat and the count into memory, the diff into a file
	// beside the package; then the parts in order, the diff copied in by
	// the kernel.
	_, err := out.WriteString("# Review package: " + rng + "\n\n## Commits\n")
	check(err)
	log := git(out, "log", "--oneline", rng)
	stat := start("diff", "--stat", rng)
	scratch, err := os.CreateTemp(dir, ".sdd-floor-diff")
	check(err)
	diff := git(scratch, "diff", "-U10", rng)
	count := start("rev-list", "--count", rng)
	reap(log)
	_, err = out.WriteString("\n## Files changed\n")
	check(err)
	_, err = out.Write(stat())
	check(err)
	_, err = out.WriteString("\n## Diff\n")
	check(err)
	reap(diff)
	_, err = scratch.Seek(0, io.SeekStart)
	check(err)
	_, err = io.Copy(out, scratch)
	check(err)
	scratch.Close()
	os.Remove(scratch.Name())
	size, err := out.Seek(0, io.SeekCurrent)
	check(err)
	commits := string(bytes.TrimRight(count(), "\n"))
	publish(out, path)
	os.Stdout.WriteString("wrote " + path + ": " + commits + " commit(s), " + strconv.FormatInt(size, 10) + " bytes\n")
}
