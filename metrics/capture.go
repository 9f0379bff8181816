package metrics

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/traceql/traceql/trace"
)

// A graph launch replays kernels that its one call did not launch one by
// one: they share its correlation id, and so its op, region and stack. The
// launches that made them were recorded, if at all, when the graph was
// captured: a run profiled during capture holds launch calls that execute
// nothing (the stream was capturing), in the order the graph replays them,
// each inside the op that made it. A Capture holds those calls; its Match
// pairs each graph launch of a replay trace with one capture, kernel by
// kernel, and refuses to pair what the traces do not decide.
//
// How kernels pair with calls, in order of preference:
//   - graph node ids on both sides (Kineto "graph node id" on the launch
//     calls and on the replayed kernels): equal ids;
//   - node ids on the replayed kernels only: ids rise as nodes are made,
//     so sorting a graph's kernels by id gives the capture's order across
//     streams (checked: on each stream it must agree with the replay's
//     order in time, or the ids are not used);
//   - neither: per stream, in order. The capture does not say which
//     stream a call went to; with one stream the orders pair directly,
//     with several each call goes to the one stream whose next kernel has
//     its name (ROCm records it on the call), and a call that fits more
//     than one stream, or none, refuses the graph.
//
// Names are checked wherever the capture records them, and a graph pairs
// only with a capture of as many launches. A graph that fits several
// captures is named only when they all name its kernels alike.

// A Capture is what a trace profiled while CUDA/HIP graphs were captured
// says of each captured launch: its kernel's name when recorded, and the
// op, region and host stack it was made in.
type Capture struct {
	Source string
	// Launches counts the trace's kernel launch calls; Captured those that
	// executed nothing, captured into a graph; Outside those of them made
	// outside every whole capture recorded on their thread (before its
	// begin or after its end, or in one the trace does not see end): left
	// out.
	Launches, Captured, Outside int
	// NoBounds says that the trace records no stream capture calls
	// (cudaStreamBeginCapture, …): each thread's captured launches are
	// taken as one capture.
	NoBounds bool
	// SelfNamed counts the captures whose calls record no kernel names
	// but that the capture trace itself replays (cudagraph trees replay a
	// graph right after recording it): the kernels of that replay name
	// the calls, in order.
	SelfNamed int

	calls []capturedCall
	// ops are the op instances the calls were made in, with the shapes
	// they were recorded with (Args, when the capture was read with
	// trace.Needs.Shapes): what a replayed kernel's FLOPs are counted
	// from.
	ops    []trace.Op
	segs   []captureSeg
	ends   []int64 // by capture: the start of its last call
	stacks *stackSet
}

type capturedCall struct {
	kernel     string // "" when the trace does not record it
	node       int64  // graph node id; 0 when not recorded
	op, region string // "" when none encloses the call
	stack      int    // index in stacks.stacks
	inst       int32  // the op instance, in Capture.ops; −1 when none
}

// A captureSeg is one capture: calls[first : first+n].
type captureSeg struct{ first, n int }

// isCaptureBound reports whether an API call begins (+1) or ends (−1) a
// stream capture.
func isCaptureBound(name string) int {
	switch {
	case strings.Contains(name, "StreamBeginCapture"):
		return 1
	case strings.Contains(name, "StreamEndCapture"):
		return -1
	}
	return 0
}

// NewCapture reads the captured launches of t, a trace profiled while
// graphs were captured, read with its cpu_ops and its launch calls' args
// (trace.Needs Ops and LaunchArgs). It fails when t holds none.
func NewCapture(t *trace.Trace) (*Capture, error) {
	c := &Capture{Source: t.Source}
	args := make(map[corrKey]*trace.LaunchArg, len(t.LaunchArgs))
	for i := range t.LaunchArgs {
		a := &t.LaunchArgs[i]
		args[keyOf(t, a.PID, a.Correlation)] = a
	}
	executed := map[corrKey]bool{}
	for i := range t.Kernels {
		k := &t.Kernels[i]
		executed[keyOf(t, k.PID, k.Correlation)] = true
	}
	type thread struct{ pid, tid int64 }
	byThread := map[thread][]int{} // launch calls and capture bounds, in time order
	bounds := false
	for i := range t.APICalls {
		a := &t.APICalls[i]
		if b := isCaptureBound(a.Name); b != 0 {
			bounds = true
			byThread[thread{a.PID, a.TID}] = append(byThread[thread{a.PID, a.TID}], i)
			continue
		}
		if !IsKernelLaunch(a.Name) {
			continue
		}
		c.Launches++
		if a.Correlation != 0 && executed[keyOf(t, a.PID, a.Correlation)] {
			continue
		}
		c.Captured++
		byThread[thread{a.PID, a.TID}] = append(byThread[thread{a.PID, a.TID}], i)
	}
	if c.Captured == 0 {
		return nil, fmt.Errorf("%s: no launch call that executed nothing (%s, each ran its kernel): "+
			"not a trace profiled while CUDA graphs were captured", t.Source, Plural(c.Launches, "launches"))
	}
	c.NoBounds = !bounds
	need := make([]bool, len(t.APICalls))
	var order [][]int // the captures, each its calls in time order
	for _, th := range slices.SortedFunc(maps.Keys(byThread), func(a, b thread) int {
		return cmp.Or(cmp.Compare(a.pid, b.pid), cmp.Compare(a.tid, b.tid))
	}) {
		var cur []int
		open := c.NoBounds
		for _, ci := range byThread[th] {
			switch isCaptureBound(t.APICalls[ci].Name) {
			case 1:
				// A capture begun inside another on the thread leaves the
				// first's launches without an end: not taken.
				c.Outside += len(cur)
				open, cur = true, nil
			case -1:
				if open && len(cur) > 0 {
					order = append(order, cur)
				}
				open, cur = false, nil
			default:
				if !open {
					c.Outside++
					continue
				}
				cur = append(cur, ci)
				need[ci] = true
			}
		}
		switch {
		case c.NoBounds && len(cur) > 0:
			order = append(order, cur)
		case open:
			c.Outside += len(cur) // a capture the trace does not see end
		}
	}
	// Captures by their first call's time: the order they were made in.
	slices.SortFunc(order, func(a, b []int) int { return cmp.Compare(t.APICalls[a[0]].Start, t.APICalls[b[0]].Start) })
	opOf, regionOf := callScopes(t, need)
	c.stacks = callStacks(t, need)
	insts := map[*trace.Op]int32{}
	for _, calls := range order {
		c.segs = append(c.segs, captureSeg{len(c.calls), len(calls)})
		c.ends = append(c.ends, t.APICalls[calls[len(calls)-1]].Start)
		for _, ci := range calls {
			a := &t.APICalls[ci]
			cc := capturedCall{stack: c.stacks.ofCall[ci], inst: -1}
			if la := args[keyOf(t, a.PID, a.Correlation)]; la != nil {
				cc.kernel, cc.node = la.Kernel, la.GraphNode
			}
			if o := opOf[ci]; o != nil {
				cc.op = o.Name
				in, ok := insts[o]
				if !ok {
					in = int32(len(c.ops))
					insts[o] = in
					c.ops = append(c.ops, trace.Op{Name: o.Name, Kind: o.Kind, Args: o.Args})
				}
				cc.inst = in
			}
			if r := regionOf[ci]; r != nil {
				cc.region = r.Name
			}
			c.calls = append(c.calls, cc)
		}
	}
	c.nameFromReplays(t)
	return c, nil
}

// nameFromReplays names the calls of captures that record no kernel
// names from the capture trace's own first replay of them: the first
// graph launch after the capture whose kernels, on one stream, number as
// many as its launches. Only a capture whose size no other capture has
// is named so: the size is what ties the replay to it.
func (c *Capture) nameFromReplays(t *trace.Trace) {
	sizes := map[int]int{}
	for _, s := range c.segs {
		sizes[s.n]++
	}
	ix := newLaunchIndex(t)
	replays := map[int][]*trace.Kernel{}
	for i := range t.Kernels {
		k := &t.Kernels[i]
		if ci := ix.call(&k.Activity); ci >= 0 && IsGraphLaunch(t.APICalls[ci].Name) {
			replays[ci] = append(replays[ci], k)
		}
	}
	launches := slices.Sorted(maps.Keys(replays)) // APICalls are sorted by start
	for si, s := range c.segs {
		calls := c.calls[s.first : s.first+s.n]
		if sizes[s.n] != 1 || !slices.ContainsFunc(calls, func(cc capturedCall) bool { return cc.kernel == "" }) {
			continue
		}
		end := c.ends[si]
		for _, ci := range launches {
			ks := replays[ci]
			if t.APICalls[ci].Start < end || len(ks) != s.n ||
				slices.ContainsFunc(ks, func(k *trace.Kernel) bool { return k.Stream != ks[0].Stream }) {
				continue
			}
			for i := range calls {
				if calls[i].kernel == "" {
					calls[i].kernel = ks[i].Name
				}
			}
			c.SelfNamed++
			break
		}
	}
}

// Sizes returns the number of launches of each capture, in the order they
// were made.
func (c *Capture) Sizes() []int {
	out := make([]int, len(c.segs))
	for i, s := range c.segs {
		out[i] = s.n
	}
	return out
}

// CaptureStats say how the graph launches of one trace matched a Capture.
type CaptureStats struct {
	Capture string // the capture trace's path
	// GraphLaunches counts the graph launch calls whose kernels are in the
	// trace; Matched those paired with a capture.
	GraphLaunches, Matched int
	// Kernels and KernelNS are the kernels those launches replayed and
	// their durations, summed; Named and NamedNS those named by the calls
	// that captured them.
	Kernels, Named    int
	KernelNS, NamedNS int64
	Misses            []CaptureMiss // why the rest were not named, the most kernels first
}

// A CaptureMiss is one reason graph launches were not paired with a
// capture, and what they replayed.
type CaptureMiss struct {
	Reason   string
	Launches int
	Kernels  int
	NS       int64
}

// A CaptureMatch pairs the kernels of a trace's graph launches with the
// launch calls that captured them.
type CaptureMatch struct {
	Stats CaptureStats
	c     *Capture
	named map[launchKey][]namedKernel
}

// launchKey is the graph launch of a kernel, and the stream it ran on.
type launchKey struct {
	dev    int
	stream int64
	corr   corrKey
}

type namedKernel struct {
	start, end int64
	call       int32 // in Capture.calls
	// unshaped: the captures that fit name the kernel's op alike but
	// record other shapes (a graph captured once per input shape), so
	// its op instance and FLOPs are not told.
	unshaped bool
}

// Match pairs the graph launches of t with the captures of c. A window
// (t.Unclipped) does not cut a graph: the whole trace is matched, and each
// kernel of the window found by its launch, stream and time.
func (c *Capture) Match(t *trace.Trace) *CaptureMatch {
	m := &CaptureMatch{c: c, named: map[launchKey][]namedKernel{}}
	m.Stats.Capture = c.Source
	w := cmp.Or(t.Unclipped, t)
	ix := newLaunchIndex(w)
	graph := map[int]bool{} // launch call → is a graph launch
	launches := map[int][]*trace.Kernel{}
	var order []int
	for i := range w.Kernels {
		k := &w.Kernels[i]
		ci := ix.call(&k.Activity)
		if ci < 0 {
			continue
		}
		g, ok := graph[ci]
		if !ok {
			g = IsGraphLaunch(w.APICalls[ci].Name)
			graph[ci] = g
		}
		if !g {
			continue
		}
		if launches[ci] == nil {
			order = append(order, ci)
		}
		launches[ci] = append(launches[ci], k)
	}
	type result struct {
		calls    []int32
		reason   string
		unshaped bool
	}
	memo := map[string]result{} // by the graph's shape: repeated replays match once
	misses := map[string]*CaptureMiss{}
	var buf []byte
	for _, ci := range order {
		ks := launches[ci]
		buf = buf[:0]
		for _, k := range ks {
			buf = binary.AppendVarint(buf, k.Stream)
			buf = binary.AppendVarint(buf, k.GraphNode)
			buf = append(binary.AppendUvarint(buf, uint64(len(k.Name))), k.Name...)
		}
		r, ok := memo[string(buf)]
		if !ok {
			r.calls, r.unshaped, r.reason = c.pair(ks)
			if r.reason != "" && w.Partial {
				r.reason += " (only part of the trace's kernels or streams is measured)"
			}
			memo[string(buf)] = r
		}
		var ns int64
		for _, k := range ks {
			ns += k.Dur()
		}
		m.Stats.GraphLaunches++
		m.Stats.Kernels += len(ks)
		m.Stats.KernelNS += ns
		if r.calls == nil {
			x := misses[r.reason]
			if x == nil {
				x = &CaptureMiss{Reason: r.reason}
				misses[r.reason] = x
			}
			x.Launches++
			x.Kernels += len(ks)
			x.NS += ns
			continue
		}
		m.Stats.Matched++
		m.Stats.Named += len(ks)
		m.Stats.NamedNS += ns
		for i, k := range ks {
			key := launchKey{k.Device, k.Stream, keyOf(w, k.PID, k.Correlation)}
			m.named[key] = append(m.named[key], namedKernel{k.Start, k.End, r.calls[i], r.unshaped})
		}
	}
	for _, x := range misses {
		m.Stats.Misses = append(m.Stats.Misses, *x)
	}
	slices.SortFunc(m.Stats.Misses, func(a, b CaptureMiss) int {
		return cmp.Or(cmp.Compare(b.Kernels, a.Kernels), cmp.Compare(a.Reason, b.Reason))
	})
	return m
}

// Warnings say what the user should know of a match:
// graphs left under their launch, and why.
func (s *CaptureStats) Warnings() []string {
	if s.GraphLaunches == 0 {
		return []string{fmt.Sprintf("no CUDA/HIP graph launch whose kernels are in the trace: --capture %s names nothing", s.Capture)}
	}
	var out []string
	if s.Matched == 0 {
		out = append(out, fmt.Sprintf("%s matches none of the %s: their kernels stay under the graph launches", s.Capture, Plural(s.GraphLaunches, "graph launches")))
	}
	for _, x := range s.Misses {
		out = append(out, fmt.Sprintf("%s of %s not named by %s: %s", Plural(x.Kernels, "kernels"), Plural(x.Launches, "graph launches"), s.Capture, x.Reason))
	}
	return out
}

// pair pairs the kernels of one graph launch, in time order, with the
// calls of a capture: the calls by kernel, or why none pairs. unshaped
// says that several captures fit and name the kernels alike, but with
// other shapes on their ops.
func (c *Capture) pair(ks []*trace.Kernel) (calls []int32, unshaped bool, reason string) {
	var fits [][]int32
	why := ""
	sized := 0
	for _, s := range c.segs {
		if s.n != len(ks) {
			continue
		}
		sized++
		calls, reason := c.pairSeg(s, ks)
		if calls == nil {
			why = cmp.Or(why, reason)
			continue
		}
		fits = append(fits, calls)
	}
	switch {
	case sized == 0:
		return nil, false, fmt.Sprintf("no capture of %s (the captures hold %s)", Plural(len(ks), "launches"), sizesText(c.Sizes()))
	case len(fits) == 0:
		return nil, false, why
	}
	for _, other := range fits[1:] {
		for i := range other {
			a, b := &c.calls[fits[0][i]], &c.calls[other[i]]
			if a.op != b.op || a.region != b.region || a.stack != b.stack {
				return nil, false, fmt.Sprintf("%d captures of %s fit, and they name the kernels differently", len(fits), Plural(len(ks), "launches"))
			}
			if !unshaped && !sameArgs(c.instArgs(a.inst), c.instArgs(b.inst)) {
				unshaped = true
			}
		}
	}
	return fits[0], unshaped, ""
}

// instArgs returns the recorded shapes of op instance i; nil for none.
func (c *Capture) instArgs(i int32) *trace.OpArgs {
	if i < 0 {
		return nil
	}
	return c.ops[i].Args
}

// sameArgs reports whether two ops were recorded with the same inputs.
func sameArgs(a, b *trace.OpArgs) bool {
	if a == nil || b == nil {
		return a == b
	}
	dims := func(x, y []int64) bool { return slices.Equal(x, y) }
	return slices.EqualFunc(a.Dims, b.Dims, dims) &&
		slices.EqualFunc(a.Lists, b.Lists, func(x, y [][]int64) bool { return slices.EqualFunc(x, y, dims) }) &&
		slices.Equal(a.Types, b.Types) && slices.Equal(a.Concrete, b.Concrete) &&
		a.HasFlops == b.HasFlops && a.Flops == b.Flops
}

// sizesText lists capture sizes briefly: "421", "12, 13 and 14", "…".
func sizesText(n []int) string {
	if len(n) == 0 {
		return "no launch"
	}
	const most = 6
	parts := make([]string, 0, most+1)
	for i, x := range n {
		if i == most {
			parts = append(parts, fmt.Sprintf("… %d captures in all", len(n)))
			break
		}
		parts = append(parts, fmt.Sprint(x))
	}
	return strings.Join(parts, ", ")
}

// The reasons a capture of the right size does not pair with a graph.
const (
	missNames  = "kernel names differ from the launches captured"
	missNodes  = "graph node ids differ from the launches captured"
	missStream = "the graph ran on several streams and the capture does not tell which launch went to which"
)

// pairSeg pairs ks with the calls of one capture of as many launches.
func (c *Capture) pairSeg(s captureSeg, ks []*trace.Kernel) ([]int32, string) {
	calls := c.calls[s.first : s.first+s.n]
	out := make([]int32, len(ks))
	nameOK := func(call *capturedCall, k *trace.Kernel) bool { return call.kernel == "" || call.kernel == k.Name }
	allNodes := func(n int, node func(int) int64) bool {
		for i := range n {
			if node(i) == 0 {
				return false
			}
		}
		return true
	}
	replayNodes := allNodes(len(ks), func(i int) int64 { return ks[i].GraphNode })
	if replayNodes && allNodes(len(calls), func(i int) int64 { return calls[i].node }) {
		byNode := make(map[int64]int, len(calls))
		for j := range calls {
			byNode[calls[j].node] = j
		}
		used := make([]bool, len(calls))
		for i, k := range ks {
			j, ok := byNode[k.GraphNode]
			if !ok || used[j] {
				return nil, missNodes
			}
			if !nameOK(&calls[j], k) {
				return nil, missNames
			}
			used[j] = true
			out[i] = int32(s.first + j)
		}
		return out, ""
	}
	if replayNodes {
		if byNode := nodeOrder(ks); byNode != nil {
			for j, i := range byNode {
				if !nameOK(&calls[j], ks[i]) {
					return nil, missNames
				}
				out[i] = int32(s.first + j)
			}
			return out, ""
		}
	}
	// Per stream, in order.
	var streams []int64
	next := map[int64][]int{} // stream → its kernels' indices in ks, in time order
	for i, k := range ks {
		if next[k.Stream] == nil {
			streams = append(streams, k.Stream)
		}
		next[k.Stream] = append(next[k.Stream], i)
	}
	for j := range calls {
		fit, n := -1, 0
		for _, st := range streams {
			if q := next[st]; len(q) > 0 && nameOK(&calls[j], ks[q[0]]) {
				fit, n = q[0], n+1
			}
		}
		switch {
		case n == 0:
			return nil, missNames
		case n > 1:
			return nil, missStream
		}
		out[fit] = int32(s.first + j)
		st := ks[fit].Stream
		next[st] = next[st][1:]
	}
	return out, ""
}

// nodeOrder returns the indices of ks sorted by graph node id, the order
// the nodes were captured in, when the ids are distinct and agree on each
// stream with the order in time; nil otherwise.
func nodeOrder(ks []*trace.Kernel) []int {
	idx := make([]int, len(ks))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(ks[a].GraphNode, ks[b].GraphNode) })
	last := map[int64]int{} // stream → the time index of its last kernel in node order
	for j, i := range idx {
		if j > 0 && ks[idx[j-1]].GraphNode == ks[i].GraphNode {
			return nil
		}
		if p, ok := last[ks[i].Stream]; ok && p > i {
			return nil
		}
		last[ks[i].Stream] = i
	}
	return idx
}

// call returns the capture call that names device work a of t, or −1.
// t may be a window or a device's view of the trace matched: a kernel
// there is its launch's kernel on its stream whose span holds a's (a
// window clips spans), when one alone does.
func (m *CaptureMatch) call(t *trace.Trace, a *trace.Activity) int {
	n := m.find(t, a)
	if n == nil {
		return -1
	}
	return int(n.call)
}

// find returns the named kernel that is device work a of t, nil when
// none is (see call).
func (m *CaptureMatch) find(t *trace.Trace, a *trace.Activity) *namedKernel {
	if m == nil || a.Correlation == 0 {
		return nil
	}
	ns := m.named[launchKey{a.Device, a.Stream, keyOf(t, a.PID, a.Correlation)}]
	var found *namedKernel
	for i := range ns {
		n := &ns[i]
		if n.start == a.Start && n.end == a.End {
			return n
		}
		if n.start <= a.Start && a.End <= n.end {
			if found != nil && found.call != n.call {
				return nil
			}
			found = n
		}
	}
	return found
}

// A replayedOp is one execution of a captured op instance: the instance
// (in Capture.ops) replayed by one graph launch (its correlation). The
// kernels a replay of the graph runs for the instance share it.
type replayedOp struct {
	inst int32
	corr corrKey
}

// instance returns the captured op instance whose kernel a of t is, and
// which execution of it; ok is false where m names no op instance for a
// (not named, no op, or shapes the fitting captures do not agree on).
func (m *CaptureMatch) instance(t *trace.Trace, a *trace.Activity) (o *trace.Op, r replayedOp, ok bool) {
	n := m.find(t, a)
	if n == nil || n.unshaped {
		return nil, r, false
	}
	in := m.c.calls[n.call].inst
	if in < 0 {
		return nil, r, false
	}
	return &m.c.ops[in], replayedOp{in, keyOf(t, a.PID, a.Correlation)}, true
}

// scope returns the op and region names of a capture call, NoScope for none.
func (m *CaptureMatch) scope(call int) (op, region string) {
	cc := &m.c.calls[call]
	return cmp.Or(cc.op, NoScope), cmp.Or(cc.region, NoScope)
}
