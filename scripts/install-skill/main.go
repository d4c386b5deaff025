// Command install-skill installs the subagent-driven-development skill for
// Claude Code and, on request, swaps the bash scripts of an installed
// superpowers skill for the sdd-go binaries.
//
// Run it from a clone of sdd-go:
//
//	go run ./scripts/install-skill [--dir DIR] [--force] [--no-binaries]
//	go run ./scripts/install-skill --replace-scripts DIR [--bin DIR] [--no-binaries]
//	go run ./scripts/install-skill --restore DIR
//
// It is written in Go, not shell, so that it runs the same on Windows.
//
// Installing copies skill/ to ~/.claude/skills/subagent-driven-development/
// (or --dir) and writes a manifest of SHA-256 sums there. The next install
// compares the copy with that manifest: an untouched copy is updated
// silently, a copy someone edited is left alone unless --force is given,
// so local changes are never lost by accident.
//
// Exit status: 0 on success, 2 on bad usage, 1 on any other failure.
package main

import (
	"os"
)

func main() {
	os.Exit(Main(os.Args[1:], system()))
}
