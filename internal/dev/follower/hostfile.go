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

// continuesRe is the host file's row "a fix round" where the host can
// message a subagent that has answered: the rounds that go to the task's
// implementer again.
var continuesRe = regexp.MustCompile(`^rounds (\d+)-(\d+): continue the implementer\b`)

// earlierText is the host file's exception to its rounds that continue
// the implementer: one an earlier session dispatched (the id Look
// printed) is not this session's to message.
const earlierText = "an implementer of an earlier session: a new implementer"

// continues says whether fix round r continues the task's implementer,
// as the host file's row "a fix round" says: "rounds A-B: continue the
// implementer …" where the host can (but for an implementer of an
// earlier session, earlier, where the row says so), "a new implementer
// …" where it cannot; any other cell fails the run.
func (c *controller) continues(r int, earlier bool) bool {
	cell := c.hostNeed("a fix round")
	if m := continuesRe.FindStringSubmatch(cell); m != nil {
		from, _ := strconv.Atoi(m[1])
		to, _ := strconv.Atoi(m[2])
		return from <= r && r <= to && !(earlier && strings.Contains(cell, earlierText))
	}
	if !strings.HasPrefix(cell, "a new implementer") {
		c.fail("the host's file says neither \"rounds A-B: continue the implementer\" nor \"a new implementer\" in its row \"a fix round\": %q", cell)
	}
	return false
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
