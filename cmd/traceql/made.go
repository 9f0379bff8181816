package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// displayPath is a path as a page sent to others shows it: an absolute
// path relative to the working directory when it lies below it, else its
// base name, so that a home directory or a user name does not leak;
// relative paths as typed.
func displayPath(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return filepath.Base(p)
}

// commandLine is the command as run, for a page that says how it was
// made: the command path, the flags given and the arguments, paths by
// displayPath.
func commandLine(cmd *cobra.Command, args []string) string {
	parts := []string{cmd.CommandPath()}
	for _, a := range args {
		parts = append(parts, displayPath(a))
	}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		v := f.Value.String()
		if f.Value.Type() == "string" {
			v = displayPath(v)
		}
		parts = append(parts, "--"+f.Name+"="+v)
	})
	return strings.Join(parts, " ")
}
