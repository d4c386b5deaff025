package skilltext

import (
	"regexp"
	"sort"
	"strings"
)

// Template is one dispatch template of a prompt file: a top-level fenced
// block followed by a "Placeholders:" paragraph listing what to fill in.
type Template struct {
	Line   int      // line of the template's opening fence
	Used   []string // placeholders in the template body, sorted, unique
	Listed []string // placeholders in the list under it, in list order
}

var (
	placeholderRe = regexp.MustCompile(`\[[A-Z][A-Z0-9_]*\]`)
	listedRe      = regexp.MustCompile("^- `(\\[[A-Z][A-Z0-9_]*\\])`")
)

// Templates finds the templates of a prompt file. A top-level fence counts
// as a template when the first non-blank line after it is "Placeholders:".
// Orphans are the lines of "Placeholders:" paragraphs with no template
// right above them.
func Templates(text string) (tpls []Template, orphans []int) {
	lines := strings.Split(text, "\n")
	owned := map[int]bool{}
	for _, f := range Fences(text) {
		if f.Depth != 0 {
			continue
		}
		k := f.End // index of the line after the closing fence
		for k < len(lines) && strings.TrimSpace(lines[k]) == "" {
			k++
		}
		if k >= len(lines) || strings.TrimSpace(lines[k]) != "Placeholders:" {
			continue
		}
		owned[k] = true
		t := Template{Line: f.Line, Used: unique(placeholderRe.FindAllString(f.Body, -1))}
		for k++; k < len(lines); k++ {
			l := lines[k]
			if strings.HasPrefix(l, "#") || strings.HasPrefix(l, "```") {
				break
			}
			if m := listedRe.FindStringSubmatch(l); m != nil {
				t.Listed = append(t.Listed, m[1])
			}
		}
		tpls = append(tpls, t)
	}
	prose := strings.Split(Prose(text), "\n")
	for i, l := range prose {
		if strings.TrimSpace(l) == "Placeholders:" && !owned[i] {
			orphans = append(orphans, i+1)
		}
	}
	return tpls, orphans
}

func unique(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
