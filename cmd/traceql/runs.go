package main

import (
	"fmt"
	"os"

	"github.com/traceql/traceql/metrics"
)

// anyDir reports whether one of the arguments is a folder: the commands
// that read several traces together (compare, diff, plot) then search it
// as summarize does, and label the traces found rather than the arguments.
func anyDir(args []string) bool {
	for _, a := range args {
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// runInputs are the traces of a command that reads several together,
// found for its FILE and DIR arguments, with their labels.
type runInputs struct {
	Files  []string
	Labels []string
	named  map[string]bool // the files named on the command line
	given  bool            // Labels are --label's, one per trace kept
}

// expandRuns finds the traces for args (expandInputs: a folder's files in
// natural order), labelled by labels when given, one per trace found, or
// by runLabels. A missing argument fails the command: a comparison of some
// of the runs asked for would mislead.
func expandRuns(args, labels []string, ios *ioStreams) (*runInputs, error) {
	files, missing, err := inputFiles(args, ios.ErrOut)
	if err != nil {
		return nil, err
	}
	if missing > 0 {
		return nil, errReported{missing}
	}
	in := &runInputs{Files: files, Labels: labels, named: namedFiles(args)}
	switch {
	case len(labels) == 0:
		in.Labels = runLabels(files)
	case len(labels) > len(files): // fewer would do if some file is no trace
		return nil, labelCount(len(labels), len(files))
	case uniqueLabels(labels) != nil:
		return nil, uniqueLabels(labels)
	default:
		in.given = true
	}
	return in, nil
}

func labelCount(labels, traces int) error {
	return usageError{fmt.Errorf("--label has %s for %s", metrics.Plural(labels, "labels"), metrics.Plural(traces, "traces"))}
}

// keep reads the error of reading file i: nil when it read; when it is a
// file a folder's walk found that is no trace at all (a classes.json), it
// is noted on stderr and dropped from the runs, and keep returns nil too.
// Other errors are returned. Call it for each file in order; the traces
// kept are then in.Files, with in.Labels.
func (in *runInputs) keep(i int, err error, ios *ioStreams, kept *[]int) error {
	if err == nil {
		*kept = append(*kept, i)
		return nil
	}
	if skipNotTrace(ios.ErrOut, in.Files[i], err, in.named) {
		return nil
	}
	return err
}

// only keeps the files at the indexes kept, and their labels; --label's
// are one per trace kept, in order.
func (in *runInputs) only(kept []int) error {
	if in.given {
		if len(in.Labels) != len(kept) {
			return labelCount(len(in.Labels), len(kept))
		}
		var files []string
		for _, i := range kept {
			files = append(files, in.Files[i])
		}
		in.Files = files
		return nil
	}
	var files, labels []string
	for _, i := range kept {
		files, labels = append(files, in.Files[i]), append(labels, in.Labels[i])
	}
	in.Files, in.Labels = files, labels
	return nil
}

// label is the label of file k of those found, while they are read: with
// --label, that of the run it is among those kept so far (kept must hold
// k's index when it was kept).
func (in *runInputs) label(k int, kept []int) string {
	if in.given {
		if n := len(kept) - 1; n < len(in.Labels) {
			return in.Labels[n]
		}
		return ""
	}
	return in.Labels[k]
}
