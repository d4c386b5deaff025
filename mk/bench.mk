# Benchmarks: our commands against their floor (internal/dev/bench/floor: the
# least a Go program can do with the same git calls) and the reference bash
# scripts, interleaved in one run.
#
#   make bench                              per-invocation cases on a realistic repository (< 2 min)
#   make bench-large                        a 200 MB plan and a ~300 MB diff (several minutes)
#   SDD_REFERENCE=/path/to/scripts make bench
#   make bench BENCH_ARGS="-rounds 81"      more rounds (see go run ./scripts/bench -h)
#   make bench-go                           the Go Benchmark functions, for profiling
#
# The reference is $SDD_REFERENCE, else the newest superpowers plugin under
# ~/.claude/plugins/; without one the tables hold our numbers and the floor.

.PHONY: bench bench-large bench-go

## bench: time the commands per invocation against their floor program and the reference (SDD_REFERENCE=…).
bench:
	GO=$(GO) $(GO) run ./scripts/bench $(BENCH_ARGS)

## bench-large: time task-brief on a 200 MB plan and review-package on a ~300 MB diff, with peak RSS.
bench-large:
	GO=$(GO) $(GO) run ./scripts/bench -large $(BENCH_ARGS)

## bench-go: run the Go benchmarks (SDD_BENCH_LARGE=1 adds the large inputs).
bench-go:
	$(GO) test -run '^$$' -bench . -benchtime 20x ./internal/dev/bench/
