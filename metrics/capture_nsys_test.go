package metrics_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/traceql/traceql/internal/nsysgen"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// TestCaptureNsysNodeIDs names the kernels of a graph replayed on two
// streams, all of one name, from a generated Nsight export of its capture:
// CUDA_GRAPH_NODE_EVENTS ties each captured launch call to the node it
// made and that node to its clone in the executable graph, whose id the
// replayed kernels carry. The clones' ids run against the capture's order,
// so neither order nor names could pair them: only equal ids do. Each
// kernel's region must be the NVTX range of the call that made its node.
func TestCaptureNsysNodeIDs(t *testing.T) {
	const (
		pid, tid = 10, 11
		n        = 6
	)
	gpu := []nsysgen.GPU{{ID: 0, Name: "generated GPU", SMs: 132}}
	var capture nsysgen.Spec
	capture.Version, capture.GPUs = "2026.1.1.204", gpu
	api := func(s *nsysgen.Spec, name string, start, corr int64) {
		s.Runtime = append(s.Runtime, nsysgen.API{Start: start, End: start + 800, PID: pid, TID: tid, Correlation: corr, Name: name})
	}
	api(&capture, "cudaStreamBeginCapture_v10000", 1_000, 1)
	region := map[int64]string{} // by executable node id
	for i := range int64(n) {
		start := 10_000 + 2_000*i
		api(&capture, "cudaLaunchKernel_v7000", start, 2+i)
		name := fmt.Sprintf("layer_%d", i)
		capture.NVTX = append(capture.NVTX, nsysgen.NVTX{Start: start - 100, End: start + 1_000, Type: 59, Text: name, PID: pid, TID: tid})
		capture.GraphNodes = append(capture.GraphNodes, nsysgen.GraphNode{Start: start + 300, End: start + 300, PID: pid, TID: tid,
			Node: 100 + i, Name: "Graph Node Creation"})
		// Instantiation clones the nodes, ids in the reverse order.
		capture.GraphNodes = append(capture.GraphNodes, nsysgen.GraphNode{Start: 30_000, End: 30_000, PID: pid, TID: tid,
			Node: 900 - i, Original: 100 + i, Name: "Graph Node Clone"})
		region[900-i] = name
	}
	api(&capture, "cudaStreamEndCapture_v10000", 25_000, 20)
	api(&capture, "cudaGraphInstantiate_v10000", 29_000, 21)

	var replay nsysgen.Spec
	replay.Version, replay.GPUs = capture.Version, gpu
	at := int64(100_000)
	for r := range int64(3) {
		corr := 100 + r
		api(&replay, "cudaGraphLaunch_v10000", at, corr)
		for i := range int64(n) {
			stream := int64(7)
			if i%2 == 1 {
				stream = 13
			}
			s := at + 2_000 + 1_000*i
			replay.Kernels = append(replay.Kernels, nsysgen.Kernel{Activity: nsysgen.Activity{Start: s, End: s + 700, Stream: stream, Correlation: corr, PID: pid},
				Name: "same_kernel", GraphNode: 900 - i, GraphID: 1})
		}
		at += 20_000
	}
	both := capture
	both.Runtime = append(append([]nsysgen.API{}, capture.Runtime...), replay.Runtime...)
	both.Kernels = replay.Kernels

	dir := t.TempDir()
	write := func(name string, s nsysgen.Spec) string {
		p := filepath.Join(dir, name)
		if err := nsysgen.Write(p, s); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct{ name, capture, replay string }{
		{"one export", write("both.sqlite", both), filepath.Join(dir, "both.sqlite")},
		{"two exports", write("capture.sqlite", capture), write("replay.sqlite", replay)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			ct, err := captureRead.Open(ctx, tt.capture)
			if err != nil {
				t.Fatal(err)
			}
			if len(ct.LaunchArgs) != n {
				t.Errorf("%d launch calls with a graph node id; want %d", len(ct.LaunchArgs), n)
			}
			c, err := metrics.NewCapture(ct)
			if err != nil {
				t.Fatal(err)
			}
			rt, err := captureRead.Open(ctx, tt.replay)
			if err != nil {
				t.Fatal(err)
			}
			m := c.Match(rt)
			if st := m.Stats; st.GraphLaunches != 3 || st.Named != 3*n || len(st.Misses) != 0 {
				t.Fatalf("match %+v: want 3 graph launches and all %d kernels named", st, 3*n)
			}
			_, regions := metrics.CapturedKernelScopes(rt, m)
			for i, k := range rt.Kernels {
				if want := region[k.GraphNode]; regions[i] != want {
					t.Errorf("kernel %d (node %d, stream %d): region %q; the capture's %q", i, k.GraphNode, k.Stream, regions[i], want)
				}
			}
		})
	}

	// Without the node events, the two streams of one kernel name leave
	// the order undecided: the graph is refused, not guessed.
	noNodes := capture
	noNodes.GraphNodes = nil
	ct, err := captureRead.Open(context.Background(), write("nonodes.sqlite", noNodes))
	if err != nil {
		t.Fatal(err)
	}
	c, err := metrics.NewCapture(ct)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := trace.Open(context.Background(), filepath.Join(dir, "replay.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if st := c.Match(rt).Stats; st.Named != 0 {
		t.Errorf("without node events %d kernels named; want none (%+v)", st.Named, st)
	}
}
