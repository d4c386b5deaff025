// Command faults is a command of cliapp's that meets a fault, for
// quietfaults_linux_test.go: "nil" dereferences a nil pointer under a
// recover and prints what it recovered (a real fault of the process);
// "sent" sends itself SIGSEGV (kill) and waits to die of it.
package main

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/sdd-go/sdd-go/internal/cliapp"
)

func main() {
	os.Exit(cliapp.Main(cliapp.Command{Name: "faults", Args: "nil|sent", MinArgs: 1, MaxArgs: 1, Run: run}))
}

var nowhere *struct{ n int }

func run(ctx context.Context, env *cliapp.Env, args []string) (err error) {
	switch args[0] {
	case "nil":
		defer func() { _, err = fmt.Fprintln(env.Stdout, "recovered:", recover()) }()
		nowhere.n++
	case "sent":
		_ = syscall.Kill(os.Getpid(), syscall.SIGSEGV)
		select {
		case <-ctx.Done(): // caught: the command unwinds, then dies of it
		case <-time.After(5 * time.Second):
		}
	}
	return nil
}
