# The skill and its installer (scripts/install-skill): the Claude Code plugin
# sdd-go, the skill and the four binaries, in ~/.claude/skills/sdd-go/.
#
#   make install-skill                      build the binaries, install or update the plugin
#   make install-skill ARGS="--force"       overwrite a locally edited plugin
#   make install-skill ARGS="--replace-scripts /path/to/superpowers/skills/subagent-driven-development"
#   make install-skill ARGS="--restore /path/to/superpowers/skills/subagent-driven-development"

.PHONY: install-skill

## install-skill: install the Claude Code plugin sdd-go, skill and binaries (ARGS are passed to the installer).
install-skill:
	$(GO) run ./scripts/install-skill $(ARGS)
