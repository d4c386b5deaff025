// Command gitstub is the git.exe the Windows end-to-end tests put on PATH
// under Wine. Wine cannot wait for a Linux process, so this Windows program
// stands in for git: it sends its arguments, working directory and git's
// environment variables to the relay server the test driver runs on the
// Linux side (address in $SDD_GITRELAY, else in the file gitrelay.addr
// beside this program, so testscripts need not pass the variable), which runs the real git. Stdout,
// stderr and the exit status come back unchanged, except the top level
// `rev-parse --show-toplevel` prints, which is spelled as the git named by
// $SDD_GITRELAY_STYLE would spell it (see package relay).
//
// Test harness only: built by scripts/wintest, never shipped.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sdd-go/sdd-go/internal/dev/wintest/relay"
)

func main() {
	addr := os.Getenv(relay.AddrEnv)
	if addr == "" {
		if exe, err := os.Executable(); err == nil {
			b, _ := os.ReadFile(filepath.Join(filepath.Dir(exe), relay.AddrFile))
			addr = strings.TrimSpace(string(b))
		}
	}
	if addr == "" {
		fmt.Fprintf(os.Stderr, "git (test stand-in): no $%s and no %s: run me under scripts/wintest\n", relay.AddrEnv, relay.AddrFile)
		os.Exit(127)
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "git (test stand-in): %v\n", err)
		os.Exit(128)
	}
	var env []string
	for _, kv := range os.Environ() {
		if k, _, ok := strings.Cut(kv, "="); ok && relay.Forwarded(k) {
			env = append(env, kv)
		}
	}
	style := os.Getenv(relay.StyleEnv)
	if style == "" {
		style = relay.StyleGitForWindows
	}
	var stdin []byte
	if relay.ReadsStdin(os.Args[1:]) {
		if stdin, err = io.ReadAll(os.Stdin); err != nil {
			fmt.Fprintf(os.Stderr, "git (test stand-in): reading stdin: %v\n", err)
			os.Exit(128)
		}
	}
	code, err := relay.Run(addr, relay.Request{
		Stdin: stdin,
		Args:  os.Args[1:],
		Dir:   dir,
		Env:   env,
		Style: style,
		Mount: os.Getenv(relay.MountEnv),
		At:    os.Getenv(relay.MountAtEnv),
	}, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "git (test stand-in): %v\n", err)
		os.Exit(128)
	}
	os.Exit(code)
}
