package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// WhatifCompareTable lays out compare --whatif: for each run and device
// with steps, its measured median step beside the one projected with the
// edits (projs[i] are run i's, as metrics.ReplayDevices gives them), and
// the projection against the first run's measured step, so that a run
// projected under CUDA graphs stands beside a run recorded with them. It
// is titled and noted as a projection; nil when no run has one. With one
// run that last column would repeat "change", and is left out.
func WhatifCompareTable(labels []string, sums []metrics.Summary, projs [][]metrics.Projection, edits string) *Table {
	t := &Table{
		Title: "Median step projected: what if " + edits + " (a projection, not a measurement)",
		Columns: []Column{{Name: "run", Unit: metrics.Text}, {Name: "GPU", Unit: metrics.Count},
			{Name: "measured", Unit: metrics.NS}, {Name: "projected", Unit: metrics.NS},
			{Name: "change", Unit: metrics.Text}, {Name: "vs 1st measured", Unit: metrics.Text}},
	}
	if len(sums) == 1 {
		t.Columns = t.Columns[:len(t.Columns)-1]
	}
	first := map[int]float64{} // the first run's measured median step by device
	for _, d := range sums[0].Devices {
		if len(d.Steps) > 0 {
			first[d.Device] = d.StepMedianNS
		}
	}
	var consts []metrics.Constant
	var none, graphs []string
	for i, ps := range projs {
		if len(ps) == 0 {
			none = append(none, labels[i])
		}
		if slices.ContainsFunc(sums[i].Devices, func(d metrics.DeviceSummary) bool { return d.Launch.GraphLaunches > 0 }) && strings.Contains(edits, "--graphs") {
			graphs = append(graphs, labels[i])
		}
		for _, p := range ps {
			vs := ""
			if m, ok := first[p.Device]; ok {
				vs = Change(m, p.ProjectedStepNS)
			}
			row := []any{labels[i], p.Device, p.StepMedianNS, p.ProjectedStepNS, Change(p.StepMedianNS, p.ProjectedStepNS), vs}
			t.Rows = append(t.Rows, row[:len(t.Columns)])
			if consts == nil {
				consts = p.Constants
			}
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.Notes = []string{"projected by traceql whatif " + edits + ": a model's number, not a run's; its errors on real runs are in docs/whatif.md"}
	if len(sums) > 1 {
		t.Notes = append(t.Notes, "vs 1st measured: the projection against "+labels[0]+"'s measured median step")
	}
	if len(graphs) > 0 {
		t.Notes = append(t.Notes, strings.Join(graphs, ", ")+" already replays CUDA graphs: --graphs models its replays again with the constants below, in place of their measured cost")
	}
	if len(none) > 0 {
		t.Notes = append(t.Notes, "no ProfilerStep#N with host calls and device work to replay in "+strings.Join(none, ", ")+": no projection")
	}
	if len(consts) > 0 {
		var cs []string
		for _, c := range consts {
			cs = append(cs, fmt.Sprintf("%s %s", c.Name, Format(c.Value, c.Unit)))
		}
		t.Notes = append(t.Notes, "constants: "+strings.Join(cs, ", ")+" (see whatif --help)")
	}
	return t
}
