package follower

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// This file is the host's file of the skill, host-<name>.md: SKILL.md
// says to read it, and only it, before the first command. Its table
// (first column Need) says how the host does what SKILL.md asks: the
// command's form, the dispatch, the tiers' models.

// readHost reads the host's file, which SKILL.md must name.
func (c *controller) readHost() {
	name := HostFile(c.t.Host())
	if !strings.Contains(c.skill.Body, "("+name+")") {
		c.fail("SKILL.md links no %s for this host", name)
	}
	r := c.t.Read(c.skill.Dir+"/"+name, 0, 0)
	if r.IsError {
		c.fail("reading %s: %s", name, r.Text)
	}
	t, err := ParseText(FileText(r.Text))
	if err != nil {
		c.fail("%s: %v", name, err)
	}
	if len(t.TableWith("Need")) == 0 {
		c.fail("%s has no table whose first column is Need", name)
	}
	c.host = t
}

// hostNeed is the host file's cell for a need ("a command", "tiers"), one
// line with its spaces folded.
func (c *controller) hostNeed(need string) string {
	for _, r := range c.host.TableWith("Need") {
		if len(r) == 2 && r[0] == need {
			return strings.Join(strings.Fields(r[1]), " ")
		}
	}
	c.fail("the host's file has no row %q", need)
	return ""
}

var commandFormRe = regexp.MustCompile("`([^`]*<command>[^`]*)`")

// asHostRuns writes each command of a filled chain in the form the host
// file's "a command" row gives, `<command>` standing for the command's
// name: `<command>` itself where the commands are on PATH, `<skill
// dir>/bin/<command>` where the host puts no bin/ there.
func (c *controller) asHostRuns(chain string) string {
	m := commandFormRe.FindStringSubmatch(c.hostNeed("a command"))
	if m == nil {
		c.fail("the host's file says no form of a command (a `…<command>…` in its row \"a command\")")
	}
	form := strings.ReplaceAll(m[1], "<skill dir>", c.v["<skill dir>"])
	parts := strings.Split(chain, " && ")
	for i, p := range parts {
		name, rest, _ := strings.Cut(p, " ")
		if slices.Contains(ship.Commands, name) {
			parts[i] = strings.ReplaceAll(form, "<command>", name) + " " + rest
		}
	}
	return strings.Join(parts, " && ")
}

// dispatchTypeRe is the subagent type in the host file's row "a
// dispatch": the parameter that names it on that host's tool (Claude
// Code's, OpenCode's and Droid's `subagent_type`, Copilot's
// `agent_type`, Gemini's `agent_name`, Pi's subagent extension's
// `agent`) and the code span after it.
var dispatchTypeRe = regexp.MustCompile("`(?:subagent_type|agent_type|agent_name|agent)` `([^`]+)`")

// dispatchType is the subagent type the host file's row "a dispatch"
// names, "" where it names none (Codex's spawn_agent takes no type).
func (c *controller) dispatchType() string {
	if m := dispatchTypeRe.FindStringSubmatch(c.hostNeed("a dispatch")); m != nil {
		return m[1]
	}
	return ""
}

// fixRoundClauseRe is one clause of the host file's row "a fix round":
// who it is for ("rounds 1-3", "rounds 4-5, and an implementer of an
// earlier session"), then what they get ("continue the implementer …",
// "a new implementer …").
var fixRoundClauseRe = regexp.MustCompile(`^(.+?): (continue the implementer|a new implementer)\b`)

var roundsSubjectRe = regexp.MustCompile(`^rounds? (\d+)(?:-(\d+))?$`)

// earlierSubject is the subject of a clause for an implementer an
// earlier session dispatched (the id Look printed): not this session's
// to message.
const earlierSubject = "an implementer of an earlier session"

// continues says whether fix round r continues the task's implementer
// (one of an earlier session when earlier), as SKILL.md's sentence and
// the host file's row "a fix round" both say: SKILL.md's "fix rounds
// A-B continue the implementer (…) where your host's file says it can",
// and in the row the clause for that implementer, else the one for the
// round ("rounds A-B: continue the implementer …", "…: a new implementer
// …"), else none. A row of no such clause fails the run.
func (c *controller) continues(r int, earlier bool) bool {
	cell := c.hostNeed("a fix round")
	if strings.HasPrefix(cell, "a new implementer") {
		return false
	}
	var byRound, bySession string
	for _, clause := range strings.Split(cell, "; ") {
		m := fixRoundClauseRe.FindStringSubmatch(clause)
		if m == nil {
			continue // a clause's own "; " (a tool's details)
		}
		for _, who := range regexp.MustCompile(`,? and |, `).Split(m[1], -1) {
			switch sm := roundsSubjectRe.FindStringSubmatch(who); {
			case who == earlierSubject:
				if earlier && bySession == "" {
					bySession = m[2]
				}
			case sm != nil:
				from, _ := strconv.Atoi(sm[1])
				to := from
				if sm[2] != "" {
					to, _ = strconv.Atoi(sm[2])
				}
				if from <= r && r <= to && byRound == "" {
					byRound = m[2]
				}
			default:
				c.fail("the host's file names %q in its row \"a fix round\", which the follower cannot tell (rounds A-B, or %s)", who, earlierSubject)
			}
		}
	}
	if byRound == "" && bySession == "" && !strings.Contains(cell, ": continue the implementer") {
		c.fail("the host's file says neither \"rounds A-B: continue the implementer\" nor \"a new implementer\" in its row \"a fix round\": %q", cell)
	}
	decided := byRound
	if bySession != "" {
		decided = bySession
	}
	return decided == "continue the implementer" && c.skillContinues(r)
}

// skillContinuesRe is SKILL.md's sentence on the rounds a host may send
// to the task's implementer again.
var skillContinuesRe = regexp.MustCompile(`fix rounds? (\d+)(?:-(\d+))? continue the implementer\b`)

// skillContinues says whether SKILL.md lets fix round r continue the
// implementer where the host's file says it can: without its sentence,
// every dispatch is a fresh subagent.
func (c *controller) skillContinues(r int) bool {
	if c.skill.Text == nil {
		return true // a host file read alone (its tests)
	}
	m := skillContinuesRe.FindStringSubmatch(oneLine(c.skill.Body))
	if m == nil {
		return false
	}
	from, _ := strconv.Atoi(m[1])
	to := from
	if m[2] != "" {
		to, _ = strconv.Atoi(m[2])
	}
	return from <= r && r <= to
}

// refusedRe is a host file's rule for a subagent's report that the host
// refused it a file: "if a subagent reports one refused, stop
// and ask the user to set it".
var refusedRe = regexp.MustCompile(`[Ii]f an? ([a-z-]+) reports ([^,.]+?) refused, (.+?)\.(?: |$)`)

// onRefused does what the host's file says of a subagent of role whose
// answer reports a file refused, where its rule covers that role: stop
// and ask, with the host file's paragraph that says what to set. Without
// a rule that covers it, the answer is taken as any other.
func (c *controller) onRefused(u *unit, role, reply string) {
	if !strings.Contains(reply, " refused") {
		return
	}
	for _, para := range strings.Split(c.host.Body, "\n\n") {
		m := refusedRe.FindStringSubmatch(oneLine(para))
		if m == nil || m[1] != "subagent" && !strings.Contains(role, m[1]) {
			continue
		}
		if !strings.HasPrefix(m[3], "stop") {
			c.fail("the host's file says of a refused file %q, which the follower cannot do", m[3])
		}
		c.say(fmt.Sprintf("Stopping at %s: the %s reports a file refused (%s). As this host's file says: %s", u.name, role, strings.ReplaceAll(reply, "\n", " "), oneLine(para)))
	}
}

// HostFile is the name of the skill's file for host.
func HostFile(host string) string { return "host-" + host + ".md" }

// ByName is a command line as the text writes it: in each command of a
// chain, a leading '<dir>/bin/<command>' (the form of a host with no bin/
// on PATH) is the command's name again.
func ByName(chain string) string {
	parts := strings.Split(chain, " && ")
	for i, part := range parts {
		if !strings.HasPrefix(part, "'") {
			continue
		}
		word, rest, ok := strings.Cut(part[1:], "'")
		if !ok {
			continue
		}
		for _, name := range ship.Commands {
			if strings.HasSuffix(word, "/bin/"+name) {
				parts[i] = name + rest
				break
			}
		}
	}
	return strings.Join(parts, " && ")
}

// RunsFinish says whether a command line runs Finish, which deletes the
// plan's workspace: a host adapter copies the workspaces first
// (KeepWorkspaces), for the test to read what the run left.
func RunsFinish(command string) bool {
	return strings.Contains(ByName(command), "sdd-ledger finish ")
}

// KeepWorkspaces copies each workspace under repo's .superpowers/sdd into
// keep, once: a replayed conversation finds the copy made.
func KeepWorkspaces(repo, keep string) error {
	dirs, _ := filepath.Glob(filepath.Join(repo, ".superpowers", "sdd", "*", "progress.md"))
	for _, l := range dirs {
		ws := filepath.Dir(l)
		dst := filepath.Join(keep, filepath.Base(ws))
		if _, err := os.Stat(dst); err == nil {
			continue
		}
		if err := os.CopyFS(dst, os.DirFS(ws)); err != nil {
			return fmt.Errorf("copying %s before Finish: %w", ws, err)
		}
	}
	return nil
}
