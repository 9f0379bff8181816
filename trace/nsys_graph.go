package trace

import (
	"cmp"
	"slices"
)

// nsysGraphNodes is the table of graph node events nsys writes with
// --cuda-graph-trace=node: a node's creation, at the time and on the
// thread of the API call that made it, and its clones, each naming its
// original.
const nsysGraphNodes = "CUDA_GRAPH_NODE_EVENTS"

// graphNodes gives the launch calls that became graph nodes during a
// stream capture their node ids (Trace.LaunchArgs), for a read that keeps
// them: the node created on the call's thread while the call ran. A
// replayed kernel's graphNodeId is its node in the executable graph, a
// clone of the captured node that cudaGraphInstantiate made; where the
// export records the one clone of a node, the call gets the clone's id,
// so that it equals its kernels' in every replay. A node cloned more than
// once (one graph instantiated twice) gives its call no id: its kernels
// are then paired by order.
func (r *nsysReader) graphNodes() error {
	if !r.keepLaunchArgs || !r.tables[nsysGraphNodes] {
		return nil
	}
	type event struct {
		pid, tid, start int64
		node, original  int64 // original 0: a node made, not a clone
	}
	events, _, err := readTable(r, nsysGraphNodes, []string{"start", "?globalTid", "graphNodeId", "?originalGraphNodeId"}, "",
		func(s *rowScanner) (event, struct{}, bool, error) {
			if s.null(2) {
				return event{}, struct{}{}, false, nil
			}
			g := s.int(1)
			return event{pidOf(g), tidOf(g), s.int(0), s.int(2), s.int(3)}, struct{}{}, true, nil
		})
	if err != nil {
		return r.tableErr(nsysGraphNodes, err)
	}
	clones := map[int64][]int64{}
	for _, e := range events {
		if e.original != 0 {
			clones[e.original] = append(clones[e.original], e.node)
		}
	}
	// Launch calls by thread, in time order, to find the one each
	// creation falls in.
	type thread struct{ pid, tid int64 }
	calls := map[thread][]int{}
	for i := range r.t.APICalls {
		a := &r.t.APICalls[i]
		if a.Correlation != 0 {
			calls[thread{a.PID, a.TID}] = append(calls[thread{a.PID, a.TID}], i)
		}
	}
	for _, cs := range calls {
		slices.SortFunc(cs, func(a, b int) int { return cmp.Compare(r.t.APICalls[a].Start, r.t.APICalls[b].Start) })
	}
	for _, e := range events {
		if e.original != 0 {
			continue
		}
		cs := calls[thread{e.pid, e.tid}]
		// The last call to start at or before the creation, if it is
		// still running then.
		j, _ := slices.BinarySearchFunc(cs, e.start+1, func(i int, t int64) int { return cmp.Compare(r.t.APICalls[i].Start, t) })
		if j == 0 {
			continue
		}
		a := &r.t.APICalls[cs[j-1]]
		if a.End < e.start {
			continue
		}
		node := e.node
		switch c := clones[e.node]; len(c) {
		case 0:
		case 1:
			node = c[0]
		default:
			continue
		}
		r.t.LaunchArgs = append(r.t.LaunchArgs, LaunchArg{PID: a.PID, Correlation: a.Correlation, GraphNode: node})
	}
	return nil
}
