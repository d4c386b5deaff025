package ship

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBinaryName(t *testing.T) {
	for _, tc := range []struct{ goos, want string }{
		{"windows", "task-brief.exe"},
		{"darwin", "task-brief"},
		{"linux", "task-brief"},
	} {
		assert.Equal(t, tc.want, BinaryName("task-brief", tc.goos), tc.goos)
	}
}

func TestLDFlagsStampTheVersion(t *testing.T) {
	assert.Equal(t, "-s -w -X github.com/sdd-go/sdd-go/internal/cliapp.Version=v1.2.3", LDFlags("v1.2.3"))
	assert.Equal(t, "-s -w", LDFlags(""))
}

func TestArgsAreTheShippedBuild(t *testing.T) {
	got := strings.Join(Build{Out: "bin", Version: "v1", Race: true, Extra: []string{"./x"}}.Args(), " ")
	assert.Equal(t, "build -trimpath -tags urfave_cli_no_docs -ldflags -s -w -X "+VersionVar+"=v1 -race -o bin/ ./cmd/sdd-workspace ./cmd/task-brief ./cmd/review-package ./x", got)
}

// fakeGit answers git commands from a table; anything else fails.
func fakeGit(answers map[string]string) func(args ...string) (string, error) {
	return func(args ...string) (string, error) {
		if v, ok := answers[strings.Join(args, " ")]; ok {
			return v, nil
		}
		return "", errors.New("exit status 128")
	}
}

func TestDefaultVersion(t *testing.T) {
	const exact, describe = "describe --tags --exact-match --dirty", "describe --tags --always --dirty"
	for _, tc := range []struct {
		name    string
		answers map[string]string
		want    string
	}{
		{"on a tag", map[string]string{exact: "v1.2.3", describe: "v1.2.3"}, "v1.2.3"},
		{"on a tag, modified", map[string]string{exact: "v1.2.3-dirty", describe: "v1.2.3-dirty"}, "v1.2.3-dirty"},
		{"after a tag", map[string]string{describe: "v1.2.3-4-gabcdef0"}, "v1.2.3-4-gabcdef0"},
		{"no tag", map[string]string{describe: "abcdef0"}, "abcdef0"},
		{"no git or no repository", nil, "dev"},
	} {
		assert.Equal(t, tc.want, DefaultVersion(fakeGit(tc.answers)), tc.name)
	}
}
