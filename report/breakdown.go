package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// busyText is the GPU busy row of the headline: utilization, busy time
// and what the GPU is busy with, the classes largest first as shares of
// the span ("99.3 % (969 ms): copies 97.1 % (H2D), compute 2.3 %"), in
// at most width runes. What does not fit is left out, in this order: the
// busy time, the copy directions after the largest, then the smallest
// classes, with "…" where something is.
func busyText(d *metrics.DeviceSummary, util string, width int) string {
	c := d.Classes
	type part struct {
		ns   int64
		name string
	}
	ps := []part{{c[metrics.ClassCompute], "compute"}, {c[metrics.ClassComm], "comm"}, {c.CopyNS(), "copies"},
		{c[metrics.ClassMemset], "memsets"}}
	ps = slices.DeleteFunc(ps, func(p part) bool { return p.ns == 0 })
	slices.SortStableFunc(ps, func(a, b part) int { return cmp.Compare(b.ns, a.ns) })
	dirs := copyDirections(c)
	text := func(head string, classes, directions int) string {
		var out []string
		for _, p := range ps[:classes] {
			s := p.name + " " + spanShare(p.ns, d.SpanNS)
			if p.name == "copies" {
				ds := strings.Join(dirs[:directions], ", ")
				if directions < len(dirs) {
					ds += ", …"
				}
				s += " (" + ds + ")"
			}
			out = append(out, s)
		}
		if classes < len(ps) {
			out = append(out, "…")
		}
		if len(out) == 0 {
			return head
		}
		return head + ": " + strings.Join(out, ", ")
	}
	fits := func(s string) bool { return len([]rune(s)) <= width }
	withTime := fmt.Sprintf("%s (%s)", util, Format(d.BusyNS, metrics.NS))
	if s := text(withTime, len(ps), len(dirs)); fits(s) || len(ps) == 0 {
		return s
	}
	if s := text(util, len(ps), len(dirs)); fits(s) {
		return s
	}
	for n := len(ps); n > 0; n-- {
		if s := text(util, n, min(len(dirs), 1)); fits(s) {
			return s
		}
	}
	return text(util, 0, 0)
}

// spanShare writes part / span in percent, one decimal, as the headline's
// utilization is written; "<0.1 %" for a small share that is not 0.
func spanShare(part, span int64) string {
	p := 100 * float64(part) / float64(max(span, 1))
	if part > 0 && p < 0.05 {
		return "<0.1 %"
	}
	return strconv.FormatFloat(p, 'f', 1, 64) + " %"
}

// copyDirections names the copy classes with exposed time, largest first.
func copyDirections(c metrics.BusyClasses) []string {
	ks := []int{metrics.ClassH2D, metrics.ClassD2H, metrics.ClassOtherCopy}
	ks = slices.DeleteFunc(ks, func(k int) bool { return c[k] == 0 })
	slices.SortStableFunc(ks, func(a, b int) int { return cmp.Compare(c[b], c[a]) })
	var out []string
	for _, k := range ks {
		out = append(out, map[int]string{metrics.ClassH2D: "H2D", metrics.ClassD2H: "D2H", metrics.ClassOtherCopy: "other"}[k])
	}
	return out
}

// copyVerdict says that copies hold the GPU up, which ones (direction,
// memory kinds, bytes, rate) and what follows from their memory kind.
func copyVerdict(d *metrics.DeviceSummary) string {
	c := d.Classes
	s := fmt.Sprintf("copy-bound: copies run with no kernel beside them %s of the span (%s of %s); kernels run %s",
		metrics.ShareText(c.CopyNS(), d.SpanNS), Format(c.CopyNS(), metrics.NS), Format(d.SpanNS, metrics.NS),
		metrics.ShareText(c[metrics.ClassCompute]+c[metrics.ClassComm], d.SpanNS))
	pageable, pinned := false, true
	var kinds []string
	for _, k := range []struct {
		class int
		kind  string
		name  string
	}{{metrics.ClassH2D, "HtoD", "H2D"}, {metrics.ClassD2H, "DtoH", "D2H"}, {metrics.ClassOtherCopy, "", "other"}} {
		if c[k.class] == 0 {
			continue
		}
		var mem []string
		for _, cs := range d.Copies {
			other := cs.Kind != "HtoD" && cs.Kind != "DtoH"
			if cs.Kind != k.kind && !(k.kind == "" && other) {
				continue
			}
			pageable = pageable || cs.Src == "Pageable" || cs.Dst == "Pageable"
			pinned = pinned && (cs.Src == "Pinned" || cs.Dst == "Pinned")
			what := cs.Kind
			if cs.Src != "" || cs.Dst != "" {
				what = fmt.Sprintf("%s → %s", cs.Src, cs.Dst)
			}
			mem = append(mem, fmt.Sprintf("%s %s, %s in %s at %s", plural(cs.Copies, "copies"), what, Format(cs.Bytes, metrics.Bytes),
				Format(cs.NS, metrics.NS), Format(cs.GBps, metrics.GBps)))
		}
		kinds = append(kinds, fmt.Sprintf("%s %s exposed (%s)", k.name, Format(c[k.class], metrics.NS), strings.Join(mem, "; ")))
	}
	s += ". " + strings.Join(kinds, "; ")
	if l := metrics.LinkText(d); l != "" {
		s += ". Copy rate " + l
	}
	switch {
	case pageable:
		return s + ". Pageable host memory is copied through a pinned staging buffer, and the host waits: pinned memory " +
			" (pin_memory=True) with non_blocking=True lets copies run beside kernels"
	case pinned:
		return s + ". The host memory is pinned already: moving fewer bytes, or copying on another stream while kernels " +
			"run, is what takes this time off the GPU"
	}
	return s + ". Moving fewer bytes, or copying on another stream while kernels run, is what takes this time off the GPU"
}

// commVerdict says that communication holds the GPU up, and how much of it
// compute hides.
func commVerdict(d *metrics.DeviceSummary) string {
	return fmt.Sprintf("comm-bound: communication runs with no compute kernel beside it %s of the span (%s of %s); "+
		"of its %s in %s, %s is hidden under compute (comm overlap) — overlapping more of it with compute, "+
		"or communicating less, is what shortens the run",
		metrics.ShareText(d.Classes[metrics.ClassComm], d.SpanNS), Format(d.Classes[metrics.ClassComm], metrics.NS),
		Format(d.SpanNS, metrics.NS), Format(d.Comm.NS, metrics.NS), plural(d.Comm.Kernels, "kernels"),
		Format(d.Comm.Overlap, metrics.Ratio))
}

// computeNote says, of a device with no verdict whose span is mostly
// compute, that kernel time is what to shorten; "" otherwise.
func computeNote(d *metrics.DeviceSummary) string {
	if float64(d.Classes[metrics.ClassCompute]) < 0.5*float64(d.SpanNS) {
		return ""
	}
	return fmt.Sprintf("; compute kernels run %s of the span: kernel time is what to shorten (top kernels), not launches",
		metrics.ShareText(d.Classes[metrics.ClassCompute], d.SpanNS))
}

// stepClassesTable splits each step's time into the busy classes and idle
// time (stepRows steps at most, as the steps table), leaving out classes
// no step has.
func stepClassesTable(steps []metrics.StepStat, suffix string) *Table {
	t := &Table{Title: "step time by class" + suffix, Columns: []Column{{Name: "step", Unit: metrics.Text}, {Name: "time", Unit: metrics.NS}}}
	for _, n := range metrics.ClassNames {
		// "other copy" is wider than the times under it: with every
		// class present the table ran to 81 columns.
		t.Columns = append(t.Columns, Column{Name: strings.TrimSuffix(n, " copy"), Unit: metrics.NS})
	}
	t.Columns = append(t.Columns, Column{Name: "idle", Unit: metrics.NS})
	skip := max(len(steps)-stepRows, 0)
	used := make([]bool, len(t.Columns))
	used[0], used[1], used[len(used)-1] = true, true, true
	for i, s := range steps {
		row := []any{fmt.Sprintf("#%d", s.Number), s.DurNS()}
		for c, v := range s.Classes {
			row = append(row, v)
			used[2+c] = used[2+c] || v > 0
		}
		row = append(row, s.IdleNS)
		switch {
		case i < stepRows/2 || i >= stepRows/2+skip:
			t.Rows = append(t.Rows, row)
		case i == stepRows/2:
			dots := []any{"…"}
			for range len(row) - 1 {
				dots = append(dots, "")
			}
			t.Rows = append(t.Rows, dots)
		}
	}
	var keep []int
	for i, u := range used {
		if u {
			keep = append(keep, i)
		}
	}
	t.keepColumns(keep...)
	t.Notes = []string{"each busy nanosecond in one class, the first running of compute, comm, H2D, D2H, other (every other copy), memset " +
		"(see summarize --help, comm_exposed_ns); with idle they add up to the step's time"}
	return t
}

// stepSpreadTable says how each class's time varies over the steps: its
// median, p90 and the step farthest from the median. Classes no step has
// are left out.
func stepSpreadTable(steps []metrics.StepStat, suffix string) *Table {
	t := &Table{Title: "step classes: spread" + suffix, Columns: []Column{{Name: "class", Unit: metrics.Text},
		{Name: "median", Unit: metrics.NS}, {Name: "p90", Unit: metrics.NS}, {Name: "farthest step", Unit: metrics.Text},
		{Name: "its time", Unit: metrics.NS}}}
	for _, sp := range metrics.StepClassSpreads(steps) {
		name := "idle"
		if sp.Class < metrics.NumClasses {
			name = metrics.ClassNames[sp.Class]
		}
		if sp.P90NS == 0 && sp.StepNS == 0 {
			continue
		}
		t.Rows = append(t.Rows, []any{name, sp.MedianNS, sp.P90NS, fmt.Sprintf("#%d", sp.Step), sp.StepNS})
	}
	return t
}

// stepHostTable splits each step's idle GPU time by what the host was in
// (stepRows steps at most); nil when no step's idle time falls in a
// DataLoader fetch or an optimizer step.
func stepHostTable(steps []metrics.StepStat, suffix string) *Table {
	found := false
	for _, s := range steps {
		found = found || s.Host[metrics.HostDataLoader]+s.Host[metrics.HostOptimizer] > 0
	}
	if !found {
		return nil
	}
	t := &Table{Title: "idle GPU time by host activity" + suffix, Columns: []Column{{Name: "step", Unit: metrics.Text},
		{Name: "idle", Unit: metrics.NS}}}
	for _, n := range metrics.HostClassNames {
		t.Columns = append(t.Columns, Column{Name: n, Unit: metrics.NS})
	}
	skip := max(len(steps)-stepRows, 0)
	for i, s := range steps {
		switch {
		case i < stepRows/2 || i >= stepRows/2+skip:
			t.Rows = append(t.Rows, []any{fmt.Sprintf("#%d", s.Number), s.IdleNS, s.Host[0], s.Host[1], s.Host[2]})
		case i == stepRows/2:
			t.Rows = append(t.Rows, []any{"…", "", "", "", ""})
		}
	}
	t.Notes = []string{"host ranges named enumerate(DataLoader)… first, then Optimizer.step#… or zero_grad#…; the host " +
		"works beside the GPU, so this row is apart from the busy classes"}
	return t
}
