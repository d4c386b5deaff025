// Package plaincmd says whether a Bash command is one the host runs
// without asking a person: a plain command, or a && chain of them, each
// with literal arguments, whose words an allow rule names. Claude Code
// (measured on 2.1.328) asks before running a command that holds $(…) or
// backquotes, sets or reads a variable, redirects, pipes, loops, or has
// braces with quotes; under `claude -p` it refuses it. The skill's steps
// must be plain, and so must the commands of the follower's subagents:
// the host suite (internal/dev/claudehost), the static checks of the text and
// the direct executor (internal/dev/skilltext) all judge with this one
// checker.
package plaincmd

import (
	"fmt"
	"strings"
)

// Parse splits line into its commands (the parts of a && chain), each a
// list of words with their quotes removed, or says why the host would
// not take it as plain.
func Parse(line string) ([][]string, error) {
	var cmds [][]string
	var words []string
	var word strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("an unclosed single quote")
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 {
				return nil, fmt.Errorf("an unclosed double quote")
			}
			s := line[i+1 : i+1+j]
			if strings.ContainsAny(s, "$`\\") {
				return nil, fmt.Errorf("double quotes around %q: $, backquotes and backslashes expand there", s)
			}
			word.WriteString(s)
			inWord = true
			i += j + 1
		case c == '&' && strings.HasPrefix(line[i:], "&&"):
			end()
			if len(words) == 0 {
				return nil, fmt.Errorf("&& with no command before it")
			}
			cmds = append(cmds, words)
			words = nil
			i++
		case strings.IndexByte(safe, c) >= 0 || c >= 0x80:
			if c == '=' && len(words) == 0 && !inWord {
				return nil, fmt.Errorf("a command that begins with %q", "=")
			}
			if c == '#' && !inWord {
				return nil, fmt.Errorf("a # that starts a comment")
			}
			if c == '~' && !inWord {
				return nil, fmt.Errorf("a ~ that expands to a home directory")
			}
			word.WriteByte(c)
			inWord = true
		default:
			return nil, fmt.Errorf("%q outside quotes: the host asks before running a command with %s", string(c), what(c))
		}
	}
	end()
	if len(words) == 0 {
		if len(cmds) == 0 {
			return nil, fmt.Errorf("no command")
		}
		return nil, fmt.Errorf("&& with no command after it")
	}
	cmds = append(cmds, words)
	for _, w := range cmds {
		if strings.Contains(w[0], "=") {
			return nil, fmt.Errorf("%q sets a variable", w[0])
		}
	}
	return cmds, nil
}

// safe are the bytes a word may hold outside quotes.
const safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-#~^"

func what(c byte) string {
	switch c {
	case '$':
		return "a variable or a substitution"
	case '`':
		return "a substitution"
	case '>', '<':
		return "a redirection"
	case '|':
		return "a pipe"
	case ';', '\n', '&':
		return "more than one command"
	case '(', ')', '{', '}':
		return "a subshell or a group"
	case '*', '?', '[', ']':
		return "a glob"
	case '\\':
		return "an escape"
	}
	return "this character"
}

// Rule is an allow rule as the host's settings and a skill's
// allowed-tools write it: Bash(git add:*) allows a command whose words
// begin with git add; Bash(sh check.sh) allows exactly that command; a
// word * stands for any one word, and a last word * for the rest, as
// in Bash(git -C * add *) (Claude Code's wildcard; a quoted path with
// blanks is one word).
type Rule struct {
	words  []string
	prefix bool
}

// ParseRule reads "Bash(…)"; other tools' rules are not Bash rules.
func ParseRule(s string) (Rule, bool) {
	inner, ok := strings.CutPrefix(strings.TrimSpace(s), "Bash(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return Rule{}, false
	}
	inner = strings.TrimSuffix(inner, ")")
	r := Rule{}
	if p, ok := strings.CutSuffix(inner, ":*"); ok {
		inner, r.prefix = p, true
	}
	r.words = strings.Fields(inner)
	if n := len(r.words); n > 1 && r.words[n-1] == "*" {
		r.words, r.prefix = r.words[:n-1], true
	}
	return r, len(r.words) > 0
}

// Rules reads the Bash rules of a list (other tools' rules are left out).
func Rules(list []string) []Rule {
	var out []Rule
	for _, s := range list {
		if r, ok := ParseRule(s); ok {
			out = append(out, r)
		}
	}
	return out
}

func (r Rule) allows(words []string) bool {
	if len(words) < len(r.words) || !r.prefix && len(words) != len(r.words) {
		return false
	}
	for i, w := range r.words {
		if words[i] != w && w != "*" {
			return false
		}
	}
	return true
}

// Check says why the host would ask before running line with rules, or
// nil: line must be plain and each of its commands allowed by a rule.
func Check(line string, rules []Rule) error {
	cmds, err := Parse(line)
	if err != nil {
		return err
	}
	for _, words := range cmds {
		ok := false
		for _, r := range rules {
			ok = ok || r.allows(words)
		}
		if !ok {
			return fmt.Errorf("no allow rule names %q", strings.Join(words, " "))
		}
	}
	return nil
}
