package follower

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A run's controller calls as steps of the text: each Bash call named by
// the blocks it is made of ("Bash Close+Start task N"), each dispatch by
// its role, task and model, so that a test says which step came next in
// the text's own names, whatever the blocks' wording, and the direct
// executor and the real host are held to the same list.

// Call is one controller call, as either executor saw it.
type Call struct {
	Tool  string // Bash, Read, Skill, Agent, Say, or another tool of the host
	Input string // the command, path, skill, prompt, text
	Model string // an Agent call's model
}

// Steps names calls by the shell blocks of the skill in skillDir.
type Steps struct {
	names  []string
	res    []*regexp.Regexp
	places []int // each block's placeholders: of two blocks a command fits, the one with more is the one meant
}

// NewSteps reads the blocks of skillDir's SKILL.md and resume.md.
func NewSteps(skillDir string) (*Steps, error) {
	s := &Steps{}
	for _, file := range []string{"SKILL.md", "rare.md"} {
		b, err := os.ReadFile(filepath.Join(skillDir, file))
		if err != nil {
			return nil, err
		}
		text, err := ParseText(string(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		for _, name := range text.Names() {
			blk := text.Blocks[name]
			if blk.Lang != "sh" {
				continue
			}
			// The block with its placeholders as wildcards.
			body := strings.TrimSuffix(blk.Body, "\n")
			var re strings.Builder
			re.WriteString(`^`)
			last := 0
			for _, ix := range PlaceholderRe.FindAllStringIndex(body, -1) {
				lit := body[last:ix[0]]
				if ix[1] == len(body) && strings.HasSuffix(lit, " ") && body[ix[0]:ix[1]] == "<decisions>" {
					// A last placeholder that may be nothing (<decisions>)
					// takes its blank with it.
					re.WriteString(regexp.QuoteMeta(strings.TrimSuffix(lit, " ")) + `(?: [^\n]*?)?`)
				} else {
					re.WriteString(regexp.QuoteMeta(lit) + `[^\n]*?`)
				}
				last = ix[1]
			}
			re.WriteString(regexp.QuoteMeta(body[last:]))
			re.WriteString(`$`)
			s.names = append(s.names, name)
			s.res = append(s.res, regexp.MustCompile(re.String()))
			s.places = append(s.places, len(PlaceholderRe.FindAllStringIndex(body, -1)))
		}
	}
	return s, nil
}

// blocks names the commands of a chain ("a && b") by the blocks they
// are, "? <command>" for one that is no block (a check).
func (s *Steps) blocks(command string) string {
	var names []string
	for _, part := range strings.Split(command, " && ") {
		name, best := "? "+part, -1
		for i, re := range s.res {
			if re.MatchString(ByName(part)) && s.places[i] > best {
				name, best = s.names[i], s.places[i]
			}
		}
		names = append(names, name)
	}
	return strings.Join(names, "+")
}

var reviewNameRe = regexp.MustCompile(`review-[0-9a-f]+\.\.[0-9a-f]+`)

// Name is the step c is.
func (s *Steps) Name(c Call) string {
	switch c.Tool {
	case "Bash":
		return "Bash " + s.blocks(c.Input)
	case "Agent":
		d, _ := ParseDispatch(c.Input)
		return fmt.Sprintf("Agent %s %d (%s)", d.Role, d.N, c.Model)
	case "Read":
		return "Read " + reviewNameRe.ReplaceAllString(filepath.Base(c.Input), "review-…")
	case "Say":
		return "Say"
	}
	return c.Tool + " " + c.Input
}

// Names are the steps calls are.
func (s *Steps) Names(calls []Call) []string {
	out := make([]string, 0, len(calls))
	for _, c := range calls {
		out = append(out, s.Name(c))
	}
	return out
}
