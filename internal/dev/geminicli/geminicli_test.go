package geminicli

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sdd-go/sdd-go/internal/dev/npmcli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Install takes the one package for any platform, and runs its bundle
// with node: the bundle must print Version alone.
func TestInstall(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node on PATH")
	}
	for _, version := range []string{Version, "0.0.1"} {
		npm, calls := npmcli.FakeNPM(t, map[string]map[string]string{Package + "@" + Version: {
			// As the bundle does, it writes ~/.gemini, which must be
			// the check's own HOME.
			"node_modules/@google/gemini-cli/bundle/gemini.js": `const fs = require("fs");
if (process.env.HOME === "` + os.Getenv("HOME") + `") process.exit(3);
fs.mkdirSync(process.env.HOME + "/.gemini");
if (process.argv[2] === "--version") console.log("` + version + `");`,
		}})
		dir := filepath.Join(t.TempDir(), Version)
		bin, err := CLI.Install(context.Background(), npm, dir, "darwin-arm64", io.Discard)
		assert.Regexp(t, `^install --ignore-scripts .* @google/gemini-cli@`+Version+`$`, calls()[0])
		if version != Version {
			require.ErrorContains(t, err, `printed "0.0.1", want `+Version)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(dir, "node_modules/@google/gemini-cli/bundle/gemini.js"), bin)
	}
}

// A session's environment is built from nothing: the caller's variables
// stay out, the scripted model is the API's base URL, the folder trusted.
func TestEnv(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "a real key")
	env := Env("/h", "/t", "http://127.0.0.1:4242", []string{"/usr/bin", "/bin"})
	for _, want := range []string{
		"HOME=/h", "TMPDIR=/t", "PATH=/usr/bin:/bin", "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:4242",
		"GEMINI_API_KEY=" + APIKey, "GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_CLI_NO_RELAUNCH=true",
		"GEMINI_CLI_SYSTEM_SETTINGS_PATH=/h/.gemini-system/settings.json",
	} {
		assert.Contains(t, env, want)
	}
	assert.NotContains(t, env, "GEMINI_API_KEY=a real key")
	for _, v := range Env("/h", "/t", "", nil) {
		assert.False(t, strings.HasPrefix(v, "GOOGLE_GEMINI_BASE_URL="), "no model, no base URL")
	}
}

// settings.json signs in with the key and keeps the CLI off the network.
func TestWriteSettings(t *testing.T) {
	home := t.TempDir()
	require.NoError(t, WriteSettings(home, Settings()))
	b, err := os.ReadFile(filepath.Join(home, ".gemini", "settings.json"))
	require.NoError(t, err)
	var s struct {
		Security struct{ Auth struct{ SelectedType string } }
		Privacy  struct{ UsageStatisticsEnabled *bool }
		General  struct{ EnableAutoUpdate, EnableAutoUpdateNotification *bool }
	}
	require.NoError(t, json.Unmarshal(b, &s))
	assert.Equal(t, "gemini-api-key", s.Security.Auth.SelectedType)
	for _, off := range []*bool{s.Privacy.UsageStatisticsEnabled, s.General.EnableAutoUpdate, s.General.EnableAutoUpdateNotification} {
		require.NotNil(t, off)
		assert.False(t, *off)
	}
}

func TestReadEvents(t *testing.T) {
	out := `{"type":"init","session_id":"s1","model":"auto"}
{"type":"message","role":"user","content":"hi"}
{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"ls"}}
{"type":"tool_result","tool_id":"t1","status":"error","output":"Tool execution denied by policy.","error":{"type":"policy_violation","message":"Tool execution denied by policy."}}
{"type":"error","severity":"warning","message":"Loop detected, stopping execution"}
{"type":"result","status":"success","stats":{}}
`
	events, err := ReadEvents(strings.NewReader(out))
	require.NoError(t, err)
	require.Len(t, events, 6)
	assert.Equal(t, "s1", events[0].SessionID)
	assert.Equal(t, map[string]any{"command": "ls"}, events[2].Parameters)
	assert.Equal(t, "policy_violation", events[3].Error.Type)
	problems := Problems(events)
	require.Len(t, problems, 2)
	assert.Contains(t, problems[0], "a tool failed")
	assert.Contains(t, problems[1], "Loop detected")

	cut, err := ReadEvents(strings.NewReader(`{"type":"init"}` + "\n"))
	require.NoError(t, err)
	assert.Equal(t, []string{"the session printed no result"}, Problems(cut))

	_, err = ReadEvents(strings.NewReader("Warning: not JSON\n"))
	assert.ErrorContains(t, err, "not an event")
}

func TestArgs(t *testing.T) {
	assert.Equal(t, []string{"--approval-mode", "yolo", "-o", "stream-json", "-p", "-x"}, Args("-x", "--approval-mode", "yolo"))
}

// The installed CLI reports Version in a session's environment.
func TestInstalledVersion(t *testing.T) {
	bin := Binary(t)
	path, err := SessionPath()
	require.NoError(t, err)
	home, tmp := t.TempDir(), t.TempDir()
	c := exec.Command(bin, "--version")
	c.Env, c.Dir = Env(home, tmp, "", path), t.TempDir()
	out, err := c.Output()
	require.NoError(t, err)
	assert.Equal(t, Version+"\n", string(out))
}
