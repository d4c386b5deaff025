# compat: the differential compatibility checker (maintainers' tool; `make
# test` never needs it). Builds our binaries and the checker into $(BIN),
# then runs every generated scenario against the reference bash scripts:
# $(SDD_REFERENCE), or the newest installed superpowers plugin.
#   make compat                               # 500 scenarios, seed 1
#   make compat COMPAT_FLAGS='-n 2000 -seed 7 -keep /tmp/compat-fails'

COMPAT_FLAGS ?=

.PHONY: compat

## compat: run the reference scripts and ours side by side on generated scenarios (SDD_REFERENCE=…).
compat: build
	$(GO) build -o $(BIN)/sdd-compat ./scripts/compat
	@$(BIN)/sdd-compat -ours $(BIN) $(COMPAT_FLAGS)
