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
	callOther       callKind = iota // costs its host time, launches nothing on the device
	callLaunch                      // makes device work ready (kernel, copy, memset, graph launch)
	callGraph                       // a graph launch made by the --graphs edit
	callBlockAll                    // waits until every stream of the device drains
	callBlockOwn                    // waits until its own device work is done (sync or pageable copy)
	callBlockStream                 // waits until one stream drains (replayGraph.waits)
	callBlockEvent                  // waits until the work before an event's record is done (replayGraph.waits)
)

// An rItem is one piece of device work in the replay.
type rItem struct {
	stream int64
	dur    int64
	lat    int64 // ready this long after its launch call starts (graph nodes: ends)
	gap    int64 // starts at least this long after the stream's previous work ends
	// recStart is where the trace has it: only to derive the latencies,
	// gaps and costs of blocking calls, never replayed; recEnd() is
	// recStart plus the recorded duration, until an edit scales it.
	recStart int64
	// rec is the record's index in Trace.Kernels (a kernel) or
	// Trace.Memcpys (a copy); -1 for memsets.
	rec  int32
	call int32 // the call that launches it
	copy bool  // a memcpy or memset (the copies class), else a kernel
	// pageable marks a memcpy to or from pageable host memory.
	pageable bool
	// host marks a copy to or from host memory: no graph capture of a
	// model holds it (the batch comes in and the result goes out around
	// the graph).
	host bool
	// waits marks an item with a wait on another stream's work
	// (replayGraph.after).
	waits bool

	// Replayed.
	byStream   bool  // start set by the stream's previous work, not by the launch
	byWait     bool  // start set by its wait on another stream's work
	prev       int32 // the stream's previous work; -1 for none
	start, end int64
}

// An rCall is one host API call that launches device work or blocks, or
// a graph launch the --graphs edit made, on one host thread. (A fields
// order that packs: a long run has a million.)
type rCall struct {
	// recStart and recEnd are the host time the call covers in the trace
	// (a graph launch made by --graphs: the host span it replaces); the
	// host work between calls is the recorded distance from one call's
	// recEnd to the next one's recStart on the thread.
	recStart, recEnd int64
	// cost is the call's own host time: the recorded duration for a launch
	// or other call, the time it took past the work it waited for for a
	// blocking call, the graph launch constants for a graph launch.
	cost   int64
	thread int32
	// lo and n place the call's device work in replayGraph.flat, in the
	// order it ran.
	lo, n int32
	kind  callKind
	// syncAPI marks a call that is synchronous by its API (cudaMemcpy,
	// cudaMemset): it waits for its own work.
	syncAPI bool

	// Replayed.
	waitItem   int32 // the work a blocking call waited for; -1 when it did not wait
	start, end int64
}

// A replayGraph is the dependency graph of the steps of one device.
type replayGraph struct {
	origin  int64     // recorded time of replayed time 0: the first step's host start
	threads [][]int32 // calls of each host thread, in recorded order
	calls   []rCall
	items   []rItem
	flat    []int32 // the items of each call, a range a call
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
	// waits says what each callBlockStream or callBlockEvent waits for;
	// after holds the items that wait on another stream's work (rItem.waits).
	waits map[int32]syncWait
	after map[int32]crossWait
	// regionOps are the indexes in t.Ops of the compiled regions, in order.
	regionOps []int32
	t         *trace.Trace
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
func buildReplay(t *trace.Trace, dev int, devSteps []Step, ix *launchIndex) (g *replayGraph, ok bool) {
	whole := cmp.Or(t.Unclipped, t)
	hostOf, regions := hostSteps(whole.Ops)
	g = &replayGraph{t: whole, regionOps: regions}
	stepTh := make([]thread, 0, len(devSteps)) // the thread of each step's host range
	for _, s := range devSteps {
		h, ok := hostOf[s.Number]
		if !ok {
			continue
		}
		g.steps = append(g.steps, replayStep{Step: s, hostStart: h.start, hostEnd: h.end, thread: -1})
		stepTh = append(stepTh, h.th)
	}
	if len(g.steps) == 0 {
		return nil, false
	}
	lo, hi := g.steps[0].hostStart, g.steps[0].hostEnd
	for _, s := range g.steps {
		lo, hi = min(lo, s.hostStart), max(hi, s.hostEnd)
	}
	g.origin = lo

	// The calls that launch work on the device, and the blocking ones,
	// of each thread inside the host range of the steps: other calls are
	// host work like any other between them. A call nested in one kept (a
	// runtime call's driver call) launches for the call it is in.
	if ix == nil || ix.t != whole {
		ix = new(newLaunchIndex(whole))
	}
	launches := make([]bool, len(whole.APICalls))
	work := 0
	whole.EachGPUActivity(func(a *trace.Activity) {
		if a.Device == dev {
			work++
			if api := ix.call(a); api >= 0 {
				launches[api] = true
			}
		}
	})
	// Sized once: a long run's tables are large, and growing them by
	// appends would leave as much again behind for the collector.
	kept := 0
	for i := range whole.APICalls {
		if c := &whole.APICalls[i]; c.Start >= lo && c.Start < hi && (launches[i] || IsSync(c.Name)) {
			kept++
		}
	}
	g.calls = make([]rCall, 0, kept)
	g.items = make([]rItem, 0, work)
	threadIx := map[thread]int32{}
	callOf := make([]int32, len(whole.APICalls)) // index in APICalls → call; -1: not replayed
	for i := range callOf {
		callOf[i] = -1
	}
	lastCall := map[thread]int32{}
	// Calls come in runs of one thread: the maps are asked when it changes.
	curTh, curTi, curLast, curSeen := thread{-1, -1}, int32(-1), int32(-1), false
	for i := range whole.APICalls {
		c := &whole.APICalls[i]
		if c.Start < lo || c.Start >= hi {
			continue
		}
		sync := IsSync(c.Name)
		if !launches[i] && !sync {
			continue
		}
		if th := (thread{c.PID, c.TID}); th != curTh {
			if curSeen {
				lastCall[curTh] = curLast
			}
			curTh = th
			curLast, curSeen = -1, false
			if last, ok := lastCall[th]; ok {
				curLast, curSeen = last, true
			}
			ti, seen := threadIx[th]
			if !seen {
				ti = int32(len(g.threads))
				threadIx[th] = ti
				g.threads = append(g.threads, nil)
				g.tids = append(g.tids, th)
			}
			curTi = ti
		}
		if curSeen && c.Start < g.calls[curLast].recEnd {
			callOf[i] = curLast
			continue
		}
		ti := curTi
		ci := int32(len(g.calls))
		callOf[i], curLast, curSeen = ci, ci, true
		g.calls = append(g.calls, rCall{thread: ti, kind: callOther, recStart: c.Start, recEnd: c.End, cost: c.End - c.Start, waitItem: -1})
		g.threads[ti] = append(g.threads[ti], ci)
		if sync {
			if strings.Contains(c.Name, "ynchronize") {
				g.calls[ci].kind = callBlockAll
			} else {
				g.calls[ci].syncAPI = true
			}
		}
	}
	for i, th := range stepTh {
		if ti, ok := threadIx[th]; ok {
			g.steps[i].thread = ti
		}
	}

	// The device's work, each piece joined to the call that launched it.
	add := func(a *trace.Activity, copy bool, rec int32, pageable, host bool) {
		if a.Device != dev {
			return
		}
		if api := ix.call(a); api >= 0 {
			if ci := callOf[api]; ci >= 0 {
				g.items = append(g.items, rItem{stream: a.Stream, dur: a.Dur(), copy: copy, rec: rec, call: ci, pageable: pageable, host: host,
					recStart: a.Start, prev: -1})
				g.calls[ci].n++
				return
			}
		}
		if a.Start >= lo && a.Start < hi {
			g.unlaunched++
		}
	}
	for i := range whole.Kernels {
		add(&whole.Kernels[i].Activity, false, int32(i), false, false)
	}
	for i := range whole.Memcpys {
		m := &whole.Memcpys[i]
		add(&m.Activity, true, int32(i), m.Src == trace.Pageable || m.Dst == trace.Pageable, hostCopy(m))
	}
	for i := range whole.Memsets {
		add(&whole.Memsets[i].Activity, true, -1, false, false)
	}
	if len(g.items) == 0 {
		return nil, false
	}
	// Each call's work, a range of flat, in the order it ran (a graph
	// launch's nodes).
	g.flat = make([]int32, len(g.items))
	var at int32
	for i := range g.calls {
		c := &g.calls[i]
		c.lo, at = at, at+c.n
		c.n = 0
		if c.kind == callOther && c.lo < at {
			c.kind = callLaunch
		}
	}
	for ii := range g.items {
		c := &g.calls[g.items[ii].call]
		g.flat[c.lo+c.n] = int32(ii)
		c.n++
	}
	for i := range g.calls {
		slices.SortFunc(g.itemsOf(&g.calls[i]), func(a, b int32) int { return cmp.Compare(g.items[a].recStart, g.items[b].recStart) })
	}

	// Each piece of work waited either for its launch (the stream was done
	// before the call began: the wait is the launch latency) or for the
	// stream's previous work (the gap is the device's own between queued
	// work). The trace's medians of both stand in for the bound that was
	// not the one that held, at most what was recorded, so that the replay
	// without edits lands each piece where the trace has it. The previous
	// work of each piece is the last replayed one on its stream: work no
	// replayed call launched is not in the replay, and the time it held
	// the stream is part of the gap.
	order := make([]int32, len(g.items))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		x, y := &g.items[a], &g.items[b]
		return cmp.Or(cmp.Compare(x.stream, y.stream), cmp.Compare(x.recStart, y.recStart))
	})
	prevOf := func(k int) *rItem {
		if k == 0 || g.items[order[k-1]].stream != g.items[order[k]].stream {
			return nil
		}
		return &g.items[order[k-1]]
	}
	if len(whole.Syncs) > 0 {
		byStream := map[int64][]int32{}
		for k := 0; k < len(order); {
			j := k + 1
			for j < len(order) && g.items[order[j]].stream == g.items[order[k]].stream {
				j++
			}
			byStream[g.items[order[k]].stream] = order[k:j:j]
			k = j
		}
		g.resolveWaits(byStream, callOf)
	}
	var lats, gaps []int64
	for k, ii := range order {
		it := &g.items[ii]
		call := g.calls[it.call].recStart
		if it.waits && g.heldByWait(ii, prevOf(k)) {
			continue // neither bound held: its lateness is the other stream's
		}
		if p := prevOf(k); p != nil && p.recEnd() > call {
			gaps = append(gaps, max(it.recStart-p.recEnd(), 0))
		} else if g.calls[it.call].n == 1 {
			lats = append(lats, max(it.recStart-call, 0))
		}
	}
	g.launchLatency = medianInt(lats)
	g.streamGap = medianInt(gaps)
	for k, ii := range order {
		it := &g.items[ii]
		sinceCall := max(it.recStart-g.calls[it.call].recStart, 0)
		p := prevOf(k)
		if it.waits {
			w := g.after[ii]
			w.gap = max(it.recStart-g.items[w.item].recEnd(), 0)
			if g.heldByWait(ii, p) {
				// The wait held: the other bounds take the trace's medians,
				// at most what was recorded.
				sincePrev := g.streamGap
				if p != nil {
					sincePrev = max(it.recStart-p.recEnd(), 0)
				}
				it.lat, it.gap = min(g.launchLatency, sinceCall), min(g.streamGap, sincePrev)
				g.after[ii] = w
				continue
			}
			w.gap = min(w.gap, g.streamGap)
			g.after[ii] = w
		}
		if p == nil || p.recEnd() <= g.calls[it.call].recStart { // the launch held
			sincePrev := g.streamGap
			if p != nil {
				sincePrev = max(it.recStart-p.recEnd(), 0)
			}
			it.lat, it.gap = sinceCall, min(g.streamGap, sincePrev)
		} else {
			it.lat, it.gap = min(g.launchLatency, sinceCall), max(it.recStart-p.recEnd(), 0)
		}
	}

	g.blocking()
	return g, true
}

// blocking sets which calls hold their thread until device work is done,
// and the host time of each past that work (its cost in the replay): the
// synchronizations (waiting for every stream of the device) and the calls
// synchronous by their API, which returned only after the work they wait
// for was done, and the copies to or from pageable memory that were still
// running when their copy began (they stage it through a pinned buffer
// and return about when it is done, a little before or after: their cost
// past the copy's end may be negative). A synchronization that returned
// before the work it would wait for was done did not wait for it (a
// stream sync while another stream is busy): it stays a plain call,
// costing its recorded time.
func (g *replayGraph) blocking() {
	var drained int64 = -1 << 62 // last recorded end of the work launched so far
	var streamDrained map[int64]int64
	if len(g.waits) > 0 {
		streamDrained = map[int64]int64{}
	}
	for i := range g.calls {
		c := &g.calls[i]
		own, began := int64(-1<<62), int64(1<<62)
		pageable := false
		for _, it := range g.itemsOf(c) {
			own = max(own, g.items[it].recEnd())
			began = min(began, g.items[it].recStart)
			pageable = pageable || g.items[it].pageable
		}
		switch {
		case c.kind == callBlockAll:
			if drained > c.recEnd {
				c.kind = callOther
				break
			}
			c.cost = c.recEnd - max(c.recStart, drained)
		case c.kind == callBlockStream, c.kind == callBlockEvent:
			w := g.waits[int32(i)]
			done, ok := streamDrained[w.stream]
			if c.kind == callBlockEvent {
				done, ok = g.items[w.item].recEnd(), true
			}
			if !ok || done > c.recEnd {
				c.kind = callOther // nothing to wait for, or it did not wait
				break
			}
			c.cost = c.recEnd - max(c.recStart, done)
		case c.n > 0 && c.syncAPI && own <= c.recEnd:
			c.kind = callBlockOwn
			c.cost = c.recEnd - max(c.recStart, own)
		case c.n > 0 && pageable && c.recEnd >= began:
			c.kind = callBlockOwn
			c.cost = c.recEnd - own
		}
		drained = max(drained, own)
		if streamDrained != nil {
			for _, it := range g.itemsOf(c) {
				s := g.items[it].stream
				if e, ok := streamDrained[s]; !ok || g.items[it].recEnd() > e {
					streamDrained[s] = g.items[it].recEnd()
				}
			}
		}
	}
}

// A hostStep is the host range of one ProfilerStep#N and the thread of
// its first op.
type hostStep struct {
	start, end int64
	th         thread
}

// hostSteps returns the host ranges of the ProfilerStep#N ops of ops by
// number, as collectSteps draws them, each with the thread of the op
// that starts it, in one pass.
// It also returns the index in ops of each compiled region
// (trace.CompiledRegionPrefix), for --graphs, found on the same pass.
func hostSteps(ops []trace.Op) (out map[int]hostStep, regions []int32) {
	out = map[int]hostStep{}
	for i := range ops {
		op := &ops[i]
		// The first byte turns away nearly every op.
		if op.Name == "" {
			continue
		}
		if op.Name[0] == trace.CompiledRegionPrefix[0] && op.Kind == trace.CPUOp && strings.HasPrefix(op.Name, trace.CompiledRegionPrefix) {
			regions = append(regions, int32(i))
			continue
		}
		if op.Name[0] != trace.StepPrefix[0] || op.Kind == trace.GPUAnnotation {
			continue
		}
		n, ok := stepNumber(op.Name)
		if !ok {
			continue
		}
		h, seen := out[n]
		if !seen {
			out[n] = hostStep{op.Start, op.End, thread{op.PID, op.TID}}
			continue
		}
		if op.Start < h.start {
			h.start, h.th = op.Start, thread{op.PID, op.TID}
		}
		h.end = max(h.end, op.End)
		out[n] = h
	}
	return out, regions
}

// heldByWait reports whether item ii's wait on another stream's work is
// what held it in the trace: that work ended after ii's launch call began
// and after its stream's previous work p.
func (g *replayGraph) heldByWait(ii int32, p *rItem) bool {
	end := g.items[g.after[ii].item].recEnd()
	return end > g.calls[g.items[ii].call].recStart && (p == nil || end > p.recEnd())
}

// recEnd is where the trace has the work end (before any edit).
func (it *rItem) recEnd() int64 { return it.recStart + it.dur }

// itemsOf returns the device work call c launches.
func (g *replayGraph) itemsOf(c *rCall) []int32 { return g.flat[c.lo : c.lo+c.n] }

// hostCopy reports whether a memcpy reads or writes host memory.
func hostCopy(m *trace.Memcpy) bool {
	switch m.Kind {
	case trace.HtoD, trace.DtoH, trace.HtoA, trace.AtoH, trace.HtoH:
		return true
	}
	isHost := func(k trace.MemKind) bool { return k == trace.Pageable || k == trace.Pinned || k == trace.HostMem }
	return isHost(m.Src) || isHost(m.Dst)
}

// medianInt is the lower median of xs (0 when empty); it reorders xs.
func medianInt(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	k := (len(xs) - 1) / 2
	selectNth(xs, k)
	return xs[k]
}
