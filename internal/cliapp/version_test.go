package cliapp

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVersionOf(t *testing.T) {
	build := func(main string, settings ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/sdd-go/sdd-go", Version: main}}
		for i := 0; i+1 < len(settings); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return info
	}
	const rev = "95f7017682e5c0ffee0000000000000000000000"
	cases := []struct {
		name, stamped string
		info          *debug.BuildInfo
		ok            bool
		want          string
	}{
		{"stamped by make", "v1.2.3", build("v9.9.9"), true, "v1.2.3"},
		{"go install …@v1.2.3", "", build("v1.2.3"), true, "v1.2.3"},
		{"go build in a checkout", "", build("v0.0.0-20261202223138-95f7017682e5+dirty"), true, "v0.0.0-20261202223138-95f7017682e5+dirty"},
		{"checkout, no module version", "", build("(devel)", "vcs.revision", rev, "vcs.modified", "true"), true, "devel-95f7017682e5+dirty"},
		{"clean checkout, no module version", "", build("(devel)", "vcs.revision", rev, "vcs.modified", "false"), true, "devel-95f7017682e5"},
		{"no record at all", "", build("(devel)"), true, "dev"},
		{"no build info", "", nil, false, "dev"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, versionOf(c.stamped, c.info, c.ok), c.name)
	}
}
