package metrics

import (
	"container/heap"
	"slices"
)

// run replays the graph: every host thread from time 0 (the first step's
// host start), its calls in order, each after the host work recorded
// before it; device work as its launches and streams allow. The threads
// advance together in time order, so that a blocking call sees all work
// launched before it by any thread.
func (g *replayGraph) run() {
	type stream struct {
		end   int64
		last  int32
		endBy int32 // the work that ends at end
	}
	var done []bool // replayed in this run: for waits on other streams' work
	if len(g.after) > 0 || len(g.waits) > 0 {
		done = make([]bool, len(g.items))
	}
	streams := map[int64]*stream{}
	var drained int64 // end of the last work of the device
	drainedBy := int32(-1)
	at := make([]int64, len(g.threads))       // the thread's replayed time
	recAt := make([]int64, len(g.threads))    // its recorded time, at the end of its last call
	next := make([]int, len(g.threads))       // its next call
	q := make(threadQueue, 0, len(g.threads)) // by the start of its next call
	startOf := func(th int) int64 {
		c := &g.calls[g.threads[th][next[th]]]
		return at[th] + max(c.recStart-recAt[th], 0)
	}
	for th := range g.threads {
		recAt[th] = g.origin
		if len(g.threads[th]) > 0 {
			q = append(q, queued{startOf(th), th})
		}
	}
	heap.Init(&q)
	for len(q) > 0 {
		th := q[0].thread
		ci := g.threads[th][next[th]]
		c := &g.calls[ci]
		c.start, c.waitItem = q[0].at, -1
		c.end = c.start + c.cost
		ready := c.start
		if c.kind == callGraph {
			ready = c.end // the nodes are ready once the launch returns
		}
		wait, waitBy := drained, drainedBy // callBlockAll: all launched before
		switch c.kind {
		case callBlockOwn:
			wait, waitBy = -1<<62, -1
		case callBlockStream:
			wait, waitBy = -1<<62, -1
			if s := streams[g.waits[ci].stream]; s != nil {
				wait, waitBy = s.end, s.endBy
			}
		case callBlockEvent:
			wait, waitBy = -1<<62, -1
			if w := g.waits[ci].item; done[w] {
				wait, waitBy = g.items[w].end, w
			}
		}
		for _, ii := range g.itemsOf(c) {
			it := &g.items[ii]
			it.start, it.byStream, it.byWait, it.prev = ready+it.lat, false, false, -1
			s := streams[it.stream]
			if s == nil {
				s = &stream{last: -1}
				streams[it.stream] = s
			}
			if s.last >= 0 {
				it.prev = s.last
				if b := s.end + it.gap; b > it.start {
					it.start, it.byStream = b, true
				}
			}
			if it.waits {
				if w := g.after[ii]; done[w.item] {
					if b := g.items[w.item].end + w.gap; b > it.start {
						it.start, it.byStream, it.byWait = b, false, true
					}
				}
			}
			it.end = it.start + it.dur
			if done != nil {
				done[ii] = true
			}
			if s.last < 0 || it.end >= s.end {
				s.end, s.endBy = it.end, ii
			}
			s.last = ii
			if it.end > drained || drainedBy < 0 {
				drained, drainedBy = it.end, ii
			}
			if c.kind == callBlockOwn && it.end > wait {
				wait, waitBy = it.end, ii
			}
		}
		if c.blocks() {
			// The cost past the wait of a pageable copy may be negative:
			// the call ends no earlier than its own time allows.
			c.end = c.start + max(c.cost, 0)
			if waitBy >= 0 && wait+c.cost > c.end {
				c.end, c.waitItem = wait+c.cost, waitBy
			}
		}
		at[th], recAt[th] = c.end, c.recEnd
		next[th]++
		if next[th] < len(g.threads[th]) {
			q[0].at = startOf(th)
			heap.Fix(&q, 0)
		} else {
			heap.Pop(&q)
		}
	}
}

// A queued thread waits to make its next call at a replayed time.
type queued struct {
	at     int64
	thread int
}

// threadQueue orders threads by the start of their next call, then by
// thread, so that the replay is deterministic.
type threadQueue []queued

func (q threadQueue) Len() int { return len(q) }
func (q threadQueue) Less(i, j int) bool {
	return q[i].at < q[j].at || q[i].at == q[j].at && q[i].thread < q[j].thread
}
func (q threadQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *threadQueue) Push(x any)   { *q = append(*q, x.(queued)) }
func (q *threadQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// hostAt maps a recorded host time x on thread th to replayed time: the
// same distance from the call before it (inside a call, at most its
// replayed length).
func (g *replayGraph) hostAt(th int32, x int64) int64 {
	if th < 0 {
		return x - g.origin
	}
	calls := g.threads[th]
	i, _ := slices.BinarySearchFunc(calls, x, func(ci int32, x int64) int {
		switch s := g.calls[ci].recStart; {
		case s < x:
			return -1
		case s > x:
			return 1
		}
		return 0
	})
	// calls[i] is the first call starting at or after x.
	if i < len(calls) && g.calls[calls[i]].recStart == x {
		return g.calls[calls[i]].start
	}
	if i == 0 {
		return x - g.origin
	}
	c := &g.calls[calls[i-1]]
	if x < c.recEnd {
		return c.start + min(x-c.recStart, c.end-c.start)
	}
	return c.end + (x - c.recEnd)
}

// windows returns each step's replayed window, drawn as its measured one
// was (see Steps): a device-side step from the first start to the last
// end of the work launched inside its host range; a projected one from
// its host start, or the end of the step before, to its host end or the
// last end of that work; a host-only one, its host range. last is the
// work that ends a window (-1: host time ends it).
func (g *replayGraph) windows() (w []Interval, last []int32) {
	w = make([]Interval, len(g.steps))
	last = make([]int32, len(g.steps))
	has := make([]bool, len(g.steps))
	for i := range last {
		last[i] = -1
	}
	cached := -1 // the step of the item before: the next one's, most often
	for ii := range g.items {
		it := &g.items[ii]
		x := g.calls[it.call].recStart
		s := cached
		if s < 0 || x < g.steps[s].hostStart || x >= g.steps[s].hostEnd {
			s = g.stepOf(x)
			cached = s
		}
		if s < 0 {
			continue
		}
		if !has[s] {
			w[s], has[s], last[s] = Interval{it.start, it.end}, true, int32(ii)
			continue
		}
		w[s].Start = min(w[s].Start, it.start)
		if it.end > w[s].End {
			w[s].End, last[s] = it.end, int32(ii)
		}
	}
	prevEnd := int64(-1 << 62)
	for i := range g.steps {
		s := &g.steps[i]
		if s.Source == "gpu" && has[i] {
			continue
		}
		hs, he := g.hostAt(s.thread, s.hostStart), g.hostAt(s.thread, s.hostEnd)
		if s.Source == "cpu" || !has[i] {
			w[i], last[i] = Interval{hs, he}, -1
		} else {
			if he > w[i].End {
				w[i].End, last[i] = he, -1
			}
			w[i].Start = min(max(hs, prevEnd), w[i].End)
		}
		prevEnd = w[i].End
	}
	return w, last
}

// stepOf returns the step whose host range holds recorded time x, or -1.
func (g *replayGraph) stepOf(x int64) int {
	i, _ := slices.BinarySearchFunc(g.steps, x, func(s replayStep, x int64) int {
		if s.hostStart <= x {
			return -1
		}
		return 1
	})
	// steps[i-1] is the last step starting at or before x.
	if i == 0 || x >= g.steps[i-1].hostEnd {
		return -1
	}
	return i - 1
}
