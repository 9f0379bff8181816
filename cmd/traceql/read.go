package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/sync/semaphore"

	"github.com/traceql/traceql/internal/memlimit"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// readOptions say how traces are read: strictness, progress, and the part
// of each trace to measure (the steady state, without warm-up and
// compilation). Every command that reads traces embeds one.
type readOptions struct {
	Strict    bool
	Quiet     bool
	Steps     string // "3:", "3:5", ":5", "4"
	SkipSteps int
	Window    string // "100ms:500ms", relative to the first GPU activity
	Range     string // an annotation, op or NVTX range name
	Steady    bool   // leave out the leading steps that look like warm-up (metrics.WarmupWindows)
	Kernel    string // a regular expression: only the kernels whose names match
	Devices   []int  // only these devices (--device, repeatable)
	Streams   []int64
	Jobs      int // files read at once (readEach); 0: one per CPU

	memory   int64       // what the files read at once may take (readEach); 0: memlimit.Budget()
	needs    trace.Needs // the host data the command reads besides the GPU metrics'; Op is --range's
	stderr   io.Writer   // for the progress bar and warnings
	stdin    io.Reader   // the trace of the argument "-"
	tty      bool        // stderr is seen on a terminal: a progress bar may be drawn
	progress *progress   // nil: none
	// workers are the goroutines that decode traces, shared by the files
	// read at once; nil until prepare or readEach sets them.
	workers *trace.Workers
	gc      *memlimit.GCHold
	atOnce  int // files readEach reads at once, which share the memory budget
}

// cores is how many goroutines the work of a command takes at once: the
// workers that decode the traces read (shareWorkers), and that write the
// pages of their tables; the files read at once unless --jobs says
// (readEach); the devices a summary measures at once (metrics.Options).
// It is decided here alone, from GOMAXPROCS, which memlimit.Limits.Fit lowers under an
// address-space limit; the packages below take it as an input.
func cores() int { return runtime.GOMAXPROCS(0) }

// shareWorkers gives the files this command reads one budget of decoding
// goroutines, cores() of them: a folder of ranks read at once shares
// them instead of taking as many each, whose blocks in flight and
// decoders would grow as the square of the cores. They share one memlimit.GCHold
// too.
func (w *readOptions) shareWorkers() {
	if w.workers == nil {
		w.workers, w.gc = trace.NewWorkers(cores()), &memlimit.GCHold{}
	}
}

// startProgress shows a progress bar while files are read, when stderr is
// a terminal and they are large; call the returned func when done.
func (r *readOptions) startProgress(files []string) func() {
	r.progress = startProgress(r.stderr, r.tty, files, r.Quiet)
	return r.progress.finish
}

const windowHelp = `

Windows (GPU activity is clipped to the window; the launch calls of its
kernels count wherever they were made, and the steps are those selected,
or those inside the window):
  --steps 3:        ProfilerStep#3 to the last (3:5, :5, 4 also work); each
                    GPU's gpu_user_annotation copy when present, else the CPU
                    range (from the step before's end when later) to the end
                    of the GPU work launched in it when later, as TensorBoard
  --skip-steps N    drop the first N recorded steps (warm-up, compilation)
  --window A:B      from A to B after the first GPU activity, with units:
                    ns, us (µs), ms, s; either side may be empty
  --range NAME      the union of the ranges named NAME (record_function
                    annotation, op or NVTX range): busy time, span, idle
                    gaps and steps inside its occurrences only, not the
                    time between them
  --steady          the steps after the warm-up: leading steps that each
                    took over twice the median step are left out of each
                    trace (the rule summarize flags them by); all steps when
                    none is; the whole trace, with a warning, without steps
The window measured is named in text titles and in the window column.
`

func (w *readOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&w.Strict, "strict", false, "treat skipped or malformed events and truncation as errors")
	f.BoolVarP(&w.Quiet, "quiet", "q", false, "no progress bar on stderr")
	f.StringVar(&w.Steps, "steps", "", "measure only these ProfilerStep#N: 3:, 3:5, :5 or 4")
	f.IntVar(&w.SkipSteps, "skip-steps", 0, "drop the first N recorded ProfilerStep#N")
	f.StringVar(&w.Window, "window", "", "measure only START:END after the first GPU activity, e.g. 100ms:500ms")
	f.StringVar(&w.Range, "range", "", "measure only the time inside the annotation, op or NVTX ranges with this name (their union)")
	f.BoolVar(&w.Steady, "steady", false, "measure only the steps after the warm-up (leading steps over twice the median)")
	f.StringVar(&w.Kernel, "kernel", "", "measure only the kernels whose names match this `REGEX` (copies and memsets stay; no verdict)")
	f.IntSliceVar(&w.Devices, "device", nil, "measure only device `N` (repeat or comma-separate for several)")
	f.Int64SliceVar(&w.Streams, "stream", nil, "measure only stream `N`, on every device (repeat or comma-separate for several; no verdict)")
	f.Lookup("stream").DefValue = "" // not "[]": no default to print
}

// addJobsFlag adds --jobs, for commands that read many files (readEach).
func (w *readOptions) addJobsFlag(f *pflag.FlagSet) {
	f.IntVarP(&w.Jobs, "jobs", "j", 0, "files read at once (default 0: one per CPU, as memory allows)")
}

// prepare takes the command's stderr, for the progress bar and warnings,
// and stdin, and validates the flags.
func (w *readOptions) prepare(ios *ioStreams) error {
	w.stderr, w.tty, w.stdin = ios.ErrOut, ios.IsStderrTTY(), ios.In
	w.shareWorkers()
	return w.check()
}

// check validates the flags alone, before any trace is read.
func (w *readOptions) check() error {
	n := 0
	for _, set := range []bool{w.Steps != "" || w.SkipSteps > 0, w.Window != "", w.Range != "", w.Steady} {
		if set {
			n++
		}
	}
	if n > 1 {
		return usageError{fmt.Errorf("use one of --steps/--skip-steps, --window, --range and --steady")}
	}
	if w.SkipSteps < 0 {
		return usageError{fmt.Errorf("--skip-steps %d: want 0 or more", w.SkipSteps)}
	}
	for _, d := range w.Devices {
		if d < 0 {
			return usageError{fmt.Errorf("--device %d: want a device number, 0 or more", d)}
		}
	}
	if w.Jobs < 0 {
		return usageError{fmt.Errorf("--jobs %d: want 0 (one per CPU) or more", w.Jobs)}
	}
	if _, _, err := parseStepSpec(w.Steps); err != nil {
		return usageError{err}
	}
	if _, _, err := parseWindow(w.Window); err != nil {
		return usageError{err}
	}
	if _, err := regexp.Compile(w.Kernel); err != nil {
		return usageError{fmt.Errorf("--kernel %q: %v", w.Kernel, err)}
	}
	return nil
}

// filter keeps the kernels, devices and streams --kernel, --device and
// --stream ask for; the trace itself without them. Of a trace with GPU
// activity, keeping none, or no kernel with --kernel, is an error that
// says what the trace has: a typo must not read as a trace whose
// activity was lost.
func (w *readOptions) filter(t *trace.Trace) (*trace.Trace, error) {
	if w.Kernel == "" && w.Devices == nil && w.Streams == nil {
		return t, nil
	}
	var f trace.Filter
	var what []string
	if w.Kernel != "" {
		re := regexp.MustCompile(w.Kernel) // checked by check
		f.Kernel = re.MatchString
		what = append(what, "kernels matching "+w.Kernel)
	}
	if w.Devices != nil {
		f.Device = func(d int) bool { return slices.Contains(w.Devices, d) }
		what = append(what, "device "+joinInts(w.Devices))
	}
	if w.Streams != nil {
		f.Stream = func(s int64) bool { return slices.Contains(w.Streams, s) }
		what = append(what, "stream "+joinInts(w.Streams))
	}
	f.Label = strings.Join(what, ", ")
	kept := t.Filter(f)
	activity := func(t *trace.Trace) int { return len(t.Kernels) + len(t.Memcpys) + len(t.Memsets) }
	noKernel := f.Kernel != nil && len(kept.Kernels) == 0 && len(t.Kernels) > 0
	if activity(t) == 0 || activity(kept) > 0 && !noKernel {
		return kept, nil
	}
	var devs []int                // the trace's devices
	var streams []int64           // its streams on the devices kept
	for _, s := range t.Streams { // sorted by (Device, ID)
		if len(devs) == 0 || devs[len(devs)-1] != s.Device {
			devs = append(devs, s.Device)
		}
		if f.Device == nil || f.Device(s.Device) {
			streams = append(streams, s.ID)
		}
	}
	slices.Sort(streams)
	streams = slices.Compact(streams)
	switch {
	case f.Device != nil && !slices.ContainsFunc(devs, f.Device):
		return nil, fmt.Errorf("%s: --device %s: no such device; it has %s %s", t.Source, joinInts(w.Devices), metrics.Noun(len(devs), "devices"), joinInts(devs))
	case f.Stream != nil && !slices.ContainsFunc(streams, f.Stream):
		return nil, fmt.Errorf("%s: --stream %s: no such stream; it has %s %s", t.Source, joinInts(w.Streams), metrics.Noun(len(streams), "streams"), joinInts(streams))
	case noKernel:
		return nil, fmt.Errorf("%s: --kernel %q matches none of its kernels", t.Source, w.Kernel)
	}
	return nil, fmt.Errorf("%s: %s: no GPU activity", t.Source, f.Label)
}

func joinInts[T int | int64](xs []T) string {
	var s []string
	for _, x := range xs {
		s = append(s, strconv.FormatInt(int64(x), 10))
	}
	return strings.Join(s, ", ")
}

func (w *readOptions) active() bool {
	return w.Steps != "" || w.SkipSteps > 0 || w.Window != "" || w.Range != "" || w.Steady
}

// apply clips t to the selected window (metrics.SelectWindow).
func (w *readOptions) apply(t *trace.Trace) (*trace.Trace, error) {
	if !w.active() {
		return t, nil
	}
	sel, err := metrics.SelectWindow(t, w.windowSpec())
	if err != nil {
		return nil, w.windowError(t.Source, err)
	}
	if sel.Warning != "" {
		c := *t
		c.Warnings = append(slices.Clip(t.Warnings), "--steady: "+sel.Warning)
		t = &c
	}
	if len(sel.LeftIn) > 0 {
		c := *t
		c.Warnings = append(slices.Clip(t.Warnings), w.leftInWarning(sel.LeftIn))
		t = &c
	}
	if sel.Window == nil {
		return t, nil
	}
	return t.Clip(*sel.Window), nil
}

// openTrace reads a trace and clips it to the selected window.
func openTrace(ctx context.Context, path string, r *readOptions) (*trace.Trace, error) {
	t, err := readTrace(ctx, path, r)
	if err == nil {
		r.warn(path, t.Warnings)
	}
	return t, err
}

// noteWarmup says on stderr, for commands whose output is data (export,
// plot), that a trace measured whole starts with steps that look like
// warm-up, and how to leave them out; text outputs say it in their title.
func (r *readOptions) noteWarmup(path string, t *trace.Trace) {
	if t.Window != nil {
		return
	}
	if n := metrics.WarmupWindows(metrics.Steps(t)); n > 0 {
		them := "them"
		if n == 1 {
			them = "it"
		}
		complain(r.stderr, fmt.Sprintf("note: %s: %s over twice the median step time "+
			"(warm-up or compilation?): --steady leaves %s out", path, firstSteps(n), them))
	}
}

// warn writes a trace's warnings to stderr, a line each, never into the
// output, where a redirect would hide them.
func (r *readOptions) warn(path string, warnings []string) {
	for _, w := range warnings {
		complain(r.stderr, fmt.Sprintf("warning: %s: %s", path, w))
	}
}

// readEach reads the files, r.Jobs at a time, and runs do on each trace in
// the goroutine that read it; use then gets the results, or the errors, in
// argument order. Files are being read or waiting for use, holding their
// traces' tables, only while they number at most r.Jobs and their
// estimated footprints (trace.Footprint) add up to at most the memory
// budget, r.memory or memlimit.Budget(); a file over the budget is read
// alone. When use fails, reading stops and readEach returns its error.
func readEach[R any](ctx context.Context, files []string, r *readOptions, do func(*trace.Trace) R, use func(file string, res R, err error) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.shareWorkers()
	type result struct {
		res R
		err error
	}
	results := make([]chan result, len(files))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	jobs := r.Jobs
	if jobs == 0 {
		jobs = cores()
	}
	r.atOnce = min(jobs, len(files))
	slots := make(chan struct{}, jobs)
	budget := r.memory
	if budget == 0 {
		budget = memlimit.Budget()
	}
	if budget <= 0 {
		budget = math.MaxInt64
	}
	memory := semaphore.NewWeighted(budget)
	weights := make([]int64, len(files))
	done := make(chan struct{}) // closed when use failed: the rest are not wanted
	defer close(done)
	go func() {
		for i, f := range files {
			select {
			case slots <- struct{}{}:
			case <-done:
				return
			}
			n, _ := trace.Footprint(f) // a file that cannot be read fails when read
			weights[i] = min(n, budget)
			if err := memory.Acquire(ctx, weights[i]); err != nil { // cancelled
				weights[i] = 0
				results[i] <- result{err: err}
				continue
			}
			go func() {
				var res result
				var t *trace.Trace
				if t, res.err = readTrace(ctx, f, r); res.err == nil {
					res.res = do(t)
				}
				results[i] <- res
			}()
		}
	}()
	for i, f := range files {
		res := <-results[i]
		<-slots
		memory.Release(weights[i])
		if err := use(f, res.res, res.err); err != nil {
			return err
		}
	}
	return nil
}

// eventBound is the largest event of a Kineto trace read with a memory
// budget (0: none known): a sixteenth of it, for an event takes some five
// times its size while it is read, from 16 MiB, more than any real
// event, to the reader's own bound of 1 GiB. A gzip bomb of one huge
// string or of deep nesting is refused long before it fills the memory.
func eventBound(budget int64) int {
	if budget <= 0 {
		return 0
	}
	return int(min(max(budget/16, 16<<20), 1<<30))
}

// readTrace is openTrace leaving the warnings to the caller, for files
// read in parallel whose warnings are written in argument order.
func readTrace(ctx context.Context, path string, r *readOptions) (*trace.Trace, error) {
	budget := r.budget()
	if r.atOnce > 1 && budget > 0 {
		// One budget for the files read at once: each file's bounds
		// are its share, or --jobs bombs would take --jobs times it.
		budget = max(budget/int64(r.atOnce), 1)
	}
	needs := r.needs
	needs.Op = r.Range
	o := trace.Options{Strict: r.Strict, Needs: &needs, MaxEventBytes: eventBound(budget), Workers: r.workers,
		Select: func(t *trace.Trace) (*trace.Trace, error) {
			t, err := r.filter(t)
			if err != nil {
				return nil, err
			}
			return r.apply(t)
		}}
	if r.gc != nil {
		o.HoldGC = r.gc.Hold
	}
	if r.progress != nil {
		o.Progress = r.progress.add
	}
	if path == stdinName {
		// Formats are told by content and a lean read may read again:
		// standard input is kept in a file for the read.
		p, remove, err := spoolStdin(ctx, r.stdin)
		if err != nil {
			return nil, err
		}
		defer remove()
		t, err := readTrace(ctx, p, r)
		if err != nil {
			return nil, errors.New(strings.ReplaceAll(err.Error(), p, "standard input"))
		}
		t.Source = stdinName
		return t, nil
	}
	return o.Open(ctx, path)
}

// stdinName is the argument that means standard input, as for cat and tar.
const stdinName = "-"

// spoolStdin copies standard input to a temporary file and returns its
// path, and a func that removes it. The file is removed as soon as ctx is
// cancelled too: the copy, blocked on a pipe, may never return.
func spoolStdin(ctx context.Context, stdin io.Reader) (string, func(), error) {
	if stdin == nil {
		stdin = os.Stdin
	}
	f, err := os.CreateTemp("", "traceql-stdin-*")
	if err != nil {
		return "", nil, fmt.Errorf("standard input: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { os.Remove(f.Name()) })
	remove := func() {
		stop()
		os.Remove(f.Name())
	}
	_, err = io.Copy(f, stdin)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		remove()
		return "", nil, fmt.Errorf("standard input: %w", err)
	}
	return f.Name(), remove, nil
}
