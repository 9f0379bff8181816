package trace

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// finish puts a freshly read trace into the shape Validate checks: slices
// sorted (stably, so ties keep file order), devices and streams listed.
// known holds what the file said about devices; devices only seen in
// activities are added with what little is known of them.
func finish(t *Trace, known []Device) (*Trace, error) {
	byStart := func(a, b *Activity) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	}
	// The tables are sorted in parallel; most come sorted already.
	var wg sync.WaitGroup
	sortStable(&wg, t.Kernels, func(a, b Kernel) int { return byStart(&a.Activity, &b.Activity) })
	sortStable(&wg, t.Memcpys, func(a, b Memcpy) int { return byStart(&a.Activity, &b.Activity) })
	sortStable(&wg, t.Memsets, func(a, b Memset) int { return byStart(&a.Activity, &b.Activity) })
	sortStable(&wg, t.Syncs, func(a, b Sync) int { return byStart(&a.Activity, &b.Activity) })
	sortStable(&wg, t.APICalls, func(a, b APICall) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	})
	sortStable(&wg, t.Ops, func(a, b Op) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
	})
	wg.Wait()

	devs := map[int]Device{}
	for _, d := range known {
		devs[d.ID] = d
	}
	streams := map[Stream]bool{}
	add := func(a *Activity) {
		if _, ok := devs[a.Device]; !ok {
			devs[a.Device] = Device{ID: a.Device}
		}
		if s := (Stream{a.Device, a.Stream}); !streams[s] {
			streams[s] = true
		}
	}
	t.EachGPUActivity(add)
	for i := range t.Syncs {
		add(&t.Syncs[i].Activity)
	}
	// A GPU trace has a handful of devices and at most thousands of
	// streams; millions mean a broken or hostile file, and would make
	// every per-device loop crawl.
	if len(devs) > maxDevices || len(streams) > maxStreams {
		return nil, fmt.Errorf("%s: %d devices and %d streams: more than a GPU trace can have (limits %d and %d)",
			t.Source, len(devs), len(streams), maxDevices, maxStreams)
	}
	t.Devices = t.Devices[:0]
	for _, d := range devs {
		t.Devices = append(t.Devices, d)
	}
	slices.SortFunc(t.Devices, func(a, b Device) int { return cmp.Compare(a.ID, b.ID) })
	t.Streams = t.Streams[:0]
	for s := range streams {
		t.Streams = append(t.Streams, s)
	}
	slices.SortFunc(t.Streams, cmpStream)
	if err := t.Validate(); err != nil {
		return nil, fmt.Errorf("%s: internal error: trace fails validation: %w", t.Source, err)
	}
	return t, nil
}

// sortStable sorts s stably with cmp, in a goroutine of wg.
func sortStable[T any](wg *sync.WaitGroup, s []T, cmp func(a, b T) int) {
	wg.Go(func() {
		if !slices.IsSortedFunc(s, cmp) {
			slices.SortStableFunc(s, cmp)
		}
	})
}

// Limits on what a trace may hold.
const (
	maxDevices = 4096
	maxStreams = 1 << 20
)

// counter aggregates repeated warnings so that a million bad events make one
// line, in the order the kinds were first seen.
type counter struct {
	order []string
	n     map[string]int
}

func (c *counter) add(msg string) { c.addN(msg, 1) }

func (c *counter) addN(msg string, n int) {
	if c.n == nil {
		c.n = map[string]int{}
	}
	if c.n[msg] == 0 {
		c.order = append(c.order, msg)
	}
	c.n[msg] += n
}

// lines renders the warnings, each with its count: "3 events without dur skipped".
func (c *counter) lines() []string {
	var out []string
	for _, m := range c.order {
		out = append(out, fmt.Sprintf("%d %s", c.n[m], m))
	}
	return out
}
