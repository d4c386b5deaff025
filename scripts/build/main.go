// Command build builds (or installs) the four commands exactly as they
// ship (internal/dev/ship): the Makefile's build and install targets run it,
// so the build line is written once.
//
//	go run ./scripts/build [-o DIR] [-version V]    build into DIR (default bin)
//	go run ./scripts/build -install [-version V]    go install into GOBIN or GOPATH/bin
//
// The version defaults to the tag on HEAD, else git describe, else "dev".
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/sdd-go/sdd-go/internal/dev/ship"
)

func main() {
	out := flag.String("o", "bin", "`DIR` to build into")
	install := flag.Bool("install", false, "go install instead of building into a directory")
	version := flag.String("version", "", "version to stamp (default: from git describe)")
	flag.Parse()
	if err := run(*out, *install, *version); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
}

func run(out string, install bool, version string) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	if version == "" {
		version = ship.DefaultVersion(ship.GitIn(root))
	}
	b := ship.Build{Go: os.Getenv("GO"), Root: root, Out: out, Install: install, Version: version}
	return b.Run(context.Background())
}
