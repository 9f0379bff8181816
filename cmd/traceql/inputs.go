package main

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// traceExts are the file names a directory walk picks up. Files named on
// the command line are read whatever their name: formats are told by content.
var traceExts = []string{".json", ".json.gz", ".gz", ".sqlite", ".sqlite3"}

// expandInputs turns FILE and DIR arguments into trace files, in argument
// order, each directory's files (found recursively) in natural order:
// rank2.json before rank10.json.
func expandInputs(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		n := len(files)
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !isTraceName(d.Name()) {
				return nil
			}
			// A link to a file counts (a job's ranks are often linked into
			// one folder); links to folders are not followed, so no walk
			// loops.
			if d.Type()&fs.ModeSymlink != 0 {
				if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
					files = append(files, p)
				}
				return nil
			}
			if d.Type().IsRegular() {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(files) == n {
			return nil, fmt.Errorf("%s: no trace files (%s) in this directory", a, strings.Join(traceExts, ", "))
		}
		slices.SortStableFunc(files[n:], naturalCompare)
	}
	return files, nil
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
