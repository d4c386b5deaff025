package host

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckCommandPasses(t *testing.T) {
	for _, cmd := range []string{
		"sdd-workspace 'docs/plan.md'",
		"git rev-parse HEAD",
		"printf '%s\\n' 'Task 1: base=abc' >> '/r/my repo é/.superpowers/sdd/plan/progress.md'",
		"set -C\nprintf '%s\\n' '# SDD ledger — plan: docs/x.md' > '/ws/progress.md'",
		"if [ -e '/ws/progress.md' ]; then head -n 1 '/ws/progress.md'; else echo 'no ledger'; fi",
		`echo "$HOME" "$PATH" "$LC_ALL" "${TMPDIR:-/tmp}" $? $# $1 "$@" ${#HOME}`,
		`ws=/tmp/x; echo "$ws/progress.md"`,
		`for f in a b; do echo "$f"; done`,
		`while read -r line; do echo "$line"; done < file`,
		`export N=1; echo "$N"`,
		`echo "$(cd sub && pwd)"`,
		"( cd sub && make )",
		"echo `cd sub; pwd`",
		`echo '$WS' "\$WS" \$WS`,
		"cat <<'EOF'\n$WS and `x`\nEOF\necho done",
		"i=0; echo $((i + 1)); (( i += 2 ))",
		"grep -c x file # a comment with $WS",
		"git log --oneline 'abc'..HEAD 2>/dev/null",
		"echo cd",
		`case $x in a) echo "$x" ;; esac; x=1`,
	} {
		assert.NoError(t, CheckCommand(cmd), "%q", cmd)
	}
}

func TestCheckCommandFails(t *testing.T) {
	for cmd, want := range map[string]string{
		"cd docs && task-brief plan.md 1": "runs cd",
		"cd '/repo'":                      "runs cd",
		"pushd x":                         "runs pushd",
		"true && cd /tmp; ls":             "runs cd",
		"if true; then cd x; fi":          "runs cd",
		"FOO=1 cd x":                      "runs cd",
		`echo "$WS/progress.md"`:          "$WS",
		`printf '%s\n' "Task 1: base=$BASE" >> "${WS}/p.md"`: "$BASE, $WS",
		"cat <<EOF\n$WS\nEOF":                                "$WS",
		"cat <<-EOF\n\t`echo $X`\n\tEOF":                     "$X",
		"echo $((n + 1))":                                    "$n",
		"echo `echo $WS`":                                    "$WS",
		`echo "$(dirname "$plan")"`:                          "$plan",
		`review-package "$PLAN" "${BASE}" HEAD`:              "$BASE, $PLAN",
		`echo ${ws#"$root"/}`:                                "$root, $ws",
		"sdd-workspace docs/plan.md\ncd \"$(git rev-parse --show-toplevel)\"": "runs cd",
	} {
		err := CheckCommand(cmd)
		if assert.Error(t, err, "%q", cmd) {
			assert.Contains(t, err.Error(), want, "%q", cmd)
		}
	}
}

// A session's check looks at the controller's Bash calls, not at the
// subagents'.
func TestCheckBash(t *testing.T) {
	bash := func(agent, cmd string) ToolUse {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		return ToolUse{Name: "Bash", Input: in, Agent: agent}
	}
	uses := []ToolUse{
		bash("", "sdd-workspace 'docs/plan.md'"),
		bash("", "WS=/r/.superpowers/sdd/plan"),
		bash("", `task-brief docs/plan.md 1 "$WS/brief.md"`), // WS came from the call before
		bash("toolu_agent", "cd greet && go test ."),         // an implementer's own business
		bash("", "cd docs"),
	}
	errs := CheckBash(uses)
	require.Len(t, errs, 2)
	assert.Contains(t, errs[0].Error(), "uses $WS without assigning it")
	assert.Contains(t, errs[1].Error(), "runs cd")
}
