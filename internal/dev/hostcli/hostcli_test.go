package hostcli

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// stopTB records how a test would have stopped.
type stopTB struct {
	testing.TB
	how string
}

func (s *stopTB) Helper() {}
func (s *stopTB) Skipf(f string, a ...any) {
	s.how = "skip: " + fmt.Sprintf(f, a...)
	panic(s)
}
func (s *stopTB) Fatalf(f string, a ...any) {
	s.how = "fatal: " + fmt.Sprintf(f, a...)
	panic(s)
}

func installed(c CLI) (path, how string) {
	tb := &stopTB{}
	defer func() {
		if r := recover(); r != nil {
			how = tb.how
		}
	}()
	return c.Installed(tb), ""
}

func TestInstalled(t *testing.T) {
	c := CLI{Name: "codex", Title: "Codex CLI", BinaryEnv: "SDD_TEST_CLI"}
	t.Setenv("SDD_TEST_CLI", "/opt/codex")
	p, how := installed(c)
	assert.Equal(t, "/opt/codex", p)
	assert.Empty(t, how)

	t.Setenv("SDD_TEST_CLI", "")
	t.Setenv(RequiredEnv, "")
	_, how = installed(c)
	assert.Equal(t, "skip: no Codex CLI ($SDD_TEST_CLI unset): make test-host-codex installs and runs it", how)
	t.Setenv(RequiredEnv, "1")
	_, how = installed(c)
	assert.Equal(t, "fatal: $SDD_TEST_CLI is not set: run make test-host-codex", how)
}

// A start's environment is built from nothing: the caller's variables
// stay out, every directory of the CLI is under its HOME, a host's own
// variables come after (and win).
func TestEnv(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "a real key")
	env := Gemini.Env("/h", "/t", []string{"/usr/bin", "/bin"})
	for _, want := range []string{"HOME=/h", "TMPDIR=/t", "PATH=/usr/bin:/bin", "XDG_CONFIG_HOME=/h/.config",
		"XDG_CACHE_HOME=/h/.cache", "LANG=C.UTF-8", "GIT_CONFIG_NOSYSTEM=1", "GEMINI_CLI_NO_RELAUNCH=true"} {
		assert.Contains(t, env, want)
	}
	for _, v := range env {
		assert.NotContains(t, v, "a real key")
	}
}
