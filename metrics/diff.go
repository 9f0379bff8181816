package metrics

import (
	"cmp"
	"slices"
	"strings"

	"github.com/traceql/traceql/trace"
)

// KernelStats aggregates a device's kernels by key(name) — the name itself,
// or Family — sorted by total time, longest first, ties by name.
func KernelStats(t *trace.Trace, dev int, key func(string) string) []KernelStat {
	out := kernelStats(t, dev, key)
	slices.SortFunc(out, longestFirst)
	return out
}

// kernelStats is KernelStats in order of first appearance.
func kernelStats(t *trace.Trace, dev int, key func(string) string) []KernelStat {
	a := newKernelAgg()
	for i := range t.Kernels {
		k := &t.Kernels[i]
		if k.Device != dev {
			continue
		}
		name := k.Name
		if key != nil {
			name = key(name)
		}
		a.add(name, k.Dur())
	}
	return a.done()
}

// kernelAgg aggregates kernel durations by name. Names map to indices into
// one slice, not to a record each: a trace of a million distinct names
// then makes two big allocations, not a million small ones for the
// collector to scan.
type kernelAgg struct {
	index map[string]int
	stats []KernelStat
	total int64
}

func newKernelAgg() *kernelAgg { return &kernelAgg{index: map[string]int{}} }

// add counts a kernel of this name and duration, and returns the name's
// index in the stats, in order of first appearance.
func (a *kernelAgg) add(name string, dur int64) int {
	j, ok := a.index[name]
	if !ok {
		j = len(a.stats)
		a.index[name] = j
		a.stats = append(a.stats, KernelStat{Name: name, MinNS: dur, MaxNS: dur})
	}
	ks := &a.stats[j]
	ks.Count++
	ks.TotalNS += dur
	ks.MinNS = min(ks.MinNS, dur)
	ks.MaxNS = max(ks.MaxNS, dur)
	a.total += dur
	return j
}

// done fills in each name's mean and share of the total, and returns the
// stats in order of first appearance.
func (a *kernelAgg) done() []KernelStat {
	for i := range a.stats {
		ks := &a.stats[i]
		ks.MeanNS = float64(ks.TotalNS) / float64(ks.Count)
		if a.total > 0 {
			ks.Share = float64(ks.TotalNS) / float64(a.total)
		}
	}
	return a.stats
}

// longestFirst orders kernel stats by total time, longest first, ties by
// name.
func longestFirst(a, b KernelStat) int {
	return cmp.Or(cmp.Compare(b.TotalNS, a.TotalNS), cmp.Compare(a.Name, b.Name))
}

// top returns the n first of xs in the order of cmp, a total order, in a
// slice of their own, without sorting them all unless n covers them; none
// for n ≤ 0. The n first so far are kept in a heap with the last of them
// on top, so a large n (summarize --top 100000 of a million kernel names)
// costs len(xs)·log n, not len(xs)·n.
func top[T any](xs []T, n int, cmp func(a, b T) int) []T {
	if n <= 0 || len(xs) == 0 {
		return nil
	}
	if n >= len(xs) {
		h := slices.Clone(xs)
		slices.SortFunc(h, cmp)
		return h
	}
	h := make([]T, 0, n)
	// down restores the heap below i: each node comes no earlier than its
	// children.
	down := func(i int) {
		for {
			c := 2*i + 1
			if c >= len(h) {
				return
			}
			if c+1 < len(h) && cmp(h[c+1], h[c]) > 0 {
				c++
			}
			if cmp(h[i], h[c]) >= 0 {
				return
			}
			h[i], h[c] = h[c], h[i]
			i = c
		}
	}
	for _, x := range xs {
		if len(h) < n {
			h = append(h, x)
			for i := len(h) - 1; i > 0 && cmp(h[i], h[(i-1)/2]) > 0; i = (i - 1) / 2 {
				h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
			}
		} else if cmp(x, h[0]) < 0 {
			h[0] = x
			down(0)
		}
	}
	slices.SortFunc(h, cmp)
	return h
}

// Family normalizes a kernel name so that the same kernel matches across
// compiles and template instantiations: Triton/Inductor names lose their
// numeric suffix (triton_poi_fused_add_0 → triton_poi_fused_add), templated
// C++ names are cut to their base name (void at::native::foo<4, …>(int, …)
// → at::native::foo, keeping an "(anonymous namespace)" in the base name),
// other names are kept.
func Family(name string) string {
	if strings.HasPrefix(name, "triton_") {
		// Drop the numeric suffix Inductor appends: _0, _12.
		s := strings.TrimRight(name, "0123456789")
		if len(s) < len(name) && strings.HasSuffix(s, "_") {
			return s[:len(s)-1]
		}
		return name
	}
	s := Declarator(name)
	i := 0
	for {
		j := strings.IndexAny(s[i:], "<(")
		if j < 0 {
			return strings.TrimSpace(s)
		}
		i += j
		if !strings.HasPrefix(s[i:], anonymous) {
			break
		}
		i += len(anonymous)
	}
	if i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// Declarator is a demangled C++ function name without its return type:
// "void " and longer ones, std::enable_if<!(false), void>::type before
// cuBLAS's internal::gemvx::kernel<…>(…), which would otherwise be read
// as the kernel's name. The return type ends at the last space outside
// brackets before the parameter list; a name without one is returned
// whole.
func Declarator(name string) string {
	depth, space := 0, -1
	for i := 0; i < len(name); i++ {
		if strings.HasPrefix(name[i:], anonymous) {
			i += len(anonymous) - 1
			continue
		}
		switch name[i] {
		case '(':
			if depth == 0 { // the parameter list
				return strings.TrimSpace(name[space+1:])
			}
			depth++
		case '<', '[':
			depth++
		case '>', ')', ']':
			if depth > 0 {
				depth--
			}
		case ' ':
			if depth == 0 {
				space = i
			}
		}
	}
	if depth == 0 && strings.HasPrefix(name, "void ") {
		return strings.TrimSpace(name[len("void "):])
	}
	return name
}

// anonymous is how C++ demangles a name in an unnamed namespace.
const anonymous = "(anonymous namespace)"

// A KernelDelta pairs one kernel (or family) across two runs.
type KernelDelta struct {
	Name     string
	Old, New KernelStat // Count 0 where the kernel is absent
	DeltaNS  int64      // New.TotalNS − Old.TotalNS
}

// Status says "new" or "gone" for a kernel found in one run only, else "".
func (d KernelDelta) Status() string {
	switch {
	case d.Old.Count == 0:
		return "new"
	case d.New.Count == 0:
		return "gone"
	}
	return ""
}

// diffKernels matches kernel statistics of two runs by name, sorted by the
// absolute change in total time, largest first, ties by name.
func diffKernels(old, new []KernelStat) []KernelDelta {
	index := make(map[string]int, len(old))
	for i, k := range old {
		index[k.Name] = i
	}
	n := len(old)
	for _, k := range new {
		if _, ok := index[k.Name]; !ok {
			n++
		}
	}
	out := make([]KernelDelta, len(old), n) // a slice of a million grown by append spent most of diff's time copying
	for i, k := range old {
		out[i] = KernelDelta{Name: k.Name, Old: k}
	}
	for _, k := range new {
		if i, ok := index[k.Name]; ok {
			out[i].New = k
		} else {
			out = append(out, KernelDelta{Name: k.Name, New: k})
		}
	}
	for i := range out {
		out[i].DeltaNS = out[i].New.TotalNS - out[i].Old.TotalNS
	}
	slices.SortFunc(out, func(a, b KernelDelta) int {
		return cmp.Or(cmp.Compare(abs(b.DeltaNS), abs(a.DeltaNS)), cmp.Compare(a.Name, b.Name))
	})
	return out
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// DiffOptions tune DiffTraces.
type DiffOptions struct {
	Family bool    // match kernels by Family instead of by exact name
	Alpha  float64 // significance level of step comparisons; 0 means 0.05
	// Ops asks for each device's GPU time by host op (DeviceSummary.Ops)
	// in both summaries, to compare by op.
	Ops bool
	// Capture names, with Ops, the kernels of each side's graph launches
	// by the capture of that side (Options.Capture): Capture[0] old's,
	// Capture[1] new's; nil for none.
	Capture [2]*Capture
	// Flops asks for each device's FLOPs and MFU (DeviceSummary.Util),
	// from the ops of a read that kept their shapes, with these peaks.
	Flops bool
	Peak  PeakOverride
	// Workers is Options.Workers of both summaries.
	Workers int
}

// A Diff compares two traces device by device.
type Diff struct {
	Old, New Summary
	Devices  []DeviceDiff
	// ByOp says the devices' GPU time by op is compared (DiffOptions.Ops).
	ByOp bool
}

// A DeviceDiff compares one device of each trace.
type DeviceDiff struct {
	Old, New *DeviceSummary
	Kernels  []KernelDelta
	Steps    []StepDelta // per-step distributions; empty unless both traces have ≥ 2 steps
}

// A StepDelta compares the per-step values of one metric.
type StepDelta struct {
	Metric      string
	Unit        Unit
	Old, New    []float64 // one value per step
	P           float64   // Mann-Whitney U two-sided p-value
	MinP        float64   // the smallest P these step counts allow (mannWhitneyMinP)
	Testable    bool      // MinP < alpha: there are steps enough to see a change
	Significant bool      // P < alpha: the change exceeds step-to-step spread
}

// DiffTraces compares a (old) and b (new). Devices pair up by position
// among the devices with GPU activity (rank-local GPU 0 with GPU 0, even
// when the traces number them differently).
func DiffTraces(a, b *trace.Trace, o DiffOptions) Diff {
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	var key func(string) string
	if o.Family {
		key = Family
	}
	so := Options{Scopes: o.Ops || o.Flops, Flops: o.Flops, Peak: o.Peak, Workers: o.Workers}
	sn := so
	so.Capture, sn.Capture = o.Capture[0], o.Capture[1]
	d := Diff{Old: Summarize(a, so), New: Summarize(b, sn), ByOp: o.Ops}
	// Unsorted: diffKernels sorts.
	ka, kb := devicesKernelStats(a, key), devicesKernelStats(b, key)
	for i := range max(len(d.Old.Devices), len(d.New.Devices)) {
		dd := DeviceDiff{}
		var sa, sb []StepStat
		if i < len(d.Old.Devices) {
			dd.Old = &d.Old.Devices[i]
			sa = dd.Old.Steps
		}
		if i < len(d.New.Devices) {
			dd.New = &d.New.Devices[i]
			sb = dd.New.Steps
		}
		dd.Kernels = diffKernels(at(ka, i), at(kb, i))
		if len(sa) >= 2 && len(sb) >= 2 {
			dd.Steps = diffSteps(sa, sb, o.Alpha)
		}
		d.Devices = append(d.Devices, dd)
	}
	return d
}

// devicesKernelStats returns kernelStats of each device with GPU activity,
// in the order of Summary.Devices.
func devicesKernelStats(t *trace.Trace, key func(string) string) [][]KernelStat {
	var out [][]KernelStat
	for dev, v := range DeviceViews(t) {
		out = append(out, kernelStats(v, dev, key))
	}
	return out
}

// at returns xs[i], or the zero value when i is past its end.
func at[T any](xs []T, i int) T {
	var zero T
	if i < len(xs) {
		return xs[i]
	}
	return zero
}

// A stepMetric is a per-step quantity diff compares.
type stepMetric struct {
	name string
	unit Unit
	f    func(StepStat) float64
}

// stepMetrics are the per-step quantities diff compares.
var stepMetrics = []stepMetric{
	{"step time", NS, func(s StepStat) float64 { return float64(s.DurNS()) }},
	{"kernels", Count, func(s StepStat) float64 { return float64(s.Kernels) }},
	{"busy", NS, func(s StepStat) float64 { return float64(s.BusyNS) }},
	{"idle", NS, func(s StepStat) float64 { return float64(s.IdleNS) }},
	{"GPU utilization", Ratio, func(s StepStat) float64 { return s.Util }},
}

func diffSteps(a, b []StepStat, alpha float64) []StepDelta {
	var out []StepDelta
	for _, m := range stepMetrics {
		sd := StepDelta{Metric: m.name, Unit: m.unit}
		for _, s := range a {
			sd.Old = append(sd.Old, m.f(s))
		}
		for _, s := range b {
			sd.New = append(sd.New, m.f(s))
		}
		sd.P = mannWhitney(sd.Old, sd.New)
		sd.MinP = mannWhitneyMinP(len(sd.Old), len(sd.New))
		sd.Testable = sd.MinP < alpha
		sd.Significant = sd.P < alpha
		out = append(out, sd)
	}
	return out
}

// MedianF returns the median of values (mean of the middle two for an even
// count); 0 for none. values is not modified.
func MedianF(values []float64) float64 {
	s := slices.Clone(values)
	slices.Sort(s)
	n := len(s)
	switch {
	case n == 0:
		return 0
	case n%2 == 1:
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
