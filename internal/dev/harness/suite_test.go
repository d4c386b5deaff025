package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/sdd-go/sdd-go/internal/dev/follower"
	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

func TestResumes(t *testing.T) {
	t.Setenv(AllResumesEnv, "")
	assert.Equal(t, FewResumes, resumes(Facts{}), "a host that names none")
	assert.Equal(t, []string{"refix"}, resumes(Facts{Resumes: []string{"refix"}}))
	assert.Empty(t, resumes(Facts{Resumes: []string{}}))
	assert.NotNil(t, resumes(Facts{Resumes: []string{}}), "an empty list is none, not all")
	t.Setenv(AllResumesEnv, "all")
	assert.Nil(t, resumes(Facts{Resumes: []string{"refix"}}), "every state")
}

// TestFewResumesAreStates: a state renamed in follower.Resumes would
// otherwise drop out of every host's suite unseen.
func TestFewResumesAreStates(t *testing.T) {
	names := map[string]bool{}
	for _, c := range follower.Resumes() {
		names[c.Name] = true
	}
	for _, n := range FewResumes {
		assert.True(t, names[n], "%q is no state of follower.Resumes", n)
	}
}

// A follower tool's host calls, as Facts.Calls patterns match them (the
// names each followed by a space).
func TestCallPatterns(t *testing.T) {
	assert.True(t, OneCall("read_file").MatchString("read_file "))
	assert.False(t, OneCall("read_file").MatchString("read_file read_file "))
	assert.False(t, OneCall("read").MatchString("read_file "))
	assert.True(t, SomeCalls("view").MatchString("view view "))
	assert.False(t, SomeCalls("view").MatchString(""))
	calls := OneCallEach("bash", "read", "read", "task")
	assert.True(t, calls["Skill"].MatchString("read "))
	assert.True(t, calls["Agent"].MatchString("task "))
}

// A host that names no skill lists it under the installer's folder name.
func TestSkillName(t *testing.T) {
	assert.Equal(t, ship.SkillName, Facts{}.SkillName())
	assert.Equal(t, follower.DefaultSkill, Facts{Skill: follower.DefaultSkill}.SkillName())
}
