package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// writeFileAtomic writes path through a temporary file in the same
// directory and renames it into place, so an interrupted run never leaves a
// half-written file.
func writeFileAtomic(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
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
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// writePlotFile renders a plot to path, in PNG or SVG by its extension.
func writePlotFile(path string, plot func(w io.Writer, format string) error) error {
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format != "png" && format != "svg" {
		return usageError{fmt.Errorf("%s: plots are written as .png or .svg", path)}
	}
	return writeFileAtomic(path, func(w io.Writer) error { return plot(w, format) })
}
