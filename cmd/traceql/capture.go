package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// captureHelp is the one paragraph on --capture that each command taking
// it adds to its help.
const captureHelp = `
CUDA graphs (--capture): the kernels a graph launch replays belong to its
one call, so by op they sit under the op that launched the graph.
--capture TRACE names them: a trace of a run profiled while the
graphs were captured holds the launch calls that made them (they execute
nothing), each inside its op; each graph launch is paired with the capture
of as many launches, by graph node ids where the traces record them, else
per stream in order, kernel names checked where the capture records them
(on its launch calls, or in its own replay of the graph). A graph the
capture does not decide stays under its launch, with a warning saying why.
Where the capture recorded shapes (record_shapes=True) or FLOPs
(with_flops=True), each replayed kernel also gets its capturing op's FLOPs
and bytes, once per replay: flops, mfu, FLOPs by op and the roofline hold
under CUDA graphs (captures that differ only in shapes: the op, no FLOPs).
`

// addCaptureFlag adds --capture; most is how many a command takes (diff
// takes one for each side).
func addCaptureFlag(f *pflag.FlagSet, paths *[]string, most int) {
	usage := "name the kernels of CUDA/HIP graph launches by the ops that captured them, and give them those ops' FLOPs and shapes, from `TRACE`, a trace profiled while the graphs were captured"
	if most > 1 {
		usage += " (once: both sides; twice: OLD's, then NEW's)"
	}
	f.StringArrayVar(paths, "capture", nil, usage)
}

// checkCapture validates --capture: at most n, and only with what uses it.
func checkCapture(paths []string, most int, uses bool, what string) error {
	if len(paths) == 0 {
		return nil
	}
	if len(paths) > most {
		return usageError{fmt.Errorf("--capture given %d times; at most %d", len(paths), most)}
	}
	if !uses {
		return usageError{fmt.Errorf("--capture names the kernels of graph launches by op; it needs %s", what)}
	}
	return nil
}

// readCapture reads a capture trace whole (no window, no filter: a
// capture is not measured, its launches are looked up), with its cpu_ops,
// Python frames when stacks asks, and the shapes the replay trace's read
// keeps (r's Needs.Shapes: the replayed kernels' FLOPs are counted from
// the ops that captured them), and finds its captured launches.
func readCapture(ctx context.Context, path string, r *readOptions, stacks bool) (*metrics.Capture, error) {
	cr := readOptions{Strict: r.Strict, Quiet: r.Quiet, memory: r.memory, stderr: r.stderr, stdin: r.stdin,
		workers: r.workers, gc: r.gc, needs: trace.Needs{Ops: true, Stacks: stacks, LaunchArgs: true,
			Shapes: r.needs.Shapes, ShapesOf: r.needs.ShapesOf}}
	t, err := openTrace(ctx, path, &cr)
	if err != nil {
		return nil, err
	}
	return metrics.NewCapture(t)
}

// readCaptures reads each --capture trace.
func readCaptures(ctx context.Context, paths []string, r *readOptions, stacks bool) ([]*metrics.Capture, error) {
	var out []*metrics.Capture
	for _, p := range paths {
		c, err := readCapture(ctx, p, r, stacks)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}
