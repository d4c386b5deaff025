# The host suites: the skill run by the real Claude Code CLI (the version
# pinned in internal/dev/claudecode), offline, against a scripted model on
# loopback (internal/dev/host, docs/host.md); and the same harness for the
# OpenCode CLI (pinned in internal/dev/opencodecli; internal/dev/
# opencodehost). Needs npm to install the CLIs (into the user's cache,
# once per version), and ripgrep (rg) for OpenCode.
#
#   make test-host                       # both suites
#   make test-host-claude HOST_FLAGS='-test.run TestSmoke'
#   make test-host-opencode OPENCODE_FLAGS='-test.run TestTask'
#
# Each test binary is built first, with the module cache filled, so that
# it can run in a network namespace with only loopback up (as root, with
# unshare and ip): then nothing in a test can reach beyond loopback. Where
# that is not possible it says so and runs with the machine's network.
# SDD_HOST_REQUIRED=1 makes a missing CLI a failure, not a skip.

HOST_FLAGS ?=
OPENCODE_FLAGS ?=

# offline: the test binary's command line, "$@" of the recipe's shell,
# wrapped to run in a network namespace with only loopback up when it can.
define offline
	if [ "$$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null && \
		unshare --net sh -c 'ip link set lo up' 2>/dev/null; then \
		echo "$@: in a network namespace with only loopback up" >&2; \
		set -- unshare --net sh -c 'ip link set lo up && exec "$$0" "$$@"' "$$@"; \
	else \
		echo "$@: no network namespace (needs root, unshare and ip): the tests run with the machine's network" >&2; \
	fi
endef

.PHONY: test-host test-host-claude test-host-opencode

## test-host: run the skill in the pinned Claude Code CLI, and the OpenCode harness in the pinned OpenCode CLI, against scripted models on loopback (needs npm).
test-host: test-host-claude test-host-opencode

## test-host-claude: the Claude Code suite of test-host alone (HOST_FLAGS for the test binary).
test-host-claude:
	@set -e; mkdir -p $(BIN); \
	claude=$$($(GO) run ./scripts/claude-code); \
	$(GO) mod download; \
	$(GO) test -c -o $(abspath $(BIN))/host.test ./internal/dev/host/; \
	set -- $(abspath $(BIN))/host.test -test.count=1 -test.v -test.timeout 20m $(HOST_FLAGS); \
	$(offline); \
	cd internal/dev/host && SDD_CLAUDE_CODE="$$claude" SDD_HOST_REQUIRED=1 GOFLAGS=-mod=mod GOPROXY=off "$$@"

## test-host-opencode: the OpenCode suite of test-host alone (OPENCODE_FLAGS for the test binary; needs rg).
test-host-opencode:
	@set -e; mkdir -p $(BIN); \
	opencode=$$($(GO) run ./scripts/opencode-cli); \
	$(GO) mod download; \
	$(GO) test -c -o $(abspath $(BIN))/opencodehost.test ./internal/dev/opencodehost/; \
	set -- $(abspath $(BIN))/opencodehost.test -test.count=1 -test.v -test.timeout 10m $(OPENCODE_FLAGS); \
	$(offline); \
	cd internal/dev/opencodehost && SDD_OPENCODE_CLI="$$opencode" SDD_HOST_REQUIRED=1 GOFLAGS=-mod=mod GOPROXY=off "$$@"
