//go:build unix

package memlimit

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/traceql/traceql/report"
)

// Supervise runs the command line argv in a child process when the process has
// a memory limit, and returns the child's exit code; ok is false when
// there is no limit or no child could be started, and the caller runs the
// command itself. stderrTTY says whether this process's stderr is a
// terminal, which the child, whose stderr is a pipe, is told.
//
// A Go program that runs out of memory under a limit cannot recover: the
// runtime prints some 250 lines of goroutine stacks and exits 2, the code
// of bad usage, and the kernel's OOM killer, in a cgroup, leaves no
// message at all. The supervisor, a few megabytes, watches the child's
// stderr and exit and turns either into one line naming the limit and
// what to do. It also starts the child with MALLOC_ARENA_MAX=1: the
// runtime's threads, made by pthread_create because cgo is linked in (for
// package net), each get a 64 MiB glibc malloc arena: on a machine of
// many cores that is gigabytes of address space before any trace is read,
// and a trace that fits the heap fails under ulimit -v.
func Supervise(argv, env []string, limits Limits, stderrTTY bool) (code int, ok bool) {
	args := argv[1:]
	if !limits.any() || slices.Contains(env, SupervisedEnv) {
		return 0, false
	}
	exe, err := os.Executable()
	if err != nil {
		return 0, false
	}
	if !slices.ContainsFunc(env, func(e string) bool { return strings.HasPrefix(e, "MALLOC_ARENA_MAX=") }) {
		// The supervisor's own threads need it too: this process starts
		// again with it, as the same process, then starts the child.
		env = append(slices.Clone(env), "MALLOC_ARENA_MAX=1")
		if err := syscall.Exec(exe, argv, env); err != nil {
			return 0, false
		}
	}
	runtime.GOMAXPROCS(1) // it waits, no more
	cmd := exec.Command(exe, args...)
	cmd.Env = append(slices.Clone(env), SupervisedEnv, SupervisorEnv+strconv.Itoa(os.Getpid()))
	// The child dies with this process: killed (SIGKILL, the OOM
	// killer), it could not pass the child's end on, and a caller that
	// saw it die must not find -o replaced later.
	dieWithParent(cmd)
	if stderrTTY {
		cmd.Env = append(cmd.Env, TerminalEnv)
	}
	cmd.Stdin, cmd.Stdout = os.Stdin, os.Stdout
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return 0, false
	}
	// The child gets a terminal's signals itself; ones sent to this
	// process alone are passed on. Neither dies of them before the child.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, false
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	held := passStderr(errPipe, os.Stderr)
	err = cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		complain(os.Stderr, err.Error())
		return 1, true
	}
	code, msg := childEnd(cmd.ProcessState.Sys().(syscall.WaitStatus), held, limits)
	if msg != "" {
		complain(os.Stderr, msg)
	} else {
		os.Stderr.Write(held)
	}
	return code, true
}

// Stderr is standard error on a descriptor of its own. Go ends a process
// with SIGPIPE when a write to descriptor 1 or 2 finds the reader gone,
// before any deferred cleanup runs: a supervised child whose supervisor
// was killed, or a plain run whose stderr is a pipe nobody reads, died so
// at its first warning, its temporary output left beside -o (issue 66).
// Through another descriptor the write fails instead, and the run ends
// with its own status (a supervised child: as its cancelled context says,
// dieWithParent, WatchSupervisor).
func Stderr() io.Writer {
	fd, err := syscall.Dup(2)
	if err != nil {
		return os.Stderr
	}
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "/dev/stderr")
}

// childEnd turns how the child ended, with the stderr it held back, into
// the exit code and the line to print instead of that stderr ("" to print
// it as it was).
func childEnd(st syscall.WaitStatus, held []byte, limits Limits) (int, string) {
	switch {
	case st.Signaled() && st.Signal() == syscall.SIGKILL && limits.cgroup > 0:
		return 1, limits.outOfMemory(true) // the OOM killer's signal
	case st.Signaled():
		return 128 + int(st.Signal()), ""
	case held != nil && outOfMemoryCrash(held):
		return 1, limits.outOfMemory(false)
	}
	return st.ExitStatus(), ""
}

// crashMarks start the lines with which the Go runtime reports a fatal
// error.
var crashMarks = []string{"fatal error:", "runtime: ", "runtime/cgo: "}

// passStderr copies the child's stderr to w as it comes, a progress bar's
// unfinished lines included, until a line starts as the runtime's fatal
// errors do; that line and all after it are held back and returned.
func passStderr(r io.Reader, w io.Writer) (held []byte) {
	var line []byte // the current line's bytes not yet written
	mid := false    // the start of the current line was written: no crash
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		for _, c := range buf[:n] {
			if held != nil {
				held = append(held, c)
				continue
			}
			line = append(line, c)
			if !mid {
				switch crashPrefix(line) {
				case crashYes:
					held, line = line, nil
					continue
				case crashMaybe:
					if c != '\n' {
						continue
					}
				}
			}
			if c == '\n' {
				w.Write(line)
				line, mid = line[:0], false
			}
		}
		// An unfinished line, as a progress bar's \r updates, is written
		// once it cannot be a crash's.
		if held == nil && len(line) > 0 && (mid || crashPrefix(line) == crashNo) {
			w.Write(line)
			line, mid = line[:0], true
		}
		if err != nil {
			if held == nil {
				w.Write(line)
			}
			return held
		}
	}
}

const (
	crashNo = iota
	crashMaybe
	crashYes
)

// crashPrefix says whether a line that starts with b is one of the
// runtime's fatal errors; a short b may not tell yet.
func crashPrefix(b []byte) int {
	for _, m := range crashMarks {
		if bytes.HasPrefix(b, []byte(m)) {
			return crashYes
		}
		if bytes.HasPrefix([]byte(m), b) {
			return crashMaybe
		}
	}
	return crashNo
}

// outOfMemoryCrash reports whether the runtime's fatal error is about
// memory or threads, which a memory limit denied.
func outOfMemoryCrash(held []byte) bool {
	first, _, _ := bytes.Cut(held, []byte("\n"))
	for _, s := range []string{"out of memory", "cannot allocate", "failed to reserve", "pthread_create failed",
		"failed to create new OS thread", "pageAlloc", "mmap"} {
		if bytes.Contains(first, []byte(s)) {
			return true
		}
	}
	return false
}

// complain writes msg to w as the command's one line of error:
// "traceql: msg", its control characters escaped.
func complain(w io.Writer, msg string) {
	io.WriteString(w, "traceql: "+report.Printable(msg)+"\n")
}
