package metrics

import (
	"cmp"
	"math"
	"slices"

	"github.com/traceql/traceql/trace"
)

// Busy classes: what a device is busy with. Each busy nanosecond is in
// exactly one, the first of these running at that nanosecond, in this
// order: a compute kernel hides the communication under it, any kernel
// hides a copy, any copy hides a memset, and an H2D copy hides a D2H one,
// which hides other copies. What is left of each class is the time it
// alone held the GPU up: its exposed time.
const (
	ClassCompute = iota
	ClassComm
	ClassH2D
	ClassD2H
	ClassOtherCopy
	ClassMemset
	NumClasses
)

// ClassNames are the classes' short names, in priority order, as the
// breakdown plot and the step tables write them.
var ClassNames = [NumClasses]string{"compute", "comm", "H2D", "D2H", "other copy", "memset"}

// BusyClasses splits a stretch of busy time into the classes: the
// exposed time of each, indexed by ClassCompute … ClassMemset. They add up
// to the busy time, exactly.
type BusyClasses [NumClasses]int64

// BusyNS is the sum of the classes: the busy time they split.
func (b BusyClasses) BusyNS() int64 {
	var n int64
	for _, v := range b {
		n += v
	}
	return n
}

// CopyNS is the exposed copy time: H2D, D2H and other copies.
func (b BusyClasses) CopyNS() int64 { return b[ClassH2D] + b[ClassD2H] + b[ClassOtherCopy] }

// exposedIntervals returns, for unions of intervals by class in priority
// order (each sorted and disjoint), the parts of each class's union that no
// earlier class covers: sorted, disjoint, and together the union of all,
// each nanosecond of it in one class. Each class is cut by every earlier
// one that is not empty, in turn; only the pieces of the classes after
// compute, few beside the kernels, are walked, each finding its place in a
// long union by binary search. A class nothing cuts (the first, or one
// after empty classes only, as collectives in a trace of nothing else) is
// its own union, the same slice.
func exposedIntervals(classes [NumClasses][]Interval) [NumClasses][]Interval {
	var out [NumClasses][]Interval
	out[ClassCompute] = classes[ClassCompute]
	// The cuts in between go to two buffers in turn; only each class's
	// last is kept.
	var buf [2][]Interval
	for i := 1; i < NumClasses; i++ {
		ex, cut := classes[i], 0
		for j := range i {
			if len(ex) == 0 {
				break
			}
			if len(classes[j]) == 0 {
				continue // cuts nothing: a copy of ex would cost its length
			}
			b := &buf[cut%2]
			*b = appendSubtract((*b)[:0], ex, classes[j])
			ex, cut = *b, cut+1
		}
		if cut > 0 {
			ex = slices.Clip(slices.Clone(ex)) // off the buffers
		}
		out[i] = ex
	}
	return out
}

// appendSubtract appends to out the parts of the disjoint, sorted
// intervals a outside the disjoint, sorted intervals b. Zero-length
// intervals add no time and are dropped.
func appendSubtract(out, a, b []Interval) []Interval {
	j := 0 // the first interval of b that may meet the next of a
	for _, iv := range a {
		// Skip the intervals of b that end by iv's start: a few one by
		// one, many (a sparse a against the kernels' union) by galloping
		// then binary search, in steps of the distance skipped rather than
		// of b's length.
		if k := j + 8; k < len(b) && b[k].End <= iv.Start {
			step := 16
			for k+step < len(b) && b[k+step].End <= iv.Start {
				k += step
				step *= 2
			}
			hi := min(k+step, len(b))
			n, _ := slices.BinarySearchFunc(b[k+1:hi], iv.Start, func(x Interval, t int64) int { return cmp.Compare(x.End, t+1) })
			j = k + 1 + n
		}
		for j < len(b) && b[j].End <= iv.Start {
			j++
		}
		start := iv.Start
		for k := j; k < len(b) && b[k].Start < iv.End; k++ {
			if b[k].Start == b[k].End {
				continue // covers no time
			}
			if b[k].Start > start {
				out = append(out, Interval{start, b[k].Start})
			}
			start = max(start, b[k].End)
		}
		if start < iv.End {
			out = append(out, Interval{start, iv.End})
		}
	}
	return out
}

// classLengths measures exposed intervals by class.
func classLengths(ex *[NumClasses][]Interval) BusyClasses {
	var b BusyClasses
	for i, ivs := range ex {
		b[i] = length(ivs)
	}
	return b
}

// classesIn measures exposed intervals by class inside the window w.
func classesIn(ex *[NumClasses][]Interval, w Interval) BusyClasses {
	var b BusyClasses
	for i, ivs := range ex {
		b[i] = lengthIn(ivs, w)
	}
	return b
}

// A ClassSpread is how one class's time varies from step to step.
type ClassSpread struct {
	Class    int     // ClassCompute … ClassMemset, or ClassIdle
	MedianNS float64 // median over the steps
	P90NS    int64   // 90th percentile, nearest rank
	// Step is the number of the step farthest from the median, and
	// StepNS its time in the class; the first such step on ties.
	Step   int
	StepNS int64
}

// ClassIdle stands for a step's idle time in a ClassSpread.
const ClassIdle = NumClasses

// StepClassSpreads returns, for each busy class and idle time, its median and
// p90 over the steps and the step that deviates most from the median;
// nil without steps.
func StepClassSpreads(steps []StepStat) []ClassSpread {
	if len(steps) == 0 {
		return nil
	}
	out := make([]ClassSpread, 0, NumClasses+1)
	vals := make([]int64, len(steps))
	for c := range NumClasses + 1 {
		for i, s := range steps {
			if c == ClassIdle {
				vals[i] = s.IdleNS
			} else {
				vals[i] = s.Classes[c]
			}
		}
		sorted := slices.Sorted(slices.Values(vals))
		sp := ClassSpread{Class: c, MedianNS: Median(sorted), P90NS: percentile(sorted, 90)}
		far := -1.0
		for i, v := range vals {
			if d := math.Abs(float64(v) - sp.MedianNS); d > far {
				far, sp.Step, sp.StepNS = d, steps[i].Number, v
			}
		}
		out = append(out, sp)
	}
	return out
}

// copyClass is the busy class of a memcpy of kind k.
func copyClass(k trace.CopyKind) int {
	switch k {
	case trace.HtoD:
		return ClassH2D
	case trace.DtoH:
		return ClassD2H
	}
	return ClassOtherCopy
}

// splitBusy fills in the busy classes of d and of its steps, measured
// already, from the unions of the device's intervals by class, and returns
// the exposed intervals by class.
func splitBusy(d *DeviceSummary, classes [NumClasses][]Interval) [NumClasses][]Interval {
	ex := exposedIntervals(classes)
	d.Classes = classLengths(&ex)
	// Steps come in order of start: each class's search starts where the
	// last step's found its first interval.
	var from [NumClasses]int
	for i := range d.Steps {
		s := &d.Steps[i]
		for c, ivs := range ex {
			s.Classes[c], from[c] = lengthFrom(ivs, Interval{s.Start, s.End}, from[c])
		}
	}
	return ex
}

// deviceClasses returns the unions of device dev's intervals by busy
// class, as summarizeDevice builds them on its way through the records.
func deviceClasses(t *trace.Trace, dev int) [NumClasses][]Interval {
	var c [NumClasses][]Interval
	for i := range t.Kernels {
		if k := &t.Kernels[i]; k.Device == dev {
			ci := ClassCompute
			if isCommKernel(k.Name) {
				ci = ClassComm
			}
			c[ci] = appendUnion(c[ci], Interval{k.Start, k.End})
		}
	}
	for i := range t.Memcpys {
		if m := &t.Memcpys[i]; m.Device == dev {
			ci := copyClass(m.Kind)
			c[ci] = appendUnion(c[ci], Interval{m.Start, m.End})
		}
	}
	for i := range t.Memsets {
		if m := &t.Memsets[i]; m.Device == dev {
			c[ClassMemset] = appendUnion(c[ClassMemset], Interval{m.Start, m.End})
		}
	}
	return c
}

// SpanClasses returns device dev's busy classes over its whole span and
// its idle time: what a run without steps shows in place of a step.
func SpanClasses(t *trace.Trace, dev int) (BusyClasses, int64) {
	ex := exposedIntervals(deviceClasses(t, dev))
	b := classLengths(&ex)
	busy := deviceBusy(t, dev)
	if len(busy) == 0 {
		return b, 0
	}
	return b, busy[len(busy)-1].End - busy[0].Start - length(busy)
}

// MedianStep returns the step of median length, the shorter of the two
// middle ones for an even count, the first in step order on ties: a step
// that ran, whose classes add up, unlike medians taken class by class.
// ok is false without steps.
func MedianStep(steps []StepStat) (s StepStat, ok bool) {
	if len(steps) == 0 {
		return s, false
	}
	byLen := slices.Clone(steps)
	slices.SortStableFunc(byLen, func(a, b StepStat) int { return cmp.Compare(a.DurNS(), b.DurNS()) })
	return byLen[(len(byLen)-1)/2], true
}
