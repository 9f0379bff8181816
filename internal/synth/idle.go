package synth

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
)

// An IdleConfig describes a small Kineto trace for the tests of why a GPU
// idles: one GPU, two streams, kernels launched by calls that come on
// time or late, host synchronizations (CUDA, driver and HIP spellings) that
// overlap idle gaps or end just after the GPU drains, device sync records
// (stream waits among them, which block no host), graph replays of a
// known fan-out, kernels with no launch call, communication kernels in
// several spellings, and steps whose device copies cover their work or
// not. Its truth is the IdleTrace written, event by event, for a test to
// compute from without the reader.
type IdleConfig struct {
	Seed          int64
	Launches      int // eager kernel launches (default 200)
	GraphLaunches int // cudaGraphLaunch calls
	FanOut        int // kernels each graph replays (default 5)
	Steps         int // ProfilerStep#N ranges the launches are split into (0: none)
	// TinyStepCopies makes each step's gpu_user_annotation copy 1 µs long
	// at the start of its work, as on a ROCm trace whose copies do not
	// span their steps.
	TinyStepCopies bool
	// WarmupSteps is how many leading steps also run a 2 ms kernel and
	// wait for it (cudaDeviceSynchronize), as torch.compile's first steps
	// run autotuning and compilation.
	WarmupSteps int
	// QuietHost leaves out the long host pauses (data loading) between
	// launches and the synchronizations that outlast the GPU's work, so that
	// launch overhead alone keeps the GPU waiting.
	QuietHost bool
	// Scale multiplies every time written (default 1): kernels of 1–60 ns
	// are 1–60 µs at 1000, for demonstrations; tests check unscaled times.
	Scale int64
}

// IdleModes are IdleConfigs that look like one model run three ways, for
// demonstrations (tracegen -mode): eager, torch.compile's default mode
// (fewer, fused kernels; compilation in the first steps) and
// reduce-overhead (the steps replayed as CUDA graphs).
var IdleModes = map[string]IdleConfig{
	"eager":           {Seed: 11, Launches: 2400, Steps: 8, QuietHost: true, Scale: 1000},
	"default":         {Seed: 12, Launches: 1200, Steps: 8, WarmupSteps: 2, QuietHost: true, Scale: 1000},
	"reduce-overhead": {Seed: 13, Launches: 16, GraphLaunches: 16, FanOut: 75, Steps: 8, WarmupSteps: 2, QuietHost: true, Scale: 1000},
}

// An IdleTrace is what WriteIdle wrote. Times are ns.
type IdleTrace struct {
	Kernels []IdleKernel
	Calls   []IdleCall
	Syncs   []IdleSync
	Steps   []IdleStep
}

// An IdleKernel is a kernel on device 0.
type IdleKernel struct {
	Name       string
	Stream     int64
	Start, End int64
	Corr       int64 // correlation id; no call has it when the launch was not recorded
	Comm       bool  // a communication kernel by name
}

// An IdleCall is a runtime or driver call on the one host thread.
type IdleCall struct {
	Name       string
	Start, End int64
	Corr       int64
	Graph      bool // a graph launch
	Blocking   bool // blocks the host until device work is done
}

// An IdleSync is a cuda_sync record of device 0.
type IdleSync struct {
	Kind       string
	Start, End int64
}

// An IdleStep is a ProfilerStep#N: its CPU range and its device copy.
type IdleStep struct {
	Number             int
	Start, End         int64
	CopyStart, CopyEnd int64
}

// idleSyncCalls are blocking calls in the spellings real traces use, the
// driver's with a version suffix.
var idleSyncCalls = []string{"cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cudaMemcpy",
	"cudaMemcpy2D", "cudaMemcpyFromSymbol", "cudaMemset", "cuMemcpyDtoH_v2", "cuStreamSynchronize", "hipMemcpyWithStream",
	"hipMemcpyDtoH", "hipStreamSynchronize", "hipDeviceSynchronize"}

// idleNonBlocking are calls that return at once.
var idleNonBlocking = []string{"cudaMemcpyAsync", "cudaStreamWaitEvent", "cudaEventQuery", "hipMemcpyAsync", "cudaEventRecord"}

// idleKernelNames are computation and communication kernels; comm marks
// the latter.
var idleKernelNames = []struct {
	name string
	comm bool
}{
	{"void at::native::vectorized_elementwise_kernel<4>(int)", false},
	{"sm90_xmma_gemm_bf16bf16_bf16f32", false},
	{"triton_poi_fused_add_0", false},
	{"void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)", false},
	{"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", true},
	{"void c10d::symmetric_memory::multimem_all_reduce_kernel<bf16, 8>(bf16*)", true},
	{"void vllm::cross_device_reduce_1stage<half, 8>(vllm::RankData*)", true},
	{"rcclGenericKernel<1, false>(ncclDevComm*)", true},
	{"all_gather_into_tensor_kernel", true},
	{"void reduce_scatter<float>(float*)", true},
	{"AllToAllV_kernel", true},
}

// WriteIdle writes the trace cfg describes to w as Kineto JSON and returns
// what it wrote.
func WriteIdle(w io.Writer, cfg IdleConfig) (IdleTrace, error) {
	if cfg.Launches == 0 {
		cfg.Launches = 200
	}
	if cfg.FanOut == 0 {
		cfg.FanOut = 5
	}
	r := rand.New(rand.NewPCG(uint64(cfg.Seed), 47))
	var tr IdleTrace
	streams := [2]int64{7, 20}
	free := map[int64]int64{7: 0, 20: 0} // when each stream's last kernel ends
	starts := map[int64]bool{}           // kernel starts taken: one kernel may end a gap
	drained := func() int64 { return max(free[7], free[20]) }
	corr := int64(1)
	host := int64(100_000)
	kernel := func(stream, start, dur, c int64) {
		for starts[start] {
			start++
		}
		starts[start] = true
		kn := idleKernelNames[r.IntN(len(idleKernelNames))]
		tr.Kernels = append(tr.Kernels, IdleKernel{Name: kn.name, Stream: stream, Start: start, End: start + dur, Corr: c, Comm: kn.comm})
		free[stream] = max(free[stream], start+dur)
	}
	// The launches in order, graph ones spread among them.
	n := cfg.Launches + cfg.GraphLaunches
	graph := make([]bool, n)
	for i := range cfg.GraphLaunches {
		graph[i] = true
	}
	r.Shuffle(n, func(i, j int) { graph[i], graph[j] = graph[j], graph[i] })
	perStep := n
	if cfg.Steps > 0 {
		perStep = (n + cfg.Steps - 1) / cfg.Steps
	}
	for i := range n {
		if cfg.Steps > 0 && i%perStep == 0 {
			host += 50 // a step begins
			tr.Steps = append(tr.Steps, IdleStep{Number: len(tr.Steps) + 1, Start: host})
			if len(tr.Steps) <= cfg.WarmupSteps {
				tr.Calls = append(tr.Calls, IdleCall{Name: "cudaLaunchKernel", Start: host, End: host + 5, Corr: corr})
				kernel(7, max(host+10, drained()), 2_000_000, corr)
				corr++
				// The host learns that the GPU drained only by waiting for
				// it: a host that simply resumed then would look busy with
				// host work for as long as the kernel ran.
				tr.Calls = append(tr.Calls, IdleCall{Name: "cudaDeviceSynchronize", Start: host + 5, End: drained(), Corr: corr, Blocking: true})
				corr++
				host = drained()
			}
		}
		// The host thinks a little, or is busy elsewhere for long.
		if pause := 200 + r.Int64N(3000); r.IntN(8) == 0 && !cfg.QuietHost {
			host += pause
		} else {
			host += r.Int64N(40)
		}
		switch r.IntN(6) {
		case 0: // a blocking call that ends a few ns after the GPU drains, or after a while; rare for a quiet host
			if cfg.QuietHost && r.IntN(20) != 0 {
				break
			}
			end := max(drained(), host) + 1 + r.Int64N(6)
			if long := host + r.Int64N(400); r.IntN(3) == 0 && !cfg.QuietHost {
				end = long
			}
			tr.Calls = append(tr.Calls, IdleCall{Name: idleSyncCalls[r.IntN(len(idleSyncCalls))], Start: host, End: end, Corr: corr, Blocking: true})
			corr++
			host = end
		case 1:
			tr.Calls = append(tr.Calls, IdleCall{Name: idleNonBlocking[r.IntN(len(idleNonBlocking))], Start: host, End: host + 3, Corr: corr})
			corr++
			host += 3
		case 2: // a device sync record somewhere near, but for a quiet host
			if cfg.QuietHost {
				break
			}
			kind := [...]string{"Stream Sync", "Event Sync", "Stream Wait Event", "Context Sync"}[r.IntN(4)]
			s := host - 300 + r.Int64N(600)
			tr.Syncs = append(tr.Syncs, IdleSync{Kind: kind, Start: s, End: s + r.Int64N(200)})
		}
		s := streams[r.IntN(2)]
		call := IdleCall{Name: "cudaLaunchKernel", Start: host, End: host + 4 + r.Int64N(10), Corr: corr, Graph: graph[i]}
		if call.Graph {
			call.Name = "cudaGraphLaunch"
		} else if r.IntN(10) == 0 {
			call.Name = "cuLaunchKernel"
		}
		tr.Calls = append(tr.Calls, call)
		// The kernel starts once its call reached the GPU and its stream is
		// free; now and then it also waits on an event of the other stream.
		start := max(call.Start+2+r.Int64N(6), free[s])
		if r.IntN(10) == 0 {
			start += r.Int64N(300)
		}
		kernels := 1
		if call.Graph {
			kernels = cfg.FanOut
		}
		for range kernels {
			kernel(s, start, 1+r.Int64N(60), call.Corr)
			start = free[s]
		}
		corr++
		host = call.End
		if r.IntN(15) == 0 { // a kernel whose launch was not recorded
			kernel(streams[r.IntN(2)], max(host, drained())+r.Int64N(200), 1+r.Int64N(30), corr)
			corr++
		}
		if cfg.Steps > 0 && ((i+1)%perStep == 0 || i == n-1) {
			host += 10
			tr.Steps[len(tr.Steps)-1].End = host
		}
	}
	// Each step's device copy spans the work launched inside it, or 1 µs of
	// its start.
	byCorr := map[int64][]*IdleKernel{}
	for i := range tr.Kernels {
		byCorr[tr.Kernels[i].Corr] = append(byCorr[tr.Kernels[i].Corr], &tr.Kernels[i])
	}
	for i := range tr.Steps {
		st := &tr.Steps[i]
		st.CopyStart, st.CopyEnd = -1, -1
		for _, c := range tr.Calls {
			if c.Start < st.Start || c.Start >= st.End {
				continue
			}
			for _, k := range byCorr[c.Corr] {
				if st.CopyStart < 0 || k.Start < st.CopyStart {
					st.CopyStart = k.Start
				}
				st.CopyEnd = max(st.CopyEnd, k.End)
			}
		}
		if cfg.TinyStepCopies {
			st.CopyEnd = st.CopyStart + 1000
		}
	}
	slices.SortStableFunc(tr.Kernels, func(a, b IdleKernel) int { return cmp.Compare(a.Start, b.Start) })
	if cfg.Scale > 1 {
		tr = tr.scaled(cfg.Scale)
	}
	return tr, writeIdle(w, tr)
}

// scaled returns tr with every time multiplied by k.
func (tr IdleTrace) scaled(k int64) IdleTrace {
	out := IdleTrace{Kernels: slices.Clone(tr.Kernels), Calls: slices.Clone(tr.Calls), Syncs: slices.Clone(tr.Syncs), Steps: slices.Clone(tr.Steps)}
	for i := range out.Kernels {
		out.Kernels[i].Start *= k
		out.Kernels[i].End *= k
	}
	for i := range out.Calls {
		out.Calls[i].Start *= k
		out.Calls[i].End *= k
	}
	for i := range out.Syncs {
		out.Syncs[i].Start *= k
		out.Syncs[i].End *= k
	}
	for i := range out.Steps {
		s := &out.Steps[i]
		s.Start, s.End, s.CopyStart, s.CopyEnd = s.Start*k, s.End*k, s.CopyStart*k, s.CopyEnd*k
	}
	return out
}

// From returns the part of tr from step n on: its steps, the calls made
// from that step's start, the kernels they launched and the kernels and
// sync records from then on that no call launched. It is what the same run
// would have recorded had the profiler started at step n.
func (tr IdleTrace) From(n int) IdleTrace {
	var start int64
	for _, s := range tr.Steps {
		if s.Number == n {
			start = s.Start
		}
	}
	var out IdleTrace
	called := map[int64]bool{}
	kept := map[int64]bool{}
	for _, c := range tr.Calls {
		called[c.Corr] = true
		if c.Start >= start {
			out.Calls = append(out.Calls, c)
			kept[c.Corr] = true
		}
	}
	for _, k := range tr.Kernels {
		if kept[k.Corr] || !called[k.Corr] && k.Start >= start {
			out.Kernels = append(out.Kernels, k)
		}
	}
	for _, s := range tr.Syncs {
		if s.Start >= start {
			out.Syncs = append(out.Syncs, s)
		}
	}
	for _, s := range tr.Steps {
		if s.Number >= n {
			out.Steps = append(out.Steps, s)
		}
	}
	return out
}

// Write writes tr as WriteIdle does.
func (tr IdleTrace) Write(w io.Writer) error { return writeIdle(w, tr) }

// writeIdle writes tr as a Kineto trace, times as µs with a 3-digit ns
// fraction.
func writeIdle(w io.Writer, tr IdleTrace) error {
	ew := newEventWriter(w, "Idle Test GPU")
	us, event := eventTime, ew.event
	for _, st := range tr.Steps {
		event(`{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 100, "tid": 100, "ts": %s, "dur": %s}`,
			st.Number, us(st.Start), us(st.End-st.Start))
		if st.CopyStart >= 0 {
			event(`{"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#%d", "pid": 0, "tid": 7, "ts": %s, "dur": %s}`,
				st.Number, us(st.CopyStart), us(st.CopyEnd-st.CopyStart))
		}
	}
	for _, c := range tr.Calls {
		cat := "cuda_runtime"
		if c.Name[:2] == "cu" && c.Name[2] != 'd' {
			cat = "cuda_driver"
		}
		event(`{"ph": "X", "cat": %q, "name": %q, "pid": 100, "tid": 100, "ts": %s, "dur": %s, "args": {"correlation": %d}}`,
			cat, c.Name, us(c.Start), us(c.End-c.Start), c.Corr)
	}
	for _, k := range tr.Kernels {
		name, _ := json.Marshal(k.Name)
		event(`{"ph": "X", "cat": "kernel", "name": %s, "pid": 0, "tid": %d, "ts": %s, "dur": %s, "args": {"device": 0, "stream": %d, "correlation": %d}}`,
			name, k.Stream, us(k.Start), us(k.End-k.Start), k.Stream, k.Corr)
	}
	for _, s := range tr.Syncs {
		event(`{"ph": "X", "cat": "cuda_sync", "name": %q, "pid": 0, "tid": 7, "ts": %s, "dur": %s, "args": {"cuda_sync_kind": %q, "device": 0, "stream": 7}}`,
			s.Kind, us(s.Start), us(s.End-s.Start), s.Kind)
	}
	return ew.close()
}

// An eventWriter writes a small Kineto trace an event at a time: the
// scenario writers' (WriteIdle, WriteCompile) common frame.
type eventWriter struct {
	bw    *bufio.Writer
	first bool
}

func newEventWriter(w io.Writer, gpu string) *eventWriter {
	ew := &eventWriter{bw: bufio.NewWriter(w), first: true}
	fmt.Fprintf(ew.bw, `{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": %q}], "traceEvents": [`+"\n", gpu)
	return ew
}

// event writes one event, formatted.
func (ew *eventWriter) event(format string, a ...any) {
	if !ew.first {
		ew.bw.WriteString(",\n")
	}
	ew.first = false
	fmt.Fprintf(ew.bw, format, a...)
}

// close ends the event array and the object, and flushes.
func (ew *eventWriter) close() error {
	ew.bw.WriteString("\n]}\n")
	return ew.bw.Flush()
}

// eventTime writes ns as Kineto's µs with a 3-digit ns fraction.
func eventTime(ns int64) string { return fmt.Sprintf("%d.%03d", ns/1000, ns%1000) }
