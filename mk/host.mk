# The host suites: the skill run by the real Claude Code CLI (the version
# pinned in internal/dev/claudecode), offline, against a scripted model on
# loopback (internal/dev/host, docs/host.md); and the harnesses of the
# Codex CLI (pinned in internal/dev/codexcli; internal/dev/codexhost, a
# scripted Responses API model) and of OpenCode (pinned in
# internal/dev/opencodecli; internal/dev/opencodehost, a scripted Chat
# Completions model), and of GitHub Copilot CLI (pinned in
# internal/dev/copilotcli; internal/dev/copilothost, the same Chat
# Completions model through its BYOK provider). Needs npm to install the
# CLIs (into the user's cache, once per version), and ripgrep (rg) for
# OpenCode.
#
#   make test-host                         # every suite
#   make test-host-claude HOST_FLAGS='-test.run TestSmoke'
#   make test-host-codex HOST_FLAGS='-test.run TestSubagent'
#   make test-host-opencode HOST_FLAGS='-test.run TestTask'
#   make test-host-copilot HOST_FLAGS='-test.run TestFollowWalkThrough'
#
# HOST_FLAGS go to the test binary of whichever suites run. Each test
# binary is built first, with the module cache filled, so that it can run
# in a network namespace with only loopback up (as root, with unshare and
# ip): then nothing in a test can reach beyond loopback. Where that is not
# possible it says so and runs with the machine's network.
# SDD_HOST_REQUIRED=1 makes a missing CLI a failure, not a skip.

HOST_FLAGS ?=

# host_run runs the test binary $(1) with HOST_FLAGS in the package
# directory $(2), with the environment $(3), inside a network namespace
# with only loopback up where it can.
define host_run
	set -- $(abspath $(BIN))/$(1) -test.count=1 -test.v -test.timeout 20m $(HOST_FLAGS); \
	if [ "$$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null && \
		unshare --net sh -c 'ip link set lo up' 2>/dev/null; then \
		echo "$@: in a network namespace with only loopback up" >&2; \
		set -- unshare --net sh -c 'ip link set lo up && exec "$$0" "$$@"' "$$@"; \
	else \
		echo "$@: no network namespace (needs root, unshare and ip): the tests run with the machine's network" >&2; \
	fi; \
	cd $(2) && $(3) SDD_HOST_REQUIRED=1 GOFLAGS=-mod=mod GOPROXY=off "$$@"
endef

.PHONY: test-host test-host-claude test-host-codex test-host-opencode test-host-copilot

## test-host: every host suite: test-host-claude, test-host-codex, test-host-opencode, test-host-copilot (needs npm).
test-host: test-host-claude test-host-codex test-host-opencode test-host-copilot

## test-host-claude: run the skill in the pinned Claude Code CLI against a scripted model on loopback (needs npm).
test-host-claude:
	@set -e; mkdir -p $(BIN); \
	claude=$$($(GO) run ./scripts/claude-code); \
	$(GO) mod download; \
	$(GO) test -c -o $(abspath $(BIN))/claudehost.test ./internal/dev/claudehost/; \
	$(call host_run,claudehost.test,internal/dev/claudehost,SDD_CLAUDE_CODE="$$claude")

## test-host-codex: the pinned Codex CLI against a scripted Responses API model on loopback: its shell, subagent and skill round trips (needs npm).
test-host-codex:
	@set -e; mkdir -p $(BIN); \
	codex=$$($(GO) run ./scripts/codex-cli); \
	$(GO) mod download; \
	$(GO) test -c -o $(abspath $(BIN))/codexhost.test ./internal/dev/codexhost/; \
	$(call host_run,codexhost.test,internal/dev/codexhost,SDD_CODEX_CLI="$$codex")

## test-host-opencode: the pinned OpenCode CLI against a scripted Chat Completions model on loopback: its shell, file, subagent, skill and plugin round trips (needs npm, rg).
test-host-opencode:
	@set -e; mkdir -p $(BIN); \
	opencode=$$($(GO) run ./scripts/opencode-cli); \
	$(GO) mod download; \
	$(GO) test -c -o $(abspath $(BIN))/opencodehost.test ./internal/dev/opencodehost/; \
	$(call host_run,opencodehost.test,internal/dev/opencodehost,SDD_OPENCODE_CLI="$$opencode")

## test-host-copilot: run the skill in the pinned GitHub Copilot CLI against a scripted Chat Completions model on loopback, with a user's --allow-tool rules (needs npm).
test-host-copilot:
	@set -e; mkdir -p $(BIN); \
	copilot=$$($(GO) run ./scripts/copilot-cli); \
	$(GO) mod download; \
	$(GO) test -c -o $(abspath $(BIN))/copilothost.test ./internal/dev/copilothost/; \
	$(call host_run,copilothost.test,internal/dev/copilothost,SDD_COPILOT_CLI="$$copilot")
