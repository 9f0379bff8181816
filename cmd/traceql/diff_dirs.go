package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// bothDirs reports whether OLD and NEW are both folders: diff then
// compares their traces pair by pair (runDiffDirs).
func bothDirs(args []string) bool {
	if len(args) != 2 {
		return false
	}
	for _, a := range args {
		if st, err := os.Stat(a); err != nil || !st.IsDir() {
			return false
		}
	}
	return true
}

// A tracePair is a trace of OLDDIR and one of NEWDIR with the same path
// relative to its folder; "" on the side that lacks it.
type tracePair struct{ rel, old, new string }

// pairTraces pairs the traces of two folders by their paths inside them,
// in natural order of those paths. Folders of one trace each whose names
// differ pair with each other, as diff DIR DIR did before it paired by
// name.
func pairTraces(oldDir, newDir string, olds, news []string) []tracePair {
	byRel := map[string]*tracePair{}
	var rels []string
	add := func(dir, file string, side func(*tracePair) *string) {
		rel, err := filepath.Rel(dir, file)
		if err != nil {
			rel = file
		}
		p := byRel[rel]
		if p == nil {
			p = &tracePair{rel: rel}
			byRel[rel] = p
			rels = append(rels, rel)
		}
		*side(p) = file
	}
	for _, f := range olds {
		add(oldDir, f, func(p *tracePair) *string { return &p.old })
	}
	for _, f := range news {
		add(newDir, f, func(p *tracePair) *string { return &p.new })
	}
	if len(olds) == 1 && len(news) == 1 && len(rels) == 2 {
		return []tracePair{{rel: rels[0], old: olds[0], new: news[0]}}
	}
	slices.SortStableFunc(rels, naturalCompare)
	out := make([]tracePair, len(rels))
	for i, r := range rels {
		out[i] = *byRel[r]
	}
	return out
}

// runDiffDirs diffs OLDDIR's traces against NEWDIR's of the same relative
// path, one diff each in natural order, a blank line between; a trace on
// one side only gets a line on stderr. The exit is the worst of the
// pairs': a pair that failed (1) over a --fail-if regression (3) over a
// pass (0).
func runDiffDirs(ctx context.Context, opts *diffOptions) error {
	oldDir, newDir := opts.Args[0], opts.Args[1]
	olds, err := dirTraces(oldDir, opts.IO)
	if err != nil {
		return err
	}
	news, err := dirTraces(newDir, opts.IO)
	if err != nil {
		return err
	}
	var failed, regressed int
	var regression error
	first := true
	for _, p := range pairTraces(oldDir, newDir, olds, news) {
		switch {
		case p.new == "":
			complain(opts.IO.ErrOut, fmt.Sprintf("only in %s: %s", oldDir, p.rel))
			continue
		case p.old == "":
			complain(opts.IO.ErrOut, fmt.Sprintf("only in %s: %s", newDir, p.rel))
			continue
		}
		if !first && (opts.Format == "text" || opts.Format == "markdown") {
			fmt.Fprintln(opts.IO.Out)
		}
		first = false
		one := *opts
		one.Args, one.Old, one.New, one.Pair = nil, p.old, p.new, p.rel
		err := runDiff(ctx, &one)
		var gate gateFailed
		switch {
		case err == nil:
		case errors.As(err, &gate):
			regressed += gate.n
			regression = err
		case ctx.Err() != nil:
			return err
		case errors.As(err, new(usageError)):
			// A file of one side is no trace: the read noted it.
			continue
		default:
			failed++
			complain(opts.IO.ErrOut, errorMessage(err))
		}
	}
	switch {
	case failed > 0:
		return errReported{failed}
	case first:
		return fmt.Errorf("%s and %s hold no trace of the same name", oldDir, newDir)
	case regression != nil:
		return gateFailed{regressed}
	}
	return nil
}

// dirTraces finds the traces in dir as summarize does; a file that is no
// trace is left to the read, which skips it with a note.
func dirTraces(dir string, ios *ioStreams) ([]string, error) {
	files, missing, err := inputFiles([]string{dir}, ios.ErrOut)
	if err != nil {
		return nil, err
	}
	if missing > 0 {
		return nil, errReported{missing}
	}
	return files, nil
}
