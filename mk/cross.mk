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
# does not); the architecture rarely matters to it. Every target is tried even
# after one fails, so one run lists every broken target; the build cache makes
# a rerun take seconds.

CROSS_OS   ?= windows darwin linux
CROSS_ARCH ?= amd64 arm64

.PHONY: cross

## cross: go build ./... for windows, darwin, linux × amd64, arm64 and go vet ./... once per OS.
cross:
	@failed=; for os in $(CROSS_OS); do \
		for arch in $(CROSS_ARCH); do \
			echo "cross: build $$os/$$arch"; \
			CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build ./... || failed="$$failed build-$$os/$$arch"; \
		done; \
		echo "cross: vet $$os"; \
		CGO_ENABLED=0 GOOS=$$os $(GO) vet ./... || failed="$$failed vet-$$os"; \
	done; \
	if [ -n "$$failed" ]; then echo "cross: FAILED:$$failed" >&2; exit 1; fi
