# Multi-gigabyte inputs: a 2 GB plan, 1 GB lines, a ~300 MB diff; peak RSS
# of each run is logged (-v) and must stay under 32 MiB. Needs ~5 GB of disk.
# The whole log is kept in $(BIN)/test-large.log and shown filtered; the
# target's status is go test's, not the filter's.
.PHONY: test-large

## test-large: 2 GB plan, 1 GB lines, ~300 MB diff; byte-exact, peak RSS under 32 MiB.
test-large:
	@mkdir -p $(BIN)
	@$(GO) test -tags large -run 'TestLarge' -timeout 30m -count=1 -v ./internal/dev/e2e/ > $(BIN)/test-large.log 2>&1; \
	status=$$?; grep -E '^(=== RUN|--- |\s+large_test|ok|FAIL|PASS)' $(BIN)/test-large.log; exit $$status
