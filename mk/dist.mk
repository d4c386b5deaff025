# Release archives (scripts/dist): the four binaries for windows, darwin and
# linux × amd64, arm64; for each target an archive holding bin/, skill/,
# README.md and LICENSE, and a Claude Code plugin zip (claude --plugin-dir
# ARCHIVE.zip loads it); plus a sha256sum-format checksums file, all in dist/.
#
#   git tag v1.2.3 && make dist      a release: the archives are named after the tag
#   make dist VERSION=v1.2.3-rc1     any other version
#
# VERSION comes from the Makefile (git describe --tags --always --dirty).

.PHONY: dist

## dist: cross-build the release archives, plugin zips and checksums into dist/.
dist:
	$(GO) run ./scripts/dist -version '$(VERSION)' -out dist -go '$(GO)'
