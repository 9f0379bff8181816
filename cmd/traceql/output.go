package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/traceql/traceql/report"
)

// stdout is the -o path that means standard output, as it does for curl
// and tar.
const stdout = "-"

// binaryToTerminal refuses to write a binary format to w when w is a
// terminal, where it would garble the screen.
func binaryToTerminal(w io.Writer, what string) error {
	if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		return usageError{fmt.Errorf("%s is binary: give -o FILE or redirect the output", what)}
	}
	return nil
}

// textLayout fits text tables to w: on a terminal, names are cut to what
// its width leaves after a kernel table's other columns; anywhere else
// (a file, a pipe) they are whole.
func textLayout(w io.Writer, all bool, names string) report.Layout {
	l := report.Layout{All: all, Names: names}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil {
			// count, total, mean and share take about 40 columns.
			l.NameWidth = max(width-42, 24)
		}
	}
	return l
}

// namesFlag adds --names, the style of kernel names, to a command.
func namesFlag(f *pflag.FlagSet, names *string) {
	f.StringVar(names, "names", report.NamesFull, "kernel names: full (as recorded), short (demangled; templates, arguments and namespaces folded) or family (base name across instantiations)")
}

// checkNames validates --names.
func checkNames(names string) error {
	switch names {
	case report.NamesFull, report.NamesShort, report.NamesFamily:
		return nil
	}
	return usageError{fmt.Errorf("--names %q: want full, short or family", names)}
}

// checkOutput refuses an output path that is a directory or one of the
// input files, which the output would replace.
func checkOutput(path string, inputs []string) error {
	out, err := os.Stat(path)
	if err != nil {
		return nil // a new file: writing it reports any other problem
	}
	if out.IsDir() {
		return usageError{fmt.Errorf("-o %s: is a directory", path)}
	}
	for _, in := range inputs {
		if st, err := os.Stat(in); err == nil && os.SameFile(out, st) {
			return usageError{fmt.Errorf("-o %s is also an input, which it would replace", path)}
		}
	}
	return nil
}

// writeFileAtomic writes path through a temporary file in the same
// directory and renames it into place, so an interrupted run never leaves a
// half-written file. Errors name path, not the temporary file.
func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes it 0600
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("%s: %w", path, errors.Unwrap(err))
	}
	return nil
}

// writePlotFile renders a plot to path, in PNG or SVG by its extension.
func writePlotFile(path string, plot func(w io.Writer, format string) error) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format != "png" && format != "svg" {
		return usageError{fmt.Errorf("%s: plots are written as .png or .svg", path)}
	}
	return writeFileAtomic(path, func(w io.Writer) error { return plot(w, format) })
}
