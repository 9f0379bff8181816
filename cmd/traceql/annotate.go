package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/pgzip"
	"github.com/spf13/cobra"

	"github.com/traceql/traceql/annotate"
	"github.com/traceql/traceql/internal/outfile"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

type annotateOptions struct {
	Read   readOptions
	File   string
	Output string
	Bins   int
	IO     *ioStreams
}

func newAnnotateCmd(ios *ioStreams, runF func(context.Context, *annotateOptions) error) *cobra.Command {
	opts := &annotateOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "annotate FILE -o ANNOTATED.json[.gz]",
		Short: "A trace with idle gaps, steps and verdicts added, for Perfetto",
		Long: `Annotate writes a copy of a Kineto trace, every event unchanged, with tracks
added for a timeline viewer (Perfetto UI, chrome://tracing): per GPU a
process "traceql GPU N", named with what holds it back when something
does ("traceql GPU 0 (launch-bound)") and labelled with the verdict,
that holds

  idle gaps (by class)  a slice over each idle gap, named by what held it:
                        sync, launch or other (see summarize --help),
                        its time by cause in the slice's args
  steps                 a slice over each ProfilerStep#N: its time,
                        kernels, busy and idle time, utilization (steps
                        that partially overlap on a second thread, as
                        Perfetto nests a thread's slices)
  GPU utilization       a counter, the busy share of --bins bins

and a top-level "traceql" member with each GPU's verdict. The events are
copied as read, not parsed again: the output is the input's bytes with
the additions at the start of traceEvents. traceql skips what it added,
so the annotated trace summarizes as the original does. The output is
gzipped when its name ends in .gz.

An Nsight Systems export (.sqlite) is written as a Chrome trace in
Kineto's form, with the same tracks: kernels, copies and memsets on
"GPU N" (a thread a stream) and syncs beside them (a thread a stream's
syncs), runtime and driver calls and NVTX ranges on their host process
and thread; traceql reads it back to the same summary.`,
		Example: `  traceql annotate run.pt.trace.json.gz -o run.annotated.json.gz
  # then open run.annotated.json.gz in https://ui.perfetto.dev`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{fmt.Errorf("annotate takes one FILE, not %d; see %s --help", len(args), cmd.CommandPath())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			if opts.File == stdinName {
				return usageError{fmt.Errorf("annotate reads its FILE twice (to measure, then to copy): give a file, not %s", stdinName)}
			}
			if opts.Output == "" {
				return usageError{fmt.Errorf("annotate needs -o ANNOTATED.json or ANNOTATED.json.gz")}
			}
			if err := annotatedName(opts.Output); err != nil {
				return err
			}
			if err := positive("bins", opts.Bins); err != nil {
				return err
			}
			if opts.Bins > maxTimelineBins*10 {
				return usageError{fmt.Errorf("--bins %d: at most %d", opts.Bins, maxTimelineBins*10)}
			}
			if err := opts.Read.prepare(opts.IO); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runAnnotate(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Output, "output", "o", "", "the annotated trace written (.json, or .json.gz to gzip it; - for JSON on stdout)")
	f.IntVar(&opts.Bins, "bins", 1000, "time bins of the utilization counter")
	f.BoolVar(&opts.Read.Strict, "strict", false, "treat skipped or malformed events and truncation as errors")
	f.BoolVarP(&opts.Read.Quiet, "quiet", "q", false, "no progress bar on stderr")
	return cmd
}

// annotatedName refuses an -o name that says a format annotate does not
// write: the output is JSON, gzipped for .gz. Standard output (-) gets
// JSON, and a device or pipe (/dev/null, /dev/fd/N) whatever its name.
func annotatedName(path string) error {
	if path == stdout {
		return nil
	}
	name := strings.ToLower(path)
	if strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".json.gz") {
		return nil
	}
	if _, ok := outfile.FD(path); ok {
		return nil
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		return nil
	}
	return usageError{fmt.Errorf("-o %s: annotate writes a Chrome trace as .json or .json.gz", path)}
}

func runAnnotate(ctx context.Context, opts *annotateOptions) error {
	// Standard output is written as a file is, by the same function;
	// the copy stops between chunks when interrupted.
	write := func(write func(io.Writer) error) error {
		if opts.Output == stdout {
			return outfile.Cancellable(ctx, write)(opts.IO.Out)
		}
		return outfile.Write(ctx, opts.Output, write)
	}
	if opts.Output != stdout {
		if err := checkOutput(opts.Output, []string{opts.File}); err != nil {
			return err
		}
	}
	done := opts.Read.startProgress([]string{opts.File})
	t, err := openTrace(ctx, opts.File, &opts.Read)
	done()
	if err != nil {
		return err
	}
	a := annotations(t, opts.Bins)
	if t.Meta.Format != trace.Kineto {
		// Not JSON: the trace is written from what was read.
		return write(func(w io.Writer) error {
			return writeMaybeGzip(w, opts.Output, func(w io.Writer) error { return annotate.WriteChrome(w, t, a) })
		})
	}
	// The copy needs only the annotations: collect the model now, or the
	// copy's garbage would pile up to a heap goal set while the model was
	// live, raising the peak the summary set.
	t = nil
	runtime.GC()
	in, err := os.Open(opts.File)
	if err != nil {
		return err
	}
	defer in.Close()
	// Read through ctx: the copy stops between chunks when interrupted.
	var src io.Reader = bufio.NewReaderSize(ctxReader{ctx, in}, 1<<20)
	if head, _ := src.(*bufio.Reader).Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(src)
		if err != nil {
			return fmt.Errorf("%s: %w", opts.File, err)
		}
		defer zr.Close()
		src = zr
	}
	// A copy that fails neither writing nor interrupted failed reading:
	// the message names the input, not the output.
	var inErr error
	err = write(func(w io.Writer) error {
		cw := &checkedWriter{w: w}
		err := writeMaybeGzip(cw, opts.Output, func(w io.Writer) error { return annotate.Splice(w, src, a) })
		if err != nil && cw.err == nil && ctx.Err() == nil {
			inErr = err
		}
		return err
	})
	switch {
	case inErr != nil && errors.Is(inErr, io.ErrUnexpectedEOF):
		// Read up to the cut with a warning, but the copy cannot end it.
		return fmt.Errorf("%s: truncated (%w): annotate copies the whole trace", opts.File, inErr)
	case inErr != nil:
		return fmt.Errorf("%s: %w", opts.File, inErr)
	}
	return err
}

// writeMaybeGzip calls write with w, or with a gzip writer on w when the
// output's name ends in .gz.
func writeMaybeGzip(w io.Writer, name string, write func(io.Writer) error) error {
	if !strings.HasSuffix(strings.ToLower(name), ".gz") {
		return write(w)
	}
	// The fastest level, on every CPU: the output is as large as the
	// input, and compressing it is most of the time annotate takes.
	// pgzip compresses 1 MB blocks in parallel into one ordinary gzip
	// stream, holding a few blocks a CPU.
	zw, err := pgzip.NewWriterLevel(w, pgzip.BestSpeed)
	if err != nil {
		return err
	}
	if err := write(zw); err != nil {
		return err
	}
	return zw.Close()
}

// annotations computes what annotate adds to t, in one summary: the gaps
// and timelines it finds on the way, not found again.
func annotations(t *trace.Trace, bins int) annotate.Annotations {
	a := annotate.Annotations{
		Summary:  metrics.Summarize(t, metrics.Options{Workers: cores(), Gaps: true, TimelineBins: bins}),
		Timeline: map[int][]metrics.Point{},
		Steps:    map[int][]metrics.StepStat{},
	}
	for i := range a.Summary.Devices {
		d := &a.Summary.Devices[i]
		a.Gaps = append(a.Gaps, d.Gaps...)
		a.Steps[d.Device], a.Timeline[d.Device] = d.Steps, d.Timeline
		d.Gaps, d.Timeline = nil, nil
	}
	return a
}

// A ctxReader reads r until ctx is done, then fails.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
