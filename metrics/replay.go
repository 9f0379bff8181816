package metrics

import (
	"cmp"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"

	"github.com/traceql/traceql/trace"
)

// Edits are the changes whatif makes to a run before replaying it.
type Edits struct {
	// Graphs captures what runs inside each compiled region (or, in a
	// run with none, each step's launches) as one CUDA graph launch per
	// capture, split where a call blocks the host: the host work and the
	// launch calls of the capture go, a graph launch costing
	// GraphReplayHostNS + GraphLaunchNodeNS per node comes in, and its
	// kernels run back to back, GraphNodeNS apart.
	Graphs bool
	// NoSyncs lets no call block its thread: synchronizations and
	// synchronous copies cost only their own host time; a copy still runs
	// after the work before it on its stream.
	NoSyncs bool
	// Pinned makes copies to or from pageable memory asynchronous, as
	// from pinned memory: the call no longer waits for its copy, and a
	// copy of pinnedCopyMinBytes or more moves at PinnedCopyMBps when that
	// is faster.
	Pinned bool
	// Kernels scales the durations of the kernels whose names match.
	Kernels []KernelScale
	// Costs are the constants of Graphs; nil: those that ship
	// (shippedGraphCosts). Validation sets others, measured on other runs.
	Costs *GraphCosts
}

// GraphCosts are the constants of the --graphs edit (see the constants
// GraphReplayHostNS, GraphLaunchNodeNS and GraphNodeNS).
type GraphCosts struct {
	ReplayHostNS, LaunchNodeNS, NodeNS int64
	// Source says what they were measured on.
	Source string
}

// shippedGraphCosts are the constants --graphs uses unless told others.
func shippedGraphCosts() GraphCosts {
	return GraphCosts{GraphReplayHostNS, GraphLaunchNodeNS, GraphNodeNS,
		"median over the 6 reduce-overhead runs in testdata/gpu (H100, ViT small/medium/large, batch 1 and 32, profiled)"}
}

// graphCosts returns the constants e's --graphs uses.
func (e Edits) graphCosts() GraphCosts {
	if e.Costs != nil {
		return *e.Costs
	}
	return shippedGraphCosts()
}

// Any reports whether e changes anything.
func (e Edits) Any() bool { return e.Graphs || e.NoSyncs || e.Pinned || len(e.Kernels) > 0 }

// String names the edits as the flags that ask for them.
func (e Edits) String() string {
	var s []string
	if e.Graphs {
		s = append(s, "--graphs")
	}
	if e.NoSyncs {
		s = append(s, "--no-syncs")
	}
	if e.Pinned {
		s = append(s, "--pinned")
	}
	for _, k := range e.Kernels {
		s = append(s, "--kernel "+k.Text)
	}
	return strings.Join(s, " ")
}

// A KernelScale multiplies the durations of the kernels whose names match
// Pattern by Num/Den (exact: durations stay integer ns, rounded half up).
type KernelScale struct {
	Pattern  *regexp.Regexp
	Num, Den int64
	Text     string // REGEX=FACTOR as given
}

// ParseKernelScale parses REGEX=FACTOR: a Go regular expression matched
// against kernel names and a decimal factor > 0 (0.5 halves them). The
// last = separates them, so the expression may hold one.
func ParseKernelScale(s string) (KernelScale, error) {
	i := strings.LastIndexByte(s, '=')
	if i < 0 {
		return KernelScale{}, fmt.Errorf("--kernel %q: want REGEX=FACTOR, e.g. 'gemm=0.5'", s)
	}
	re, err := regexp.Compile(s[:i])
	if err != nil {
		return KernelScale{}, fmt.Errorf("--kernel %q: %w", s, err)
	}
	r, ok := new(big.Rat).SetString(s[i+1:])
	if !ok || r.Sign() <= 0 || !r.Num().IsInt64() || !r.Denom().IsInt64() || r.Num().Int64() > 1<<20 || r.Denom().Int64() > 1<<20 {
		return KernelScale{}, fmt.Errorf("--kernel %q: factor %q is not a decimal number above 0 (at most 6 digits)", s, s[i+1:])
	}
	return KernelScale{Pattern: re, Num: r.Num().Int64(), Den: r.Denom().Int64(), Text: s}, nil
}

// A Constant is a number of the replay model not read from the trace.
type Constant struct {
	Name  string
	Value int64
	Unit  Unit   // NS, or Count for a bandwidth in MB/s
	Doc   string // what it is and where its value comes from
}

// The constants of --graphs, each the median over the six reduce-overhead
// runs in testdata/gpu (H100, PyTorch 2.11, timm ViT small/medium/large at
// batch 1 and 32) of that run's median; TestReplayConstants measures them
// again. They were measured under the profiler, as the steps they
// project are.
const (
	// GraphReplayHostNS is the host time of one graph replay besides the
	// cudaGraphLaunch call: a compiled region's length minus its graph
	// launch call in a reduce-overhead run (cudagraph trees' checks, the
	// copy of the inputs into the graph's, the compiled code's wrappers).
	GraphReplayHostNS = 340_601
	// GraphLaunchNodeNS is the host time of cudaGraphLaunch per node
	// (kernel) of the graph: the call's length over its kernels.
	GraphLaunchNodeNS = 2_381
	// GraphNodeNS is the device's gap between consecutive kernels of one
	// graph replay.
	GraphNodeNS = 448
)

// PinnedCopyMBps is the bandwidth of a host-to-device copy from pinned
// memory, in MB/s (bytes per µs), for --pinned: the median over the twelve
// batch-32 runs in testdata/gpu (H100, every mode, profiled) of each run's
// median over its copies of 1 MiB or more. TestReplayConstants measures
// it again.
const PinnedCopyMBps = 54_638

// pinnedCopyMinBytes is the size of the smallest copy --pinned speeds up:
// that of the copies PinnedCopyMBps was measured on.
const pinnedCopyMinBytes = 1 << 20

// replayConstants lists the model's constants with their sources, to be
// printed with every projection that uses them.
func replayConstants() []Constant { return shippedGraphCosts().constants() }

// constants lists c as the model's constants with their source.
func (c GraphCosts) constants() []Constant {
	return []Constant{
		{"graph_replay_host_ns", c.ReplayHostNS, NS, "host time of a graph replay besides cudaGraphLaunch: compiled region minus its launch call; " + c.Source},
		{"graph_launch_node_ns", c.LaunchNodeNS, NS, "host time of cudaGraphLaunch per kernel in the graph; " + c.Source},
		{"graph_node_ns", c.NodeNS, NS, "device gap between consecutive kernels of a graph replay; " + c.Source},
	}
}

// AllConstants lists every constant of the model: those of --graphs,
// then of --pinned.
func AllConstants() []Constant { return append(replayConstants(), pinnedConstants()...) }

// pinnedConstants lists the constant of --pinned with its source.
func pinnedConstants() []Constant {
	return []Constant{{"pinned_copy_mbps", PinnedCopyMBps, Count, "bandwidth of a pinned host-to-device copy, MB/s: median over the 12 batch-32 runs in testdata/gpu " +
		"(H100, every mode, profiled) of each run's median over its copies of 1 MiB or more; applied to pageable copies of 1 MiB or more"}}
}

// Path classes: where the time of a critical path goes.
const (
	pathCompute = iota // kernels
	pathCopies         // memcpys and memsets
	pathLaunch         // launch calls, launch latency, the device's gaps between queued work
	pathHost           // host work between API calls, other API calls
	pathSync           // blocking calls' own time
	nPathClasses
)

// PathClassNames name the classes of a CriticalPath, in order.
var PathClassNames = [nPathClasses]string{"GPU compute", "copies", "launch overhead", "host work", "sync wait"}

// A CriticalPath is the time of a step's critical path by class
// (PathClassNames); the classes add up to the step.
type CriticalPath [nPathClasses]int64

// A Projection is what Replay found for one device.
type Projection struct {
	Device int
	Edits  string // as flags; "" for a replay without edits
	Steps  int    // steps replayed
	// StepMedianNS is the measured median step (DeviceSummary.StepMedianNS).
	StepMedianNS float64
	// ReplayStepMedianNS is the median step of the replay without edits:
	// how close the model comes to the measured step.
	ReplayStepMedianNS float64
	// ProjectedStepNS is the median step of the replay with the edits.
	ProjectedStepNS float64
	// SpanNS and ProjectedSpanNS run from the first step's start to the
	// last one's end, measured and replayed with the edits.
	SpanNS, ProjectedSpanNS int64
	// Before and After are the critical paths of the median step of the
	// replay without and with the edits.
	Before, After CriticalPath
	// Captures counts the graph launches --graphs made; GraphNodes the
	// kernels, copies and memsets they replay.
	Captures, GraphNodes int
	// Unlaunched counts the device's work inside the steps that no
	// replayed call launched: left out of the replay.
	Unlaunched int
	// LaunchLatencyNS and StreamGapNS are the trace's median launch
	// latency (call start to kernel start, stream idle) and gap between
	// queued work, which stand in for the bound that did not hold.
	LaunchLatencyNS, StreamGapNS int64
	Constants                    []Constant // those the edits used
}

// Replay replays the steps of device dev without edits and with e, and
// returns the measured, replayed and projected steps. ok is false when the
// device has no ProfilerStep#N with a host range and device work.
func Replay(t *trace.Trace, dev int, measuredMedianNS float64, e Edits) (p Projection, ok bool) {
	return replay(t, dev, DeviceSteps(t, dev, Steps(t)), nil, measuredMedianNS, e)
}

// ReplayDevices is Replay for every device with GPU activity, each
// against its measured median step (DeviceSummary.StepMedianNS, computed
// here without the rest of a summary); noSteps lists the devices with
// nothing to replay.
func ReplayDevices(t *trace.Trace, e Edits) (ps []Projection, noSteps []int) {
	all := Steps(t)
	for _, d := range activeDevices(t) {
		steps := DeviceSteps(t, d.ID, all)
		lens := make([]int64, len(steps))
		for i, s := range steps {
			lens[i] = s.End - s.Start
		}
		slices.Sort(lens)
		p, ok := replay(t, d.ID, steps, nil, Median(lens), e)
		if !ok {
			noSteps = append(noSteps, d.ID)
			continue
		}
		ps = append(ps, p)
	}
	return ps, noSteps
}

// replay is Replay given the device's steps, and the trace's launch index
// when one is at hand (nil: made here).
func replay(t *trace.Trace, dev int, steps []Step, ix *launchIndex, measuredMedianNS float64, e Edits) (p Projection, ok bool) {
	g, ok := buildReplay(t, dev, steps, ix)
	if !ok {
		return Projection{}, false
	}
	p = Projection{Device: dev, Edits: e.String(), Steps: len(g.steps), StepMedianNS: measuredMedianNS,
		Unlaunched: g.unlaunched, LaunchLatencyNS: g.launchLatency, StreamGapNS: g.streamGap}
	if n := len(g.steps); n > 0 {
		p.SpanNS = g.steps[n-1].End - g.steps[0].Start
	}
	g.run()
	p.ReplayStepMedianNS, p.Before, p.ProjectedSpanNS = g.result()
	p.ProjectedStepNS, p.After = p.ReplayStepMedianNS, p.Before
	if e.Any() {
		// In place: a long run's graph is large, and without edits it is
		// done with.
		g.edit(e)
		g.run()
		if e.Graphs {
			p.Constants = e.graphCosts().constants()
		}
		if e.Pinned {
			p.Constants = append(p.Constants, pinnedConstants()...)
		}
		p.Captures, p.GraphNodes = g.captures()
		p.ProjectedStepNS, p.After, p.ProjectedSpanNS = g.result()
	}
	return p, true
}

// result returns the median replayed step, the critical path of the
// median step and the span of all steps.
func (g *replayGraph) result() (median float64, path CriticalPath, span int64) {
	w, last := g.windows()
	lens := make([]int64, len(w))
	for i, iv := range w {
		lens[i] = iv.Len()
	}
	order := make([]int, len(w))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(min(max(lens[a]-lens[b], -1), 1)) })
	sorted := make([]int64, len(lens))
	for i, o := range order {
		sorted[i] = lens[o]
	}
	mid := order[(len(order)-1)/2]
	return Median(sorted), g.criticalPath(w[mid], last[mid], g.steps[mid]), w[len(w)-1].End - w[0].Start
}

// medianStep is result's median step alone.
func (g *replayGraph) medianStep() float64 {
	w, _ := g.windows()
	lens := make([]int64, len(w))
	for i, iv := range w {
		lens[i] = iv.Len()
	}
	slices.Sort(lens)
	return Median(lens)
}

// captures counts the graph launches the edits made and their nodes.
func (g *replayGraph) captures() (n, nodes int) {
	for _, c := range g.calls {
		if c.kind == callGraph {
			n++
			nodes += int(c.n)
		}
	}
	return n, nodes
}

// criticalPath walks back from the end of step window w (the end of work
// last, or host time when last < 0) along what each event waited for,
// and adds up the time by class until the window's start.
func (g *replayGraph) criticalPath(w Interval, last int32, s replayStep) CriticalPath {
	var p CriticalPath
	at := w.End
	addSeg := func(class int, from, to int64) {
		from = max(from, w.Start)
		if to > from {
			p[class] += to - from
		}
	}
	item := last
	var th int32 = -1
	var nextCall int // the thread's calls before this index are behind
	if item < 0 {
		th = s.thread
		if th < 0 {
			p[pathHost] = w.Len()
			return p
		}
		calls := g.threads[th]
		nextCall, _ = slices.BinarySearchFunc(calls, at, func(ci int32, x int64) int {
			if g.calls[ci].start < x {
				return -1
			}
			return 1
		})
	}
	for steps := 0; at > w.Start && steps < 1<<24; steps++ {
		if item >= 0 {
			it := &g.items[item]
			class := pathCompute
			if it.copy {
				class = pathCopies
			}
			addSeg(class, it.start, min(it.end, at))
			at = min(at, it.start)
			if it.byWait {
				w := g.after[item]
				on := &g.items[w.item]
				addSeg(pathLaunch, on.end, at) // the device's gap after the other stream's work
				at, item = min(at, on.end), w.item
				continue
			}
			if it.byStream && it.prev >= 0 {
				prev := &g.items[it.prev]
				addSeg(pathLaunch, prev.end, at)
				at, item = min(at, prev.end), it.prev
				continue
			}
			c := &g.calls[it.call]
			from := c.start
			if c.kind == callGraph {
				from = c.end
			}
			addSeg(pathLaunch, from, at)
			at = min(at, from)
			th, item = c.thread, -1
			nextCall = g.callIndex(th, it.call)
			if c.kind == callGraph {
				nextCall++ // the graph launch itself is on the path
			}
			continue
		}
		if nextCall == 0 {
			addSeg(pathHost, 0, at)
			break
		}
		ci := g.threads[th][nextCall-1]
		c := &g.calls[ci]
		addSeg(pathHost, c.end, at) // host work between calls
		at = min(at, c.end)
		if c.waitItem >= 0 {
			addSeg(pathSync, c.end-c.cost, at)
			at = min(at, c.end-c.cost)
			item = c.waitItem
			continue
		}
		switch c.kind {
		case callLaunch, callGraph:
			addSeg(pathLaunch, c.start, at)
		case callBlockAll, callBlockOwn, callBlockStream, callBlockEvent:
			addSeg(pathSync, c.start, at)
		default:
			addSeg(pathHost, c.start, at)
		}
		at = min(at, c.start)
		nextCall--
	}
	return p
}

// callIndex returns the place of call ci in its thread's calls, sorted
// by recorded start.
func (g *replayGraph) callIndex(th int32, ci int32) int {
	calls := g.threads[th]
	start := g.calls[ci].recStart
	i, _ := slices.BinarySearchFunc(calls, start, func(c int32, x int64) int { return cmp.Compare(g.calls[c].recStart, x) })
	for ; i < len(calls); i++ {
		if calls[i] == ci {
			return i
		}
	}
	return slices.Index(calls, ci)
}

// projectGraphs sets d.GraphsStepNS when the verdict on d is launch-bound
// and it has steps: what its "up to" sentence projects.
// The summary's steps and launch index serve.
func projectGraphs(t *trace.Trace, d *DeviceSummary, ix *launchIndex) {
	if len(d.Steps) == 0 || Verdict(d) != LaunchBound {
		return
	}
	steps := make([]Step, len(d.Steps))
	for i, s := range d.Steps {
		steps[i] = s.Step
	}
	// The sentence needs the projected median step alone: not the replay
	// without edits (edit reads only what the trace recorded, never what
	// a run replayed) nor the critical paths, which would cost as much again.
	g, ok := buildReplay(t, d.Device, steps, ix)
	if !ok {
		return
	}
	g.edit(Edits{Graphs: true})
	g.run()
	d.GraphsStepNS = g.medianStep()
}
