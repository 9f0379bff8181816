package metrics

import (
	"cmp"
	"slices"

	"github.com/traceql/traceql/trace"
)

// A StreamStat is what one stream of a device did: HTA's per-stream idle
// view.
type StreamStat struct {
	Device  int
	Stream  int64
	Kernels int
	Copies  int // memcpys and memsets
	// SpanNS runs from the stream's first activity start to its last
	// end; BusyNS is the length of the union of its activity intervals,
	// IdleNS = SpanNS − BusyNS, Util = BusyNS / SpanNS (0 for an empty
	// span).
	SpanNS, BusyNS, IdleNS int64
	Util                   float64
}

// StreamStats measures each stream of device dev, by stream id.
func StreamStats(t *trace.Trace, dev int) []StreamStat {
	ivs := map[int64][]Interval{}
	stats := map[int64]*StreamStat{}
	get := func(a *trace.Activity) *StreamStat {
		s := stats[a.Stream]
		if s == nil {
			s = &StreamStat{Device: dev, Stream: a.Stream}
			stats[a.Stream] = s
		}
		ivs[a.Stream] = append(ivs[a.Stream], Interval{a.Start, a.End})
		return s
	}
	for i := range t.Kernels {
		if a := &t.Kernels[i].Activity; a.Device == dev {
			get(a).Kernels++
		}
	}
	for i := range t.Memcpys {
		if a := &t.Memcpys[i].Activity; a.Device == dev {
			get(a).Copies++
		}
	}
	for i := range t.Memsets {
		if a := &t.Memsets[i].Activity; a.Device == dev {
			get(a).Copies++
		}
	}
	out := make([]StreamStat, 0, len(stats))
	for id, s := range stats {
		u := union(ivs[id])
		s.SpanNS = u[len(u)-1].End - u[0].Start
		s.BusyNS = length(u)
		s.IdleNS = s.SpanNS - s.BusyNS
		if s.SpanNS > 0 {
			s.Util = float64(s.BusyNS) / float64(s.SpanNS)
		}
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b StreamStat) int { return cmp.Compare(a.Stream, b.Stream) })
	return out
}

// A NameDist aggregates the durations of the records of one name: host
// API calls (nsys stats' cuda_api_sum) or ranges (nvtx_sum).
type NameDist struct {
	Name                    string
	Count                   int
	TotalNS, MinNS, MaxNS   int64
	MeanNS, MedianNS, StdNS float64 // StdNS: sample standard deviation, 0 for one
	Share                   float64 // TotalNS / the total of all names
}

// APIStats aggregates the host API calls of t by name, the most total
// time first, ties by name.
func APIStats(t *trace.Trace) []NameDist {
	names := make([]string, len(t.APICalls))
	durs := make([]int64, len(t.APICalls))
	for i, c := range t.APICalls {
		names[i], durs[i] = c.Name, c.End-c.Start
	}
	return nameDists(names, durs)
}

// RangeStats aggregates t's ranges by name: record_function annotations
// (ProfilerStep#N among them) and NVTX ranges, not ops nor the device-side
// copies of annotations.
func RangeStats(t *trace.Trace) []NameDist {
	var names []string
	var durs []int64
	for i := range t.Ops {
		if o := &t.Ops[i]; o.Kind == trace.UserAnnotation || o.Kind == trace.NVTXRange {
			names, durs = append(names, o.Name), append(durs, o.End-o.Start)
		}
	}
	return nameDists(names, durs)
}

// nameDists aggregates durations by name.
func nameDists(names []string, durs []int64) []NameDist {
	index := map[string]int{}
	var by [][]int64
	var out []NameDist
	var total int64
	for i, n := range names {
		j, ok := index[n]
		if !ok {
			j = len(out)
			index[n] = j
			out = append(out, NameDist{Name: n})
			by = append(by, nil)
		}
		by[j] = append(by[j], durs[i])
		total += durs[i]
	}
	for j := range out {
		d := &out[j]
		xs := by[j]
		slices.Sort(xs)
		d.Count, d.MinNS, d.MaxNS = len(xs), xs[0], xs[len(xs)-1]
		for _, x := range xs {
			d.TotalNS += x
		}
		d.MeanNS = float64(d.TotalNS) / float64(d.Count)
		d.MedianNS = Median(xs)
		d.StdNS = sampleStddev(xs, d.MeanNS)
		if total > 0 {
			d.Share = float64(d.TotalNS) / float64(total)
		}
	}
	slices.SortFunc(out, func(a, b NameDist) int { return cmp.Or(cmp.Compare(b.TotalNS, a.TotalNS), cmp.Compare(a.Name, b.Name)) })
	return out
}

// A CopyDist summarizes the copies of one kind between two memory kinds,
// or the memsets of one memory kind, on one device: nsys stats'
// cuda_gpu_mem_size_sum and cuda_gpu_mem_time_sum in one row.
type CopyDist struct {
	Kind     string // HtoD, DtoH, …, or "memset"
	Src, Dst string // memory kinds; a memset's is Dst
	Count    int
	Bytes    int64 // in all
	// MinBytes, MedianBytes and MaxBytes describe one operation's size;
	// the median is the mean of the two middle sizes for an even count.
	MinBytes, MaxBytes int64
	MedianBytes        float64
	NS                 int64   // durations, summed
	GBps               float64 // Bytes / NS, GB = 1e9 B; 0 for no time
}

// CopyDists summarizes device dev's copies and memsets by kind and memory
// kinds, sorted by kind, then source and destination.
func CopyDists(t *trace.Trace, dev int) []CopyDist {
	type key struct{ kind, src, dst string }
	sizes := map[key][]int64{}
	ns := map[key]int64{}
	for i := range t.Memcpys {
		if m := &t.Memcpys[i]; m.Device == dev {
			k := key{m.Kind.String(), m.Src.String(), m.Dst.String()}
			sizes[k] = append(sizes[k], m.Bytes)
			ns[k] += m.Dur()
		}
	}
	for i := range t.Memsets {
		if m := &t.Memsets[i]; m.Device == dev {
			k := key{"memset", "", m.Mem.String()}
			sizes[k] = append(sizes[k], m.Bytes)
			ns[k] += m.Dur()
		}
	}
	out := make([]CopyDist, 0, len(sizes))
	for k, xs := range sizes {
		slices.Sort(xs)
		d := CopyDist{Kind: k.kind, Src: k.src, Dst: k.dst, Count: len(xs), MinBytes: xs[0], MaxBytes: xs[len(xs)-1],
			MedianBytes: Median(xs), NS: ns[k]}
		for _, x := range xs {
			d.Bytes += x
		}
		d.GBps = gbps(d.Bytes, d.NS)
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b CopyDist) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Src, b.Src), cmp.Compare(a.Dst, b.Dst))
	})
	return out
}
