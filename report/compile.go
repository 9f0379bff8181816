package report

import (
	"fmt"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// eagerShown is how many kernels launched outside compiled code the
// summary lists: the largest say where the graph breaks are.
const eagerShown = 5

// compileTables lays out what a trace says of torch.compile: a title line
// with the host side (regions, frames, recompiles, Dynamo's lookups,
// host time in compiled code), the devices' kernel time from compiled
// code, the notes metrics.EagerNote and RecompileNotes make, the top
// kernels launched outside compiled code and, when the trace was read
// with its cpu_ops (summarize --by op), the ops that launched them. Nothing for a trace without
// compile ops. (Kernel time from graphs is among the device metrics, as
// graphs are not torch.compile's alone.)
func compileTables(s metrics.Summary, l Layout) []*Table {
	c := &s.Compile
	if !c.Any() {
		return nil
	}
	title := "torch.compile"
	{
		var parts []string
		if c.Regions > 0 {
			parts = append(parts, fmt.Sprintf("%s compiled regions of %s, %s",
				Format(c.Regions, metrics.Count), plural(c.Frames, "frames"), plural(c.Recompiles, "recompiles")))
		}
		if c.CompiledFunctions > 0 {
			parts = append(parts, plural(c.CompiledFunctions, "CompiledFunction calls"))
		}
		if c.DynamoLookups > 0 {
			parts = append(parts, fmt.Sprintf("%s taking %s", plural(c.DynamoLookups, "Dynamo cache lookups"),
				Format(c.DynamoLookupNS, metrics.NS)))
		}
		if c.CompiledHostNS > 0 {
			parts = append(parts, "host time in compiled code "+Format(c.CompiledHostNS, metrics.NS))
		}
		title += ": " + strings.Join(parts, "; ")
	}
	if len(s.Devices) == 0 {
		return []*Table{{Title: title, Notes: metrics.RecompileNotes(c)}}
	}
	t := &Table{Title: title, Columns: []Column{{Name: "metric", Unit: metrics.Text}}}
	for _, d := range s.Devices {
		t.Columns = append(t.Columns, Column{Name: fmt.Sprintf("GPU %d", d.Device), Unit: metrics.Count})
	}
	// The host side is in the title; the kernels' side is per device.
	for _, col := range metrics.Shown(metrics.Columns(), metrics.CompileBlock) {
		row := []any{col.Label}
		for i := range s.Devices {
			row = append(row, Cell{col.Get(&s.Devices[i]), col.Unit})
		}
		t.Rows = append(t.Rows, row)
	}
	t.Notes = metrics.RecompileNotes(c)
	out := []*Table{t}
	for i := range s.Devices {
		d := &s.Devices[i]
		if n := metrics.EagerNote(d); n != "" {
			if len(s.Devices) > 1 {
				n = fmt.Sprintf("GPU %d: %s", d.Device, n)
			}
			t.Notes = append(t.Notes, n)
		}
		if c.Regions+c.CompiledFunctions > 0 && len(d.Compile.TopEager) > 0 {
			suffix := ""
			if len(s.Devices) > 1 {
				suffix = fmt.Sprintf(" (GPU %d)", d.Device)
			}
			// As the top kernels table: the name last, styled and cut as l says.
			e := &Table{Title: "top kernels launched outside compiled code" + suffix, Columns: []Column{
				{Name: "count", Unit: metrics.Count}, {Name: "total", Unit: metrics.NS},
				{Name: "share of kernel time", Unit: metrics.Ratio}, {Name: "kernel", Unit: metrics.Text}}}
			eager := d.Compile.TopEager[:min(len(d.Compile.TopEager), eagerShown)]
			names := shortNames(styledNames(eager, func(k metrics.KernelStat) string { return k.Name }, l.Names), same, l.NameWidth)
			for j, k := range eager {
				e.Rows = append(e.Rows, []any{k.Count, k.TotalNS, k.Share, names[j]})
			}
			out = append(out, e)
			if ops := d.Compile.TopEagerOps; len(ops) > 0 {
				out = append(out, eagerOpTable(ops, suffix, l))
			} else if metrics.EagerNote(d) != "" {
				e.Notes = append(e.Notes, "the host ops launching them: summarize --by op")
			}
		}
	}
	return out
}

// eagerOpTable lists the host ops that launched the most kernel time
// outside compiled code: where the graph breaks are, by op.
func eagerOpTable(ops []metrics.ScopeStat, suffix string, l Layout) *Table {
	t := &Table{Title: "top ops launching kernels outside compiled code" + suffix, Columns: []Column{
		{Name: "calls", Unit: metrics.Count}, {Name: "kernels", Unit: metrics.Count}, {Name: "GPU time", Unit: metrics.NS},
		{Name: "share of kernel time", Unit: metrics.Ratio}, {Name: "op", Unit: metrics.Text}}}
	ops = ops[:min(len(ops), eagerShown)]
	names := shortNames(ops, func(o metrics.ScopeStat) string { return o.Name }, l.NameWidth)
	for j, o := range ops {
		t.Rows = append(t.Rows, []any{o.Calls, o.Kernels, o.GPUNS, o.Share, names[j]})
	}
	return t
}
