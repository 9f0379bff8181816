package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"github.com/traceql/traceql/metrics"
)

// addLabelFlag adds --label, the runs' labels (the label column of every
// table).
func addLabelFlag(f *pflag.FlagSet, labels *[]string, dirs bool) {
	per := "one per file"
	if dirs {
		per = "one per FILE or DIR (a DIR's labels every trace in it)"
	}
	f.StringSliceVar(labels, "label", nil, "comma-separated run labels, "+per+"; default: the file names, with as many folders as tell them apart")
}

// checkLabels refuses a --label with a count other than the arguments'.
func checkLabels(labels, args []string) error {
	if len(labels) > 0 && len(labels) != len(args) {
		return usageError{fmt.Errorf("--label has %s for %s", metrics.Plural(len(labels), "labels"), metrics.Plural(len(args), "arguments"))}
	}
	return uniqueLabels(labels)
}

// uniqueLabels refuses a label given twice (--label a,a): the runs'
// rows, columns and bars would not tell them apart.
func uniqueLabels(labels []string) error {
	seen := map[string]bool{}
	for _, l := range labels {
		if seen[l] {
			return usageError{fmt.Errorf("--label %s: given twice; each run needs its own label", l)}
		}
		seen[l] = true
	}
	return nil
}

// firstSteps names the n leading steps that took long: "the first step
// took", "the first 2 steps took".
func firstSteps(n int) string {
	if n == 1 {
		return "the first step took"
	}
	return fmt.Sprintf("the first %d steps took", n)
}

// fileLabels labels each file found for the arguments: with labels
// (--label, one per argument), a file gets its argument's, a DIR's for
// each trace found in it; without, runLabels of the files, the labels
// compare has always given.
func fileLabels(args, labels, files []string) map[string]string {
	out := map[string]string{}
	if len(labels) == 0 {
		for i, l := range runLabels(files) {
			out[files[i]] = l
		}
		return out
	}
	for _, f := range files {
		for i, a := range args {
			dir := strings.TrimSuffix(a, string(filepath.Separator)) + string(filepath.Separator)
			if f == a || strings.HasPrefix(f, dir) {
				out[f] = labels[i]
				break
			}
		}
	}
	return out
}
