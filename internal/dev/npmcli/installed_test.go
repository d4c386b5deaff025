package npmcli

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

func installed(c CLI, env string) (path, how string) {
	tb := &stopTB{}
	defer func() {
		if r := recover(); r != nil {
			how = tb.how
		}
	}()
	return c.Installed(tb, env), ""
}

func TestInstalled(t *testing.T) {
	c := CLI{Name: "Codex"}
	t.Setenv("SDD_TEST_CLI", "/opt/codex")
	p, how := installed(c, "SDD_TEST_CLI")
	assert.Equal(t, "/opt/codex", p)
	assert.Empty(t, how)

	t.Setenv("SDD_TEST_CLI", "")
	t.Setenv(RequiredEnv, "")
	_, how = installed(c, "SDD_TEST_CLI")
	assert.Equal(t, "skip: no Codex CLI ($SDD_TEST_CLI unset): make test-host installs and runs it", how)
	t.Setenv(RequiredEnv, "1")
	_, how = installed(c, "SDD_TEST_CLI")
	assert.Equal(t, "fatal: $SDD_TEST_CLI is not set: run make test-host", how)
}
