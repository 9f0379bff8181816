package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace/torchlog"
)

// compileLogKernels is how many kernels of compiled frames the table
// lists at most, with their provenance.
const compileLogKernels = 10

// compileLogTables lays out a compile log joined to a trace (summarize
// --compile-log): per device, a row per compile of a frame with the
// FrameColumns, then a note per frame with its code, graph breaks, the
// guard failures that made it, and CUDA graphs skipped; then the kernels
// of compiled frames with the FX nodes and source lines Inductor's
// provenance gives. What did not join (frames only the log has, regions
// only the trace has) is said, not left out.
func compileLogTables(j *metrics.CompileJoin, l Layout) []*Table {
	if j == nil {
		return nil
	}
	var out []*Table
	log := j.Log
	title := fmt.Sprintf("compiled frames, with the compile log %s", Printable(log.Source))
	if len(j.Devices) == 0 {
		out = append(out, frameTable(j, nil, title))
	}
	for i := range j.Devices {
		d := &j.Devices[i]
		t := title
		if len(j.Devices) > 1 {
			t += fmt.Sprintf(" (GPU %d)", d.Device)
		}
		out = append(out, frameTable(j, d, t))
		if k := kernelSourceTable(j, d, l); k != nil {
			out = append(out, k)
		}
	}
	return out
}

// frameTable is the frames' table, d's kernel columns empty when nil.
func frameTable(j *metrics.CompileJoin, d *metrics.FrameDevice, title string) *Table {
	t := &Table{Title: title}
	cols := metrics.Shown(metrics.FrameColumns(), metrics.FrameTable) // the code goes in the notes: it is long
	for _, c := range cols {
		t.Columns = append(t.Columns, Column{Name: c.Label, Unit: c.Unit, Doc: c.Doc, Null: true})
	}
	var runOnly, logOnly []string
	for i := range j.Frames {
		f := &j.Frames[i]
		row := make([]any, 0, len(cols))
		fr := &metrics.FrameRow{J: j, D: d, I: i}
		for _, c := range cols {
			row = append(row, c.Get(fr))
		}
		t.Rows = append(t.Rows, row)
		switch {
		case f.Log == nil:
			runOnly = append(runOnly, f.ID())
		case f.Calls == 0:
			logOnly = append(logOnly, f.ID())
		}
		// A recompile's code is its frame's: said once.
		sameCode := i > 0 && j.Frames[i-1].Frame == f.Frame && j.Frames[i-1].Log != nil && f.Log != nil && j.Frames[i-1].Log.Code == f.Log.Code
		t.Notes = append(t.Notes, frameNotes(f, !sameCode)...)
		if d != nil && d.Triton[i] > 0 && d.Traced[i] == 0 && f.Log != nil && len(f.Log.Kernels) > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: the log's provenance names none of the %s the frame ran: the log is of another compile than the trace",
				f.ID(), plural(d.Triton[i], "Triton kernels")))
		}
	}
	if len(j.Frames) == 0 {
		t.Notes = append(t.Notes, "the log has no compile of a frame and the trace no Torch-Compiled Region")
	}
	if j.Joined == 0 && len(j.Frames) > 0 {
		t.Notes = append(t.Notes, "no frame is in both the log and the trace: are they of the same process and run?")
	}
	if len(runOnly) > 0 {
		t.Notes = append(t.Notes, "ran in the trace, not in the log: "+strings.Join(runOnly, ", ")+" (compiled before the log began, or another process's log)")
	}
	if len(logOnly) > 0 {
		t.Notes = append(t.Notes, "in the log, not run in the trace: "+strings.Join(logOnly, ", ")+" (compiled and not called while profiling, or outside the window)")
	}
	if d != nil && d.OutsideNS > 0 && len(j.Frames) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%s of kernel time (%s) launched outside these frames: eager code, a backward, kernels without a launch call",
			metrics.ShareText(d.OutsideNS, d.KernelNS), Format(d.OutsideNS, metrics.NS)))
	}
	if j.Lookups > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%s taking %s preceded no compiled region (the code ran eagerly, or compiled then)",
			plural(j.Lookups, "Dynamo cache lookups"), Format(j.LookupNS, metrics.NS)))
	}
	for _, w := range j.Log.Warnings {
		t.Notes = append(t.Notes, "left out: "+Printable(w))
	}
	return t
}

// frameNotes says what the log says of frame f in words: its code (when
// withCode), its
// graph breaks, the guards whose failure compiled it, a failed compile
// and why CUDA graphs were skipped.
func frameNotes(f *metrics.CompiledFrame, withCode bool) []string {
	lc := f.Log
	if lc == nil {
		return nil
	}
	id := f.ID()
	var notes []string
	if withCode {
		code := lc.Code
		if lc.File != "" {
			code += fmt.Sprintf(" (%s:%d)", lc.File, lc.Line)
		}
		notes = append(notes, id+": "+Printable(code))
	}
	for _, b := range lc.Breaks {
		where := ""
		if b.Where != "" {
			where = " at " + b.Where
		}
		notes = append(notes, fmt.Sprintf("%s: graph break%s: %s", id, Printable(where), Printable(b.Reason)))
	}
	for _, g := range lc.Recompile {
		notes = append(notes, fmt.Sprintf("%s: compiled because a guard failed: %s", id, Printable(g)))
	}
	if lc.FailType != "" {
		notes = append(notes, fmt.Sprintf("%s: compile failed: %s: %s", id, Printable(lc.FailType), Printable(lc.FailReason)))
	}
	if lc.HasCudagraphify {
		notes = append(notes, fmt.Sprintf("%s: cudagraph trees recorded its CUDA graphs when it ran, taking %s (the log's runtime_cudagraphify_time_us)",
			id, Format(lc.CudagraphifyNS, metrics.NS)))
	}
	if lc.CudagraphSkip != "" {
		notes = append(notes, fmt.Sprintf("%s: Inductor skipped CUDA graphs: %s", id, Printable(lc.CudagraphSkip)))
	}
	return notes
}

// kernelSourceTable lists the kernels of compiled frames by time, with
// their provenance in notes; nil without any.
func kernelSourceTable(j *metrics.CompileJoin, d *metrics.FrameDevice, l Layout) *Table {
	if len(d.Kernels) == 0 {
		return nil
	}
	ks := d.Kernels[:min(len(d.Kernels), compileLogKernels)]
	t := &Table{Title: "top Triton kernels of compiled frames (Inductor's)", Columns: []Column{
		{Name: "count", Unit: metrics.Count}, {Name: "total", Unit: metrics.NS},
		{Name: "share", Unit: metrics.Ratio}, {Name: "frame", Unit: metrics.Text}, {Name: "kernel", Unit: metrics.Text}}}
	// The columns before the name are as wide as the top kernels' table's.
	names := shortNames(ks, func(k metrics.FrameKernel) string { return styleName(k.Name, l.Names) }, l.nameWidth(0))
	found := false
	for i, k := range ks {
		f := &j.Frames[k.Frame]
		t.Rows = append(t.Rows, []any{k.Count, k.TotalNS, k.Share, f.ID(), names[i]})
		if k.Source != nil {
			found = true
			t.Notes = append(t.Notes, kernelNote(names[i], f.ID(), k.Source))
		}
	}
	if !found {
		has := false
		for _, c := range j.Log.Compiles {
			has = has || len(c.Kernels) > 0
		}
		if has {
			t.Notes = append(t.Notes, "the log's provenance names none of these kernels")
		} else {
			t.Notes = append(t.Notes, "the log has no Inductor provenance to map kernels to FX nodes and source lines: "+
				"compile with INDUCTOR_PROVENANCE=1 (torch._inductor.config.trace.provenance_tracking_level = 1) and cold caches")
		}
	}
	return t
}

// A kernel note lists a few nodes and source lines: Inductor reuses a
// kernel for every layer alike, and its provenance then names each
// layer's nodes.
const (
	noteNodes   = 8  // FX nodes named one by one, at most; more are counted by op
	noteSources = 3  // source lines, at most
	noteCode    = 60 // runes of a source line's code
)

// kernelNote says where kernel name of frame id came from: its post-grad
// FX nodes (by op when many) and the user lines they came from.
func kernelNote(name, id string, s *torchlog.KernelSource) string {
	var parts []string
	switch n := len(s.PostGrad); {
	case n == 0:
	case n <= noteNodes:
		parts = append(parts, "FX nodes "+strings.Join(s.PostGrad, ", "))
	default:
		parts = append(parts, fmt.Sprintf("%d FX nodes: %s", n, nodesByOp(s.PostGrad)))
	}
	for i, src := range s.Source {
		if i == noteSources {
			parts = append(parts, fmt.Sprintf("%d more lines", len(s.Source)-noteSources))
			break
		}
		line := src.String()
		if src.Code != "" {
			code := []rune(src.Code)
			if len(code) > noteCode {
				code = append(code[:noteCode-1], '…')
			}
			line += ": " + string(code)
		}
		parts = append(parts, line)
	}
	if len(parts) == 0 {
		parts = append(parts, "no nodes or source in the log")
	}
	return Printable(fmt.Sprintf("%s (%s): %s", name, id, strings.Join(parts, "; ")))
}

// nodesByOp counts FX nodes by their op, the name without the _N Inductor
// adds to tell nodes apart ("mul_41" is a mul), the most first.
func nodesByOp(nodes []string) string {
	count := map[string]int{}
	var ops []string
	for _, n := range nodes {
		op := n
		if i := strings.LastIndexByte(n, '_'); i > 0 && strings.Trim(n[i+1:], "0123456789") == "" {
			op = n[:i]
		}
		if count[op] == 0 {
			ops = append(ops, op)
		}
		count[op]++
	}
	slices.SortStableFunc(ops, func(a, b string) int { return count[b] - count[a] })
	var out []string
	for _, op := range ops {
		if count[op] == 1 {
			out = append(out, op)
		} else {
			out = append(out, fmt.Sprintf("%s ×%d", op, count[op]))
		}
	}
	return strings.Join(out, ", ")
}

// CompileLogHelp renders the definitions of metrics.FrameColumns for
// `summarize --help`, as MetricsHelp renders the device metrics'.
func CompileLogHelp() string {
	cols := metrics.FrameColumns()
	name := 0
	for _, c := range cols {
		name = max(name, len(c.Name))
	}
	var b strings.Builder
	b.WriteString("With --compile-log, the compiled frames table, a row per compile F/R (its\n" +
		"label in quotes where it differs):\n")
	writeColumnDocs(&b, name, cols)
	return b.String()
}
