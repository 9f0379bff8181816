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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/traceql/traceql/internal/memlimit"
	"github.com/traceql/traceql/internal/outfile"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

func main() {
	// The streams are asked once whether they are terminals; the commands
	// ask the answers (ioStreams), never the files.
	ios := newIOStreams(os.Stdin, os.Stdout, os.Stderr)
	// Under a memory limit, the command runs in a child whose death by
	// the limit becomes one line (supervise), fitted to the limit.
	limits := memlimit.Current()
	if code, ok := memlimit.Supervise(os.Args, os.Environ(), limits, ios.IsStderrTTY()); ok {
		os.Exit(code)
	}
	_, goLimitSet := os.LookupEnv("GOMEMLIMIT")
	_, procsSet := os.LookupEnv("GOMAXPROCS")
	limits.Fit(goLimitSet, procsSet)
	if slices.Contains(os.Environ(), memlimit.TerminalEnv) {
		// Stderr is the pipe to a supervisor that copies it to a terminal.
		ios.SetStderrTTY(true)
	}
	// A stderr whose reader is gone fails the write instead of killing
	// the run before its cleanup.
	ios.ErrOut = memlimit.Stderr()
	ctx, stop := notifySignals(context.Background())
	if pid, err := strconv.Atoi(os.Getenv(strings.TrimSuffix(memlimit.SupervisorEnv, "="))); err == nil {
		var orphaned <-chan struct{}
		ctx, orphaned = memlimit.WatchSupervisor(ctx, pid, os.Getppid, signalled{syscall.SIGTERM})
		go func() {
			// Orphaned, the child has a moment to end its run, then
			// exits, even blocked on standard input.
			<-orphaned
			time.Sleep(memlimit.OrphanGrace)
			os.Exit(128 + int(syscall.SIGTERM))
		}()
	}
	code := run(ctx, os.Args[1:], ios)
	stop()
	os.Exit(code)
}

// notifySignals returns a context cancelled, its cause a signalled, by
// the first SIGINT (Ctrl-C), SIGTERM (kill, timeout, a CI job cancelled)
// or SIGHUP (a terminal closed): each ends the run as Ctrl-C does, its
// temporary files removed, where the default action would kill the
// process and leave them behind. Later signals are caught too, until
// stop, so that the cleanup is not cut short.
func notifySignals(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case s := <-sigs:
			cancel(signalled{s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(nil)
	}
}

// signalled is the cause of a run's cancellation by a signal.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string { return "signal: " + s.sig.String() }

// interruption words a cancelled run's end and gives its exit code: the
// shell's code for a process a signal ended, 128 + the signal's number,
// 130 for Ctrl-C (or a cancellation without a signal, as tests make).
func interruption(ctx context.Context) (string, int) {
	var s signalled
	if errors.As(context.Cause(ctx), &s) {
		if sig, ok := s.sig.(syscall.Signal); ok && sig != syscall.SIGINT {
			return sig.String(), 128 + int(sig) // "terminated", "hangup", as shells say
		}
	}
	return "interrupted", 130
}

// run executes one traceql command line on the streams ios and returns the
// exit code: 0 for success, 1 for an error, 2 for bad usage (a
// usageError), 128 + the signal's number when a signal cancelled ctx (130
// for Ctrl-C).
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
		err = fmt.Errorf("write standard output: %w", outfile.Unwrap(out.err))
	}
	if err == nil {
		return 0
	}
	if ctx.Err() != nil {
		// Ctrl-C, kill: one line, whatever each file's read made of it,
		// and the shell's code for a run ended by the signal.
		msg, code := interruption(ctx)
		complain(s.ErrOut, msg)
		return code
	}
	var reported errReported
	if !errors.As(err, &reported) {
		complain(s.ErrOut, errorMessage(err))
	}
	if errors.As(err, new(gateFailed)) {
		return 3 // diff --fail-if: a regression, not a failure of the run
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

func (e errReported) Error() string { return metrics.Plural(e.n, "files") + " failed" }
