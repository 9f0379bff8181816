package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/traceql/traceql/internal/outfile"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/trace"
)

type pprofOptions struct {
	File    string
	Output  string
	Read    readOptions
	Capture []string   // --capture: the trace of the graphs' capture
	IO      *ioStreams // IO.Out for -o -
}

func newPprofCmd(ios *ioStreams, runF func(context.Context, *pprofOptions) error) *cobra.Command {
	opts := &pprofOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "pprof FILE -o gpu.pb.gz",
		Short: "GPU time by the host stack that launched it, for pprof",
		Long: `Pprof writes a profile whose samples are GPU time (and kernel count)
attributed to the host stack that launched each kernel: the Python frames
(with_stack=True), ops and annotations (NVTX ranges for Nsight) open on the
launching thread, then the launch call, then the kernel name as the leaf.
Kernels replayed by a CUDA graph sit under the graph launch's stack, or,
with --capture, under the stack of the launch call that captured them.
The profiler step is no frame but the label "step", so the flame graph
merges steps and -tagfocus picks one.

Kernels are named as pprof shortens C++ names, without parameters and
template arguments, except where that would merge distinct kernels: those
keep their template arguments (to the depth that tells them apart) or get
a " #2" suffix. -symbolize=demangle=none shows the full names.

  go tool pprof -top gpu.pb.gz
  go tool pprof -http=: gpu.pb.gz     # flame graph of GPU time by source line
  go tool pprof -tags gpu.pb.gz       # GPU time by step
  # -tagfocus takes a regexp: $ keeps ProfilerStep#70 out
  go tool pprof -top -tagfocus='step=ProfilerStep#7$' gpu.pb.gz` + windowHelp + captureHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{fmt.Errorf("pprof takes one trace; got %d", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			switch opts.Output {
			case "":
				return usageError{fmt.Errorf("pprof needs -o FILE (e.g. gpu.pb.gz), or -o - for stdout")}
			case stdout:
				if err := binaryToTerminal(opts.IO, "a profile"); err != nil {
					return err
				}
			}
			if err := checkCapture(opts.Capture, 1, true, ""); err != nil {
				return err
			}
			if err := opts.Read.prepare(opts.IO); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runPprof(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Output, "output", "o", "", "profile to write (gzipped protobuf; - for stdout)")
	addCaptureFlag(f, &opts.Capture, 1)
	opts.Read.addFlags(f)
	return cmd
}

func runPprof(ctx context.Context, opts *pprofOptions) error {
	if opts.Output != stdout {
		if err := checkOutput(opts.Output, []string{opts.File}); err != nil {
			return err
		}
	}
	opts.Read.needs = trace.Needs{Stacks: true} // python_function events and cpu_ops: the stacks
	defer opts.Read.startProgress([]string{opts.File})()
	t, err := openTrace(ctx, opts.File, &opts.Read)
	if err != nil {
		return err
	}
	if len(t.Kernels) == 0 {
		return fmt.Errorf("%s: no kernels to attribute", opts.File)
	}
	caps, err := readCaptures(ctx, opts.Capture, &opts.Read, true)
	if err != nil {
		return err
	}
	var named *metrics.CaptureMatch
	if len(caps) > 0 {
		named = caps[0].Match(t)
		opts.Read.warn(opts.File, named.Stats.Warnings())
		complain(opts.IO.ErrOut, opts.File+": "+report.CaptureNote(&named.Stats))
	}
	samples := metrics.CapturedKernelStacks(t, named)
	if opts.Output == stdout {
		return report.WritePprof(opts.IO.Out, samples)
	}
	return outfile.Write(ctx, opts.Output, func(w io.Writer) error { return report.WritePprof(w, samples) })
}
