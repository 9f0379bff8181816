package main

import (
	"io"
	"os"
	"strconv"

	"github.com/mattn/go-isatty"
	"golang.org/x/term"
)

// An ioStreams is a run's standard input, output and error, with what the
// commands need to know of them: whether output and error are terminals,
// and how wide the output's is. Commands ask it, never the files, so that
// a test can say "stdout is an 80-column terminal" or "a pipe" without
// one, as cli/cli's iostreams.IOStreams lets gh's tests do.
//
// What depends on it: text tables cut kernel names to the terminal's width
// (textLayout), binary formats are refused on a terminal
// (binaryToTerminal), and the progress bar is drawn only on a terminal's
// stderr (startProgress).
type ioStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdoutTTY bool
	stderrTTY bool
	width     int // columns of the terminal Out writes to; 0 when unknown
}

// newIOStreams takes the streams of a run and asks those that are files,
// once, whether they are terminals and how wide stdout's is; any other
// reader or writer (a buffer in a test) is not a terminal.
func newIOStreams(in io.Reader, out, errOut io.Writer) *ioStreams {
	s := &ioStreams{In: in, Out: out, ErrOut: errOut}
	if f, ok := out.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		s.stdoutTTY = true
		w, _, err := term.GetSize(int(f.Fd()))
		if err != nil {
			w = 0
		}
		s.width = terminalWidth(os.Getenv("COLUMNS"), w)
	}
	if f, ok := errOut.(*os.File); ok {
		s.stderrTTY = isatty.IsTerminal(f.Fd())
	}
	return s
}

// IsStdoutTTY reports whether Out is a terminal.
func (s *ioStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// SetStdoutTTY says whether Out is a terminal.
func (s *ioStreams) SetStdoutTTY(tty bool) { s.stdoutTTY = tty }

// IsStderrTTY reports whether ErrOut is seen on a terminal: a terminal
// itself, or the pipe to a supervisor whose stderr is one (supervise).
func (s *ioStreams) IsStderrTTY() bool { return s.stderrTTY }

// SetStderrTTY says whether ErrOut is seen on a terminal.
func (s *ioStreams) SetStderrTTY(tty bool) { s.stderrTTY = tty }

// TerminalWidth returns the columns of the terminal Out writes to, 0 when
// Out is not a terminal or its width is unknown.
func (s *ioStreams) TerminalWidth() int {
	if !s.stdoutTTY {
		return 0
	}
	return s.width
}

// SetTerminalWidth sets the columns of the terminal Out writes to.
func (s *ioStreams) SetTerminalWidth(columns int) { s.width = columns }

// terminalWidth is a terminal's width in columns: $COLUMNS when it is a
// positive number, as ls and git let a user set it, else what the
// terminal says (ioctl), else 80. script, some CI runners and editor
// shells answer 0 columns: without the fallback names went uncut.
func terminalWidth(columns string, ioctl int) int {
	if n, err := strconv.Atoi(columns); err == nil && n > 0 {
		return n
	}
	if ioctl > 0 {
		return ioctl
	}
	return 80
}
