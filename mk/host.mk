# The host suites: the skill run in real host CLIs, each pinned in
# internal/dev/hostcli's table, offline against the scripted model on
# loopback (internal/dev/scripted), the same scenarios in each
# (internal/dev/harness, docs/host.md), each host's package
# internal/dev/<name>host: Claude Code (claude, the Messages API), the
# Codex CLI (codex, the Responses API), OpenCode (opencode, Chat
# Completions), GitHub Copilot CLI (copilot, Chat Completions and the
# Responses API through its BYOK provider), Gemini CLI (gemini, the
# Gemini API), Pi (pi, Chat Completions) and Factory Droid (droid, Chat
# Completions).
# Needs npm to install the CLIs (into the user's cache, once per
# version), ripgrep (rg) for OpenCode, and node for Gemini CLI and Pi.
#
#   make test-host                         # every suite
#   make test-host-claude HOST_FLAGS='-test.run TestFollow/WalkThrough'
#   make test-host-codex HOST_FLAGS='-test.run TestSubagent'
#   make test-host-opencode HOST_FLAGS='-test.run TestTask'
#   make test-host-copilot HOST_FLAGS="-test.run 'TestFollow/Resume/^refix$$'"
#   make test-host-gemini HOST_FLAGS='-test.run TestFollow/WalkThrough'
#   make test-host-pi HOST_FLAGS='-test.run TestSubagent'
#   make test-host-droid HOST_FLAGS='-test.run TestTaskResume'
#
# HOST_FLAGS go to the test binary of whichever suites run. Each test
# binary is built first, with the module cache filled, so that it can run
# in a network namespace with only loopback up (as root, with unshare and
# ip): then nothing in a test can reach beyond loopback. Where that is not
# possible it says so and runs with the machine's network.
# SDD_HOST_REQUIRED=1 makes a missing CLI a failure, not a skip.

HOST_FLAGS ?=

# host_run runs the test binary $(1) with HOST_FLAGS in the package
# directory $(2), inside a network namespace with only loopback up where
# it can.
define host_run
	set -- $(abspath $(BIN))/$(1) -test.count=1 -test.v -test.timeout 20m $(HOST_FLAGS); \
	if [ "$$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null && \
		unshare --net sh -c 'ip link set lo up' 2>/dev/null; then \
		echo "$@: in a network namespace with only loopback up" >&2; \
		set -- unshare --net sh -c 'ip link set lo up && exec "$$0" "$$@"' "$$@"; \
	else \
		echo "$@: no network namespace (needs root, unshare and ip): the tests run with the machine's network" >&2; \
	fi; \
	cd $(2) && SDD_HOST_REQUIRED=1 GOFLAGS=-mod=mod GOPROXY=off "$$@"
endef

HOSTS := claude codex opencode copilot gemini pi droid

.PHONY: test-host $(addprefix test-host-,$(HOSTS))

## test-host: every host suite: test-host-claude, test-host-codex, test-host-opencode, test-host-copilot, test-host-gemini, test-host-pi, test-host-droid (needs npm).
test-host: $(addprefix test-host-,$(HOSTS))

## test-host-claude: the skill in the pinned Claude Code CLI against the scripted Messages API on loopback (needs npm).
## test-host-codex: the skill in the pinned Codex CLI against the scripted Responses API on loopback, and its shell, subagent and skill round trips (needs npm).
## test-host-opencode: the skill in the pinned OpenCode CLI against the scripted Chat Completions on loopback, and its shell, file, subagent and skill round trips (needs npm, rg).
## test-host-copilot: the skill in the pinned GitHub Copilot CLI against the scripted Chat Completions and Responses API on loopback, with a user's --allow-tool rules (needs npm).
## test-host-gemini: the skill in the pinned Gemini CLI against the scripted Gemini API on loopback, under the install's policy and a user's rules, and its shell, skill, subagent and read round trips (needs npm, node).
## test-host-pi: the skill in the pinned Pi against the scripted Chat Completions on loopback, its subagents Pi's subagent extension as the install puts it, and its shell, skill, read and subagent round trips (needs npm, node).
## test-host-droid: the skill in the pinned Factory Droid against the scripted Chat Completions on loopback, in droid exec --auto high with the install's allowlist, and its shell, autonomy, allowlist, Task, read and skill round trips (needs npm).
# Each installs its CLI (go run ./scripts/hostcli env NAME prints the
# variable its suite reads, and the path), builds internal/dev/NAMEhost's
# test binary and runs it.
$(addprefix test-host-,$(HOSTS)): test-host-%:
	@set -e; mkdir -p $(BIN); \
	cli=$$($(GO) run ./scripts/hostcli env $*); export "$$cli"; \
	$(GO) mod download; \
	$(GO) test -c -o $(abspath $(BIN))/$*host.test ./internal/dev/$*host/; \
	$(call host_run,$*host.test,internal/dev/$*host)
