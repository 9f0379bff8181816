package metrics

import (
	"cmp"
	"slices"
	"strings"

	"github.com/traceql/traceql/trace"
)

// The replay (Replay, replay*.go) rebuilds each step of one device from
// durations and dependencies, never from where the trace says the result
// landed: host threads run their calls one after another, separated by the
// host work measured between them; a launch makes its device work ready
// after a launch latency; a stream runs its work in order; a blocking call
// (a synchronization, a copy to or from pageable memory) holds its thread
// until the work it waits for is done. The edits of whatif act on that
// graph, and the replay is run again.

// A callKind says what a host call does to the replay.
type callKind uint8

const (
	callOther    callKind = iota // costs its host time, launches nothing on the device
	callLaunch                   // makes device work ready (kernel, copy, memset, graph launch)
	callGraph                    // a graph launch made by the --graphs edit
	callBlockAll                 // waits until every stream of the device drains
	callBlockOwn                 // waits until its own device work is done (sync or pageable copy)
)

// An rItem is one piece of device work in the replay.
type rItem struct {
	stream int64
	dur    int64
	copy   bool  // a memcpy or memset (the copies class), else a kernel
	kernel int32 // index in Trace.Kernels; -1 for copies and memsets
	lat    int64 // ready this long after its launch call starts (graph nodes: ends)
	gap    int64 // starts at least this long after the stream's previous work ends
	call   int32 // the call that launches it
	// pageable marks a memcpy to or from pageable host memory.
	pageable bool
	// host marks a copy to or from host memory: no graph capture of a
	// model holds it (the batch comes in and the result goes out around
	// the graph).
	host bool
	// recStart and recEnd are where the trace has it: only to derive the
	// costs of blocking calls, never replayed.
	recStart, recEnd int64

	// Replayed.
	start, end int64
	byStream   bool  // start set by the stream's previous work, not by the launch
	prev       int32 // the stream's previous work; -1 for none
}

// An rCall is one top-level host API call, or a graph launch the
// --graphs edit made, on one host thread.
type rCall struct {
	thread int32
	kind   callKind
	// recStart and recEnd are the host time the call covers in the trace
	// (a graph launch made by --graphs: the host span it replaces); the
	// host work between calls is the recorded distance from one call's
	// recEnd to the next one's recStart on the thread.
	recStart, recEnd int64
	// cost is the call's own host time: the recorded duration for a launch
	// or other call, the time it took past the work it waited for for a
	// blocking call, the graph launch constants for a graph launch.
	cost  int64
	items []int32
	// syncAPI marks a call that is synchronous by its API (cudaMemcpy,
	// cudaMemset): it waits for its own work.
	syncAPI bool

	// Replayed.
	start, end int64
	waitItem   int32 // the work a blocking call waited for; -1 when it did not wait
}

// A replayGraph is the dependency graph of the steps of one device.
type replayGraph struct {
	origin  int64     // recorded time of replayed time 0: the first step's host start
	threads [][]int32 // calls of each host thread, in recorded order
	calls   []rCall
	items   []rItem
	steps   []replayStep
	// tids are each thread's (pid, tid), for steps' host ranges.
	tids []thread
	// Unlaunched counts the device's work in the steps that no replayed
	// call launched (launched before the first step, or with no
	// correlation): it is left out.
	unlaunched int
	// launchLatency and streamGap are the trace's median launch latency
	// and back-to-back gap between queued work (see buildReplay).
	launchLatency, streamGap int64
	t                        *trace.Trace
}

// A replayStep is one step: its host range and how its window is drawn.
type replayStep struct {
	Step
	hostStart, hostEnd int64 // the ProfilerStep#N host range, recorded
	thread             int32 // the thread of that range; -1 when it has no calls
}

// buildReplay builds the replay graph of device dev from the recorded
// trace over its steps. ok is false when the device has no steps with a
// host range to replay.
func buildReplay(t *trace.Trace, dev int) (g *replayGraph, ok bool) {
	whole := cmp.Or(t.Unclipped, t)
	devSteps := DeviceSteps(t, dev, Steps(t))
	_, cpu := collectSteps(whole.Ops)
	hostOf := map[int]Step{}
	for _, s := range cpu {
		hostOf[s.Number] = s
	}
	g = &replayGraph{t: whole}
	for _, s := range devSteps {
		h, ok := hostOf[s.Number]
		if !ok {
			continue
		}
		g.steps = append(g.steps, replayStep{Step: s, hostStart: h.Start, hostEnd: h.End, thread: -1})
	}
	if len(g.steps) == 0 {
		return nil, false
	}
	lo, hi := g.steps[0].hostStart, g.steps[0].hostEnd
	for _, s := range g.steps {
		lo, hi = min(lo, s.hostStart), max(hi, s.hostEnd)
	}
	g.origin = lo

	// Top-level calls of each thread inside the host range of the steps;
	// a call nested in another (a runtime call's driver call) launches
	// for the call it is in.
	threadIx := map[thread]int32{}
	callOf := make([]int32, len(whole.APICalls)) // index in APICalls → call; -1: not replayed
	for i := range callOf {
		callOf[i] = -1
	}
	lastEnd := map[thread]int64{}
	for i := range whole.APICalls {
		c := &whole.APICalls[i]
		if c.Start < lo || c.Start >= hi {
			continue
		}
		th := thread{c.PID, c.TID}
		ti, seen := threadIx[th]
		if !seen {
			ti = int32(len(g.threads))
			threadIx[th] = ti
			g.threads = append(g.threads, nil)
			g.tids = append(g.tids, th)
		}
		if seen && c.Start < lastEnd[th] {
			callOf[i] = g.threads[ti][len(g.threads[ti])-1]
			continue
		}
		lastEnd[th] = c.End
		ci := int32(len(g.calls))
		callOf[i] = ci
		g.calls = append(g.calls, rCall{thread: ti, kind: callOther, recStart: c.Start, recEnd: c.End, cost: c.End - c.Start, waitItem: -1})
		g.threads[ti] = append(g.threads[ti], ci)
		if IsSync(c.Name) {
			if strings.Contains(c.Name, "ynchronize") {
				g.calls[ci].kind = callBlockAll
			} else {
				g.calls[ci].syncAPI = true
			}
		}
	}
	// The thread of each step's host range, in one pass over the ops.
	stepAt := make(map[int64]int, len(g.steps)) // host start → step
	for i, s := range g.steps {
		stepAt[s.hostStart] = i
	}
	for _, op := range whole.Ops {
		if op.Kind == trace.GPUAnnotation || !strings.HasPrefix(op.Name, trace.StepPrefix) {
			continue
		}
		if i, ok := stepAt[op.Start]; ok && g.steps[i].thread < 0 {
			if ti, ok := threadIx[thread{op.PID, op.TID}]; ok {
				g.steps[i].thread = ti
			}
		}
	}

	// The device's work, each piece joined to the call that launched it.
	ix := newLaunchIndex(whole)
	type rec struct {
		item             int32 // -1: not replayed
		stream           int64
		start, end, call int64 // call: the launching call's recorded start
	}
	var recs []rec
	add := func(a *trace.Activity, copy bool, kernel int32, pageable, host bool) {
		if a.Device != dev {
			return
		}
		r := rec{item: -1, stream: a.Stream, start: a.Start, end: a.End}
		if api := ix.call(a); api >= 0 {
			if ci := callOf[api]; ci >= 0 {
				r.item = int32(len(g.items))
				r.call = g.calls[ci].recStart
				g.items = append(g.items, rItem{stream: a.Stream, dur: a.Dur(), copy: copy, kernel: kernel, call: ci, pageable: pageable, host: host,
					recStart: a.Start, recEnd: a.End, prev: -1})
				g.calls[ci].items = append(g.calls[ci].items, r.item)
			}
		}
		if r.item < 0 && a.Start >= lo && a.Start < hi {
			g.unlaunched++
		}
		recs = append(recs, r)
	}
	for i := range whole.Kernels {
		add(&whole.Kernels[i].Activity, false, int32(i), false, false)
	}
	for i := range whole.Memcpys {
		m := &whole.Memcpys[i]
		add(&m.Activity, true, -1, m.Src == trace.Pageable || m.Dst == trace.Pageable, hostCopy(m))
	}
	for i := range whole.Memsets {
		add(&whole.Memsets[i].Activity, true, -1, false, false)
	}
	if len(g.items) == 0 {
		return nil, false
	}
	for i := range g.calls {
		c := &g.calls[i]
		if len(c.items) > 0 && c.kind == callOther {
			c.kind = callLaunch
		}
		// Work in the order it ran (a graph launch's nodes).
		slices.SortFunc(c.items, func(a, b int32) int { return cmp.Compare(a, b) })
	}

	// Each piece of work waited either for its launch (the stream was done
	// before the call began: the wait is the launch latency) or for the
	// stream's previous work (the gap is the device's own between queued
	// work). The trace's medians of both stand in for the bound that was
	// not the one that held, at most what was recorded, so that the replay
	// without edits lands each piece where the trace has it.
	slices.SortStableFunc(recs, func(a, b rec) int {
		if c := cmp.Compare(a.stream, b.stream); c != 0 {
			return c
		}
		return cmp.Compare(a.start, b.start)
	})
	// The previous work of each piece is the last replayed one on its
	// stream: work no replayed call launched is not in the replay, and the
	// time it held the stream is part of the gap.
	prev := make([]int, len(recs))
	lastOn := -1
	for i, r := range recs {
		if lastOn >= 0 && recs[lastOn].stream != r.stream {
			lastOn = -1
		}
		if r.item < 0 {
			continue
		}
		prev[i], lastOn = lastOn, i
	}
	var lats, gaps []int64
	launchBound := make([]bool, len(recs))
	for i, r := range recs {
		if r.item < 0 {
			continue
		}
		queued := prev[i] >= 0 && recs[prev[i]].end > r.call
		launchBound[i] = !queued
		if queued {
			gaps = append(gaps, max(r.start-recs[prev[i]].end, 0))
		} else if len(g.calls[g.items[r.item].call].items) == 1 {
			lats = append(lats, max(r.start-r.call, 0))
		}
	}
	g.launchLatency = medianInt(lats)
	g.streamGap = medianInt(gaps)
	for i, r := range recs {
		if r.item < 0 {
			continue
		}
		it := &g.items[r.item]
		sinceCall := max(r.start-r.call, 0)
		sincePrev := g.streamGap
		if prev[i] >= 0 {
			sincePrev = max(r.start-recs[prev[i]].end, 0)
		}
		if launchBound[i] {
			it.lat, it.gap = sinceCall, min(g.streamGap, sincePrev)
		} else {
			it.lat, it.gap = min(g.launchLatency, sinceCall), sincePrev
		}
	}

	g.blocking()
	return g, true
}

// blocking sets which calls hold their thread until device work is done,
// and the host time of each past that work (its cost in the replay): the
// synchronizations (waiting for every stream of the device), the calls
// synchronous by their API and the copies to or from pageable memory that
// returned only after their copy was done (waiting for their own work).
// A call that returned before the work it would wait for was done did not
// wait for it (a stream sync while another stream is busy): it stays a
// plain call, costing its recorded time.
func (g *replayGraph) blocking() {
	var drained int64 = -1 << 62 // last recorded end of the work launched so far
	for i := range g.calls {
		c := &g.calls[i]
		own := int64(-1 << 62)
		pageable := false
		for _, it := range c.items {
			own = max(own, g.items[it].recEnd)
			pageable = pageable || g.items[it].pageable
		}
		switch {
		case c.kind == callBlockAll:
			if drained > c.recEnd {
				c.kind = callOther
				break
			}
			c.cost = c.recEnd - max(c.recStart, drained)
		case len(c.items) > 0 && (c.syncAPI || pageable) && own <= c.recEnd:
			c.kind = callBlockOwn
			c.cost = c.recEnd - max(c.recStart, own)
		}
		drained = max(drained, own)
	}
}

// hostCopy reports whether a memcpy reads or writes host memory.
func hostCopy(m *trace.Memcpy) bool {
	switch m.Kind {
	case trace.HtoD, trace.DtoH, trace.HtoA, trace.AtoH, trace.HtoH:
		return true
	}
	isHost := func(k trace.MemKind) bool { return k == trace.Pageable || k == trace.Pinned || k == trace.HostMem }
	return isHost(m.Src) || isHost(m.Dst)
}

// medianInt is the lower median of xs (0 when empty).
func medianInt(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
