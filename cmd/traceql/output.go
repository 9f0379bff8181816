package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traceql/traceql/internal/outfile"
	"github.com/traceql/traceql/report"
)

// stdout is the -o path that means standard output, as it does for curl
// and tar.
const stdout = "-"

// binaryToTerminal refuses to write a binary format to standard output
// when it is a terminal, where it would garble the screen.
func binaryToTerminal(ios *ioStreams, what string) error {
	if ios.IsStdoutTTY() {
		return usageError{fmt.Errorf("%s is binary: give -o FILE or redirect the output", what)}
	}
	return nil
}

// textLayout fits text tables to standard output: on a terminal, names are
// cut to what its width leaves after a kernel table's other columns;
// anywhere else (a file, a pipe) they are whole.
func textLayout(ios *ioStreams, all bool, names string) report.Layout {
	l := report.Layout{All: all, Names: names}
	if width := ios.TerminalWidth(); width > 0 {
		// count, total, mean and share take about 40 columns.
		l.NameWidth = max(width-42, 24)
	}
	return l
}

// namesFlag adds --names, the style of kernel names, to a command.
func namesFlag(cmd *cobra.Command, names *string) {
	enumFlag(cmd, names, "names", "", report.NamesFull, []string{report.NamesFull, report.NamesShort, report.NamesFamily},
		"kernel names: full (as recorded), short (demangled; templates, arguments and namespaces folded) or family (base name across instantiations)")
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
	return checkNotInput(path, out, inputs)
}

// checkNotInput refuses an output path, out its FileInfo, that is one of
// the input files.
func checkNotInput(path string, out os.FileInfo, inputs []string) error {
	for _, in := range inputs {
		if st, err := os.Stat(in); err == nil && os.SameFile(out, st) {
			return usageError{fmt.Errorf("-o %s is also an input, which it would replace", path)}
		}
	}
	return nil
}

// writePlotFile renders a plot to path, in PNG or SVG by its extension.
func writePlotFile(ctx context.Context, path string, plot func(w io.Writer, format string) error) error {
	format, err := plotFormat(path)
	if err != nil {
		return err
	}
	return outfile.Write(ctx, path, func(w io.Writer) error { return plot(w, format) })
}

// plotFormat is the format of a plot file by its extension, png or svg.
func plotFormat(path string) (string, error) {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format != "png" && format != "svg" {
		return "", usageError{fmt.Errorf("%s: plots are written as .png or .svg", path)}
	}
	return format, nil
}

// A checkedWriter passes writes to w and keeps the first error, so that a
// write whose error its caller drops (cobra's help) still fails the run.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.err = err
	return n, err
}
