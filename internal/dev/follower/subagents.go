package follower

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The subagents: scripts that do what their role file says, driven by the
// scenario, and reply in the role file's format. Each reads its role file
// first and takes its answer's labels from it, so a role file that changes
// its format fails the run.

// ReadLimit is the part a reviewer reads at a time from a package over
// ReadMaxBytes (the role files: 2000 lines).
const (
	ReadMaxBytes = 256 * 1024
	ReadLimit    = 2000
)

// Role names a subagent's role as the dispatch gives it.
type Role string

const (
	RoleImplementer Role = "implementer"
	RoleFix         Role = "fix"
	RoleReviewer    Role = "reviewer"
	RoleReReviewer  Role = "re-reviewer"
	RoleFinal       Role = "final reviewer"
)

// Dispatch is a dispatch prompt as a subagent reads it: the role file and
// section it names on its first line, the task and round numbers there,
// and the "Label: value" lines after it.
type Dispatch struct {
	Role     Role
	RoleFile string
	N, R     int // the task (0 in the final review's dispatches) and the fix round
	Fields   map[string]string
}

var (
	// The role file's path may hold a space (a checkout under a folder
	// whose name has one): it runs from the line's last "Read " to the
	// ".md" before "and follow it".
	firstLineRe = regexp.MustCompile(`^.*\bRead (.+\.md)(?:, section "([^"]+)")?,? and follow it\.$`)
	taskNRe     = regexp.MustCompile(`\bTask (\d+)\b`)
	roundRe     = regexp.MustCompile(`\b[Ff]ix round (\d+)\b`)
)

// ParseDispatch recognises a dispatch by the role file (and section) its
// first line names.
func ParseDispatch(prompt string) (Dispatch, bool) {
	lines := strings.Split(strings.TrimSpace(prompt), "\n")
	m := firstLineRe.FindStringSubmatch(lines[0])
	if m == nil {
		return Dispatch{}, false
	}
	d := Dispatch{RoleFile: m[1], Fields: map[string]string{}}
	file := m[1][strings.LastIndex(m[1], "/")+1:]
	switch {
	case file == "implementer-prompt.md" && m[2] == "Fix round":
		d.Role = RoleFix
	case file == "implementer-prompt.md" && m[2] == "":
		d.Role = RoleImplementer
	case file == "task-reviewer-prompt.md" && m[2] == "Final review":
		d.Role = RoleFinal
	case file == "task-reviewer-prompt.md" && m[2] == "":
		d.Role = RoleReviewer
	case file == "re-review-prompt.md" && m[2] == "":
		d.Role = RoleReReviewer
	default:
		return Dispatch{}, false
	}
	if t := taskNRe.FindStringSubmatch(lines[0]); t != nil {
		d.N, _ = strconv.Atoi(t[1])
	}
	if r := roundRe.FindStringSubmatch(lines[0]); r != nil {
		d.R, _ = strconv.Atoi(r[1])
	}
	for _, l := range lines[1:] {
		if k, v, ok := strings.Cut(l, ": "); ok {
			d.Fields[k] = v
		}
	}
	return d, true
}

// Subagent is the router: the script of the subagent a dispatch starts.
// ok is false for a prompt the text does not define. The script's return
// value is the subagent's final text (a host sends it as the agent's last
// message); it never calls Say.
func (sc Scenario) Subagent(prompt string) (Script, bool) {
	d, ok := ParseDispatch(prompt)
	if !ok {
		return nil, false
	}
	switch d.Role {
	case RoleImplementer:
		return sc.implementer(d), true
	case RoleFix:
		return sc.fixer(d), true
	case RoleReviewer:
		return sc.reviewer(d), true
	case RoleReReviewer:
		return sc.reReviewer(d), true
	default:
		return sc.finalReviewer(d), true
	}
}

// agent is a subagent script's locals.
type agent struct {
	t    Tools
	d    Dispatch
	role string // the role file's text
	dir  string // the checkout a Work in: line names, where the role file says to work there; "" for the session's
}

// workIn takes the dispatch's Work in: line as the checkout to work in,
// as the role file says: every command begun with a cd to it. An
// implementer that escapes ignores it, as subagents in the wild do.
func (a *agent) workIn(escapes bool) {
	wi, ok := a.d.Fields["Work in"]
	if !ok || escapes || !strings.Contains(strings.Join(strings.Fields(a.role), " "), "run git as `git -C '<that path>' …` and any other command as `cd '<that path>' && …`") {
		return
	}
	a.dir = wi
}

// inDir is cmd run in the checkout a.dir, as the role file says: git as
// git -C, any other command after a cd (Claude Code asks a person for a
// cd before a git command, whatever the rules).
func (a *agent) inDir(cmd string) string {
	parts := strings.Split(cmd, " && ")
	for i, p := range parts {
		rest, ok := strings.CutPrefix(p, "git ")
		if !ok {
			return "cd " + shellQuote(a.dir) + " && " + cmd
		}
		parts[i] = "git -C " + shellQuote(a.dir) + " " + rest
	}
	return strings.Join(parts, " && ")
}

// agentFailed unwinds a subagent script with its reply.
type agentFailed string

// run runs body and turns a failure into a reply the controller will not
// take for success.
func run(t Tools, d Dispatch, failReply func(string) string, body func(a *agent) string) (out string) {
	a := &agent{t: t, d: d}
	defer unwound(func(s agentFailed) { out = failReply(string(s)) })
	return body(a)
}

func (a *agent) fail(format string, args ...any) {
	panic(agentFailed(FailPrefix + fmt.Sprintf(format, args...)))
}

func (a *agent) field(label string) string {
	v, ok := a.d.Fields[label]
	if !ok {
		a.fail("the dispatch has no %q line", label)
	}
	return v
}

func (a *agent) read(path string) string {
	r := a.t.Read(path, 0, 0)
	if r.IsError {
		a.fail("reading %s was refused: %s", path, r.Text)
	}
	return FileText(r.Text)
}

func (a *agent) bash(cmd string) string {
	if a.dir != "" {
		cmd = a.inDir(cmd)
	}
	r := a.t.Bash(cmd)
	if r.IsError {
		a.fail("Bash %s: %s", cmd, r.Text)
	}
	return r.Text
}

func (a *agent) write(path, content string) {
	if r := a.t.Write(path, content); r.IsError {
		a.fail("Write %s: %s", path, r.Text)
	}
}

// readRole reads the role file, checks the section the dispatch names,
// and checks its answer block has exactly these labels.
func (a *agent) readRole(section string, labels ...string) {
	a.role = a.read(a.d.RoleFile)
	if a.role == "" {
		return
	}
	if section != "" && !strings.Contains(a.role, "\n## "+section+"\n") {
		a.fail("%s has no section %q", a.d.RoleFile, section)
	}
	got, err := Answer(a.role)
	if err != nil {
		a.fail("%s: %v", a.d.RoleFile, err)
	}
	if strings.Join(got, "|") != strings.Join(labels, "|") {
		a.fail("%s's answer has the labels %q, the follower writes %q", a.d.RoleFile, got, labels)
	}
}

// root is the repository's top level (the subagent's working directory),
// as the workspace's files the dispatch names show it: a subagent runs
// only the commands a user allows for the plan (git add, git commit, the
// plan's tests), so it asks git nothing else.
func (a *agent) root() string {
	if a.dir != "" {
		return a.dir
	}
	for _, label := range []string{"Brief", "Report", "Package"} {
		p := strings.TrimSuffix(a.d.Fields[label], ")")
		if i := strings.LastIndex(p, "/.superpowers/sdd/"); i >= 0 {
			return p[:i]
		}
	}
	a.fail("the dispatch names no file of the workspace")
	return ""
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

var commitLineRe = regexp.MustCompile(`(?m)^\[[^\]\s]+(?: \([^)]*\))? ([0-9a-f]{4,})\] `)

// commit stages paths, commits, and returns the new short sha, which git
// commit prints ("[branch abc1234] message").
func (a *agent) commit(paths []string, msg string) string {
	var q []string
	for _, p := range paths {
		q = append(q, shellQuote(p))
	}
	var out string
	if a.dir != "" {
		// In a worktree, git -C: staged in a call of its own, then
		// committed (Droid's shield refuses a commit whose index an
		// earlier git -C of the same command may change).
		a.bash("git add -- " + strings.Join(q, " "))
		out = a.bash("git commit -m " + shellQuote(msg))
	} else {
		out = a.bash("git add -- " + strings.Join(q, " ") + " && git commit -m " + shellQuote(msg))
	}
	m := commitLineRe.FindStringSubmatch(out)
	if m == nil {
		a.fail("git commit printed no \"[branch sha]\" line:\n%s", out)
	}
	return m[1]
}

var briefHeadingRe = regexp.MustCompile(`(?m)^#+ Task (\d+):`)

// doEachRe is the implementer's rule for a batch's brief.
var doEachRe = regexp.MustCompile(`A brief may hold several tasks of the plan \(a batch\): do each, in its order, one commit each`)

// taskFirstRe is the reviewer's rule for a batch: each finding names its
// task first.
var taskFirstRe = regexp.MustCompile(`A brief of several tasks \(a batch\): judge each task's requirements, and begin each finding's text with its task`)

// briefTasks are the scenario's tasks a brief holds, in its order: one,
// or a batch's, the first being the task dispatched (n).
func (sc Scenario) briefTasks(a *agent, n int, brief string) []Task {
	var out []Task
	for _, m := range briefHeadingRe.FindAllStringSubmatch(brief, -1) {
		t, err := sc.task(atoiOr(m[1]))
		if err != nil {
			a.fail("the brief holds Task %s, which the scenario has not", m[1])
		}
		out = append(out, t)
	}
	if len(out) == 0 || out[0].N != n {
		a.fail("the brief does not begin with Task %d:\n%s", n, brief)
	}
	return out
}

// reviewFirstLineRe is the first line of a review file: a reviewer's
// answer, first (Spec:), or a re-reviewer's (F<k>:, or New: with no
// findings given).
var reviewFirstLineRe = regexp.MustCompile(`^(?:Spec|F\d+|New): `)

// readReview reads the review file a fix or re-review dispatch names,
// which holds the findings' details: a review, its answer first, as the
// role files have reviewers write it.
func (a *agent) readReview(path string) string {
	text := a.read(path)
	if !reviewFirstLineRe.MatchString(text) {
		first, _, _ := strings.Cut(text, "\n")
		a.fail("the Review line names %s, which is no review (it begins %q)", path, first)
	}
	return text
}

// holds says whether the file at path exists and holds content.
func (a *agent) holds(path, content string) bool {
	r := a.t.Read(path, 0, 0)
	return !r.IsError && strings.TrimRight(FileText(r.Text), "\n") == strings.TrimRight(content, "\n")
}

// conflictRe is the finding sdd-ledger records for a join that
// conflicted: the files, and the branch to merge.
var conflictRe = regexp.MustCompile(`^joining conflicts with \S+ at [0-9a-f]+ in (.+): in the worktree .+, merge (\S+) into \S+ and resolve it$`)
