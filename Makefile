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

## test: everything CI checks: formatting, vet, and every test with the race detector.
test: lint cross
	$(GO) test -race -count=1 ./...

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
