package compat

import (
	"bytes"
	"math/rand/v2"
	"path"
	"regexp"
	"strings"
)

// This file holds the shapes added with the contract's 2026-12-02 revision (docs/spec.md every-kernel-paths, diff2, diff8).
// Most are the paths of "Paths are the kernel's": symlinked directories and
// ".." in PLAN_FILE, OUTFILE, the working directory and TASK_NUMBER, where
// a lexical clean (path.Clean, filepath.Join) names another file than
// open(2) does. Where a lexical reading would land on a real directory, a
// decoy file waits there, so a binary that cleans lexically reads or writes
// the wrong file and the trees differ; where it would land on a missing
// one (./nosuchdir/../x), the kernel fails and the lexical reading does
// not. The rest are the ledgers of difference 2 and the revisions of
// difference 8.

// cwdLinks are symlinks at the scenario root that a command may be run
// through (a shell's `cd lnk-repo/sub/dir`); phys is the directory each
// reaches. One is relative, one absolute.
var cwdLinks = []struct{ name, target, phys string }{
	{"lnk-repo", "repo", "repo"},
	{"lnk-plans", "$ROOT/repo/docs/plans", "repo/docs/plans"},
}

// physical is the directory the kernel reaches through dir (relative to the
// scenario root), given that only cwdLinks are symlinks on the way.
func physical(dir string) string {
	for _, l := range cwdLinks {
		if dir == l.name {
			return l.phys
		}
		if rest, ok := strings.CutPrefix(dir, l.name+"/"); ok {
			return l.phys + "/" + rest
		}
	}
	return dir
}

// spellPlan writes the plan at dir/name as seen from the physical directory
// cwd, sometimes through a symlinked directory or a "..": the shapes where
// the kernel's reading and a lexical one part. It returns the spelling, the
// nodes the spelling needs, and whether the spelling reaches the plan at all
// (./missing/../plan.md does not: the kernel needs "missing" to exist).
func spellPlan(r *rand.Rand, cwd, dir, name string) (string, []node, bool) {
	planRel := dir + "/" + name
	// inner is a real directory beside the plan; link/../name reaches the
	// plan only through it.
	inner := dir + "/inner"
	switch r.IntN(14) {
	case 0, 1: // link/../plan.md, the link elsewhere, a decoy beside it
		at := pick(r, "repo/plink", "outside/plink", "repo/sub/plink")
		if path.Dir(at) == dir {
			at = "outside/plink"
			if dir == "outside" {
				at = "repo/plink"
			}
		}
		target := relPath(path.Dir(at), inner+"/x")
		target = strings.TrimSuffix(target, "/x")
		if chance(r, 0.4) {
			target = "$ROOT/" + inner
		}
		nodes := []node{
			{path: inner, kind: 'd', perm: 0o755},
			{path: at, kind: 'l', target: target},
			// What a lexical clean of link/../name would read instead.
			{path: path.Dir(at) + "/" + name, kind: 'f', perm: 0o644, data: []byte(decoyPlan)},
		}
		spelt := relPath(cwd, at) + "/../" + name
		if chance(r, 0.3) {
			spelt = "$ROOT/" + at + "/../" + name
		}
		return spelt, nodes, true
	case 2: // ./inner/../plan.md through a real directory
		rel := relPath(cwd, inner+"/"+name)
		rel = strings.TrimSuffix(rel, name) + "../" + name
		if !strings.HasPrefix(rel, "../") {
			rel = "./" + rel
		}
		return rel, []node{{path: inner, kind: 'd', perm: 0o755}}, true
	case 3: // ./missing/../plan.md: the kernel needs "missing" to exist
		rel := relPath(cwd, dir+"/nosuchdir/"+name)
		return strings.TrimSuffix(rel, name) + "../" + name, nil, false
	case 4: // through a symlink to the plan's own directory
		at := pick(r, "repo/pdir", "outside/pdir")
		target := relPath(path.Dir(at), dir+"/x")
		target = strings.TrimSuffix(target, "/x")
		if dir == path.Dir(at) || chance(r, 0.3) {
			target = "$ROOT/" + dir
		}
		spelt := relPath(cwd, at+"/"+name)
		if chance(r, 0.4) {
			spelt = "$ROOT/" + at + "/" + name
		}
		return spelt, []node{{path: at, kind: 'l', target: target}}, true
	case 5: // absolute through the symlinked repository
		if rest, ok := strings.CutPrefix(planRel, "repo/"); ok {
			return "$ROOT/lnk-repo/" + rest, []node{{path: "lnk-repo", kind: 'l', target: "repo"}}, true
		}
	}
	return spell(r, cwd, planRel), nil, true
}

// decoyPlan is the plan a lexical clean would read: its one task has a
// heading every TASK_NUMBER the generator uses would never find in the real
// plan under that text, so reading it shows in the brief.
const decoyPlan = "# Decoy: a lexical clean read this file\n## Task 1: decoy\n## Task 2: decoy\n## Task 3: decoy\n## Task 10: decoy\n"

// genPathOutfile is an OUTFILE through a symlinked directory or with "..",
// seen from the physical directory cwd, and the nodes it needs.
//
//	ld/out.md        ld -> ../other/sub (or absolute), and sub/out.md -> ../target.md
//	ld/../out.md     out.md in the parent of ld's target, not in cwd
//	./x/../out.md    x a real directory, or missing (the kernel fails)
//	$ROOT/…/ld/out.md  absolute, through the link
func genPathOutfile(r *rand.Rand, cwd string) (string, []node) {
	sub := pick(r, "repo/other/sub", "outside/other/sub")
	target := strings.TrimSuffix(relPath(cwd, sub+"/x"), "/x")
	if chance(r, 0.3) {
		target = "$ROOT/" + sub
	}
	link := []node{
		{path: sub, kind: 'd', perm: 0o755},
		{path: cwd + "/ld", kind: 'l', target: target},
	}
	// throughLink is out, relative to cwd or (with chance abs) absolute,
	// and nodes with, half the time, a decoy at cwd/decoy: where a lexical
	// clean of out would write.
	throughLink := func(nodes []node, decoy, out string, abs float64) (string, []node) {
		if chance(r, 0.5) {
			nodes = append(nodes, node{path: cwd + "/" + decoy, kind: 'f', perm: 0o644, data: []byte("decoy: a lexical clean wrote here\n")})
		}
		if chance(r, abs) {
			out = "$ROOT/" + cwd + "/" + out
		}
		return out, nodes
	}
	switch r.IntN(6) {
	case 0, 1:
		nodes := append(link, node{path: sub + "/out.md", kind: 'l', target: "../target.md"})
		if chance(r, 0.5) {
			nodes = append(nodes, node{path: path.Dir(sub) + "/target.md", kind: 'f', perm: 0o600, data: []byte("old target\n")})
		}
		return throughLink(nodes, "target.md", "ld/out.md", 0.4)
	case 2, 3:
		return throughLink(link, "out.md", "ld/../out.md", 0.3)
	case 4:
		return "./x/../out.md", []node{{path: cwd + "/x", kind: 'd', perm: 0o755}}
	default:
		return "./nosuchdir/../out.md", nil
	}
}

// pathNumbers are TASK_NUMBERs holding "/" and "..": with the default
// OUTFILE they name <workspace>/task-<N>-brief.md, which the kernel resolves
// through <workspace>/task-.. or <workspace>/task-1 when that exists.
// 1/../x twice: found through a symlinked task-1, it is the one a lexical
// clean of the default OUTFILE gets wrong while the task is written.
var pathNumbers = []string{"../../../x", "../../x", "../x", "1/../x", "1/../x", "1/x", "1/../../x"}

// fenceOpen reports whether plan ends inside a fence (docs/spec.md tb4:
// a line beginning with three backticks toggles it).
func fenceOpen(plan []byte) bool {
	open := false
	for _, l := range bytes.Split(plan, []byte("\n")) {
		if bytes.HasPrefix(l, []byte("```")) {
			open = !open
		}
	}
	return open
}

// taskDirNodes makes the directory a path TASK_NUMBER needs inside the
// workspace ws (task-.. for "../x", task-1 for "1/../x"): a real
// directory, or a symlink to a directory elsewhere, so that ".." after it
// is the kernel's (the link target's parent), not the workspace.
func taskDirNodes(r *rand.Rand, ws, n string) []node {
	first, _, _ := strings.Cut(n, "/")
	d := ws + "/task-" + first
	if chance(r, 0.5) {
		return []node{{path: d, kind: 'd', perm: 0o755}}
	}
	far := "outside/tdir/a/b"
	target := strings.TrimSuffix(relPath(ws, far+"/x"), "/x")
	if chance(r, 0.3) {
		target = "$ROOT/" + far
	}
	return []node{{path: far, kind: 'd', perm: 0o755}, {path: d, kind: 'l', target: target}}
}

// regexDiffers reports whether the reference, which pastes TASK_NUMBER n
// into an awk regular expression, could decide differently than a literal
// match on some line of plan. It is exact for numbers whose only special
// character is "." (a "." in a path number such as ../x): the line is read
// one rune per byte, as awk does under LC_ALL=C. Any other special
// character, or a backslash (awk -v escapes), is assumed to differ.
func regexDiffers(n string, plan []byte) bool {
	if strings.ContainsAny(n, strings.ReplaceAll(regexSpecial, ".", "")) {
		return true
	}
	if !strings.Contains(n, ".") {
		return false
	}
	var pat strings.Builder
	pat.WriteString(`^#+[ \t]+Task[ \t]+`)
	for _, c := range []byte(n) {
		if c == '.' {
			pat.WriteString(".")
		} else {
			pat.WriteString(regexp.QuoteMeta(latin1(string([]byte{c}))))
		}
	}
	pat.WriteString(`([^0-9]|$)`)
	re := regexp.MustCompile(pat.String())
	lit := regexp.MustCompile(`^#+[ \t]+Task[ \t]+` + regexp.QuoteMeta(latin1(n)) + `([^0-9]|$)`)
	for _, line := range strings.Split(string(plan), "\n") {
		l := latin1(line)
		if re.MatchString(l) != lit.MatchString(l) {
			return true
		}
	}
	return false
}

// latin1 maps each byte of s to one rune, so "." matches one byte.
func latin1(s string) string {
	rs := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		rs[i] = rune(s[i])
	}
	return string(rs)
}

// slugOf is the workspace name both sides derive from a plan file name
// (docs/spec.md ws3), or "" when none can be derived.
func slugOf(name string) string {
	slug := name
	if s, ok := strings.CutSuffix(name, ".md"); ok && s != "" {
		slug = s
	}
	slug = strings.TrimRight(slug, "\n")
	if slug == "." || slug == ".." {
		return ""
	}
	return slug
}

// genLedger writes the ledger of an existing marker-less workspace ws for a
// scenario whose plan is planRel (really the file planReal). kind is
// "foreign" (it names another plan file), "own" (it names this plan,
// spelled relative to the repository root, with "./", absolutely, through
// "..", through a symlinked directory) or "noid" (no identity line: adopted
// whatever it says). It returns the nodes, whether the ledger names
// another plan file, and the path its identity line names ($ROOT for the
// scenario root).
func genLedger(r *rand.Rand, kind, ws, planRel, planReal string) (nodes []node, foreign bool, named string) {
	switch kind {
	case "own":
		target := pick(r, planRel, planReal)
		rel := relPath("repo", target) // the repository root is repo
		switch r.IntN(6) {
		case 0:
			named = rel
		case 1:
			named = "./" + rel
			if strings.HasPrefix(rel, "../") {
				named = rel
			}
		case 2:
			named = "$ROOT/" + target
		case 3:
			named = "sub/../" + rel
		case 4: // through a symlinked directory inside the repository
			nodes = append(nodes, node{path: "repo/ledger-link", kind: 'l', target: "$ROOT/" + path.Dir(target)})
			named = "ledger-link/" + path.Base(target)
		default:
			named = rel
		}
		// A path with a newline (a plan named "x\n.md") cannot stand on
		// the identity line: what is read there names another file.
		foreign = strings.Contains(named, "\n")
	case "foreign":
		other := pick(r, "repo/docs/plans/plan.md", "repo/ledger-other/"+path.Base(planRel), "repo/gone/"+path.Base(planRel), "outside/elsewhere/plan.md")
		if other == "repo/ledger-other/"+path.Base(planRel) {
			nodes = append(nodes, node{path: other, kind: 'f', perm: 0o644, data: []byte("# Another plan\n## Task 1: theirs\n")})
		}
		named = relPath("repo", other)
		if strings.HasPrefix(other, "outside/") || chance(r, 0.2) {
			named = "$ROOT/" + other
		}
		// Another plan file, unless it happens to be this one.
		foreign = other != planRel && other != planReal
	default: // "noid": adopted, whatever the text names
		named = "docs/plans/someone-elses.md"
	}
	first := ledgerLine + named + pick(r, "\n", "\r\n", "  \n", " \t\r\n")
	if kind == "noid" {
		first = pick(r,
			"# SDD ledger - plan: "+named+"\n",   // a hyphen, not an em dash
			"# Progress\n"+ledgerLine+named+"\n", // not the first line
			"Task 1: base=0123456789abcdef0123456789abcdef01234567\n")
	}
	data := first + pick(r, "", "Task 1: base=0123456789abcdef0123456789abcdef01234567\n", "Task 1: complete (commits 0123456..89abcde, review clean)\n")
	nodes = append(nodes, node{path: ws + "/" + ledgerName, kind: 'f', perm: 0o644, data: []byte(data), expand: true})
	return nodes, foreign, named
}

// revForms are revisions shaped like git options (difference 8) that the
// brief of this generator names. The reference's rev-parse --verify
// --quiet rejects --output=F, --all and - silently (both sides then agree
// byte for byte) and -n with a fatal line first. --output=F handed to
// git log, git diff or git rev-list would write the file F (F..HEAD as
// BASE): our side must never show one (Scenario.absentBase).
var revForms = []string{"--output=rev-out", "--output=$ROOT/outside/rev-out", "-n", "--all", "-"}
