package npmcli

import (
	"os"
	"testing"
)

// RequiredEnv, set to 1, turns a missing CLI from a skip into a failure,
// so make test-host cannot pass by skipping: one switch for every host
// suite.
const RequiredEnv = "SDD_HOST_REQUIRED"

// Installed returns the CLI binary the variable env names (make test-host
// installs the CLI and sets it). Without it the test is skipped (plain go
// test ./... needs only Go and git), or fails when $SDD_HOST_REQUIRED=1.
func (c CLI) Installed(t testing.TB, env string) string {
	t.Helper()
	p := os.Getenv(env)
	if p == "" {
		if os.Getenv(RequiredEnv) == "1" {
			t.Fatalf("$%s is not set: run make test-host", env)
		}
		t.Skipf("no %s CLI ($%s unset): make test-host installs and runs it", c.Name, env)
	}
	return p
}
