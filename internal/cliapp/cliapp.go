// Package cliapp is the shell shared by the three commands: positional
// arguments only, the bash scripts' usage errors, help and version, signal
// handling, and the single mapping from an error to a message and an exit
// status.
package cliapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/sdd-go/sdd-go/internal/atomicfile"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/git"
)

// Version is stamped at build time with -ldflags "-X …/cliapp.Version=v1.2.3".
var Version = "dev"

// Env is what a command may touch of the process.
type Env struct {
	Prog   string    // the command's name, for messages in its own words
	Stdout io.Writer // the one line the command prints on success
	Stderr io.Writer // everything else
	Git    *git.Runner
}

// Command is one positional-only tool.
type Command struct {
	Name        string
	Args        string // e.g. "PLAN_FILE TASK_NUMBER [OUTFILE]"
	Description string // printed by -h / --help
	MinArgs     int
	MaxArgs     int
	Run         func(ctx context.Context, env *Env, args []string) error
}

// Usage is the line the bash script prints on a wrong argument count.
func (c Command) Usage() string { return "usage: " + c.Name + " " + c.Args }

// gracePeriod is how long a command may take to unwind (kill git, remove
// its temporary file) after SIGINT or SIGTERM before it is cut short.
const gracePeriod = 3 * time.Second

// Main runs cmd with the process's arguments and streams, and returns the
// exit status for os.Exit.
func Main(cmd Command) int {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	caught := make(chan int, 1)
	go func() {
		sig, ok := <-sigs
		if !ok {
			return
		}
		status := 128 + int(sig.(syscall.Signal))
		caught <- status
		stop()
		// Give the command time to unwind; a blocked open (a FIFO with no
		// reader) cannot be interrupted, so then leave anyway, tidily.
		select {
		case <-sigs:
		case <-time.After(gracePeriod):
		}
		atomicfile.RemoveTemps()
		os.Exit(status)
	}()
	status := Run(ctx, cmd, os.Args, os.Stdout, os.Stderr)
	select {
	case s := <-caught:
		return s
	default:
		return status
	}
}

// Run runs cmd with args (args[0] being the program name) and returns the
// exit status, having printed what there is to print.
func Run(ctx context.Context, cmd Command, args []string, stdout, stderr io.Writer) int {
	env := &Env{Prog: cmd.Name, Stdout: stdout, Stderr: stderr, Git: git.New(stderr)}
	app := &cli.App{
		Name:            cmd.Name,
		Usage:           cmd.Description,
		UsageText:       cmd.Name + " " + cmd.Args,
		Version:         Version,
		HideHelp:        true,
		HideHelpCommand: true,
		HideVersion:     true,
		SkipFlagParsing: true,
		Writer:          stdout,
		ErrWriter:       stderr,
		ExitErrHandler:  func(*cli.Context, error) {},
		CustomAppHelpTemplate: `usage: {{.UsageText}}

{{.Usage}}
`,
		Action: func(c *cli.Context) error {
			a := c.Args().Slice()
			if len(a) == 1 {
				switch a[0] {
				case "-h", "--help":
					return cli.ShowAppHelp(c)
				case "--version":
					_, err := fmt.Fprintf(stdout, "%s %s\n", cmd.Name, Version)
					return err
				}
			}
			if len(a) < cmd.MinArgs || len(a) > cmd.MaxArgs {
				return exit.Errorf(exit.Usage, "%s", cmd.Usage())
			}
			return cmd.Run(c.Context, env, a)
		},
	}
	err := app.RunContext(ctx, args)
	report(stderr, cmd.Name, err)
	return exit.Status(err)
}

// report prints err on stderr the way its kind should be printed.
func report(stderr io.Writer, prog string, err error) {
	if err == nil {
		return
	}
	var ee *exit.Error
	var ge *git.Error
	switch {
	case errors.As(err, &ee) && ee.Msg != "":
		if ee.Prefixed {
			fmt.Fprintf(stderr, "%s: %s\n", prog, ee.Msg)
		} else {
			fmt.Fprintln(stderr, ee.Msg)
		}
	case errors.As(err, &ee):
		// Already reported by whoever failed (git's own stderr).
	case errors.As(err, &ge):
		if ge.NotFound {
			fmt.Fprintf(stderr, "%s: %v\n", prog, ge)
		}
	default:
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	}
}
