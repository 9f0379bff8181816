package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/traceql/traceql/internal/outfile"
	"github.com/traceql/traceql/trace"
)

// traceExts are the file names a directory walk picks up. Files named on
// the command line are read whatever their name: formats are told by content.
var traceExts = []string{".json", ".json.gz", ".gz", ".sqlite", ".sqlite3"}

// expandInputs turns FILE and DIR arguments into trace files, in argument
// order, each directory's files (found recursively) in natural order:
// rank2.json before rank10.json. A path that is missing, a folder that
// cannot be read or holds no trace is a failure in errs, and the rest is
// still found, so that one bad rank does not hide the others. A link named
// like a trace that leads nowhere (dangling, looping) is skipped with a
// note, not silently.
func expandInputs(args []string) (files, notes []string, errs []error) {
	for _, a := range args {
		if a == stdinName {
			files = append(files, a)
			continue
		}
		st, err := os.Stat(a)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", a, outfile.Unwrap(err)))
			continue
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		n, bad := len(files), len(errs)
		filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w; its traces are not read", p, outfile.Unwrap(err)))
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if !isTraceName(d.Name()) {
				return nil
			}
			// A link to a file counts (a job's ranks are often linked into
			// one folder); links to folders are not followed, so no walk
			// loops.
			if d.Type()&fs.ModeSymlink != 0 {
				st, err := os.Stat(p)
				switch {
				case err != nil:
					notes = append(notes, fmt.Sprintf("%s: skipped, a link that leads to no file: %v", p, outfile.Unwrap(err)))
				case st.Mode().IsRegular():
					files = append(files, p)
				}
				return nil
			}
			if d.Type().IsRegular() {
				files = append(files, p)
			}
			return nil
		})
		if len(files) == n && len(errs) == bad {
			errs = append(errs, fmt.Errorf("%s: no trace files (%s) in this directory", a, strings.Join(traceExts, ", ")))
		}
		slices.SortStableFunc(files[n:], naturalCompare)
	}
	return files, notes, errs
}

// inputFiles is expandInputs for a command: its failures and notes go to
// stderr, a line each, and it returns the files with the number of
// failures, for the exit code. When no file is left, that is the error.
func inputFiles(args []string, stderr io.Writer) ([]string, int, error) {
	files, notes, errs := expandInputs(args)
	for _, n := range notes {
		complain(stderr, "warning: "+n)
	}
	if len(files) == 0 && len(errs) == 1 {
		return nil, 0, errs[0]
	}
	for _, err := range errs {
		complain(stderr, errorMessage(err))
	}
	if len(files) == 0 {
		return nil, 0, errReported{len(errs)}
	}
	return files, len(errs), nil
}

func isTraceName(name string) bool {
	name = strings.ToLower(name)
	for _, e := range traceExts {
		if strings.HasSuffix(name, e) {
			return true
		}
	}
	return false
}

// naturalCompare orders paths as text, except that runs of digits compare
// as numbers: "rank9" < "rank10". Equal numbers with different zero padding
// fall back to the text, so the order stays total.
func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			x, y := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			// Compare the numbers without leading zeros: longer is larger,
			// else digit by digit.
			p, q := strings.TrimLeft(a[x:i], "0"), strings.TrimLeft(b[y:j], "0")
			if c := cmp.Or(cmp.Compare(len(p), len(q)), strings.Compare(p, q)); c != 0 {
				return c
			}
			continue
		}
		if a[i] != b[j] {
			return cmp.Compare(a[i], b[j])
		}
		i++
		j++
	}
	return cmp.Or(cmp.Compare(len(a)-i, len(b)-j), strings.Compare(a, b))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// namedFiles are the arguments, cleaned: the files named on the command
// line, as against those a folder's walk found.
func namedFiles(args []string) map[string]bool {
	named := make(map[string]bool, len(args))
	for _, a := range args {
		named[filepath.Clean(a)] = true
	}
	return named
}

// skipNotTrace reports whether err, from reading file, is a file a folder's
// walk found that is not a trace at all (a run's config.json, a checkpoint
// .tar.gz): it is noted on stderr and skipped, not counted a failure. A file
// named on the command line that is no trace still fails.
func skipNotTrace(stderr io.Writer, file string, err error, named map[string]bool) bool {
	if named[filepath.Clean(file)] || !errors.Is(err, trace.ErrUnknownFormat) {
		return false
	}
	complain(stderr, "note: "+file+": skipped, not a trace")
	return true
}
