package compat

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path"
	"regexp"
	"strings"
)

// node is one path a scenario adds on top of its history's repository,
// relative to the scenario root. A symlink target may contain $ROOT, and so
// may a file's data when expand is set (a ledger naming a plan absolutely).
type node struct {
	path   string
	kind   byte // 'f', 'd', 'l'
	data   []byte
	perm   fs.FileMode
	target string
	expand bool
}

// step is one command run: which tool, from which directory (relative to
// the scenario root), with which arguments ($ROOT stands for the root).
type step struct {
	cmd  string
	dir  string
	args []string
}

// Scenario is one generated case. Its tree is the history's repository at
// root/repo plus nodes; its steps run in order on each side.
type Scenario struct {
	ID       int
	hist     int
	worktree bool
	git      gitKind
	env      []string
	nodes    []node
	steps    []step
	// expect names the deliberate differences of docs/spec.md this scenario
	// exercises ("D4", "D1+D6"): a difference there is expected, not a bug.
	expect string
	// modelled are the labels of expect the checker models exactly: it
	// undoes that difference (modelDifferences) and compares the rest
	// byte for byte, so such a label excuses nothing else.
	modelled map[string]bool
	// ledger, when set, is a marker-less workspace whose ledger names
	// another plan (difference 2, modelled): ours must leave it untouched.
	ledger *ledgerCase
	// absentBase is a file name no new path on our side may carry, nor
	// that name followed by ".." (an --output= revision handed to git
	// would create it: difference 8).
	absentBase string
}

// gitKind is what PATH holds under the name git.
type gitKind string

const (
	gitOK        gitKind = ""
	gitMissing   gitKind = "missing"   // none: 127
	gitNoInterp  gitKind = "nointerp"  // a script whose #! interpreter does not exist: 127
	gitNoExec    gitKind = "noexec"    // a file without execute permission: 126
	gitBadFormat gitKind = "badformat" // executable, but no format the kernel runs: 126
)

// gitKindNotes are how CommandLine shows a git that cannot start.
var gitKindNotes = map[gitKind]string{
	gitMissing:   "no git on PATH",
	gitNoInterp:  "git's #! interpreter missing",
	gitNoExec:    "git not executable",
	gitBadFormat: "git not an executable format",
}

// excuses reports whether the scenario carries a label that excuses any
// difference: one the checker does not model exactly.
func (s *Scenario) excuses() bool {
	for _, d := range strings.Split(s.expect, "+") {
		if d != "" && !s.modelled[d] {
			return true
		}
	}
	return false
}

// CommandLine renders the last step as a shell command line.
func (s *Scenario) CommandLine() string {
	var parts []string
	for _, st := range s.steps {
		parts = append(parts, st.String())
	}
	line := strings.Join(parts, "; ")
	if s.git != gitOK {
		line = "[" + gitKindNotes[s.git] + "] " + line
	}
	if len(s.env) > 0 {
		line = "[" + strings.Join(s.env, " ") + "] " + line
	}
	return line
}

func (st step) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "(cd %s && %s", shellQuote(st.dir), st.cmd)
	for _, a := range st.args {
		b.WriteString(" " + shellQuote(a))
	}
	b.WriteString(")")
	return b.String()
}

// awkAssignment is an awk operand awk takes as a variable assignment.
var awkAssignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:=@%^~+,$-]+$`)

// shellQuote quotes s for bash: bare when safe, '…' when printable, $'…'
// with escapes otherwise ($ROOT is left bare on purpose: it is a variable).
func shellQuote(s string) string {
	if s != "" && plainWord.MatchString(s) && (!strings.Contains(s, "$") || strings.HasPrefix(s, "$ROOT")) {
		return s
	}
	printable := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			printable = false
		}
	}
	if printable {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '\\':
			b.WriteString(`\` + string(c))
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteString("'")
	return b.String()
}

// planNames are the file names a plan is saved under; the comment says
// which slug rule each exercises.
var planNames = []string{
	"plan.md", "plan.md", "plan.md", "plan.md", "plan.md", "plan.md", // ordinary
	"2026-01-01-feature.md", "2026-01-01-feature.md", "auth.md",
	"plan.md.md",   // one .md removed
	"plan.MD",      // case-sensitive suffix
	".md",          // slug stays .md
	"..md",         // slug "." → cannot derive
	"...md",        // slug ".." → cannot derive
	"my plan.md",   // a space
	"plan",         // no suffix
	"x\n.md",       // newline dropped by command substitution
	"\n.md",        // empty slug
	"caf\u00e9.md", // UTF-8
}

// dashNames are plan names the reference mishandles: difference 6.
var dashNames = []string{"-p.md", "--x.md", "a=b.md", "--", "-"}

// placeDirs are where a plan may live, relative to the scenario root.
var placeDirs = []string{"repo/docs/plans", "repo/docs/plans", "repo", "repo/sub/dir", "outside"}

var cwdChoices = []string{"repo", "repo", "repo", "repo", "repo/sub/dir", "repo/docs/plans", "outside", "repo/.git", "wt", "wt/sub"}

var homeConfigs = []string{
	"[color]\n\tui = always\n",
	"[core]\n\tabbrev = 9\n",
	"[diff]\n\trenames = copies\n\tnoprefix = true\n",
	"[core]\n\tquotePath = false\n",
	"[log]\n\tdecorate = full\n",
	"[diff]\n\tcontext = 1\n\tstatGraphWidth = 10\n",
}

var badRevs = []string{
	"nosuch", "HEAD~1..HEAD", "HEAD^!", "", "0123456789abcdef0123456789abcdef01234567",
	"HEAD~999", "main..", "refs/heads/nope", "@{upstream}", "HEAD:nosuchfile",
}

var dashRevs = []string{"-n", "--all", "--default", "-", "--verify", "--prefix"}

// numberChoices are TASK_NUMBERs beyond those a plan uses: absent,
// prefix traps, empty, blanks; the regex-special ones are difference 4.
var numberChoices = []string{"99", "0", "01", "1", "10", "", "1a", "abc", " 1", "1 ", "1/x", "-1",
	"1.", `\61`, "(", "1|2", "[1]", "1.5", "1*"}

// regexSpecial marks a TASK_NUMBER the reference treats as a regular
// expression (or awk -v escape) rather than literally: difference 4.
const regexSpecial = `\^$.[]|()*+?{}`

// genScenario builds scenario id from its own random stream, so a scenario
// depends only on (seed, id), never on n or on the other scenarios.
func genScenario(seed int64, id int) *Scenario {
	r := newRand(seed, id)
	s := &Scenario{ID: id, hist: 1 + r.IntN(len(histories)-1), modelled: map[string]bool{}}
	if chance(r, 0.05) {
		s.hist = 0 // the repository without commits
	}
	h := histories[s.hist]
	s.worktree = chance(r, 0.25)
	switch x := r.Float64(); {
	case x < 0.03:
		s.git = gitMissing
	case x < 0.045:
		s.git = gitNoInterp
	case x < 0.055:
		s.git = gitNoExec
	case x < 0.065:
		s.git = gitBadFormat
	}
	var expect []string
	mark := func(d string) {
		for _, e := range expect {
			if e == d {
				return
			}
		}
		expect = append(expect, d)
	}
	model := func(d string) {
		mark(d)
		s.modelled[d] = true
	}

	s.nodes = append(s.nodes,
		node{path: "home", kind: 'd', perm: 0o755},
		node{path: "outside", kind: 'd', perm: 0o755},
		node{path: "repo/docs/plans", kind: 'd', perm: 0o755},
		node{path: "repo/sub/dir", kind: 'd', perm: 0o755},
	)
	if chance(r, 0.3) {
		s.nodes = append(s.nodes, node{path: "home/.gitconfig", kind: 'f', perm: 0o644, data: []byte(pick(r, homeConfigs...))})
	}
	if chance(r, 0.1) {
		s.env = append(s.env, "COLUMNS="+pick(r, "40", "200"))
	}

	// Existing SDD state in the repository. blocked is a path under which
	// no workspace node can be made (it is a file or a dangling link).
	sdd := "repo/.superpowers/sdd"
	blocked := ""
	ledgerKind := ""
	switch r.IntN(14) {
	case 0:
		s.nodes = append(s.nodes, node{path: sdd + "/.gitignore", kind: 'f', perm: 0o600, data: []byte("other\n!contents\n")})
	case 1:
		s.nodes = append(s.nodes, node{path: sdd + "/progress.md", kind: 'f', perm: 0o644, data: []byte("# old flat ledger\nTask 1: complete\n")})
	case 2:
		s.nodes = append(s.nodes,
			node{path: "repo/ignore-target", kind: 'f', perm: 0o640, data: []byte("target\n")},
			node{path: sdd + "/.gitignore", kind: 'l', target: "../../ignore-target"})
	case 3:
		s.nodes = append(s.nodes, node{path: "repo/.superpowers", kind: 'f', perm: 0o644, data: []byte("not a dir\n")})
		blocked = "repo/.superpowers"
	case 4:
		s.nodes = append(s.nodes, node{path: sdd + "/.gitignore", kind: 'd', perm: 0o755})
	case 5, 8: // a workspace left by the reference scripts, with a ledger
		ledgerKind = pick(r, "foreign", "foreign", "own", "own", "noid")
	case 6:
		s.nodes = append(s.nodes, node{path: sdd + "/plan", kind: 'f', perm: 0o644, data: []byte("a file where the workspace goes\n")})
		blocked = sdd + "/plan"
	case 7:
		s.nodes = append(s.nodes, node{path: sdd + "/plan", kind: 'l', target: "nowhere"})
		blocked = sdd + "/plan"
	}

	// The plan. Its nodes are added last: a TASK_NUMBER may add a heading.
	name := pick(r, planNames...)
	dashBare := false // a dash name given bare, from its own directory
	if chance(r, 0.04) {
		name = pick(r, dashNames...)
		dashBare = chance(r, 0.5)
	}
	dir := pick(r, placeDirs...)
	planRel := path.Join(dir, name)
	planReal := planRel // the regular file the plan is, through its link
	data, nums := genPlan(r)
	planKind := r.IntN(40)
	if planKind == 2 {
		planReal = dir + "/real-plan.txt"
	}

	cwd := pick(r, cwdChoices...)
	if chance(r, 0.08) {
		// Run from a directory reached through a symlink, as after a
		// shell's `cd lnk-repo/sub/dir`: relative paths are the kernel's,
		// from the physical directory; PWD is the logical one.
		l := pick(r, cwdLinks...)
		cwd = l.name
		if l.phys == "repo" && chance(r, 0.5) {
			cwd += "/sub/dir"
		}
		s.nodes = append(s.nodes, node{path: l.name, kind: 'l', target: l.target})
	}
	if strings.HasPrefix(cwd, "wt") && !s.worktree {
		cwd = "repo"
	}
	if dashBare {
		cwd = dir // difference 6 needs the name itself as the argument
	}
	if s.worktree {
		s.nodes = append(s.nodes, node{path: "wt/sub", kind: 'd', perm: 0o755})
	}
	phys := physical(cwd)
	// The repository root a workspace is resolved in from cwd.
	wsRoot := "repo"
	if strings.HasPrefix(phys, "wt") {
		wsRoot = "wt"
	}
	slug := slugOf(name)

	planArg, spellNodes, reaches := spellPlan(r, phys, dir, name)
	s.nodes = append(s.nodes, spellNodes...)
	if dashBare {
		planArg, reaches = name, true
	}
	isFile := (planKind == 2 || planKind > 3) && reaches
	switch r.IntN(40) {
	case 0:
		planArg, isFile = "", false
	case 1:
		planArg, isFile = "docs", false
	case 2:
		planArg += "/" // trailing slash: not a regular file
		isFile = false
	case 3:
		planArg = pick(r, "-h", "--help", "--version")
		planKind, isFile = 0, false
	}
	// Difference 6 only matters once the plan passed the -f check: before
	// that, both sides just say "no such plan file".
	if isFile && (strings.HasPrefix(planArg, "-") || awkAssignment.MatchString(planArg)) {
		mark("D6")
	}

	// A workspace the reference scripts left, with a ledger. One naming
	// another plan file is difference 2 (ours skips it untouched); one
	// naming this plan, however spelled, is adopted by both sides.
	foreign, ledgerNames := false, ""
	if ledgerKind != "" && slug != "" {
		var nodes []node
		nodes, foreign, ledgerNames = genLedger(r, ledgerKind, sdd+"/"+slug, planRel, planReal)
		s.nodes = append(s.nodes, nodes...)
	}

	var numbers []string // TASK_NUMBERs the steps use, for difference 4
	pathNumber := false  // a TASK_NUMBER with "/": it matters with the default OUTFILE
	var st step
	st.dir = cwd
	switch c := r.IntN(20); {
	case c < 5:
		st.cmd = "sdd-workspace"
		st.args = []string{planArg}
	case c < 12:
		st.cmd = "task-brief"
		n := pick(r, numberChoices...)
		if len(nums) > 0 && chance(r, 0.7) {
			n = pick(r, nums...)
		}
		if chance(r, 0.3) {
			pathNumber = true
			n = pick(r, pathNumbers...)
			if n[0] >= '0' && n[0] <= '9' && chance(r, 0.8) {
				// A task heading the number finds, so the brief is
				// written through <workspace>/task-1/...
				if len(data) > 0 && data[len(data)-1] != '\n' {
					data = append(data, '\n')
				}
				if fenceOpen(data) {
					data = append(data, "```\n"...) // or the heading is fenced
				}
				data = append(data, "## Task "+n+": reached by path\nDo it.\n"...)
			}
			ws := wsRoot + "/.superpowers/sdd/" + slug
			if slug != "" && !foreign && (blocked == "" || !strings.HasPrefix(ws, blocked)) && chance(r, 0.7) {
				s.nodes = append(s.nodes, taskDirNodes(r, ws, n)...)
			}
		}
		numbers = append(numbers, n)
		st.args = []string{planArg, n}
	default:
		st.cmd = "review-package"
		base, head := pickRev(r, h, true), pickRev(r, h, false)
		if strings.HasPrefix(base, "-") || strings.HasPrefix(head, "-") {
			model("D8")
		}
		if strings.HasPrefix(base, "--output=") || strings.HasPrefix(head, "--output=") {
			s.absentBase = outputRevBase
		}
		st.args = []string{planArg, base, head}
	}
	if st.cmd != "sdd-workspace" && !pathNumber && chance(r, 0.5) {
		var out string
		var nodes []node
		var same bool
		if chance(r, 0.3) {
			out, nodes = genPathOutfile(r, phys)
		} else {
			out, nodes, same = genOutfile(r, phys, planRel)
		}
		s.nodes = append(s.nodes, nodes...)
		if same {
			mark("D5")
		}
		if planKind == 2 && chance(r, 0.3) {
			out = spell(r, phys, planReal) // the plan, through the link's target
			mark("D5")
		}
		st.args = append(st.args, out)
	}
	switch r.IntN(25) { // wrong argument counts
	case 0:
		st.args = st.args[:len(st.args)-1]
	case 1:
		st.args = append(st.args, "extra")
	case 2:
		st.args = nil
	}

	otherSpellingReaches := false
	// A first step on the same plan (a rerun, the workspace made first, or
	// another spelling of it: one workspace), or on a same-basename plan
	// elsewhere (difference 2, not combined with a foreign ledger, whose
	// model assumes every step is on this plan).
	switch r.IntN(12) {
	case 0:
		s.steps = append(s.steps, step{cmd: "sdd-workspace", dir: cwd, args: []string{planArg}})
	case 1:
		n := pick(r, append(nums, "1")...)
		numbers = append(numbers, n)
		s.steps = append(s.steps, step{cmd: "task-brief", dir: cwd, args: []string{planArg, n}})
	case 2:
		if foreign {
			break
		}
		other := path.Join("repo/other", name)
		s.nodes = append(s.nodes, node{path: other, kind: 'f', perm: 0o644, data: []byte("# Other plan\n## Task 1: other\n")})
		s.steps = append(s.steps, step{cmd: "sdd-workspace", dir: cwd, args: []string{spell(r, phys, other)}})
		mark("D2")
	case 3:
		again, nodes, ok := spellPlan(r, phys, dir, name)
		s.nodes = append(s.nodes, nodes...)
		s.steps = append(s.steps, step{cmd: "sdd-workspace", dir: cwd, args: []string{again}})
		otherSpellingReaches = ok && (planKind == 2 || planKind > 3)
	}
	s.steps = append(s.steps, st)
	// Some step's PLAN_FILE is this plan, a regular file (a wrong
	// argument count may have dropped it from the last step).
	reachedOnce := otherSpellingReaches
	for _, st := range s.steps {
		reachedOnce = reachedOnce || isFile && len(st.args) > 0 && st.args[0] == planArg
	}
	if foreign && reachedOnce {
		// Some step names this plan file, and the ledger another: ours
		// skips the directory and takes <slug>-<parent of the real plan>.
		model("D2")
		s.ledger = &ledgerCase{dir: sdd + "/" + slug, alt: sdd + "/" + slug + "-" + path.Base(path.Dir(planReal)), names: ledgerNames}
	}

	// The plan file, now that its text is final.
	switch {
	case planKind == 0: // missing
	case planKind == 1: // a directory
		s.nodes = append(s.nodes, node{path: planRel, kind: 'd', perm: 0o755})
	case planKind == 2: // a symlink to the real plan, named differently
		s.nodes = append(s.nodes,
			node{path: planReal, kind: 'f', perm: 0o644, data: data},
			node{path: planRel, kind: 'l', target: "real-plan.txt"})
	case planKind == 3: // a dangling symlink
		s.nodes = append(s.nodes, node{path: planRel, kind: 'l', target: "no-such-target.md"})
	default:
		s.nodes = append(s.nodes, node{path: planRel, kind: 'f', perm: pick(r, fs.FileMode(0o644), 0o600, 0o755), data: data})
	}
	if isFile {
		for _, n := range numbers {
			if regexDiffers(n, data) {
				mark("D4")
			}
		}
	}
	for _, st := range s.steps {
		if len(st.args) == 1 && (st.args[0] == "-h" || st.args[0] == "--help" || st.args[0] == "--version") {
			mark("D1")
		}
	}
	s.nodes = dedupeLinks(s.nodes)
	s.expect = strings.Join(expect, "+")
	return s
}

// dedupeLinks drops a symlink node whose path an earlier node already
// makes: two spellings of one plan may each want the same link (their
// targets reach the same directory), and a second symlink cannot be made.
func dedupeLinks(nodes []node) []node {
	seen := map[string]bool{}
	out := nodes[:0]
	for _, n := range nodes {
		if n.kind == 'l' && seen[n.path] {
			continue
		}
		seen[n.path] = true
		out = append(out, n)
	}
	return out
}

func newRand(seed int64, id int) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(id)))
}

// spell writes the path of target (relative to the root) as seen from cwd:
// relative, absolute, or with a detour through "..".
func spell(r *rand.Rand, cwd, target string) string {
	switch r.IntN(6) {
	case 0:
		return "$ROOT/" + target
	case 1:
		if rel := relPath(cwd, target); !strings.HasPrefix(rel, "../") && rel != "" {
			return "./" + rel
		}
	}
	return relPath(cwd, target)
}

// relPath is the lexical relative path from dir to target, both relative
// to the scenario root.
func relPath(dir, target string) string {
	d := strings.Split(dir, "/")
	t := strings.Split(target, "/")
	i := 0
	for i < len(d) && i < len(t)-1 && d[i] == t[i] {
		i++
	}
	parts := make([]string, 0, len(d)-i+len(t)-i)
	for range d[i:] {
		parts = append(parts, "..")
	}
	return strings.Join(append(parts, t[i:]...), "/")
}

// pickRev chooses a BASE (older) or HEAD (newer) for history h.
func pickRev(r *rand.Rand, h *history, base bool) string {
	x := r.IntN(40)
	switch {
	case x < 3:
		if chance(r, 0.6) {
			return pick(r, revForms...)
		}
		return pick(r, dashRevs...)
	case x < 5:
		return pick(r, badRevs...)
	case x == 5 && len(h.objects) > 0:
		return "{" + pick(r, h.objects...) + "}"
	case x < 11 && len(h.full) > 0:
		rev := "{" + pick(r, h.full...) + "}"
		if chance(r, 0.3) {
			rev += pick(r, ":7", ":10")
		}
		return rev
	case len(h.good) == 0:
		return pick(r, "HEAD", "main", "HEAD~1")
	case !base && chance(r, 0.6):
		return "HEAD"
	default:
		return pick(r, h.good...)
	}
}

// genOutfile picks an OUTFILE as seen from cwd and the nodes it needs; same
// reports that it names the plan itself (difference 5).
func genOutfile(r *rand.Rand, cwd, planRel string) (string, []node, bool) {
	switch r.IntN(14) {
	case 0, 1:
		return "out.md", nil, false
	case 2:
		return "$ROOT/outside/result.txt", nil, false
	case 3:
		return "nodir/x.md", nil, false
	case 4:
		return "$ROOT/repo/sub", nil, false
	case 5:
		return "-", nil, false
	case 6:
		return "", nil, false
	case 7, 8:
		return "existing.md", []node{{path: path.Join(cwd, "existing.md"), kind: 'f', perm: pick(r, fs.FileMode(0o600), 0o755, 0o644), data: []byte("old contents\n")}}, false
	case 9:
		nodes := []node{{path: path.Join(cwd, "link-out.md"), kind: 'l', target: "real-out.md"}}
		if chance(r, 0.5) {
			nodes = append(nodes, node{path: path.Join(cwd, "real-out.md"), kind: 'f', perm: 0o640, data: []byte("old\n")})
		}
		return "link-out.md", nodes, false
	case 10:
		return spell(r, cwd, planRel), nil, true
	case 11:
		return "$ROOT/outside/deep/missing/x", nil, false
	default:
		return pick(r, "brief.txt", "review.diff", "sub dir.md"), nil, false
	}
}
