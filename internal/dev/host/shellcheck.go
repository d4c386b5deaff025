package host

import (
	"fmt"
	"sort"
	"strings"
)

// environment are the variables a fresh shell has without anybody setting
// them in the command: the process environment and the shell's own.
var environment = map[string]bool{
	"HOME": true, "PATH": true, "PWD": true, "OLDPWD": true, "TMPDIR": true,
	"USER": true, "LOGNAME": true, "SHELL": true, "LANG": true, "TERM": true,
	"IFS": true, "HOSTNAME": true, "UID": true, "EUID": true, "PPID": true,
	"RANDOM": true, "LINENO": true, "SECONDS": true, "REPLY": true,
	"OPTARG": true, "OPTIND": true,
}

// CheckCommand reports why a command given to the Bash tool would not do
// the same in the fresh shell the host starts for every call: a cd (or
// pushd, popd) outside a subshell, which the host carries over and which
// moves every later call; and a variable the command uses but does not
// assign itself (the environment's aside), whose value was meant to come
// from an earlier call.
//
// It reads the command as a POSIX shell does, far enough for these two
// questions: quotes, escapes, $(…), `…`, ${…}, $((…)), subshells,
// comments and here-documents. Assignments anywhere in the command count
// (NAME=, for NAME, read NAME, export and local).
func CheckCommand(cmd string) error {
	sc := &shellScan{src: cmd, assigned: map[string]bool{}}
	sc.list(0, 0)
	var problems []string
	for _, c := range sc.cds {
		problems = append(problems, fmt.Sprintf("it runs %s, which moves every later Bash call", c))
	}
	seen := map[string]bool{}
	var unset []string
	for _, name := range sc.used {
		if !sc.assigned[name] && !environment[name] && !strings.HasPrefix(name, "LC_") && !seen[name] {
			seen[name] = true
			unset = append(unset, "$"+name)
		}
	}
	sort.Strings(unset)
	if len(unset) > 0 {
		problems = append(problems, fmt.Sprintf("it uses %s without assigning it (a fresh shell has no value from an earlier call)", strings.Join(unset, ", ")))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%q: %s", cmd, strings.Join(problems, "; "))
	}
	return nil
}

// CheckBash checks every Bash command of the main session (the scripted
// controller) with CheckCommand; subagents' commands are theirs.
func CheckBash(uses []ToolUse) []error {
	var errs []error
	for _, u := range uses {
		if u.Agent == "" && u.Name == "Bash" {
			if err := CheckCommand(u.Command()); err != nil {
				errs = append(errs, fmt.Errorf("the controller's Bash command %w", err))
			}
		}
	}
	return errs
}

type shellScan struct {
	src      string
	i        int
	assigned map[string]bool
	used     []string
	cds      []string
	heredocs []heredoc // announced on the current line, read at its end
}

type heredoc struct {
	delim  string
	quoted bool // the body is literal
	tabs   bool // <<-: leading tabs are stripped
}

func (s *shellScan) eof() bool  { return s.i >= len(s.src) }
func (s *shellScan) peek() byte { return s.src[s.i] }
func (s *shellScan) at(p string) bool {
	return strings.HasPrefix(s.src[s.i:], p)
}

func isNameStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
func isNameChar(c byte) bool { return isNameStart(c) || (c >= '0' && c <= '9') }

// name reads a variable name at the current position.
func (s *shellScan) name() string {
	j := s.i
	for j < len(s.src) && isNameChar(s.src[j]) {
		j++
	}
	n := s.src[s.i:j]
	s.i = j
	return n
}

// list reads commands until closer (')' or '`') or the end; depth > 0
// inside a subshell or a command substitution, where a cd moves nothing.
func (s *shellScan) list(depth int, closer byte) {
	cmdPos := true    // the next word is a command name or an assignment
	cmd := ""         // the command whose arguments follow
	redirect := false // the next word is a redirection's target
	heredocNext := false
	heredocTabs := false
	forName := false
	for !s.eof() {
		c := s.peek()
		switch {
		case closer != 0 && c == closer:
			s.i++
			return
		case c == ' ' || c == '\t':
			s.i++
		case c == '\\' && s.at("\\\n"):
			s.i += 2
		case c == '\n':
			s.i++
			s.readHeredocs()
			cmdPos, cmd = true, ""
		case c == '#' && (s.i == 0 || strings.ContainsRune(" \t\n;&|()", rune(s.src[s.i-1]))):
			for !s.eof() && s.peek() != '\n' {
				s.i++
			}
		case c == ';' || c == '&' || c == '|':
			for !s.eof() && strings.IndexByte(";&|", s.peek()) >= 0 {
				s.i++
			}
			cmdPos, cmd = true, ""
		case c == '(':
			s.i++
			if s.at("(") { // ((arithmetic))
				s.i++
				s.arithmetic()
				continue
			}
			s.list(depth+1, ')')
			cmdPos = false
		case c == ')':
			// A case pattern's end: a command follows.
			s.i++
			cmdPos, cmd = true, ""
		case c == '<' || c == '>':
			if s.at("<<") && !s.at("<<<") {
				s.i += 2
				heredocTabs = s.at("-")
				if heredocTabs {
					s.i++
				}
				heredocNext = true
				continue
			}
			for !s.eof() && strings.IndexByte("<>&|", s.peek()) >= 0 {
				s.i++
			}
			redirect = true
		default:
			text, plain := s.word(closer)
			switch {
			case heredocNext:
				s.heredocs = append(s.heredocs, heredoc{delim: text, quoted: !plain, tabs: heredocTabs})
				heredocNext = false
			case redirect:
				redirect = false
			case plain && len(text) > 0 && allDigits(text) && !s.eof() && (s.peek() == '<' || s.peek() == '>'):
				// a file descriptor before a redirection
			case forName:
				if plain {
					s.assigned[text] = true
				}
				forName, cmdPos = false, false
			case cmdPos && isAssignment(text):
				s.assigned[text[:strings.IndexByte(text, '=')]] = true
			case cmdPos && plain && reserved[text]:
				forName = text == "for"
				if text == "case" {
					cmdPos = false
				}
			case cmdPos:
				if plain && depth == 0 && (text == "cd" || text == "pushd" || text == "popd") {
					s.cds = append(s.cds, text)
				}
				cmd, cmdPos = text, false
			case assigningCommands[cmd]:
				if n, _, _ := strings.Cut(text, "="); isName(n) {
					s.assigned[n] = true
				}
			}
		}
	}
}

var reserved = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true,
	"do": true, "done": true, "while": true, "until": true, "for": true,
	"case": true, "esac": true, "in": true, "{": true, "}": true, "!": true, "time": true,
}

// assigningCommands assign the names among their arguments.
var assigningCommands = map[string]bool{
	"read": true, "export": true, "local": true, "readonly": true,
	"declare": true, "typeset": true, "getopts": true,
}

func isName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

func isAssignment(w string) bool {
	n, _, ok := strings.Cut(w, "=")
	return ok && isName(n)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// word reads one word and returns its text with quotes removed and each
// expansion replaced by \x00; plain is false when anything in it was
// quoted, escaped or expanded. Inside `…` (closer '`') a backtick ends
// the word.
func (s *shellScan) word(closer byte) (text string, plain bool) {
	var b strings.Builder
	plain = true
	for !s.eof() {
		c := s.peek()
		switch {
		case strings.IndexByte(" \t\n;&|()<>", c) >= 0, c == '`' && closer == '`':
			return b.String(), plain
		case c == '\'':
			plain = false
			s.i++
			j := strings.IndexByte(s.src[s.i:], '\'')
			if j < 0 {
				j = len(s.src) - s.i
			}
			b.WriteString(s.src[s.i : s.i+j])
			s.i = min(s.i+j+1, len(s.src))
		case c == '"':
			plain = false
			s.i++
			s.expansions(&b, '"')
		case c == '\\':
			plain = false
			s.i++
			if !s.eof() {
				if s.peek() != '\n' {
					b.WriteByte(s.peek())
				}
				s.i++
			}
		case c == '$' || c == '`':
			plain = false
			s.expansion()
			b.WriteByte(0)
		default:
			b.WriteByte(c)
			s.i++
		}
	}
	return b.String(), plain
}

// expansions reads text in which only $, ` and \ are special (inside
// double quotes, up to the closing one, or an unquoted here-document's
// body, closer 0) and records the variables it uses.
func (s *shellScan) expansions(b *strings.Builder, closer byte) {
	for !s.eof() {
		c := s.peek()
		switch {
		case closer != 0 && c == closer:
			s.i++
			return
		case c == '\\':
			s.i++
			if !s.eof() {
				b.WriteByte(s.peek())
				s.i++
			}
		case c == '$' || c == '`':
			s.expansion()
			b.WriteByte(0)
		default:
			b.WriteByte(c)
			s.i++
		}
	}
}

// expansion reads one $… or `…` at the current position.
func (s *shellScan) expansion() {
	if s.peek() == '`' {
		s.i++
		s.list(1, '`')
		return
	}
	s.i++ // $
	if s.eof() {
		return
	}
	switch c := s.peek(); {
	case s.at("(("):
		s.i += 2
		s.arithmetic()
	case c == '(':
		s.i++
		s.list(1, ')')
	case c == '{':
		s.i++
		s.braced()
	case c == '\'': // $'…': a quoted string
		s.i++
		for !s.eof() && s.peek() != '\'' {
			if s.peek() == '\\' {
				s.i++
			}
			s.i++
		}
		s.i = min(s.i+1, len(s.src))
	case isNameStart(c):
		s.used = append(s.used, s.name())
	case strings.IndexByte("0123456789@*#?$!-", c) >= 0:
		s.i++ // a special or positional parameter
	}
}

// braced reads ${…} after the brace: the name (after # or ! for its
// length or indirection) and the word after the operator, which may hold
// more expansions.
func (s *shellScan) braced() {
	if !s.eof() && (s.peek() == '#' || s.peek() == '!') && s.i+1 < len(s.src) && s.src[s.i+1] != '}' {
		s.i++
	}
	if !s.eof() && isNameStart(s.peek()) {
		s.used = append(s.used, s.name())
	} else if !s.eof() {
		s.i++ // a special or positional parameter
	}
	var b strings.Builder
	for !s.eof() {
		c := s.peek()
		switch {
		case c == '}':
			s.i++
			return
		case c == '\'':
			s.i++
			for !s.eof() && s.peek() != '\'' {
				s.i++
			}
			s.i = min(s.i+1, len(s.src))
		case c == '"':
			s.i++
			s.expansions(&b, '"')
		case c == '\\':
			s.i += 2
		case c == '$' || c == '`':
			s.expansion()
		default:
			s.i++
		}
	}
}

// arithmetic reads $((…)) or ((…)) after the parentheses: every name in
// it, with or without $, is a variable it uses.
func (s *shellScan) arithmetic() {
	depth := 0
	for !s.eof() {
		c := s.peek()
		switch {
		case s.at("))") && depth == 0:
			s.i += 2
			return
		case c == '(':
			depth++
			s.i++
		case c == ')':
			depth--
			s.i++
		case c == '$':
			s.expansion()
		case isNameStart(c):
			s.used = append(s.used, s.name())
		case isNameChar(c): // a number, possibly 0x1f or 2#101
			for !s.eof() && isNameChar(s.peek()) {
				s.i++
			}
		default:
			s.i++
		}
	}
}

// readHeredocs reads the bodies of the here-documents announced on the
// line that just ended.
func (s *shellScan) readHeredocs() {
	docs := s.heredocs
	s.heredocs = nil
	for _, h := range docs {
		start := s.i
		end := len(s.src)
		for s.i < len(s.src) {
			j := strings.IndexByte(s.src[s.i:], '\n')
			line := s.src[s.i:]
			next := len(s.src)
			if j >= 0 {
				line, next = s.src[s.i:s.i+j], s.i+j+1
			}
			if h.tabs {
				line = strings.TrimLeft(line, "\t")
			}
			if line == h.delim {
				end = s.i
				s.i = next
				break
			}
			s.i = next
		}
		if !h.quoted {
			sub := &shellScan{src: s.src[start:end], assigned: s.assigned}
			var b strings.Builder
			sub.expansions(&b, 0)
			s.used = append(s.used, sub.used...)
		}
	}
}
