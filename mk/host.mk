# The host suite: the skill run by the real Claude Code CLI (the version
# pinned in internal/dev/claudecode), offline, against a scripted model on
# loopback (internal/dev/host, docs/host.md). Needs npm to install the CLI
# (into the user's cache, once per version).
#
#   make test-host
#   make test-host HOST_FLAGS='-test.run TestSmoke'
#
# The test binary is built first, with the module cache filled, so that it
# can run in a network namespace with only loopback up (as root, with
# unshare and ip): then nothing in a test can reach beyond loopback. Where
# that is not possible it says so and runs with the machine's network.
# SDD_HOST_REQUIRED=1 makes a missing CLI a failure, not a skip.

HOST_FLAGS ?=

.PHONY: test-host

## test-host: run the skill in the pinned Claude Code CLI against a scripted model on loopback (needs npm).
test-host:
	@set -e; mkdir -p $(BIN); \
	claude=$$($(GO) run ./scripts/claude-code); \
	$(GO) mod download; \
	$(GO) test -c -o $(abspath $(BIN))/host.test ./internal/dev/host/; \
	set -- $(abspath $(BIN))/host.test -test.count=1 -test.v -test.timeout 20m $(HOST_FLAGS); \
	if [ "$$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null && \
		unshare --net sh -c 'ip link set lo up' 2>/dev/null; then \
		echo "test-host: in a network namespace with only loopback up" >&2; \
		set -- unshare --net sh -c 'ip link set lo up && exec "$$0" "$$@"' "$$@"; \
	else \
		echo "test-host: no network namespace (needs root, unshare and ip): the tests run with the machine's network" >&2; \
	fi; \
	cd internal/dev/host && SDD_CLAUDE_CODE="$$claude" SDD_HOST_REQUIRED=1 GOFLAGS=-mod=mod GOPROXY=off "$$@"
