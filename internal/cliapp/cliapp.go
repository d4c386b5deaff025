// Package cliapp is the shell shared by the four commands: positional
// arguments only, the bash scripts' usage errors, help and version, signal
// handling, and the single mapping from an error to a message and an exit
// status.
//
// Signals end a command as they end the script (docs/spec.md
// every-signals says what is seen). The Go runtime puts its own handler
// over nearly every signal before any code of ours runs; left alone it
// would print a goroutine dump and exit 2 for SIGQUIT, SIGABRT, SIGTRAP,
// SIGSYS, SIGSTKFLT and a sent SIGILL, SIGBUS, SIGFPE or SIGSEGV, and
// would ignore SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
// SIGIO, SIGPWR and a sent SIGPIPE, each of which kills the script. So
// handler.start sets each signal's action before the command runs:
//
//   - On Linux the kernel cleans up after a death (git carries a
//     parent-death signal, internal/git; an output has no name until it is
//     published, internal/atomicfile), so nothing is caught until a
//     temporary name is about to be made (atomicfile.BeforeNamed): SIGHUP,
//     SIGINT and SIGTERM keep the runtime's default, death by the signal;
//     the other stop signals get the kernel's default, set under the
//     runtime (rawsig_linux.go); a sent fault signal ends the process from
//     the runtime's own handler (quietfaults_linux.go). From BeforeNamed
//     on, the stop signals are caught as elsewhere.
//   - Elsewhere every stop signal is caught from the start (handler.loop):
//     git gets the same signal, the command unwinds and removes its
//     temporary files, then dies of the signal (die).
//
// The shipped build (tag sdd_inherited_signals with the linker's
// -checklinkname=0, internal/dev/ship) reads two tables of the runtime:
// the actions the process started with, so that any signal ignored then
// stays ignored (inherited_linux.go), and its table of signals, to mark
// the fault signals (quietfaults_linux.go). A plain build knows the action
// at start of SIGHUP and SIGINT only, and catches a sent fault signal from
// the start, at the cost of a thread on every run. A fault signal or
// SIGPROF ignored at start stays with the runtime's handler (it needs them
// for real faults and for its profiler), and a child gets a handled signal
// at its default: git then gets the default action.
package cliapp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/sdd-go/sdd-go/internal/atomicfile"
	"github.com/sdd-go/sdd-go/internal/exit"
	"github.com/sdd-go/sdd-go/internal/git"
)

func init() { cli.HelpFlag = nil }

// Env is what a command may touch of the process.
type Env struct {
	Prog   string    // the command's name, for messages in its own words
	Stdout io.Writer // the one line the command prints on success
	Stderr io.Writer // everything else
	Git    *git.Runner

	catch func() // arms the signal handler (Main); nil under Run
}

// CatchSignals catches the stop signals from now on, for a step that a
// signal must not cut short (a ledger's append: a signal the kernel acts
// on at once would end the process in the middle of its write, leaving a
// cut line). A caught signal cancels the command's context instead, and
// the command dies of it once it has unwound.
func (e *Env) CatchSignals() {
	if e.catch != nil {
		e.catch()
	}
}

// Command is one positional-only tool, or one verb of a tool of verbs.
type Command struct {
	Name        string
	Args        string // e.g. "PLAN_FILE TASK_NUMBER [OUTFILE]"
	Description string // printed by -h / --help
	MinArgs     int
	MaxArgs     int
	Run         func(ctx context.Context, env *Env, args []string) error
	// Verbs make a tool whose first argument names what it does (sdd-ledger
	// VERB PLAN_FILE …): each verb is a positional-only Command of its
	// own, named by the verb, with its own usage line and help. Run, MinArgs
	// and MaxArgs of the tool itself are then unused.
	Verbs []Command
	// Short is a verb's one-line summary, listed by the tool's help.
	Short string
}

// Usage is the line the bash script prints on a wrong argument count.
func (c Command) Usage() string { return "usage: " + c.Name + " " + c.Args }

// gracePeriod is how long a command may take to unwind (stop git, remove
// its temporary file) after a signal before it is cut short.
const gracePeriod = 3 * time.Second

// Main runs cmd with the process's arguments and streams, and returns the
// exit status for os.Exit; on a signal that ends it, it does not return.
func Main(cmd Command) int {
	ctx, stop := context.WithCancelCause(context.Background())
	defer stop(nil)
	h := &handler{stop: stop, sigs: make(chan os.Signal, 2), seen: make(chan os.Signal, 8)}
	h.start()
	if kernelCleansUp {
		// Nothing to clean up on a signal until a temporary name is about
		// to be made (a finished output linked beside the file it
		// replaces, or a file system without O_TMPFILE): from then on,
		// catch the stop signals.
		atomicfile.BeforeNamed = h.arm
	} else {
		h.arm()
	}
	env, err := run(ctx, cmd, os.Args, os.Stdout, os.Stderr, h.arm)
	// A signal that came while the command was ending anyway (sent to the
	// process group, it also killed git: 128+N, or "file too large" for
	// SIGXFSZ) ends it silently, before any failure is printed.
	if sig := h.caught(err); sig != nil {
		atomicfile.RemoveTracked()
		die(sig)
	}
	env.Report(err)
	var sig *exit.Signaled
	if errors.As(err, &sig) {
		// A write into a pipe nobody reads (brokenPipe): the command has
		// unwound, and dies of SIGPIPE as the script does.
		atomicfile.RemoveTracked()
		die(sig.Signal)
	}
	return exit.Status(err)
}

// Run runs cmd with args (args[0] being the program name) and returns the
// exit status, having printed what there is to print.
func Run(ctx context.Context, cmd Command, args []string, stdout, stderr io.Writer) int {
	env, err := run(ctx, cmd, args, stdout, stderr, nil)
	env.Report(err)
	return exit.Status(err)
}

// run is Run without printing the failure: it returns it, and the Env
// whose Report prints it.
func run(ctx context.Context, cmd Command, args []string, stdout, stderr io.Writer, catch func()) (*Env, error) {
	stdout = stdoutWriter{stdout}
	env := &Env{Prog: cmd.Name, Stdout: stdout, Stderr: stderr, Git: git.New(stderr), catch: catch}
	app := &cli.App{
		Name:      cmd.Name,
		Usage:     cmd.Description,
		UsageText: cmd.Name + " " + cmd.Args,
		// Set, so that urfave/cli does not stat the executable to find
		// it: a system call on every run for a field nothing prints.
		Compiled:        time.Unix(0, 0),
		HideHelp:        true,
		HideHelpCommand: true,
		HideVersion:     true, // and no Version: --version alone reads the build's record (Action)
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
					_, err := fmt.Fprintf(stdout, "%s %s\n", cmd.Name, version())
					return err
				}
			}
			if len(cmd.Verbs) > 0 {
				if len(a) == 0 {
					return exit.Errorf(exit.Usage, "%s", cmd.Usage())
				}
				return exit.Ownf(exit.Usage, "no verb %q (%s --help lists them)", a[0], cmd.Name)
			}
			if len(a) < cmd.MinArgs || len(a) > cmd.MaxArgs {
				return exit.Errorf(exit.Usage, "%s", cmd.Usage())
			}
			return cmd.Run(c.Context, env, a)
		},
	}
	if len(cmd.Verbs) > 0 {
		app.CustomAppHelpTemplate = `usage: {{.UsageText}}

{{.Usage}}

Verbs:
{{range .VisibleCommands}}  {{printf "%-15s" .Name}} {{.Usage}}
{{end}}
'{{.Name}} VERB --help' tells more of each.
`
		for _, v := range cmd.Verbs {
			app.Commands = append(app.Commands, verb(cmd.Name, v, env))
		}
	}
	return env, brokenPipe(app.RunContext(ctx, args))
}

// verb is one verb of a tool of verbs, as urfave/cli runs it: its
// arguments positional, whatever they look like, but a sole -h or --help.
func verb(tool string, v Command, env *Env) *cli.Command {
	usage := "usage: " + tool + " " + v.Name + " " + v.Args
	return &cli.Command{
		Name:               v.Name,
		Usage:              v.Short,
		UsageText:          tool + " " + v.Name + " " + v.Args,
		Description:        v.Description,
		SkipFlagParsing:    true,
		HideHelp:           true,
		HideHelpCommand:    true,
		CustomHelpTemplate: "usage: {{.UsageText}}\n\n{{.Description}}\n",
		Action: func(c *cli.Context) error {
			a := c.Args().Slice()
			if len(a) == 1 && (a[0] == "-h" || a[0] == "--help") {
				return cli.ShowCommandHelp(c, v.Name)
			}
			if len(a) < v.MinArgs || len(a) > v.MaxArgs {
				return exit.Errorf(exit.Usage, "%s", usage)
			}
			return v.Run(c.Context, env, a)
		},
	}
}

// stdoutWriter makes a stdout that cannot be written (a full device, a
// descriptor open only for reading) fail the command: exit 1, with the
// words bash's echo uses for it ("write error: …"), as the script's
// success line fails. A stdout closed at start never fails here: the Go
// runtime (1.22 and later) opens /dev/null read-write on a closed
// descriptor 0, 1 or 2 before main runs, so the line goes there, exit 0
// (docs/spec.md diff10).
type stdoutWriter struct{ w io.Writer }

func (s stdoutWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		err = exit.File(exit.IO, "write error", err)
	}
	return n, err
}

// Report prints err on stderr the way its kind should be printed (see
// package exit): the one place a failure becomes a line. A command calls
// it itself only for a failure it reports and then goes on from, such as
// a git that could not start before "bad BASE: …".
func (env *Env) Report(err error) {
	if err == nil {
		return
	}
	stderr, prog := env.Stderr, env.Prog
	var ee *exit.Error
	var ge *git.Error
	var sig *exit.Signaled
	switch {
	case errors.As(err, &ee) && ee.Msg != "":
		if ee.Prefixed {
			fmt.Fprintf(stderr, "%s: %s\n", prog, ee.Msg)
		} else {
			fmt.Fprintln(stderr, ee.Msg)
		}
	case errors.As(err, &ee), errors.As(err, &sig):
		// Already reported by whoever failed (git's own stderr), or a
		// signal, which says nothing, as it says nothing to the script.
	case errors.As(err, &ge):
		if ge.Unstarted != "" {
			fmt.Fprintf(stderr, "%s: %s\n", prog, ge.Unstarted)
		}
	default:
		fmt.Fprintf(stderr, "%s: %v\n", prog, err)
	}
}
