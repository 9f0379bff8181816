package synth

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// A CaptureConfig describes a pair of Kineto traces, for the tests of
// naming graph-replayed kernels: a run profiled while CUDA graphs were
// captured (launch calls that execute nothing, inside ops and regions,
// between cudaStreamBeginCapture and cudaStreamEndCapture, after a few
// eager launches that do execute) and a run that replays those graphs
// (cudaGraphLaunch calls whose kernels share their correlation id).
type CaptureConfig struct {
	Seed    int64
	Graphs  int // graphs captured (default 2); graph g makes Kernels+g launches
	Kernels int // launches of the first graph (default 8)
	Streams int // 1 or 2 (default 1): with 2, about a third of each graph's launches go to stream 20
	Replays int // graph launches of each graph in the replay run (default 3)
	// Names puts each launch call's kernel name in its args ("kernel"),
	// as ROCm records it; SameNames gives every kernel one name.
	Names, SameNames bool
	// NodeIDs gives the replayed kernels "graph id" and "graph node id";
	// CallNodeIDs gives the capture's launch calls their "graph node id".
	NodeIDs, CallNodeIDs bool
	// Missing > 0 makes the first graph's capture partial: the profiler
	// began after its cudaStreamBeginCapture and its first Missing
	// launches.
	Missing int
	Eager   int // launches the capture run executes before capturing (default 3)
	// SelfReplay has the capture run replay each graph once right after
	// capturing it, as cudagraph trees do: its kernels name the launches.
	SelfReplay bool
	// Shapes makes each capturing op an aten::mm recorded with its
	// shapes (record_shapes), M×K by K×N, other for each op and graph:
	// the kernels it captured have its FLOPs, 2·M·K·N.
	Shapes bool
	// Variants captures every graph alike (the same launches, kernel
	// names, ops, regions and stacks) but for its shapes, as cudagraph
	// trees capture one graph per input shape: with Shapes, a replay
	// names its ops but cannot tell which shapes.
	Variants bool
}

// A CaptureKernel is one kernel of the replay run, on device 0, with the
// op and region of the launch call that captured it: what a pair must name
// it by, or "" where the pair cannot tell (the kernel stays under its
// graph launch).
type CaptureKernel struct {
	Name       string
	Stream     int64
	Start, End int64
	Corr       int64
	Graph      int // the graph replayed; −1 for an eager kernel
	Op, Region string
	Stack      []string // the capture's host frames, outermost first, then the launch call
	Refused    bool     // the graph's kernels cannot be named from the capture
	// Flops are the capturing op instance's FLOPs (Shapes), counted once
	// per replay of OpInstance; 0 where unknown (no shapes, or
	// Variants' graphs that only their shapes tell apart).
	Flops       int64
	OpInstance  string // the capturing op instance, unique in the capture run
	LaunchOp    string // the op around the replay's own launch call
	CaptureCall int64  // the correlation id of the capturing launch call; 0 for eager kernels
}

// CaptureTruth is what WriteCapture wrote.
type CaptureTruth struct {
	Kernels  []CaptureKernel // the replay's, in time order per stream
	Launches int             // kernel launch calls in the capture trace
	Captured int             // of which captured (executing nothing)
}

type capLaunch struct {
	corr, node   int64
	name         string
	stream       int64
	op, region   string
	stack        []string
	start, end   int64
	graph, index int
	flops        int64
	inst         string
}

// WriteCapture writes the capture run to capture and the replay run to
// replay, and returns what they hold.
func WriteCapture(capture, replay io.Writer, cfg CaptureConfig) (CaptureTruth, error) {
	if cfg.Graphs == 0 {
		cfg.Graphs = 2
	}
	if cfg.Kernels == 0 {
		cfg.Kernels = 8
	}
	if cfg.Streams == 0 {
		cfg.Streams = 1
	}
	if cfg.Replays == 0 {
		cfg.Replays = 3
	}
	if cfg.Eager == 0 {
		cfg.Eager = 3
	}
	r := rand.New(rand.NewPCG(uint64(cfg.Seed), 70))
	var truth CaptureTruth
	cw := newEventWriter(capture, "Capture Test GPU")
	us := eventTime
	corr := int64(1)
	host := int64(10_000)
	cpuOp := func(ew *eventWriter, cat, name string, start, end int64) {
		ew.event(`{"ph": "X", "cat": %q, "name": %q, "pid": 100, "tid": 100, "ts": %s, "dur": %s}`, cat, name, us(start), us(end-start))
	}
	call := func(ew *eventWriter, name string, start, end, c int64, extra string) {
		ew.event(`{"ph": "X", "cat": "cuda_runtime", "name": %q, "pid": 100, "tid": 100, "ts": %s, "dur": %s, "args": {"correlation": %d%s}}`,
			name, us(start), us(end-start), c, extra)
	}
	kernel := func(ew *eventWriter, name string, stream, start, end, c int64, extra string) {
		ew.event(`{"ph": "X", "cat": "kernel", "name": %q, "pid": 0, "tid": %d, "ts": %s, "dur": %s, "args": {"device": 0, "stream": %d, "correlation": %d%s}}`,
			name, stream, us(start), us(end-start), stream, c, extra)
	}
	// The eager launches execute: each has its kernel.
	for range cfg.Eager {
		s := host
		host += 5_000
		call(cw, "cudaLaunchKernel", s+1_000, s+3_000, corr, "")
		kernel(cw, "warmup_kernel", 7, s+4_000, s+4_500, corr, "")
		cpuOp(cw, "cpu_op", "aten::warmup", s, host)
		truth.Launches++
		corr++
		host += 1_000
	}
	mainNames := []string{"gemm_bf16", "elementwise_add", "softmax_fwd", "layernorm_fwd", "triton_poi_fused_0", "reduce_sum"}
	sideNames := []string{"side_copy_kernel", "side_gelu", "side_scale"}
	graphs := make([][]capLaunch, cfg.Graphs)
	// tag names a graph's ops, regions and captures; Variants names them
	// alike in every graph.
	tag := func(g int) int {
		if cfg.Variants {
			return 0
		}
		return g
	}
	for g := range cfg.Graphs {
		n := cfg.Kernels + g
		if cfg.Variants {
			n = cfg.Kernels
			r = rand.New(rand.NewPCG(uint64(cfg.Seed), 70)) // the same launches and names
		}
		capStart := host
		host += 2_000
		partial := g == 0 && cfg.Missing > 0
		if !partial {
			call(cw, "cudaStreamBeginCapture", host, host+1_000, corr, "")
			corr++
		}
		host += 2_000
		// Two regions, each of ops of one or two launches.
		idx, opN := 0, 0
		for part := range 2 {
			region := fmt.Sprintf("graph%d_part%d", tag(g), part)
			rStart := host
			host += 500
			for idx < n && (part == 1 || idx < n/2) {
				op := fmt.Sprintf("op_g%d_%d", tag(g), opN)
				var opArgs string
				var flops int64
				if cfg.Shapes {
					op = "aten::mm"
					m, k, n := int64(16*(opN+1)*(g+1)), int64(64), int64(32+8*opN)
					flops = 2 * m * k * n
					opArgs = fmt.Sprintf(`, "args": {"External id": %d, "Input Dims": [[%d, %d], [%d, %d]], "Input type": ["float", "float"]}`,
						1000*(g+1)+opN, m, k, k, n)
				}
				inst := fmt.Sprintf("g%d_op%d", g, opN)
				opN++
				oStart := host
				host += 500
				for range 1 + r.IntN(2) {
					if idx >= n || part == 0 && idx >= n/2 {
						break
					}
					l := capLaunch{corr: corr, node: int64(1000*(g+1) + idx), stream: 7, op: op, region: region, graph: g, index: idx,
						start: host, end: host + 800, flops: flops, inst: inst}
					if cfg.Streams == 2 && idx > 0 && r.IntN(3) == 0 || cfg.Streams == 2 && idx == 1 {
						l.stream = 20
					}
					switch {
					case cfg.SameNames:
						l.name = "same_kernel"
					case l.stream == 20:
						l.name = sideNames[r.IntN(len(sideNames))]
					default:
						l.name = mainNames[r.IntN(len(mainNames))]
					}
					l.stack = []string{fmt.Sprintf("capture_%d", tag(g)), region, op, "cudaLaunchKernel"}
					graphs[g] = append(graphs[g], l)
					corr++
					idx++
					host += 1_000
				}
				host += 500
				cw.event(`{"ph": "X", "cat": "cpu_op", "name": %q, "pid": 100, "tid": 100, "ts": %s, "dur": %s%s}`, op, us(oStart), us(host-oStart), opArgs)
			}
			host += 500
			cpuOp(cw, "user_annotation", region, rStart, host)
		}
		for i, l := range graphs[g] {
			if partial && i < cfg.Missing {
				continue // before the profiler began
			}
			truth.Launches++
			truth.Captured++
			var extra strings.Builder
			if cfg.Names {
				fmt.Fprintf(&extra, `, "kernel": %q`, l.name)
			}
			if cfg.CallNodeIDs {
				fmt.Fprintf(&extra, `, "graph node id": %d`, l.node)
			}
			call(cw, "cudaLaunchKernel", l.start, l.end, l.corr, extra.String())
		}
		call(cw, "cudaStreamEndCapture", host, host+1_000, corr, "")
		corr++
		host += 2_000
		call(cw, "cudaGraphInstantiate", host, host+1_000, corr, "")
		corr++
		host += 2_000
		if cfg.SelfReplay {
			call(cw, "cudaGraphLaunch", host, host+1_000, corr, "")
			at := host + 2_000
			for _, l := range graphs[g] {
				kernel(cw, l.name, l.stream, at, at+400, corr, "")
				at += 500
			}
			corr++
			host = at + 2_000
		}
		start := capStart
		if partial {
			start = graphs[g][cfg.Missing].start - 100 // the annotation, too, begins in the trace
		}
		cpuOp(cw, "user_annotation", fmt.Sprintf("capture_%d", tag(g)), start, host)
		host += 5_000
	}
	if err := cw.close(); err != nil {
		return truth, err
	}

	// The replay run: each graph Replays times, in turn, and an eager
	// launch between rounds.
	rw := newEventWriter(replay, "Capture Test GPU")
	corr, host = 1, 10_000
	free := map[int64]int64{7: 0, 20: 0}
	for round := range cfg.Replays {
		for g, ls := range graphs {
			oStart := host
			host += 1_000
			c := corr
			corr++
			call(rw, "cudaGraphLaunch", host, host+2_000, c, "")
			refused := g == 0 && cfg.Missing > 0 ||
				cfg.Streams == 2 && !cfg.NodeIDs && (!cfg.Names || cfg.SameNames)
			for _, l := range ls {
				s := max(free[l.stream], host+3_000)
				d := int64(500 + r.IntN(4_000))
				var extra string
				if cfg.NodeIDs {
					extra = fmt.Sprintf(`, "graph id": %d, "graph node id": %d`, g+1, l.node)
				}
				kernel(rw, l.name, l.stream, s, s+d, c, extra)
				free[l.stream] = s + d + 100
				k := CaptureKernel{Name: l.name, Stream: l.stream, Start: s, End: s + d, Corr: c, Graph: g, Refused: refused,
					LaunchOp: "CUDAGraph.replay", CaptureCall: l.corr, OpInstance: l.inst}
				if !refused {
					k.Op, k.Region, k.Stack = l.op, l.region, l.stack
					if !cfg.Variants || cfg.Graphs == 1 {
						k.Flops = l.flops
					}
				}
				truth.Kernels = append(truth.Kernels, k)
			}
			host += 3_000
			cpuOp(rw, "cpu_op", "CUDAGraph.replay", oStart, host)
			host = max(host, free[7], free[20]) + 2_000
		}
		// An eager launch: its own op, whatever the capture says.
		oStart := host
		call(rw, "cudaLaunchKernel", host+500, host+1_500, corr, "")
		s := max(free[7], host+2_000)
		kernel(rw, "eager_kernel", 7, s, s+700, corr, "")
		free[7] = s + 800
		truth.Kernels = append(truth.Kernels, CaptureKernel{Name: "eager_kernel", Stream: 7, Start: s, End: s + 700, Corr: corr, Graph: -1,
			Op: fmt.Sprintf("aten::eager_%d", round), LaunchOp: fmt.Sprintf("aten::eager_%d", round)})
		corr++
		host += 2_000
		cpuOp(rw, "cpu_op", fmt.Sprintf("aten::eager_%d", round), oStart, host)
		host = max(host, free[7]) + 2_000
	}
	return truth, rw.close()
}
