# sdd-go: Go drop-in replacements for the SDD helper scripts.
# Extra targets live in mk/*.mk so each area owns its own rules. Each target
# has a "## target: what it does" line above it: `make help` lists them.

GO      ?= go
BIN     ?= bin
# The version stamped into the binaries; empty means the tag on HEAD, else
# git describe, else "dev" (internal/dev/ship.DefaultVersion).
VERSION ?=

.PHONY: all help build test test-full lint fmt-check vet staticcheck install demo clean

## all: the same as build.
all: build

# The targets that make or install the product; every other one checks or
# measures it (the tooling under internal/dev and scripts/).
PRODUCT_TARGETS := all build install install-skill demo dist clean

## help: list every target with one line each: the product's, then the tooling's.
help:
	@grep -h '^## [a-z-]*:' $(MAKEFILE_LIST) | sed 's/^## //' | awk -v product=' $(PRODUCT_TARGETS) ' '\
		{ i = index($$0, ": "); t = substr($$0, 1, i - 1); line = sprintf("  %-19s %s", t, substr($$0, i + 2)); \
		  if (index(product, " " t " ")) p = p line "\n"; else d = d line "\n" } \
		END { printf "Build and install (the product):\n%s\nCheck and measure (the tooling):\n%s", p, d }'

## build: bin/sdd-workspace, bin/task-brief, bin/review-package, bin/sdd-ledger, built as they ship (internal/dev/ship).
build:
	$(GO) run ./scripts/build -o $(BIN) -version '$(VERSION)'

## test: the inner loop (3 to 3½ minutes on two cores): gofmt, go vet, staticcheck, and every test in its short form (go test -short): each rule of docs/spec.md, the walk-throughs.
# -short keeps each rule's proof and drops repetition: one build of the
# output files, a sample of the signals, of the bad texts, of the hosts'
# installs, a few resume states and text mutants. make test-full runs
# them all, under the race detector.
test: lint
	$(call gotest,-short -p 3,$(LONGEST_FIRST) ./...)

# LONGEST_FIRST are the packages whose tests take longest, started first
# (go test keeps the order it is given): the two longest take two of
# make test's three slots from the start, and the rest run in the third
# beside them, where in path order install-skill ran alone at the end
# and both of the longest waited for the packages before them (make test
# 3 min 18 s on this machine, quiet; 2 min 57 s in this order).
LONGEST_FIRST = ./internal/dev/e2e ./internal/dev/skilltext ./scripts/install-skill ./internal/dev/compat

## test-full: what CI adds to make test: every test in full (every resume state, every text mutant, every signal, both builds of the output files), under the race detector but for the skill text's runs, and the cross builds.
# The e2e and skilltext packages take minutes each, more than go test's
# default ten on a shared, loaded machine: hence -timeout 30m. The skill
# text's runs (internal/dev/skilltext) drive the real binaries through
# hundreds of whole runs: under the race detector they took 19 minutes,
# and found nothing the e2e tests of the same binaries under it do not.
test-full: cross
	$(call gotest,-race -timeout 30m,$(RACE_PACKAGES))
	$(call gotest,-timeout 30m,./internal/dev/skilltext)

RACE_PACKAGES = $(shell $(GO) list ./... | grep -v '/internal/dev/skilltext$$')

# gotest runs go test -count=1 $(1) on the packages $(2) (./... when
# none) with a fresh TMPDIR of mode 1777, as /tmp is, and fails if the
# tests leave it otherwise: a test must change only what it made.
define gotest
	@tmp=$$(mktemp -d) && chmod 1777 "$$tmp" || exit 1; \
	echo "TMPDIR=$$tmp $(GO) test -count=1 $(1) $(or $(2),./...)"; \
	TMPDIR="$$tmp" $(GO) test -count=1 $(1) $(or $(2),./...); status=$$?; \
	mode=$$(stat -c %a "$$tmp" 2>/dev/null); rm -rf "$$tmp"; \
	if [ -n "$$mode" ] && [ "$$mode" != 1777 ]; then \
		echo "test: the suite left its TMPDIR at mode $$mode, not 1777" >&2; exit 1; fi; \
	exit $$status
endef

## lint: gofmt check, go vet and staticcheck.
lint: fmt-check vet staticcheck

## fmt-check: fail if gofmt would change a tracked Go file.
fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

## vet: go vet ./...
vet:
	$(GO) vet ./...

## staticcheck: staticcheck over every package, for Linux and for Windows (pinned; installed into bin/tools, not a dependency in go.mod).
# It found what vet and the tests did not: an error of start's first line
# assigned to a shadowed err and lost. A report that is meant says so where
# it is (//lint:ignore, //lint:file-ignore).
STATICCHECK_VERSION = v0.8.2
staticcheck:
	@GOBIN=$(abspath $(BIN))/tools $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(BIN)/tools/staticcheck ./...
	GOOS=windows $(BIN)/tools/staticcheck ./...

## install: go install the four commands as they ship (into GOBIN or GOPATH/bin).
install:
	$(GO) run ./scripts/build -install -version '$(VERSION)'

## demo: build, then run the commands on the bundled example plan (the drop-ins, then a task as the skill runs it) in a throw-away repository.
demo: build
	@./scripts/demo.sh $(BIN)

## clean: remove bin/ and dist/.
clean:
	rm -rf $(BIN) dist

include mk/*.mk
