package harness

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/scripted"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// Host is one host CLI as the scenarios (RunScenarios) drive it: a host
// package's description of its CLI and the adapter of the follower's
// tools onto its own, as a database/sql driver or an rclone backend
// describes itself. The scenarios are written once, over this; a new
// host is its package, and nothing else learns its name.
type Host interface {
	Adapter
	// Facts are what the scenarios expect of the host where hosts
	// differ.
	Facts() Facts
	// Start makes a machine for sessions in repo: the skill installed by
	// the project's installer as a user installs it, the sessions given
	// the permissions a user gives sc's run, and a timeout that fits a
	// whole run.
	Start(t *testing.T, repo string, sc follower.Scenario) *Sessions
}

// Sessions is a machine of a host ready for sessions, and where the
// installer put the skill.
type Sessions struct {
	*Machine
	SkillDir string // the skill's folder (its SKILL.md)
	BinDir   string // the four commands' folder
	// Session runs one session of the CLI with prompt, its controller
	// controller, and holds it to what every session of the host must
	// hold (no call failed or refused, no script failed, the CLI ended
	// well): the test fails otherwise, with the transcript logged.
	Session func(prompt string, controller scripted.Script) *Played
}

// Ready is m ready for sessions: the skill the installer put in
// skillDir, its commands in its bin/ (a host whose commands are
// elsewhere makes its Sessions itself), each session run by session.
func (m *Machine) Ready(skillDir string, session func(prompt string, controller scripted.Script) *Played) *Sessions {
	return &Sessions{Machine: m, SkillDir: skillDir, BinDir: filepath.Join(skillDir, "bin"), Session: session}
}

// Facts are where hosts differ, as the scenarios check them.
type Facts struct {
	// Skill is the skill's name as the host lists it; "" is
	// ship.SkillName, the name of the folder the installer puts it in,
	// as every host lists it but one that namespaces it (Claude Code's
	// plugin: follower.DefaultSkill). SkillName reads it.
	Skill string
	// OnPath: the commands are on the PATH of the host's shell, and the
	// host's file has them run by name (Claude Code, where the plugin's
	// bin/ is); else by their path in the skill, quoted.
	OnPath bool
	// Tiers: a dispatch names the tier's model, as the host's file gives
	// the tiers' models; else every subagent runs on the session's.
	Tiers bool
	// Model is the model every request of a session names where the
	// tiers name none: the session's, on which every subagent runs.
	Model string
	// AgentIDs: a dispatch's answer gives the agent's id, which the
	// ledger records as the implementer; else the ledger records none.
	AgentIDs bool
	// Continues: fix rounds 1-3 go to the task's implementer again, as
	// the host's file says (its row "a fix round"); else each is a new
	// implementer.
	Continues bool
	// Reads is how the host reads a 2000-line part of a package of over
	// 256 KB.
	Reads Reads
	// Calls are the host's calls each follower tool of the controller is
	// (Bash, Read, Skill, Agent): a pattern of their names, each followed
	// by a space ("spawn_agent wait_agent close_agent "); nil for a tool
	// is none checked.
	Calls map[string]*regexp.Regexp
	// Dispatch is the host's dispatch call, as the walk-through checks
	// every one of the controller's: the agent it runs, as the host's
	// file names it, in the call's input field (none checked where Field
	// is ""), and no model where the host has no Tiers.
	Dispatch Dispatch
	// Micro: the host runs MicroTasks and MicroResume, a batch of
	// follower.MicroTasks tiny tasks and a resume in its middle (two more
	// sessions' worth of time).
	Micro bool
	// Parallel: the host's file says several dispatches of one message
	// run at once, and the host runs Parallel, tasks side by side.
	Parallel bool
	// Resumes are the states of follower.Resumes the host resumes from
	// (a new session each, about a walk-through's time); nil:
	// FewResumes. $SDD_HOST_RESUMES=all runs every state on every host.
	Resumes []string
}

// OneCall is a pattern of Facts.Calls: a follower tool that is one call
// of the host's, name.
func OneCall(name string) *regexp.Regexp {
	return regexp.MustCompile("^" + regexp.QuoteMeta(name) + " $")
}

// SomeCalls is a pattern of Facts.Calls: a follower tool that is one or
// more calls of the host's, name (a read in pieces).
func SomeCalls(name string) *regexp.Regexp {
	return regexp.MustCompile("^(" + regexp.QuoteMeta(name) + " )+$")
}

// OneCallEach are Facts.Calls of a host whose every follower tool of the
// controller is one call of its own: its Bash, Read, Skill and Agent, by
// name.
func OneCallEach(bash, read, skill, agent string) map[string]*regexp.Regexp {
	return map[string]*regexp.Regexp{"Bash": OneCall(bash), "Read": OneCall(read), "Skill": OneCall(skill), "Agent": OneCall(agent)}
}

// SkillName is the skill's name as the host lists it (Facts.Skill).
func (f Facts) SkillName() string {
	if f.Skill == "" {
		return ship.SkillName
	}
	return f.Skill
}

// Dispatch is a host's dispatch call: its name (without a namespace),
// and the input field naming the agent it runs, which must be Agent.
type Dispatch struct{ Call, Field, Agent string }

// FewResumes are the resume states a host's suite runs: which row Look
// gives and what the text makes of it do not depend on the host, and
// the direct executor of internal/dev/skilltext resumes from every
// state with Claude Code's file, and from the fix round's with the
// file of each host that continues an implementer; every state in every
// real CLI would put CI past its budget (Claude Code's 33 alone took 6
// minutes).
// These four reach what a host can get wrong in a new session: a fix
// round's second implementer found from the disk, a task blocked after
// five rounds (a long conversation: Gemini's loop check at the 30th
// turn), the final review's fix, and a branch rebased under the run.
var FewResumes = []string{"refix", "blocked", "fix: the final review", "rewritten: the branch rebased under the run"}

// AllResumesEnv, set to "all", makes each host resume from every state
// of follower.Resumes, as before a change of the text's state table:
// SDD_HOST_RESUMES=all make test-host-claude.
const AllResumesEnv = "SDD_HOST_RESUMES"

// Reads is how a host's reader gets a part of a file its read call does
// not show at once.
type Reads int

const (
	// Whole: one read call shows the part (Claude Code's Read).
	Whole Reads = iota
	// Pieces: the call shows less (Codex's output cap, Copilot's view),
	// and the adapter reads the rest of the part in more calls, each
	// from the line the last one cut.
	Pieces
	// GoesOn: the call stops early and names the line the file goes on
	// from (OpenCode's 50 KB), and the reader goes on from there, as the
	// role files say: more parts.
	GoesOn
)
