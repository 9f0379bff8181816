package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
	"github.com/traceql/traceql/trace/torchlog"
)

// compileLogHelp is --compile-log's part of summarize --help.
const compileLogHelp = `
--compile-log DIR|FILE joins a TORCH_TRACE structured compile log (what
TORCH_TRACE=DIR writes and tlparse reads; plain or gzipped) to the trace of
the same process: per compile of a frame (the log's [F/R], the trace's
Torch-Compiled Region: F/R), its compile time, graph breaks and why, the
guard failures that made a recompile, CUDA graphs replayed or skipped,
beside its calls, Dynamo lookup cost and kernel time in the trace; then the
top kernels of compiled frames with the FX nodes and source lines
Inductor's provenance gives (INDUCTOR_PROVENANCE=1 when compiling). A DIR
with several logs gives each trace the log of its rank (rank_N in the
name). Text and markdown only.`

// compileLogs reads the compile logs that --compile-log names, each once,
// for the traces summarize reads at the same time.
type compileLogs struct {
	path string // --compile-log
	mu   sync.Mutex
	logs map[string]*compileLogResult
}

type compileLogResult struct {
	once sync.Once
	log  *torchlog.Log
	err  error
}

// join joins the log of s's rank to s, listing at most top kernels per
// device, and counts its recompile and graph-break findings from the log
// (metrics.ApplyCompileLog): what summarize, check and export share.
func (c *compileLogs) join(s *metrics.Summary, t *trace.Trace, top int) error {
	log, err := c.forRank(s.Rank)
	if err != nil {
		return err
	}
	s.CompileLog = metrics.JoinCompileLog(t, log, top)
	metrics.ApplyCompileLog(s)
	return nil
}

// addCompileLogFlag is --compile-log of check and export, where the log
// gives the findings only.
func addCompileLogFlag(f *pflag.FlagSet, path *string) {
	f.StringVar(path, "compile-log", "", "`LOG`: a TORCH_TRACE compile log, or a folder of them (one per rank): the recompile and graph-break findings count what it records, not a guess from frame numbers")
}

// openCompileLogs is the compileLogs of --compile-log path, its log read
// when every trace joins the same one; nil without the flag.
func openCompileLogs(path string) (*compileLogs, error) {
	if path == "" {
		return nil, nil
	}
	logs := &compileLogs{path: path}
	return logs, logs.preload()
}

// rankInName finds the rank in a TORCH_TRACE file name:
// dedicated_log_torch_trace_rank_3_abcd1234.log.
var rankInName = regexp.MustCompile(`rank_(\d+)(?:[_.]|$)`)

// forRank returns the log for the trace of rank (-1: unknown): the file
// --compile-log names, or in a directory its one log, or the log whose
// name has the rank.
func (c *compileLogs) forRank(rank int) (*torchlog.Log, error) {
	path, err := c.pick(rank)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	r := c.logs[path]
	if r == nil {
		r = &compileLogResult{}
		if c.logs == nil {
			c.logs = map[string]*compileLogResult{}
		}
		c.logs[path] = r
	}
	c.mu.Unlock()
	r.once.Do(func() { r.log, r.err = torchlog.Open(path) })
	return r.log, r.err
}

// preload reads the log every trace joins, when there is one: a missing
// or bad log stops the run before the traces are read. A directory of
// several logs is read a log at a time, as traces name their ranks.
func (c *compileLogs) preload() error {
	logs, err := c.list()
	if err != nil || len(logs) > 1 {
		return err
	}
	_, err = c.forRank(-1)
	return err
}

// list returns the file --compile-log names, or the logs in the
// directory it names; an error when there is none.
func (c *compileLogs) list() ([]string, error) {
	st, err := os.Stat(c.path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{c.path}, nil
	}
	entries, err := os.ReadDir(c.path)
	if err != nil {
		return nil, err
	}
	var logs []string
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && (strings.HasSuffix(n, ".log") || strings.HasSuffix(n, ".log.gz")) {
			logs = append(logs, filepath.Join(c.path, n))
		}
	}
	if len(logs) == 0 {
		return nil, fmt.Errorf("%s: no *.log or *.log.gz file (a TORCH_TRACE directory holds dedicated_log_torch_trace_*.log)", c.path)
	}
	slices.Sort(logs)
	return logs, nil
}

func (c *compileLogs) pick(rank int) (string, error) {
	logs, err := c.list()
	if err != nil {
		return "", err
	}
	if len(logs) == 1 {
		return logs[0], nil
	}
	var match []string
	for _, l := range logs {
		if m := rankInName.FindStringSubmatch(filepath.Base(l)); m != nil && rank >= 0 && m[1] == strconv.Itoa(rank) {
			match = append(match, l)
		}
	}
	if len(match) == 1 {
		return match[0], nil
	}
	which := "the trace's rank is unknown"
	if rank >= 0 {
		which = fmt.Sprintf("%d name rank %d", len(match), rank)
	}
	return "", fmt.Errorf("%s: %d logs and %s: give --compile-log the log's file", c.path, len(logs), which)
}
