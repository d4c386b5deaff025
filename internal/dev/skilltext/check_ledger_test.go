package skilltext

import (
	"fmt"
	"strings"
	"testing"
)

// Check 5: the ledger formats are one interface. SKILL.md shows the block
// docs/protocol.md fixes, byte for byte; every line a block appends to
// the ledger has one of those formats; every format is written by some
// block; and example.md's ledger is one a real run could have written.

// checkLedgerBlock: SKILL.md's ledger formats block is docs/protocol.md's,
// byte for byte, and each of its lines compiles as a format.
func checkLedgerBlock(x skillText) []string {
	var p []string
	skill, proto := ledgerFence(x[skillMD]), ledgerFence(x["docs/protocol.md"])
	switch {
	case skill == nil:
		return []string{"SKILL.md has no ledger formats block (a block starting with " + IdentityPrefix + "<)"}
	case proto == nil:
		return []string{"docs/protocol.md has no ledger formats block"}
	case skill.Body != proto.Body:
		p = append(p, fmt.Sprintf("SKILL.md:%d: the ledger formats block differs from docs/protocol.md:%d's:\n%s", skill.Line, proto.Line, lineDiff("protocol.md", proto.Body, "SKILL.md", skill.Body)))
	}
	for _, s := range LedgerFormats(x[skillMD]) {
		if _, err := CompileFormat(s); err != nil {
			p = append(p, "SKILL.md: "+err.Error())
		}
	}
	return p
}

func ledgerFence(text string) *Fence {
	for _, f := range Fences(text) {
		if f.Depth == 0 && strings.HasPrefix(f.Body, IdentityPrefix+"<") {
			return &f
		}
	}
	return nil
}

// Sample shas a block's computed values stand for.
const (
	sampleSha   = "0123456789abcdef0123456789abcdef01234567"
	sampleShort = "0123456"
)

// ledgerPath is where the samples put the ledger.
var ledgerPath = samples["<workspace>"][0] + "/progress.md"

// ledgerLines are the lines a block instance appends to the ledger, with
// where each printf is: every printf on a line whose redirection goes to
// the ledger (the path itself, or a variable the block sets to it),
// evaluated with sample shas for what the block computes, once per value
// of a for loop around it.
func ledgerLines(script string) (map[int][]string, error) {
	s, err := parseSh(script)
	if err != nil {
		return nil, err
	}
	literal := func(name string) (string, error) {
		ws := s.values[name]
		if len(ws) != 1 {
			return "", fmt.Errorf("$%s has no single value", name)
		}
		v, err := shEval(ws[0], func(n string) (string, error) { return "", fmt.Errorf("$%s", n) },
			func(string) (string, error) { return "", fmt.Errorf("a substitution") })
		return strings.TrimPrefix(v, name+"="), err
	}
	toLedger := map[int]bool{}
	for _, r := range s.redirs {
		if r.op != ">" && r.op != ">>" && r.op != ">|" {
			continue
		}
		if v, err := shEval(r.target, literal, func(string) (string, error) { return "", fmt.Errorf("a substitution") }); err == nil && v == ledgerPath {
			toLedger[r.line] = true
		}
	}
	out := map[int][]string{}
	for _, c := range s.cmds {
		if c.name() != "printf" || !toLedger[c.line] {
			continue
		}
		runs := []map[string]string{{}}
		for name, words := range c.loops {
			var next []map[string]string
			for _, r := range runs {
				for _, w := range words {
					v, err := shEval(w, literal, sampleSubst)
					if err != nil {
						return nil, fmt.Errorf("line %d: the loop's word %s: %v", c.line, w.raw, err)
					}
					m := map[string]string{name: v}
					for k, x := range r {
						m[k] = x
					}
					next = append(next, m)
				}
			}
			runs = next
		}
		for _, loopVals := range runs {
			vars := func(n string) (string, error) {
				if v, ok := loopVals[n]; ok {
					return v, nil
				}
				return sampleSha, nil // a sha the block computed or read back
			}
			var args []string
			for _, w := range c.words[1:] {
				v, err := shEval(w, vars, sampleSubst)
				if err != nil {
					return nil, fmt.Errorf("line %d: %s: %v", c.line, w.raw, err)
				}
				args = append(args, v)
			}
			if len(args) == 0 {
				return nil, fmt.Errorf("line %d: printf with no format", c.line)
			}
			text, err := miniPrintf(args[0], args[1:])
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", c.line, err)
			}
			if !strings.HasSuffix(text, "\n") {
				return nil, fmt.Errorf("line %d: the printf leaves the ledger without a final newline: %q", c.line, text)
			}
			out[c.line] = append(out[c.line], strings.Split(strings.TrimSuffix(text, "\n"), "\n")...)
		}
	}
	return out, nil
}

// sampleSubst is what a command substitution in a ledger line gives: a
// short sha for git rev-parse --short, a full one for the other
// rev-parse and merge-base calls.
func sampleSubst(src string) (string, error) {
	f := strings.Fields(src)
	switch {
	case len(f) >= 2 && f[0] == "git" && f[1] == "rev-parse" && strings.Contains(src, "--short"):
		return sampleShort, nil
	case len(f) >= 2 && f[0] == "git" && (f[1] == "rev-parse" || f[1] == "merge-base"):
		return sampleSha, nil
	}
	return "", fmt.Errorf("no sample for $(%s)", src)
}

// miniPrintf is printf(1) for the conversions the text uses: %s and %%,
// \n, \t and \\; the format is reused while arguments remain.
func miniPrintf(format string, args []string) (string, error) {
	var b strings.Builder
	for first := true; first || len(args) > 0; first = false {
		consumed := false
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '\\' && i+1 < len(format):
				i++
				switch format[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case '\\':
					b.WriteByte('\\')
				default:
					return "", fmt.Errorf("printf escape \\%c: not one the check knows", format[i])
				}
			case c == '%' && i+1 < len(format):
				i++
				switch format[i] {
				case '%':
					b.WriteByte('%')
				case 's':
					consumed = true
					if len(args) > 0 {
						b.WriteString(args[0])
						args = args[1:]
					}
				default:
					return "", fmt.Errorf("printf conversion %%%c: not one the check knows", format[i])
				}
			default:
				b.WriteByte(c)
			}
		}
		if !consumed {
			break
		}
	}
	return b.String(), nil
}

// checkLedgerWrites: every line a block of SKILL.md, resume.md or
// manual.md appends to the ledger, with every combination of sample
// values, matches a format of SKILL.md's block, and every format is
// written by some block.
func checkLedgerWrites(x skillText) []string {
	var p []string
	var formats []Format
	for _, s := range LedgerFormats(x[skillMD]) {
		if f, err := CompileFormat(s); err == nil {
			formats = append(formats, f)
		}
	}
	if len(formats) == 0 {
		return []string{"SKILL.md shows no ledger formats"}
	}
	written := map[string]bool{}
	for _, b := range x.shBlocks(runFiles...) {
		insts, err := instances(b.Body)
		if err != nil {
			p = append(p, fmt.Sprintf("%s: %v", where(b, 0), err))
			continue
		}
		for _, script := range insts {
			lines, err := ledgerLines(script)
			if err != nil {
				p = append(p, fmt.Sprintf("%s: %v", where(b, 0), err))
				continue
			}
			for at, ls := range lines {
				for _, l := range ls {
					matched := false
					for _, f := range formats {
						if _, ok := f.Match(l); ok {
							written[f.Text], matched = true, true
							break
						}
					}
					if !matched {
						p = append(p, fmt.Sprintf("%s: the block appends %q to the ledger, which matches no ledger format", where(b, at), l))
					}
				}
			}
		}
	}
	for _, f := range formats {
		if !written[f.Text] {
			p = append(p, fmt.Sprintf("SKILL.md: no block writes the ledger line %q", f.Text))
		}
	}
	return p
}

// checkExampleLedger: example.md shows one ledger, which parses against
// SKILL.md's formats in the order the blocks write them, with full shas
// where the formats say <sha>, short ones in ranges, each range running
// from its base to the last reviewed head; and, a straight run, each
// task starting where the one before it ended.
func checkExampleLedger(x skillText) []string {
	const file = "skill/example.md"
	var found []block
	for _, b := range x.blocks(file) {
		if b.isLedger() && !strings.HasPrefix(b.Body, IdentityPrefix+"<") {
			found = append(found, b)
		}
	}
	if len(found) != 1 {
		return []string{fmt.Sprintf("%s shows %d ledgers, not one", file, len(found))}
	}
	b := found[0]
	l, err := ParseLedger(b.Body, LedgerFormats(x[skillMD]))
	if err != nil {
		return []string{fmt.Sprintf("%s: the ledger: %v", where(b, 0), err)}
	}
	var p []string
	var prev *TaskState
	for n := 1; n <= len(l.Tasks); n++ {
		t := l.Tasks[n]
		if t == nil {
			p = append(p, fmt.Sprintf("%s: the ledger has no Task %d but has Task %d", where(b, 0), n, len(l.Tasks)))
			break
		}
		if prev != nil && t.Base != prev.ReviewedHead {
			p = append(p, fmt.Sprintf("%s: Task %d's base %s is not Task %d's last reviewed head %s", where(b, 0), n, t.Base, n-1, prev.ReviewedHead))
		}
		prev = t
	}
	if f := l.Final; f != nil && prev != nil && len(f.ReviewedHeads) > 0 && f.ReviewedHeads[0] != prev.ReviewedHead {
		p = append(p, fmt.Sprintf("%s: the final review's head %s is not the last task's last reviewed head %s", where(b, 0), f.ReviewedHeads[0], prev.ReviewedHead))
	}
	return p
}

func TestLedger(t *testing.T) {
	x := loadText(t)
	requireClean(t, checkLedgerBlock(x))
	requireClean(t, checkLedgerWrites(x))
	requireClean(t, checkExampleLedger(x))
}

func TestLedgerCatches(t *testing.T) {
	x := loadText(t)
	const ex = "skill/example.md"
	for name, c := range map[string]struct {
		check  func(skillText) []string
		broken skillText
		want   string
	}{
		"SKILL.md's block drifts":  {checkLedgerBlock, x.edit(t, skillMD, "Task <N>: BLOCKED — <reason>\nTask <N>: complete", "Task <N>: BLOCKED - <reason>\nTask <N>: complete"), "differs from docs/protocol.md"},
		"the protocol's drifts":    {checkLedgerBlock, x.edit(t, "docs/protocol.md", "Final: minor (deferred): <one-liner>\n", ""), "differs from docs/protocol.md"},
		"no formats block":         {checkLedgerBlock, x.edit(t, skillMD, "```text\n# SDD ledger — plan: <plan file path>", "```text\n# The ledger — plan: <plan file path>"), "SKILL.md has no ledger formats block"},
		"a hyphen for an em dash":  {checkLedgerWrites, x.edit(t, skillMD, "%s open — %s; commits", "%s open - %s; commits"), "matches no ledger format"},
		"a full sha in a range":    {checkLedgerWrites, x.edit(t, skillMD, "\"$(git rev-parse --short \"$1\")\"", "\"$1\""), "matches no ledger format"},
		"a short sha for base=":    {checkLedgerWrites, x.edit(t, skillMD, "printf 'Task <N>: base=%s\\n' \"$(git rev-parse HEAD)\"", "printf 'Task <N>: base=%s\\n' \"$(git rev-parse --short HEAD)\""), "matches no ledger format"},
		"a missing newline":        {checkLedgerWrites, x.edit(t, skillMD, "printf 'Task <N>: implementer=%s\\n'", "printf 'Task <N>: implementer=%s'"), "without a final newline"},
		"a missing space":          {checkLedgerWrites, x.edit(t, skillMD, "printf '<who>: complete (commits %s..%s, %s)\\n'", "printf '<who>: complete (commits %s..%s,%s)\\n'"), "matches no ledger format"},
		"an unwritten format":      {checkLedgerWrites, x.edit(t, "skill/resume.md", "printf '%s: BLOCKED — %s\\n' '<who>' '<reason>'", "printf '%s: parked — %s — ruling: %s\\n' '<who>' '<reason>' 'stuck'"), "no block writes the ledger line \"Task <N>: BLOCKED — <reason>\""},
		"a typo in resume.md":      {checkLedgerWrites, x.edit(t, "skill/resume.md", "printf 'Task <N>: base=%s\\nTask <N>: reviewed_head=%s\\n'", "printf 'Task <N>: base=%s\\nTask <N>: reviewed_head %s\\n'"), "reviewed_head 0123"},
		"example: a round's range": {checkExampleLedger, x.edit(t, ex, "commits fc9fc2b..9075be9)", "commits 4524ac6..9075be9)"), "round 1 starts at 4524ac6"},
		"example: a short base=":   {checkExampleLedger, x.edit(t, ex, "Task 3: base=9075be96800f811d36e459c5910857ee59ba59c2", "Task 3: base=9075be9"), "no ledger format matches"},
		"example: a full range":    {checkExampleLedger, x.edit(t, ex, "commits ae3baa5..4524ac6", "commits ae3baa5c070bbbba209d1875d6dcd8899a3025aa..4524ac6"), "no ledger format matches"},
		"example: a range's end":   {checkExampleLedger, x.edit(t, ex, "(commits 9075be9..01251db, review clean)", "(commits 9075be9..0125100, review clean)"), "completion range ends at 0125100"},
		"example: a broken chain":  {checkExampleLedger, x.edit(t, ex, "Task 3: base=9075be96800f811d36e459c5910857ee59ba59c2", "Task 3: base=fc9fc2b91d3b0a52dc3a3e5b6a5a08c1a7e3b2c4").edit(t, ex, "(commits 9075be9..01251db,", "(commits fc9fc2b..01251db,"), "Task 3's base"},
		"example: a hyphen":        {checkExampleLedger, x.edit(t, ex, "fix round 1/5 (1 addressed, 0 open — none;", "fix round 1/5 (1 addressed, 0 open - none;"), "no ledger format matches"},
		"example: out of order":    {checkExampleLedger, x.edit(t, ex, "Task 2: fix round 1/5 (1 addressed, 0 open — none; commits fc9fc2b..9075be9)\nTask 2: complete", "Task 2: complete"), "complete while a re-review has no fix round line"},
	} {
		t.Run(name, func(t *testing.T) { requireCatches(t, c.check(c.broken), c.want) })
	}
}

// TestMiniPrintf: the check's printf agrees with sh's on the text's uses.
func TestMiniPrintf(t *testing.T) {
	for _, c := range []struct {
		format string
		args   []string
		want   string
	}{
		{`%s\n`, []string{"a", "b"}, "a\nb\n"},
		{`Task 1: base=%s\nTask 1: reviewed_head=%s\n`, []string{"x", "y"}, "Task 1: base=x\nTask 1: reviewed_head=y\n"},
		{`%s: parked — %s — ruling: %s\n`, []string{"Final", "F1 x"}, "Final: parked — F1 x — ruling: \n"},
		{`100%% done\n`, nil, "100% done\n"},
	} {
		got, err := miniPrintf(c.format, c.args)
		if err != nil || got != c.want {
			t.Errorf("printf %q %q = %q, %v; want %q", c.format, c.args, got, err, c.want)
		}
	}
	if _, err := miniPrintf(`%d\n`, []string{"1"}); err == nil {
		t.Error("an unknown conversion (d) was taken")
	}
}
