# Cross-compilation check: every package must build for every OS and
# architecture a release ships (make dist), and vet clean for every OS, so a
# Unix-only call (syscall.Umask, syscall.Kill, …) in code or tests is caught on
# Linux before a Windows or macOS user finds it. `make test` depends on it.
#
#   make cross                                   all of CROSS_OS × CROSS_ARCH
#   make cross CROSS_OS=windows CROSS_ARCH=arm64 one target
#
# `go build ./...` over several packages compiles and discards: nothing is
# written. Vet runs once per OS (it type-checks test files too, which the build
# does not); the architecture rarely matters to it. For the systems CI runs
# `go test` on natively but this machine cannot (CROSS_TEST_OS), every test
# binary is also compiled and linked (`go test -exec true`: built, never run
# here), so that CI job at least builds. Every target is tried even after one
# fails, so one run lists every broken target; the build cache makes a rerun
# take seconds.

CROSS_OS      ?= windows darwin linux
CROSS_ARCH    ?= amd64 arm64
CROSS_TEST_OS ?= windows darwin

.PHONY: cross

## cross: go build ./... for windows, darwin, linux × amd64, arm64, go vet ./... once per OS, test binaries for windows and darwin.
cross:
	@failed=; for os in $(CROSS_OS); do \
		for arch in $(CROSS_ARCH); do \
			echo "cross: build $$os/$$arch"; \
			CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build ./... || failed="$$failed build-$$os/$$arch"; \
		done; \
		echo "cross: vet $$os"; \
		CGO_ENABLED=0 GOOS=$$os $(GO) vet ./... || failed="$$failed vet-$$os"; \
	done; \
	for os in $(CROSS_TEST_OS); do \
		echo "cross: test binaries $$os/amd64"; \
		out=$$(CGO_ENABLED=0 GOOS=$$os GOARCH=amd64 $(GO) test -count=1 -vet=off -exec true -run '^$$' ./... 2>&1) \
			|| { echo "$$out" | grep -v '^ok \|no test files'; failed="$$failed test-$$os"; }; \
	done; \
	if [ -n "$$failed" ]; then echo "cross: FAILED:$$failed" >&2; exit 1; fi
