package compat

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// markerFile matches the workspace marker our sdd-workspace writes
// (docs/spec.md diff2): present in ours, absent in the reference.
var markerFile = regexp.MustCompile(`(^|/)\.superpowers/sdd/[^/]+/plan-path$`)

// gitignoreFile matches the .gitignore beside the workspaces: ours writes
// it before the workspace is looked for (docs/spec.md ws5, diff2), the
// reference only after its mkdir -p succeeded.
var gitignoreFile = regexp.MustCompile(`(^|/)\.superpowers/sdd/\.gitignore$`)

// defaultOutfile matches the files the tools write when OUTFILE is omitted.
var defaultOutfile = regexp.MustCompile(`(^|/)\.superpowers/sdd/[^/]+/(task-.*-brief\.md|review-.*\.diff)$`)

// compareSides lists every difference between the reference (ref) and our
// (ours) run of s that docs/spec.md does not make deliberate; notes name the
// differences it accepted (difference 3, a normalised tool error).
func compareSides(s *Scenario, ref, ours *sideResult, root string) (diffs, notes []string) {
	for i := range s.steps {
		r, o := ref.steps[i], ours.steps[i]
		where := ""
		if len(s.steps) > 1 {
			where = fmt.Sprintf("step %d: ", i+1)
		}
		if r.err != "" || o.err != "" {
			diffs = append(diffs, fmt.Sprintf("%strouble: ref %q, ours %q", where, r.err, o.err))
		}
		if r.exit != o.exit {
			diffs = append(diffs, fmt.Sprintf("%sexit: ref %d, ours %d", where, r.exit, o.exit))
		}
		if !bytes.Equal(r.stdout, o.stdout) {
			diffs = append(diffs, where+"stdout: "+firstDifference(r.stdout, o.stdout))
		}
		if !bytes.Equal(r.stderr, o.stderr) {
			if r.exit == o.exit && toolErrorEquivalent(r.stderr, o.stderr) {
				notes = append(notes, where+"tool error normalised")
			} else {
				diffs = append(diffs, where+"stderr: "+firstDifference(r.stderr, o.stderr))
			}
		}
	}
	for _, d := range compareTrees(ref.final, ours.final) {
		if d.ref == nil && d.ours.kind == 'f' && markerFile.MatchString(d.path) {
			continue // difference 2: the marker
		}
		if d.ref == nil && gitignoreOnFailure(d, ref) {
			notes = append(notes, "difference 2: the .gitignore of a failed step")
			continue
		}
		if partialOutfileOfSomeStep(s, d, ref, ours, root) {
			notes = append(notes, "difference 3: "+d.String())
			continue
		}
		diffs = append(diffs, "tree: "+d.String())
	}
	return diffs, notes
}

// gitignoreOnFailure is difference 2's .gitignore (ws5): only ours has
// .superpowers/sdd/.gitignore, exactly as it writes it, and the reference
// failed a step, where its mkdir -p left .superpowers/sdd/ without one.
func gitignoreOnFailure(d treeDiff, ref *sideResult) bool {
	if d.ours == nil || d.ours.kind != 'f' || string(d.ours.data) != "*\n" || !gitignoreFile.MatchString(d.path) {
		return false
	}
	for _, st := range ref.steps {
		if st.exit != 0 {
			return true
		}
	}
	return false
}

// partialOutfileOfSomeStep is difference 3 for path d.path: some step
// failed alike on both sides and d.path is that step's OUTFILE, left as
// partialOutfile describes.
func partialOutfileOfSomeStep(s *Scenario, d treeDiff, ref, ours *sideResult, root string) bool {
	for i, st := range s.steps {
		r, o := ref.steps[i], ours.steps[i]
		if o.exit == 0 || o.exit != r.exit {
			continue
		}
		if partialOutfile(d, ours.pre[i], explicitOutfile(st, root, ours.pre[i])) {
			return true
		}
		// A default brief whose TASK_NUMBER holds "/" or "..": the kernel
		// put it outside the workspace (task-../../x-brief.md).
		for _, p := range defaultBriefPaths(st, ref.final, root) {
			if p == d.path && partialOutfile(d, ours.pre[i], p) {
				return true
			}
		}
	}
	return false
}

// workspaceDir matches a workspace directory (relative to the root).
var workspaceDir = regexp.MustCompile(`(^|/)\.superpowers/sdd/[^/]+$`)

// defaultBriefPaths are where task-brief's default OUTFILE
// <workspace>/task-<N>-brief.md lands, resolved by the kernel's rules in
// snap, for every workspace directory snap holds (the reference's final
// tree: the workspace exists there, and the task-.. or task-1 directories
// the path runs through are the scenario's own).
func defaultBriefPaths(st step, snap snapshot, root string) []string {
	if st.cmd != "task-brief" || len(st.args) != 2 {
		return nil
	}
	var out []string
	for p, e := range snap {
		if e.kind == 'd' && workspaceDir.MatchString(p) {
			if k, ok := kernelPath(snap, root, p+"/task-"+st.args[1]+"-brief.md"); ok {
				out = append(out, k)
			}
		}
	}
	return out
}

// explicitOutfile is the path (relative to the root) the step was told to
// write, resolved as the kernel resolves it in pre: every symlink on the
// way and at the end followed (a write goes through a symlink to its
// target), every ".." applied to the directory reached so far. "" for the
// default OUTFILE or a path outside the scenario.
func explicitOutfile(st step, root string, pre snapshot) string {
	n := map[string]int{"task-brief": 3, "review-package": 4}[st.cmd]
	if n == 0 || len(st.args) != n {
		return ""
	}
	a := strings.ReplaceAll(st.args[n-1], "$ROOT", root)
	if !filepath.IsAbs(a) {
		a = st.dir + "/" + a
	}
	p, ok := kernelPath(pre, root, a)
	if !ok {
		return ""
	}
	return p
}

// maxLinkHops is the kernel's bound on symlinks followed in one lookup.
const maxLinkHops = 40

// kernelPath resolves p the way open(2) would in the tree snap describes:
// p is absolute (under root) or relative to the root; symlinks are
// followed where they stand, and ".." is taken from the directory reached
// so far, never lexically. It returns the physical path relative to the
// root; false when p leaves the scenario, loops, or passes through a
// component that is missing or not a directory (the kernel fails there:
// ENOENT, ENOTDIR). Only the last component may be missing: a write
// creates it.
func kernelPath(snap snapshot, root, p string) (string, bool) {
	if path.IsAbs(p) {
		if root == "" {
			return "", false
		}
		rest, ok := strings.CutPrefix(p, root+"/")
		if !ok {
			return "", false
		}
		p = rest
	}
	var cur []string
	todo := strings.Split(p, "/")
	hops := 0
	for len(todo) > 0 {
		c := todo[0]
		todo = todo[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return "", false
			}
			cur = cur[:len(cur)-1]
			continue
		}
		next := strings.Join(append(cur[:len(cur):len(cur)], c), "/")
		if e, ok := snap[next]; ok && e.kind == 'l' {
			if hops++; hops > maxLinkHops {
				return "", false
			}
			t := e.target
			if path.IsAbs(t) {
				rest, ok := strings.CutPrefix(t, root+"/")
				if root == "" || !ok {
					return "", false
				}
				t, cur = rest, nil
			}
			todo = append(strings.Split(t, "/"), todo...)
			continue
		}
		if len(todo) > 0 && snap[next].kind != 'd' {
			return "", false
		}
		cur = append(cur, c)
	}
	return strings.Join(cur, "/"), true
}

// partialOutfile is difference 3: the command failed on both sides and the
// reference left an empty or partial OUTFILE that ours did not create, or
// ours left the existing OUTFILE as it was.
func partialOutfile(d treeDiff, pre snapshot, outfile string) bool {
	if d.ref == nil || d.ref.kind != 'f' {
		return false
	}
	if outfile != "" && d.path != outfile || outfile == "" && !defaultOutfile.MatchString(d.path) {
		return false
	}
	if len(d.ref.data) > 0 && !bytes.HasPrefix(d.ref.data, []byte("# Review package: ")) {
		return false
	}
	before, existed := pre[d.path]
	switch {
	case d.ours == nil:
		return !existed
	default:
		return existed && before.equal(*d.ours)
	}
}

// firstDifference shows where two outputs part: the offset and a short
// excerpt of each side from a little before it.
func firstDifference(ref, ours []byte) string {
	i := 0
	for i < len(ref) && i < len(ours) && ref[i] == ours[i] {
		i++
	}
	from := max(0, i-20)
	cut := func(b []byte) string {
		if from >= len(b) {
			return `""`
		}
		end := min(len(b), from+70)
		s := fmt.Sprintf("%q", b[from:end])
		if end < len(b) {
			s += "…"
		}
		if from > 0 {
			s = "…" + s
		}
		return s
	}
	return fmt.Sprintf("at byte %d: ref %s, ours %s", i, cut(ref), cut(ours))
}

// keep writes the reproduction folder of a failing scenario.
func (h *harness) keep(s *Scenario, stage, root string, after [2]string, sides [2]*sideResult, diffs []string) error {
	dir := filepath.Join(h.cfg.Keep, fmt.Sprintf("s%04d", s.ID))
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := copyTree(stage, filepath.Join(dir, "scenario")); err != nil {
		return err
	}
	for i, name := range []string{"ref", "ours"} {
		if after[i] != "" {
			if err := copyTree(after[i], filepath.Join(dir, name+"-after")); err != nil {
				return err
			}
		}
		for j, o := range sides[i].steps {
			base := filepath.Join(dir, fmt.Sprintf("%s.step%d", name, j+1))
			if err := os.WriteFile(base+".stdout", o.stdout, 0o644); err != nil {
				return err
			}
			if err := os.WriteFile(base+".stderr", o.stderr, 0o644); err != nil {
				return err
			}
			if err := os.WriteFile(base+".exit", fmt.Appendf(nil, "%d\n", o.exit), 0o644); err != nil {
				return err
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Scenario s%04d (seed %d), expected differences: %q\n", s.ID, h.cfg.Seed, s.expect)
	fmt.Fprintf(&b, "# %s\n", s.CommandLine())
	b.WriteString("# Differences:\n")
	for _, d := range diffs {
		fmt.Fprintf(&b, "#   %s\n", d)
	}
	b.WriteString("# Usage: repro.sh TOOLDIR   (the reference scripts' directory or ours)\n")
	b.WriteString("# The tree must sit at ROOT: absolute paths inside it (a linked worktree) name it.\n")
	b.WriteString("set -u\nTOOLS=$(cd \"$1\" && pwd)\n")
	fmt.Fprintf(&b, "ROOT=%s\n", shellQuote(root))
	b.WriteString("rm -rf \"$ROOT\" && mkdir -p \"$(dirname \"$ROOT\")\" && cp -a \"$(dirname \"$0\")/scenario\" \"$ROOT\"\n")
	b.WriteString("mkdir -p \"$ROOT.tools\"\n")
	for _, t := range append(append([]string{}, scriptTools...), "git") {
		if s.git != gitOK && t == "git" {
			continue
		}
		fmt.Fprintf(&b, "ln -sf \"$(command -v %s)\" \"$ROOT.tools/%s\"\n", t, t)
	}
	if bad, ok := badGits[s.git]; ok {
		fmt.Fprintf(&b, "rm -f \"$ROOT.tools/git\" && printf '%s' > \"$ROOT.tools/git\" && chmod %o \"$ROOT.tools/git\"\n", printfFormat(bad.data), bad.perm)
	}
	env := h.env(s, root)
	env[0] = "PATH=$ROOT.tools"
	for i, e := range env {
		k, v, _ := strings.Cut(e, "=")
		env[i] = k + "=" + strings.ReplaceAll(shellQuote(strings.ReplaceAll(v, root, "$ROOT")), "$ROOT", `"$ROOT"`)
	}
	for _, st := range s.steps {
		fmt.Fprintf(&b, "(cd \"$ROOT\"/%s && env -i %s PWD=\"$ROOT\"/%s \"$TOOLS/%s\"", shellQuote(st.dir), strings.Join(env, " "), shellQuote(st.dir), st.cmd)
		for _, a := range st.args {
			a = h.resolveArg(s, a, "$ROOT")
			q := shellQuote(a)
			if strings.Contains(a, "$ROOT") {
				q = `"` + strings.ReplaceAll(a, `"`, `\"`) + `"`
			}
			b.WriteString(" " + q)
		}
		b.WriteString("); echo \"exit $?\"\n")
	}
	return os.WriteFile(filepath.Join(dir, "repro.sh"), []byte(b.String()), 0o755)
}

// printfFormat writes data as the body of a single-quoted printf format:
// printable bytes as themselves, the rest (NUL included, which no shell
// argument can hold) as octal escapes printf expands.
func printfFormat(data string) string {
	var b strings.Builder
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '%':
			b.WriteString("%%")
		case c == '\\' || c == '\'' || c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\%03o`, c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
