package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// workTable is a device's FLOPs by host op (summarize --by op): for each
// op with a FLOP count, in the ops table's order, its FLOPs, achieved
// TFLOP/s, arithmetic intensity and place on the device's roofline; the
// notes give the device's MFU and precision mix, or why not. Nil when
// the trace recorded no shapes.
func workTable(d *metrics.DeviceSummary, l Layout) *Table {
	u := d.Util
	if u == nil || d.Ops == nil {
		return nil
	}
	t := &Table{Title: fmt.Sprintf("FLOPs by host op (GPU %d)", d.Device), Columns: []Column{
		{Name: "FLOPs", Unit: metrics.FLOP}, {Name: "achieved", Unit: metrics.TFLOPS}, {Name: "FLOP/B", Unit: metrics.Count},
		{Name: "bound", Unit: metrics.Text}, {Name: "of roof", Unit: metrics.Ratio}, {Name: "calls", Unit: metrics.Count},
		{Name: "op", Unit: metrics.Text}}}
	var costed []metrics.ScopeStat
	for _, o := range d.Ops {
		if o.Work.Costed() {
			costed = append(costed, o)
		}
	}
	// Five numbers and a word: 18 runes at 80 columns, the fewest cut.
	names := shortNames(costed, func(o metrics.ScopeStat) string { return o.Name }, max(l.NameWidth-20, min(l.NameWidth, 16)))
	for i, o := range costed {
		w := &o.Work
		var ai, tf, share any = "–", "–", "–"
		if w.Bytes > 0 {
			ai = w.Intensity()
		}
		if w.CostedGPUNS > 0 && w.Flops > 0 {
			tf = w.AchievedTFLOPS()
		}
		bound := "–"
		if b, s, ok := u.Roofline(w); ok {
			bound, share = b, s
		}
		calls := fmt.Sprintf("%d/%d", w.CostedCalls, o.Calls+o.Replays)
		t.Rows = append(t.Rows, []any{w.Flops, Cell{tf, metrics.TFLOPS}, Cell{ai, metrics.Count}, bound, Cell{share, metrics.Ratio}, calls, names[i]})
	}
	t.Notes = utilNotes(d)
	if slices.ContainsFunc(costed, func(o metrics.ScopeStat) bool { return o.Replays > 0 }) {
		t.Notes = append(t.Notes, "a captured op's calls are its replays: each graph launch replaying a call it captured (--capture)")
	}
	if len(costed) == 0 {
		t.Notes = append([]string{"no op with a FLOP count"}, t.Notes...)
	}
	return t
}

// utilNotes say a device's MFU and precision mix, and what they rest on.
func utilNotes(d *metrics.DeviceSummary) []string {
	u := d.Util
	var notes []string
	if u.Work.Costed() {
		s := fmt.Sprintf("%s in %s, %s over the span", Format(u.Work.Flops, metrics.FLOP), Format(u.SpanNS, metrics.NS),
			Format(u.AchievedTFLOPS(), metrics.TFLOPS))
		if u.HasMFU() {
			s += fmt.Sprintf(": MFU %s of %s (%s)", Format(u.MFU(), metrics.Ratio), Format(u.PeakTFLOPS, metrics.TFLOPS), peakName(u))
		}
		notes = append(notes, s)
		if !u.HasMFU() {
			notes = append(notes, "no MFU: "+u.NoMFU)
		}
		notes = append(notes, fmt.Sprintf("FLOP counts cover %s of kernel time: ops without one (unmodelled, or no shapes) add none, so MFU is a lower bound",
			countedShare(u)))
	} else {
		notes = append(notes, "no MFU: "+u.NoMFU)
	}
	if mix := u.Work.MixText(); mix != "" {
		notes = append(notes, "precision mix of GEMM and convolution kernel time: "+mix)
	}
	notes = append(notes, "of roof: achieved / the roofline's attainable at the op's FLOP/B, min(peak, FLOP/B × bandwidth); calls: with a count / all")
	return notes
}

// countedShare is the share of kernel time that ops with a FLOP count
// launched, as text: "94 %".
func countedShare(u *metrics.Utilization) string {
	return metrics.ShareText(u.Work.CostedGPUNS, max(u.KernelNS, u.Work.CostedGPUNS))
}

// peakName says which peak MFU divides by: "fp32 dense, H200 SXM".
func peakName(u *metrics.Utilization) string {
	return cmpOr(string(u.Precision), "given") + " dense, " + u.PeakFrom
}

func cmpOr(s, alt string) string {
	if strings.TrimSpace(s) == "" {
		return alt
	}
	return s
}

// workNote says, for compare and diff, what a run's FLOP columns rest on:
// its MFU's peak or why it has none, the kernel time its FLOPs cover, and
// its precision mix; "" where its ops were not counted (no --flops).
func workNote(run string, d *metrics.DeviceSummary) string {
	u := d.Util
	if u == nil {
		return ""
	}
	if !u.Work.Costed() {
		return run + ": no FLOPs, no MFU: " + u.NoMFU
	}
	s := run + ": "
	if u.HasMFU() {
		s += fmt.Sprintf("MFU of %s (%s)", Format(u.PeakTFLOPS, metrics.TFLOPS), peakName(u))
	} else {
		s += "no MFU: " + u.NoMFU
	}
	s += fmt.Sprintf("; ops with a FLOP count ran %s of kernel time", countedShare(u))
	if u.Coverage() < 0.5 && d.Launch.GraphLaunches > 0 {
		s += " (kernels that graphs replay count under the graph launch, which has none; summarize --by op --capture names their ops)"
	}
	if mix := u.Work.MixText(); mix != "" {
		s += "; precision mix " + mix
	}
	return s
}

// workRows are the headline's rows of a device whose ops were counted
// (summarize --by op, --flops): its FLOPs, its MFU or why it has none,
// and its precision mix; none otherwise.
func workRows(d *metrics.DeviceSummary) [][]any {
	u := d.Util
	if u == nil {
		return nil
	}
	var rows [][]any
	if u.Work.Costed() {
		rows = append(rows, []any{"FLOPs", fmt.Sprintf("%s, %s; counted ops ran %s of kernel time",
			Format(u.Work.Flops, metrics.FLOP), Format(u.AchievedTFLOPS(), metrics.TFLOPS),
			countedShare(u))})
	}
	mfu := "none: " + u.NoMFU
	if u.HasMFU() {
		mfu = fmt.Sprintf("%s of %s (%s)", Format(u.MFU(), metrics.Ratio), Format(u.PeakTFLOPS, metrics.TFLOPS), peakName(u))
	}
	rows = append(rows, []any{"MFU", mfu})
	if mix := u.Work.MixText(); mix != "" {
		rows = append(rows, []any{"precision", mix})
	}
	return rows
}
