package compat

import (
	"bytes"
	"fmt"
	"path"
	"strings"
)

// Two deliberate differences are modelled exactly rather than excused:
// the checker undoes them (on the side that shows them) and then compares
// everything else byte for byte, so a scenario labelled only with them
// passes only when that difference is all there is.
//
//   - Difference 2, a foreign ledger: a marker-less workspace whose
//     progress.md names another plan file is skipped by ours, which takes
//     <slug>-<parent> instead; the reference uses it. Ours' workspace is
//     mapped onto the reference's (its paths in the tree, its absolute
//     path in stdout and stderr), and where the plan the ledger names no
//     longer exists, ours' sdd-workspace note naming the skipped workspace
//     is dropped from its stderr.
//   - Difference 8, a revision beginning with "-": the reference hands it
//     to git rev-parse, which may print a fatal line first (or bash its
//     own line, when git cannot start); ours prints only bad BASE/bad HEAD.
//     The reference's stderr is cut to that last line.
//
// Some facts hold whatever the labels: invariants lists their violations,
// which no label excuses.

// ledgerCase is a marker-less workspace directory (left by a run of the
// reference scripts) whose ledger names ANOTHER plan file: difference 2
// since the contract's 2026-12-02 revision (docs/spec.md diff2). Ours skips it untouched and takes alt;
// the reference just uses dir.
type ledgerCase struct {
	dir   string // the skipped workspace, relative to the scenario root
	alt   string // the workspace ours takes instead (<slug>-<parent>)
	names string // the plan its identity line names ($ROOT for the root)
}

// recorded is the path the ledger's identity line holds as ours reads it:
// up to the line's end (a plan name with a newline is cut there), without
// trailing blanks and carriage returns.
func (l *ledgerCase) recorded() string {
	line, _, _ := strings.Cut(l.names, "\n")
	return strings.TrimRight(line, " \t\r")
}

// gone reports whether the plan the ledger names is missing from snap
// (the tree before a step): ours then notes the skipped workspace.
// Relative paths are read from the repository root, repo.
func (l *ledgerCase) gone(snap snapshot) bool {
	p, abs := strings.CutPrefix(l.recorded(), "$ROOT/")
	if !abs {
		p = path.Join("repo", p)
	}
	_, ok := snap[p]
	return !ok
}

// note is the line ours' sdd-workspace prints for the skipped workspace
// when the plan its ledger names is gone, for the PLAN_FILE plan.
func (l *ledgerCase) note(root, plan string) []byte {
	dir := root + "/" + l.dir
	return []byte("sdd-workspace: note: " + dir + " belongs to " + strings.ReplaceAll(l.recorded(), "$ROOT", root) +
		", which no longer exists; if " + strings.ReplaceAll(plan, "$ROOT", root) + " moved from there, its ledger is " +
		dir + "/" + ledgerName + "\n")
}

// notes reports whether ours' step i is an sdd-workspace that took the
// alternative workspace while the ledger's plan is gone: it then prints
// the note.
func (l *ledgerCase) notes(s *Scenario, ours *sideResult, root string, i int) bool {
	st := s.steps[i]
	return st.cmd == "sdd-workspace" && len(st.args) == 1 && i < len(ours.pre) && l.gone(ours.pre[i]) &&
		string(ours.steps[i].stdout) == root+"/"+l.alt+"\n"
}

// ledgerLine is the identity line a ledger opens with (an em dash).
const ledgerLine = "# SDD ledger — plan: "

// ledgerName is the ledger's file name in a workspace.
const ledgerName = "progress.md"

// verdict is the judgement on one scenario.
type verdict struct {
	diffs    []string // what differs (what is left after modelling, when something is)
	notes    []string // accepted differences (difference 3, tool errors, modelled ones)
	expected bool     // every difference is a deliberate one the scenario is labelled with
}

// judge compares both sides of s.
func judge(s *Scenario, ref, ours *sideResult, root string) verdict {
	hard := invariants(s, ref, ours, root)
	diffs, notes := compareSides(s, ref, ours, root)
	v := verdict{diffs: diffs, notes: notes}
	if len(diffs) > 0 && len(s.modelled) > 0 {
		mref, mours, models := modelDifferences(s, ref, ours, root)
		if len(models) > 0 {
			mdiffs, mnotes := compareSides(s, mref, mours, root)
			if len(mdiffs) == 0 {
				v.expected = true
				v.notes = append(mnotes, "modelled: "+strings.Join(models, ", "))
			} else {
				v.diffs = mdiffs
			}
		}
	}
	if !v.expected && len(v.diffs) > 0 && s.excuses() {
		v.expected = true
	}
	if len(hard) > 0 {
		v.diffs = append(v.diffs, hard...)
		v.expected = false
	}
	return v
}

// modelDifferences returns copies of both sides with s's modelled
// differences undone, and which models changed something.
func modelDifferences(s *Scenario, ref, ours *sideResult, root string) (*sideResult, *sideResult, []string) {
	mref, mours := ref.clone(), ours.clone()
	var models []string
	if s.modelled["D8"] {
		changed := false
		for i, st := range s.steps {
			if st.cmd != "review-package" || len(st.args) < 3 || len(st.args) > 4 {
				continue
			}
			r := &mref.steps[i]
			if r.exit != 2 || len(r.stdout) != 0 {
				continue
			}
			for _, c := range []struct{ what, rev string }{{"BASE", st.args[1]}, {"HEAD", st.args[2]}} {
				if !strings.HasPrefix(c.rev, "-") {
					continue
				}
				last := []byte("bad " + c.what + ": " + strings.ReplaceAll(c.rev, "$ROOT", root) + "\n")
				if bytes.HasSuffix(r.stderr, last) && !bytes.Equal(r.stderr, last) {
					r.stderr, changed = last, true
				}
				break // the first dash revision is the one reported
			}
		}
		if changed {
			models = append(models, "D8: the reference's git lines before bad BASE/HEAD dropped")
		}
	}
	if l := s.ledger; l != nil && s.modelled["D2"] {
		from, to := root+"/"+l.alt, root+"/"+l.dir
		changed := false
		for i := range mours.steps {
			o := &mours.steps[i]
			if l.notes(s, ours, root, i) {
				if nb := bytes.Replace(o.stderr, l.note(root, s.steps[i].args[0]), nil, 1); !bytes.Equal(nb, o.stderr) {
					o.stderr, changed = nb, true
				}
			}
			for _, b := range []*[]byte{&o.stdout, &o.stderr} {
				if nb := replacePath(*b, from, to); !bytes.Equal(nb, *b) {
					*b, changed = nb, true
				}
			}
		}
		if _, ok := mours.final[l.alt]; ok {
			changed = true
		}
		for i := range mours.pre {
			mours.pre[i] = mapDir(mours.pre[i], l.alt, l.dir)
		}
		mours.final = mapDir(mours.final, l.alt, l.dir)
		if changed {
			models = append(models, fmt.Sprintf("D2: ours' %s mapped onto %s", path.Base(l.alt), path.Base(l.dir)))
		}
	}
	return mref, mours, models
}

// invariants are the facts no label excuses:
//   - a foreign ledger's workspace is left exactly as it was by ours (no
//     marker, no brief, the ledger untouched), and its ledger by the
//     reference too (else the scenario does not show what it claims);
//   - where that ledger's plan no longer exists, ours' sdd-workspace says
//     so when it takes the alternative workspace (the note, once);
//   - no new file on our side is named after an --output= revision (F or
//     F..HEAD): no git call of ours ever saw it as an option.
func invariants(s *Scenario, ref, ours *sideResult, root string) []string {
	var bad []string
	if l := s.ledger; l != nil {
		under := func(p string) bool { return p == l.dir || strings.HasPrefix(p, l.dir+"/") }
		for _, d := range compareTrees(ours.pre[0], ours.final) {
			if under(d.path) {
				bad = append(bad, fmt.Sprintf("ours changed %s, in a workspace whose ledger names another plan (before: %s, after: %s)",
					quoteShort(d.path), describe(d.ref), describe(d.ours)))
			}
		}
		for i := range ours.steps {
			if l.notes(s, ours, root, i) && bytes.Count(ours.steps[i].stderr, l.note(root, s.steps[i].args[0])) != 1 {
				bad = append(bad, fmt.Sprintf("step %d: ours passed over %s, whose ledger's plan is gone, without the note", i+1, quoteShort(l.dir)))
			}
		}
		ledger := l.dir + "/" + ledgerName
		before, ok := ref.pre[0][ledger]
		if after, ok2 := ref.final[ledger]; !ok || !ok2 || !before.equal(after) {
			bad = append(bad, "the reference changed the ledger "+ledger)
		}
	}
	if base := s.absentBase; base != "" {
		for p := range ours.final {
			if _, old := ours.pre[0][p]; old {
				continue
			}
			if b := path.Base(p); b == base || strings.HasPrefix(b, base+"..") {
				bad = append(bad, "ours created "+quoteShort(p)+": an --output= revision reached git")
			}
		}
	}
	return bad
}

// outputRevBase is the file name an --output= revision names.
const outputRevBase = "rev-out"

func (sr *sideResult) clone() *sideResult {
	c := &sideResult{steps: append([]outcome(nil), sr.steps...), pre: append([]snapshot(nil), sr.pre...), final: sr.final}
	return c
}

// mapDir returns snap with the directory from moved to to: from's own
// entry is dropped, its contents join to's (from's entry wins a clash, so
// nothing of ours is hidden).
func mapDir(snap snapshot, from, to string) snapshot {
	out := make(snapshot, len(snap))
	for p, e := range snap {
		if p != from && !strings.HasPrefix(p, from+"/") {
			if _, clash := out[p]; !clash {
				out[p] = e
			}
		}
	}
	for p, e := range snap {
		if rest, ok := strings.CutPrefix(p, from+"/"); ok {
			out[to+"/"+rest] = e
		}
	}
	return out
}

// replacePath replaces the path from by to in b where it ends a path
// element (so .../plan-plans is replaced but .../plan-plans-2 is not).
func replacePath(b []byte, from, to string) []byte {
	var out []byte
	for {
		i := bytes.Index(b, []byte(from))
		if i < 0 {
			return append(out, b...)
		}
		end := i + len(from)
		if end < len(b) && isNameByte(b[end]) {
			out = append(out, b[:end]...)
		} else {
			out = append(append(out, b[:i]...), to...)
		}
		b = b[end:]
	}
}

func isNameByte(c byte) bool {
	return c == '-' || c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// describe shows an entry, or that there was none.
func describe(e *entry) string {
	if e == nil {
		return "absent"
	}
	return e.String()
}
