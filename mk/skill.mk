# The skill text and its installer (scripts/install-skill).
#
#   make install-skill                      binaries + skill into ~/.claude/skills/
#   make install-skill ARGS="--force"       overwrite a locally edited copy
#   make install-skill ARGS="--replace-scripts /path/to/superpowers/skills/subagent-driven-development"
#   make install-skill ARGS="--restore /path/to/superpowers/skills/subagent-driven-development"

.PHONY: install-skill

## install-skill: install the binaries and the skill for Claude Code (ARGS are passed to the installer).
install-skill:
	$(GO) run ./scripts/install-skill $(ARGS)
