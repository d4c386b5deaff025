# Multi-gigabyte inputs: a 2 GB plan, 1 GB lines, a ~300 MB diff; peak RSS
# of each run is logged (-v) and must stay under 32 MiB. Needs ~5 GB of disk.
.PHONY: test-large
test-large:
	$(GO) test -tags large -run 'TestLarge' -timeout 30m -count=1 -v ./internal/e2e/ 2>&1 | grep -E '^(=== RUN|--- |\s+large_test|ok|FAIL|PASS)'
