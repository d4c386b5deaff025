package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

// TestGeminiPolicy: --host gemini writes ~/.gemini/policies/sdd-go.toml
// allowing the four commands by their paths, single-quoted as host-gemini.md writes them, in the install and the
// skill's activation, lists it in that folder's manifest, keeps it when
// edited (unless --force), and --uninstall removes it, leaving the
// user's own policies.
func TestGeminiPolicy(t *testing.T) {
	h := newHarness(t)
	policies := filepath.Join(h.home, ".gemini", "policies")
	require.NoError(t, os.MkdirAll(policies, 0o755))
	mine := filepath.Join(policies, "mine.toml")
	require.NoError(t, os.WriteFile(mine, []byte("# mine\n"), 0o644))

	code, _, stderr := h.run("--host", "gemini", "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	policy := filepath.Join(policies, policyName)
	text := readFile(t, policy)
	skill := h.placeOf(hostGemini)
	for _, c := range ship.Commands {
		assert.Contains(t, text, `"'`+skill+`/bin/`+c+`'"`)
	}
	assert.Contains(t, text, `toolName = "run_shell_command"`)
	assert.Contains(t, text, `argsPattern = '"name":"`+ship.SkillName+`"'`)
	assert.Equal(t, 2, strings.Count(text, `decision = "allow"`))
	assert.Contains(t, readFile(t, filepath.Join(policies, manifestName)), policyName)
	assert.Contains(t, stderr, policy)
	assert.Contains(t, stderr, "respectGitIgnore")

	require.NoError(t, os.WriteFile(policy, []byte("# edited\n"), 0o644))
	code, _, stderr = h.run("--host", "gemini", "--bin", h.bin)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "was modified since it was installed")
	assert.Equal(t, "# edited\n", readFile(t, policy))
	code, _, stderr = h.run("--host", "gemini", "--bin", h.bin, "--force")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, text, readFile(t, policy))

	code, _, stderr = h.run("--host", "gemini", "--uninstall")
	require.Equal(t, 0, code, stderr)
	assertMissing(t, policy, "the policy is removed")
	assertMissing(t, filepath.Join(policies, manifestName), "and its manifest")
	assert.NoDirExists(t, skill)
	assert.Equal(t, "# mine\n", readFile(t, mine), "the user's policy stays")
}

// TestGeminiPolicyFollowsTheInstall: with --dir, the rules name that
// folder, as the kernel resolves it and as it was named.
func TestGeminiPolicyFollowsTheInstall(t *testing.T) {
	h := newHarness(t)
	real := filepath.Join(t.TempDir(), "real")
	require.NoError(t, os.MkdirAll(real, 0o755))
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(real, link))
	dir := link + "/skill"
	code, _, stderr := h.run("--host", "gemini", "--bin", h.bin, "--dir", dir)
	require.Equal(t, 0, code, stderr)
	text := readFile(t, filepath.Join(h.home, ".gemini", "policies", policyName))
	assert.Contains(t, text, `"'`+dir+`/bin/sdd-ledger'"`)
	assert.Contains(t, text, `"'`+real+`/skill/bin/sdd-ledger'"`)
}

// TestOneCopyForEachHost: installs for every skill-folder host in one
// HOME leave each host one copy of the skill among the folders it reads
// user skills from (as measured: each its own, and ~/.agents/skills).
func TestOneCopyForEachHost(t *testing.T) {
	h := newHarness(t)
	reads := map[string][]string{
		hostCodex:    {".codex/skills", ".agents/skills"},
		hostOpenCode: {".config/opencode/skills"},
		hostCopilot:  {".copilot/skills", ".agents/skills"},
		hostGemini:   {".gemini/skills", ".agents/skills"},
		hostPi:       {".pi/agent/skills", ".agents/skills"},
		hostDroid:    {".factory/skills", ".agents/skills"},
	}
	for host := range reads {
		code, _, stderr := h.run("--host", host, "--bin", h.bin)
		require.Equal(t, 0, code, stderr)
	}
	for host, dirs := range reads {
		n := 0
		for _, d := range dirs {
			if _, err := os.Stat(filepath.Join(h.home, d, ship.SkillName, "SKILL.md")); err == nil {
				n++
			}
		}
		assert.Equal(t, 1, n, "%s sees the skill once", host)
	}
}

// TestRelativeHostHomes: a relative COPILOT_HOME, GEMINI_CLI_HOME,
// PI_CODING_AGENT_DIR or FACTORY_HOME_OVERRIDE is refused as a relative
// CODEX_HOME is, and nothing is written.
func TestRelativeHostHomes(t *testing.T) {
	for host, key := range map[string]string{hostCopilot: "COPILOT_HOME", hostGemini: "GEMINI_CLI_HOME", hostPi: "PI_CODING_AGENT_DIR", hostDroid: "FACTORY_HOME_OVERRIDE"} {
		t.Run(host, func(t *testing.T) {
			h := newHarness(t)
			cwd := fakeCheckout(t)
			h.env[key] = "rel"
			for _, args := range [][]string{{"--host", host, "--bin", h.bin}, {"--host", host, "--uninstall"}} {
				code, _, stderr := h.run(args...)
				assert.Equal(t, 1, code, "%q: %s", args, stderr)
				assert.Contains(t, stderr, key+` is "rel", a relative path`)
				assertMissing(t, filepath.Join(cwd, "rel"), "%q: nothing in the current directory", args)
				assertMissing(t, h.placeOf(host), "%q: nor in HOME", args)
			}
		})
	}
}

// TestQuoteInThePathIsRefused (issue 36, item 8): a HOME (or --dir) whose
// path holds a ' makes every command in a host file's form,
// '<skill dir>/bin/<command>', a syntax error, and Gemini's rule a prefix
// that runs a file of another folder. The install is refused, nothing
// written, for every host that runs the commands by their paths; Claude
// Code, which runs them by name, installs.
func TestQuoteInThePathIsRefused(t *testing.T) {
	for _, host := range hosts {
		t.Run(host, func(t *testing.T) {
			h := newHarness(t)
			h.home = filepath.Join(t.TempDir(), "o'brien")
			require.NoError(t, os.MkdirAll(h.home, 0o755))
			code, _, stderr := h.run("--host", host, "--bin", h.bin)
			if host == hostClaudeCode {
				require.Equal(t, 0, code, stderr)
				return
			}
			assert.Equal(t, 1, code, stderr)
			assert.Contains(t, stderr, "holds a ' (a single quote)")
			assert.Empty(t, readTree(t, h.home), "nothing written")
		})
	}
}

// TestUninstallWithAnEditedPolicyChangesNothing (issue 36, item 8): an
// uninstall that meets the policy edited refuses before it removes the
// skill: it once removed the skill, then said "nothing was changed".
func TestUninstallWithAnEditedPolicyChangesNothing(t *testing.T) {
	h := newHarness(t)
	code, _, stderr := h.run("--host", "gemini", "--bin", h.bin)
	require.Equal(t, 0, code, stderr)
	policy := filepath.Join(h.home, ".gemini", "policies", policyName)
	require.NoError(t, os.WriteFile(policy, []byte("# edited\n"), 0o644))
	before := readTree(t, h.home)
	code, _, stderr = h.run("--host", "gemini", "--uninstall")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "was modified since it was installed")
	assert.Contains(t, stderr, "nothing was changed")
	assert.Equal(t, before, readTree(t, h.home), "the skill and the policy are as they were")
	code, _, stderr = h.run("--host", "gemini", "--uninstall", "--force")
	require.Equal(t, 0, code, stderr)
	assertMissing(t, policy, "with --force the policy goes too")
}
