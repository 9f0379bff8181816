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
// activities are added with what little is known of them. Copies and
// memsets of a negative byte count are counted as 0 bytes, with a warning
// (an error under strict).
func finish(t *Trace, known []Device, strict bool) (*Trace, error) {
	if w := clearNegativeBytes(t); w != "" {
		if strict {
			return nil, fmt.Errorf("%s: %s (--strict)", t.Source, w)
		}
		t.Warnings = append(t.Warnings, w)
	}
	// The tables are sorted in parallel (most come sorted already), and
	// the streams of each device table listed by its goroutine.
	var wg sync.WaitGroup
	var seen [4][]Stream
	sortActivities(&wg, t.Kernels, func(k *Kernel) *Activity { return &k.Activity }, &seen[0])
	sortActivities(&wg, t.Memcpys, func(m *Memcpy) *Activity { return &m.Activity }, &seen[1])
	sortActivities(&wg, t.Memsets, func(m *Memset) *Activity { return &m.Activity }, &seen[2])
	sortActivities(&wg, t.Syncs, func(s *Sync) *Activity { return &s.Activity }, &seen[3])
	wg.Go(func() {
		sortStable(t.APICalls, func(a, b APICall) int {
			return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
		})
	})
	wg.Go(func() {
		sortStable(t.Ops, func(a, b Op) int {
			return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.End, b.End))
		})
	})
	wg.Wait()
	if err := checkTotals(t); err != nil {
		return nil, err
	}

	devs := map[int]Device{}
	for _, d := range known {
		devs[d.ID] = d
	}
	streams := map[Stream]bool{}
	for _, ss := range seen {
		for _, s := range ss {
			if _, ok := devs[s.Device]; !ok {
				devs[s.Device] = Device{ID: s.Device}
			}
			streams[s] = true
		}
	}
	adoptLoneProperties(t, known, devs, streams)
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

// adoptLoneProperties gives a Kineto trace's one active GPU the
// properties of its one deviceProperties entry when the two ids differ:
// ROCm traces list the GPU under its index among the visible devices while
// the records carry another number (an MI250 trace lists id 0, its kernels
// say device 2). devs holds the known devices and those of streams, the
// streams with records.
func adoptLoneProperties(t *Trace, known []Device, devs map[int]Device, streams map[Stream]bool) {
	if t.Meta.Format != Kineto || len(known) != 1 || len(devs) != 2 {
		return
	}
	k := known[0]
	for s := range streams {
		if s.Device == k.ID {
			return // the listed device has records of its own
		}
	}
	for id, d := range devs {
		if id != k.ID && d.Name == "" {
			k.ID = id
			devs[id] = k
			delete(devs, known[0].ID)
			return
		}
	}
}

// sortActivities sorts s stably by (Start, End), in a goroutine of wg,
// and then sets *streams to the streams of its records.
func sortActivities[T any](wg *sync.WaitGroup, s []T, act func(*T) *Activity, streams *[]Stream) {
	wg.Go(func() {
		sortStable(s, func(a, b T) int {
			x, y := act(&a), act(&b)
			return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(x.End, y.End))
		})
		seen := map[Stream]bool{}
		var last Stream
		for i := range s {
			// Records of one stream come in runs: the map is asked once a run.
			if a := act(&s[i]); i == 0 || a.Device != last.Device || a.Stream != last.ID {
				last = Stream{a.Device, a.Stream}
				if !seen[last] {
					seen[last] = true
					*streams = append(*streams, last)
				}
			}
		}
	})
}

// clearNegativeBytes sets the negative byte counts of copies and memsets
// to 0, which would otherwise subtract from the volume and bandwidth
// ("H2D bytes -1 kB"), and says how many there were; "" when none.
func clearNegativeBytes(t *Trace) string {
	var n int
	var first int64
	note := func(b *int64) {
		if *b < 0 {
			if n == 0 {
				first = *b
			}
			n++
			*b = 0
		}
	}
	for i := range t.Memcpys {
		note(&t.Memcpys[i].Bytes)
	}
	for i := range t.Memsets {
		note(&t.Memsets[i].Bytes)
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d copies or memsets with a negative byte count (the first: %d): counted as 0 bytes", n, first)
}

// checkTotals refuses a trace whose durations or bytes, added up over a
// table, pass MaxTime: 146 years of GPU time, or 4.6 EB copied, which the
// metrics' sums could not hold. Only a broken or hostile file comes near.
func checkTotals(t *Trace) error {
	totals := []struct {
		what string
		ok   func() bool
	}{
		{"kernel durations", func() bool { return within(t.Kernels, func(k *Kernel) int64 { return k.Dur() }) }},
		{"memcpy durations", func() bool { return within(t.Memcpys, func(m *Memcpy) int64 { return m.Dur() }) }},
		{"memcpy bytes", func() bool { return within(t.Memcpys, func(m *Memcpy) int64 { return m.Bytes }) }},
		{"memset durations", func() bool { return within(t.Memsets, func(m *Memset) int64 { return m.Dur() }) }},
		{"memset bytes", func() bool { return within(t.Memsets, func(m *Memset) int64 { return m.Bytes }) }},
		{"sync durations", func() bool { return within(t.Syncs, func(s *Sync) int64 { return s.Dur() }) }},
		{"API call durations", func() bool { return within(t.APICalls, func(c *APICall) int64 { return c.End - c.Start }) }},
		{"op durations", func() bool { return within(t.Ops, func(o *Op) int64 { return o.End - o.Start }) }},
	}
	ok := make([]bool, len(totals))
	var wg sync.WaitGroup
	for i, c := range totals {
		wg.Go(func() { ok[i] = c.ok() })
	}
	wg.Wait()
	for i, c := range totals {
		if !ok[i] {
			return fmt.Errorf("%s: the %s add up to more than 2^62: not a trace traceql can measure", t.Source, c.what)
		}
	}
	return nil
}

// within reports whether the values of s's elements add up to no more
// than MaxTime, nor less than -MaxTime.
func within[T any](s []T, v func(*T) int64) bool {
	var sum int64
	for i := range s {
		x := v(&s[i])
		if x > MaxTime-sum || x < -MaxTime-sum {
			return false
		}
		sum += x
	}
	return true
}

// sortStable sorts s stably with cmp unless it is sorted already.
func sortStable[T any](s []T, cmp func(a, b T) int) {
	if !slices.IsSortedFunc(s, cmp) {
		slices.SortStableFunc(s, cmp)
	}
}

// Limits on what a trace may hold.
const (
	maxDevices = 4096
	maxStreams = 1 << 20
)

// warningCounts aggregates repeated warnings so that a million bad events make one
// line, in the order the kinds were first seen.
type warningCounts struct {
	order []string
	n     map[string]int
}

func (c *warningCounts) add(msg string) { c.addN(msg, 1) }

func (c *warningCounts) addN(msg string, n int) {
	if c.n == nil {
		c.n = map[string]int{}
	}
	if c.n[msg] == 0 {
		c.order = append(c.order, msg)
	}
	c.n[msg] += n
}

// lines renders the warnings, each with its count: "3 events without dur skipped".
func (c *warningCounts) lines() []string {
	var out []string
	for _, m := range c.order {
		out = append(out, fmt.Sprintf("%d %s", c.n[m], m))
	}
	return out
}
