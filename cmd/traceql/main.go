package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"slices"

	"github.com/traceql/traceql/report"
)

func main() {
	// The streams are asked once whether they are terminals; the commands
	// ask the answers (ioStreams), never the files.
	ios := newIOStreams(os.Stdin, os.Stdout, os.Stderr)
	// Under a memory limit, the command runs in a child whose death by
	// the limit becomes one line (supervise), fitted to the limit.
	limits := currentLimits()
	if code, ok := supervise(os.Args, os.Environ(), limits, ios.IsStderrTTY()); ok {
		os.Exit(code)
	}
	_, goLimitSet := os.LookupEnv("GOMEMLIMIT")
	_, procsSet := os.LookupEnv("GOMAXPROCS")
	limits.fit(goLimitSet, procsSet)
	if slices.Contains(os.Environ(), terminalEnv) {
		// Stderr is the pipe to a supervisor that copies it to a terminal.
		ios.SetStderrTTY(true)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], ios)
	stop()
	os.Exit(code)
}

// run executes one traceql command line on the streams ios and returns the
// exit code: 0 for success, 1 for an error, 2 for bad usage (a
// usageError), 130 when interrupted.
func run(ctx context.Context, args []string, ios *ioStreams) int {
	// Output whose write errors go unchecked (cobra's help) still fails
	// the run: a report lost to a full disk must not exit 0.
	out := &checkedWriter{w: ios.Out}
	s := *ios
	s.Out = out
	root := newRootCmd(&s)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil && out.err != nil {
		err = fmt.Errorf("write standard output: %w", unwrapPath(out.err))
	}
	if err == nil {
		return 0
	}
	if ctx.Err() != nil {
		// Ctrl-C: one line, whatever each file's read made of it, and
		// the shell's code for a run ended by SIGINT.
		complain(s.ErrOut, "interrupted")
		return 130
	}
	var reported errReported
	if !errors.As(err, &reported) {
		complain(s.ErrOut, errorMessage(err))
	}
	if errors.As(err, new(usageError)) {
		return 2
	}
	return 1
}

// complain writes "traceql: " and msg to w as one line: an error can quote
// a file's contents or name, whose control and bidirectional formatting
// characters are escaped and whose invalid UTF-8 is replaced.
func complain(w io.Writer, msg string) {
	io.WriteString(w, "traceql: "+report.Printable(msg)+"\n")
}

// errorMessage words an error as every command words it: a file that
// cannot be opened or found is "PATH: reason", whether the command looked
// it up (stat, as directory walks do) or opened it first.
func errorMessage(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && err.Error() == pe.Error() && (pe.Op == "open" || pe.Op == "stat" || pe.Op == "lstat") {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// A usageError is a mistake in the command line (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// errReported says the failures were already printed, one per file; run
// only sets the exit code.
type errReported struct{ n int }

func (e errReported) Error() string { return nouns(e.n, "file") + " failed" }
