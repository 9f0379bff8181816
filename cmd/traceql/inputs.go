package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// traceExts are the file names a directory walk picks up. Files named on
// the command line are read whatever their name: formats are told by content.
var traceExts = []string{".json", ".json.gz", ".gz", ".sqlite", ".sqlite3"}

// expandInputs turns FILE and DIR arguments into trace files, in argument
// order, each directory walked recursively in lexical order.
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
			if d.Type().IsRegular() && isTraceName(d.Name()) {
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
