package metrics

import (
	"cmp"
	"slices"
)

// edit makes the edits e to g (see Edits).
func (g *replayGraph) edit(e Edits) {
	h := g
	for _, k := range e.Kernels {
		for i := range h.items {
			it := &h.items[i]
			if !it.copy && it.rec >= 0 && k.Pattern.MatchString(h.t.Kernels[it.rec].Name) {
				it.dur = (it.dur*k.Num + k.Den/2) / k.Den
			}
		}
	}
	for i := range h.calls {
		c := &h.calls[i]
		blocking := c.blocks()
		pageable := c.kind == callBlockOwn && !c.syncAPI && slices.ContainsFunc(h.itemsOf(c), func(ii int32) bool { return h.items[ii].pageable })
		if blocking && (e.NoSyncs || e.Pinned && pageable) {
			// The call keeps its own host time, past the wait.
			c.kind, c.cost = callOther, max(c.cost, 0)
			if c.n > 0 {
				c.kind = callLaunch
			}
		}
	}
	if e.Pinned {
		// A pinned copy moves at the pinned bandwidth (no staging): a
		// copy as large as those it was measured on (small ones take
		// what a copy's latency takes, which a bandwidth does not say).
		for i := range h.items {
			if it := &h.items[i]; it.pageable && it.rec >= 0 {
				if b := h.t.Memcpys[it.rec].Bytes; b >= pinnedCopyMinBytes {
					it.dur = min(it.dur, (b*1000+PinnedCopyMBps-1)/PinnedCopyMBps)
				}
			}
		}
	}
	if e.Graphs {
		h.capture(e.graphCosts())
	}
}

// capture makes the --graphs edit: on each thread, the calls inside each
// compiled region, or each step's host range when the run has no compiled
// region, are cut where a call blocks; each run of calls that launches
// device work becomes one graph launch. It replaces the host span of the
// run (a compiled region's part, or from the first launch to the end of
// the last one in a step), its host work and calls; its device work stays,
// as graph nodes.
func (g *replayGraph) capture(costs GraphCosts) {
	regions := g.compiledRegions()
	byRegion := len(regions) > 0
	if !byRegion {
		// Each step's host range, on every thread.
		for th := range g.threads {
			for _, s := range g.steps {
				regions = append(regions, threadRange{int32(th), s.hostStart, s.hostEnd})
			}
		}
	}
	keep := make([][]int32, len(g.threads))
	// Room for what the captures add: each item again in flat, a call per
	// capture.
	g.flat = slices.Grow(g.flat, len(g.items))
	g.calls = slices.Grow(g.calls, len(regions))
	ri := 0
	slices.SortFunc(regions, func(a, b threadRange) int {
		return cmp.Or(cmp.Compare(a.thread, b.thread), cmp.Compare(a.start, b.start))
	})
	for th, calls := range g.threads {
		keep[th] = make([]int32, 0, len(calls))
		for len(regions) > ri && regions[ri].thread < int32(th) {
			ri++
		}
		var run []int32
		var runFrom int64
		flush := func(runTo int64) {
			launched := slices.ContainsFunc(run, func(ci int32) bool { return g.calls[ci].n > 0 })
			if !launched {
				keep[th] = append(keep[th], run...)
				run = run[:0]
				return
			}
			from, to := runFrom, runTo
			lo, hi := 0, len(run)
			if !byRegion {
				// From the first launch to the end of the last.
				for g.calls[run[lo]].n == 0 {
					lo++
				}
				for g.calls[run[hi-1]].n == 0 {
					hi--
				}
				from, to = g.calls[run[lo]].recStart, g.calls[run[hi-1]].recEnd
			}
			keep[th] = append(keep[th], run[:lo]...)
			first := int32(len(g.flat))
			for _, ci := range run[lo:hi] {
				g.flat = append(g.flat, g.itemsOf(&g.calls[ci])...)
			}
			nodes := g.flat[first:]
			slices.SortFunc(nodes, func(a, b int32) int { return cmp.Compare(g.items[a].recStart, g.items[b].recStart) })
			gi := int32(len(g.calls))
			for _, ii := range nodes {
				it := &g.items[ii]
				it.call, it.lat, it.gap = gi, 0, costs.NodeNS
			}
			g.calls = append(g.calls, rCall{thread: int32(th), kind: callGraph, recStart: from, recEnd: to,
				cost: costs.ReplayHostNS + costs.LaunchNodeNS*int64(len(nodes)), lo: first, n: int32(len(nodes)), waitItem: -1})
			keep[th] = append(keep[th], gi)
			keep[th] = append(keep[th], run[hi:]...)
			run = run[:0]
		}
		r := ri
		inRegion := false
		for _, ci := range calls {
			c := g.calls[ci] // a copy: flush appends to g.calls
			for r < len(regions) && regions[r].thread == int32(th) && regions[r].end <= c.recStart {
				if inRegion {
					flush(regions[r].end)
					inRegion = false
				}
				r++
			}
			in := r < len(regions) && regions[r].thread == int32(th) && regions[r].start <= c.recStart
			if !in {
				keep[th] = append(keep[th], ci)
				continue
			}
			if !inRegion {
				inRegion, runFrom = true, regions[r].start
			}
			if c.blocks() || slices.ContainsFunc(g.itemsOf(&c), func(ii int32) bool { return g.items[ii].host }) {
				flush(c.recStart)
				keep[th] = append(keep[th], ci)
				runFrom = c.recEnd
				continue
			}
			run = append(run, ci)
		}
		if inRegion {
			flush(regions[r].end)
		}
		ri = r
	}
	g.threads = keep
}

// A threadRange is a host time range of one replayed thread.
type threadRange struct {
	thread     int32
	start, end int64
}

// compiledRegions returns the outermost compiled regions
// (trace.CompiledRegionPrefix) of the replayed threads inside the steps.
func (g *replayGraph) compiledRegions() []threadRange {
	ths := map[thread]int32{}
	for i, th := range g.tids {
		ths[th] = int32(i)
	}
	lo, hi := g.steps[0].hostStart, g.steps[len(g.steps)-1].hostEnd
	var out []threadRange
	lastEnd := map[int32]int64{}
	for _, oi := range g.regionOps {
		op := &g.t.Ops[oi]
		if op.Start < lo {
			continue
		}
		if op.Start >= hi {
			break
		}
		th, ok := ths[thread{op.PID, op.TID}]
		if !ok {
			continue
		}
		if e, seen := lastEnd[th]; seen && op.Start < e {
			continue // nested in the region before
		}
		lastEnd[th] = op.End
		out = append(out, threadRange{th, op.Start, op.End})
	}
	return out
}
