# sdd-go: Go drop-in replacements for the SDD helper scripts.
# Extra targets live in mk/*.mk so each area owns its own rules.

GO       ?= go
BIN      ?= bin
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -s -w -X github.com/sdd-go/sdd-go/internal/cliapp.Version=$(VERSION)
COMMANDS := sdd-workspace task-brief review-package
# urfave/cli's man-page and markdown generators (and their markdown parser)
# are never used by positional-only commands; leaving them out trims the
# binary and its start-up, which dominates a run of sdd-workspace.
TAGS     := urfave_cli_no_docs

.PHONY: all build test lint fmt-check vet install demo clean

all: build

build:
	@mkdir -p $(BIN)
	$(GO) build -trimpath -tags '$(TAGS)' -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/...

## test: everything CI checks: formatting, vet, cross builds, every test with the race detector.
# The tests run with a fresh TMPDIR of mode 1777, as /tmp is, and fail if
# they leave it otherwise: a test must change only what it made.
test: lint cross
	@tmp=$$(mktemp -d) && chmod 1777 "$$tmp" || exit 1; \
	echo "TMPDIR=$$tmp $(GO) test -race -count=1 ./..."; \
	TMPDIR="$$tmp" $(GO) test -race -count=1 ./...; status=$$?; \
	mode=$$(stat -c %a "$$tmp" 2>/dev/null); rm -rf "$$tmp"; \
	if [ -n "$$mode" ] && [ "$$mode" != 1777 ]; then \
		echo "test: the suite left its TMPDIR at mode $$mode, not 1777" >&2; exit 1; fi; \
	exit $$status

lint: fmt-check vet

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

install:
	$(GO) install -trimpath -tags '$(TAGS)' -ldflags '$(LDFLAGS)' ./cmd/...

demo: build
	@./scripts/demo.sh $(BIN)

clean:
	rm -rf $(BIN) dist

-include mk/*.mk
