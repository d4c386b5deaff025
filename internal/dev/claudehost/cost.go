package claudehost

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Cost is what the host estimates a component costs in tokens: always-on
// (its listing, in every session) and on-invoke (its text, each time it
// fires).
type Cost struct {
	AlwaysOn, OnInvoke int
}

// PluginDetails is the projected token cost `claude plugin details`
// prints for a plugin.
type PluginDetails struct {
	AlwaysOn   int             // the plugin's always-on total
	Components map[string]Cost // by component (skill) name
	Output     string          // what the command printed
}

// PluginCost runs `claude plugin details name` on this host. The server
// answers count_tokens with 404, so the numbers are the CLI's own local
// estimate (about four characters a token), the same on every machine.
func (h *Host) PluginCost(name string) (PluginDetails, error) {
	out, err := h.Command(h.Env(), h.Claude, "plugin", "details", name)
	if err != nil {
		return PluginDetails{}, fmt.Errorf("%v%s", err, out)
	}
	return ParseDetails(string(out))
}

var (
	alwaysOnRe = regexp.MustCompile(`(?m)^\s*Always-on:\s+(\S+(?: \d\S*)?)\s+tok`)
	columnsRe  = regexp.MustCompile(`\S+(?: \S+)*`) // cells: runs of words one space apart
)

// ParseDetails reads the projected token cost out of `claude plugin
// details` output: the "Always-on: ~16 tok" line and the per-component
// table under the "component  always-on  on-invoke" header.
func ParseDetails(out string) (PluginDetails, error) {
	d := PluginDetails{Components: map[string]Cost{}, Output: out}
	m := alwaysOnRe.FindStringSubmatch(out)
	if m == nil {
		return d, fmt.Errorf("no Always-on line in:\n%s", out)
	}
	var err error
	if d.AlwaysOn, err = Tokens(m[1]); err != nil {
		return d, err
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if !strings.Contains(l, "always-on") || !strings.Contains(l, "on-invoke") || !strings.Contains(l, "component") {
			continue
		}
		for _, row := range lines[i+1:] {
			cells := columnsRe.FindAllString(row, -1)
			if len(cells) != 3 {
				break
			}
			var c Cost
			if c.AlwaysOn, err = Tokens(cells[1]); err != nil {
				return d, err
			}
			if c.OnInvoke, err = Tokens(cells[2]); err != nil {
				return d, err
			}
			d.Components[cells[0]] = c
		}
	}
	if len(d.Components) == 0 {
		return d, fmt.Errorf("no per-component rows in:\n%s", out)
	}
	return d, nil
}

// Tokens reads one of the host's rounded token counts: "~30" is 30,
// "~6.9k" 6900, and "< 20" is taken at its bound, 20.
func Tokens(cell string) (int, error) {
	s := strings.TrimSpace(cell)
	s = strings.TrimSpace(strings.TrimLeft(s, "~<"))
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1e3, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, strings.TrimSuffix(s, "M")
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("not a token count: %q", cell)
	}
	return int(f*mult + 0.5), nil
}
