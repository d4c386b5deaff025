# The host suites: the skill run in real host CLIs, each pinned in its
# internal/dev/<cli> package, offline against the scripted model on
# loopback (internal/dev/scripted), the same scenarios in each
# (internal/dev/harness, docs/host.md): Claude Code (claudecode,
# internal/dev/claudehost, the Messages API), the Codex CLI (codexcli,
# codexhost, the Responses API), OpenCode (opencodecli, opencodehost,
# Chat Completions), GitHub Copilot CLI (copilotcli, copilothost,
# Chat Completions and the Responses API through its BYOK provider) and
# Gemini CLI (geminicli, geminihost, the Gemini API).
# Needs npm to install the CLIs (into the user's cache, once per
# version), and ripgrep (rg) for OpenCode.
#
#   make test-host                         # every suite
#   make test-host-claude HOST_FLAGS='-test.run TestFollow/WalkThrough'
#   make test-host-codex HOST_FLAGS='-test.run TestSubagent'
#   make test-host-opencode HOST_FLAGS='-test.run TestTask'
#   make test-host-copilot HOST_FLAGS="-test.run 'TestFollow/Resume/^refix$$'"
#   make test-host-gemini HOST_FLAGS='-test.run TestFollow/WalkThrough'
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

.PHONY: test-host test-host-claude test-host-codex test-host-opencode test-host-copilot test-host-gemini

## test-host: every host suite: test-host-claude, test-host-codex, test-host-opencode, test-host-copilot, test-host-gemini (needs npm).
test-host: test-host-claude test-host-codex test-host-opencode test-host-copilot test-host-gemini

## test-host-claude: the skill in the pinned Claude Code CLI against the scripted Messages API on loopback (needs npm).
test-host-claude:
	@set -e; mkdir -p $(BIN); \
	claude=$$($(GO) run ./scripts/claude-code); \
	$(GO) mod download; \
	$(GO) test -c -o $(abspath $(BIN))/claudehost.test ./internal/dev/claudehost/; \
	$(call host_run,claudehost.test,internal/dev/claudehost,SDD_CLAUDE_CODE="$$claude")

## test-host-codex: the skill in the pinned Codex CLI against the scripted Responses API on loopback, and its shell, subagent and skill round trips (needs npm).
test-host-codex:
	@set -e; mkdir -p $(BIN); \
	codex=$$($(GO) run ./scripts/codex-cli); \
	$(GO) mod download; \
	$(GO) test -c -o $(abspath $(BIN))/codexhost.test ./internal/dev/codexhost/; \
	$(call host_run,codexhost.test,internal/dev/codexhost,SDD_CODEX_CLI="$$codex")

## test-host-opencode: the skill in the pinned OpenCode CLI against the scripted Chat Completions on loopback, and its shell, file, subagent and skill round trips (needs npm, rg).
test-host-opencode:
	@set -e; mkdir -p $(BIN); \
	opencode=$$($(GO) run ./scripts/opencode-cli); \
	$(GO) mod download; \
	$(GO) test -c -o $(abspath $(BIN))/opencodehost.test ./internal/dev/opencodehost/; \
	$(call host_run,opencodehost.test,internal/dev/opencodehost,SDD_OPENCODE_CLI="$$opencode")

## test-host-copilot: the skill in the pinned GitHub Copilot CLI against the scripted Chat Completions and Responses API on loopback, with a user's --allow-tool rules (needs npm).
test-host-copilot:
	@set -e; mkdir -p $(BIN); \
	copilot=$$($(GO) run ./scripts/copilot-cli); \
	$(GO) mod download; \
	$(GO) test -c -o $(abspath $(BIN))/copilothost.test ./internal/dev/copilothost/; \
	$(call host_run,copilothost.test,internal/dev/copilothost,SDD_COPILOT_CLI="$$copilot")

## test-host-gemini: the skill in the pinned Gemini CLI against the scripted Gemini API on loopback, under the install's policy and a user's rules (needs npm, node).
test-host-gemini:
	@set -e; mkdir -p $(BIN); \
	gemini=$$($(GO) run ./scripts/gemini-cli); \
	$(GO) mod download; \
	$(GO) test -c -o $(abspath $(BIN))/geminihost.test ./internal/dev/geminihost/; \
	$(call host_run,geminihost.test,internal/dev/geminihost,SDD_GEMINI_CLI="$$gemini")
