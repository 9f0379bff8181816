package metrics

import (
	"slices"
	"strings"
)

// ProjectionColumn is a column of whatif's rows (Projection): beside
// Columns, the one place whatif's numbers are defined.
type ProjectionColumn = Col[Projection]

// ProjectionColumns lists whatif's columns, after the file.
func ProjectionColumns() []ProjectionColumn {
	never := Never[Projection]()
	cols := []ProjectionColumn{
		{Name: "device", Label: "device", Unit: Count, Kind: KindInt,
			Doc:   "the GPU",
			Value: func(p *Projection) any { return p.Device }, Empty: never, Show: Records},
		{Name: "edits", Label: "edits", Unit: Text, Kind: KindText,
			Doc:   "the edits replayed, as their flags",
			Value: func(p *Projection) any { return p.Edits }, Empty: never, Show: Records},
		{Name: "steps", Label: "steps", Unit: Count, Kind: KindInt,
			Doc:   "ProfilerStep#N windows replayed (those summarize measures)",
			Value: func(p *Projection) any { return p.Steps }, Empty: never, Show: Records},
		{Name: "step_median_ns", Label: "median step, measured", Unit: NS, Kind: KindFloat,
			Doc:   "median length of the measured step windows (summarize's step_median_ns)",
			Value: func(p *Projection) any { return p.StepMedianNS }, Empty: never, Show: Records},
		{Name: "replay_step_median_ns", Label: "median step, replayed", Unit: NS, Kind: KindFloat,
			Doc:   "median step of the replay without edits: how close the model comes to the measured step",
			Value: func(p *Projection) any { return p.ReplayStepMedianNS }, Empty: never, Show: Records},
		{Name: "projected_step_ns", Label: "median step, projected", Unit: NS, Kind: KindFloat,
			Doc:   "median step of the replay with the edits: a projection from the model, not a measurement",
			Value: func(p *Projection) any { return p.ProjectedStepNS }, Empty: never, Show: Records},
		{Name: "span_ns", Label: "span of the steps, measured", Unit: NS, Kind: KindInt,
			Doc:   "first step's start to last step's end, measured",
			Value: func(p *Projection) any { return p.SpanNS }, Empty: never, Show: Records},
		{Name: "projected_span_ns", Label: "span of the steps, projected", Unit: NS, Kind: KindInt,
			Doc:   "first step's start to last step's end in the replay with the edits",
			Value: func(p *Projection) any { return p.ProjectedSpanNS }, Empty: never, Show: Records},
	}
	for i, class := range PathClassNames {
		key := strings.ReplaceAll(strings.ToLower(class), " ", "_")
		cols = append(cols,
			ProjectionColumn{Name: "path_" + key + "_ns", Label: class, Unit: NS, Kind: KindInt,
				Doc:   "time of the replayed median step's critical path in " + pathDocs[i] + ", without edits",
				Value: func(p *Projection) any { return p.Before[i] }, Empty: never, Show: Records},
			ProjectionColumn{Name: "projected_path_" + key + "_ns", Label: class + ", projected", Unit: NS, Kind: KindInt,
				Doc:   "the same with the edits",
				Value: func(p *Projection) any { return p.After[i] }, Empty: never, Show: Records})
	}
	cols = append(cols, []ProjectionColumn{
		{Name: "captures", Label: "graph launches made", Unit: Count, Kind: KindInt,
			Doc:   "graph launches --graphs made: one per compiled region (or per step's launches) between blocking calls and host copies",
			Value: func(p *Projection) any { return p.Captures }, Empty: never, Show: Records},
		{Name: "graph_nodes", Label: "kernels in them", Unit: Count, Kind: KindInt,
			Doc:   "device work those graph launches replay",
			Value: func(p *Projection) any { return p.GraphNodes }, Empty: never, Show: Records},
		{Name: "unlaunched", Label: "work not replayed", Unit: Count, Kind: KindInt,
			Doc:   "device work inside the steps whose launch call is not in the trace: left out of the replay",
			Value: func(p *Projection) any { return p.Unlaunched }, Empty: never, Show: Records},
		{Name: "launch_latency_ns", Label: "launch latency", Unit: NS, Kind: KindInt,
			Doc:   "the trace's median launch call start to kernel start on an idle stream: stands in for a launch's wait where the stream held",
			Value: func(p *Projection) any { return p.LaunchLatencyNS }, Empty: never, Show: Records},
		{Name: "stream_gap_ns", Label: "gap between queued work", Unit: NS, Kind: KindInt,
			Doc:   "the trace's median gap between queued work on a stream: stands in where the launch held",
			Value: func(p *Projection) any { return p.StreamGapNS }, Empty: never, Show: Records},
	}...)
	for _, c := range AllConstants() {
		// used is the constant's place in p.Constants, -1 when no edit used it.
		used := func(p *Projection) int {
			return slices.IndexFunc(p.Constants, func(u Constant) bool { return u.Name == c.Name })
		}
		cols = append(cols, ProjectionColumn{Name: c.Name, Label: c.Name, Unit: c.Unit, Kind: KindInt,
			Doc: "a constant of the model: " + c.Doc + "; none when no edit used it",
			Value: func(p *Projection) any {
				if i := used(p); i >= 0 {
					return p.Constants[i].Value
				}
				return int64(0)
			},
			Empty: When(func(p *Projection) bool { return used(p) < 0 }), Show: Records})
	}
	return cols
}

// pathDocs say what each critical-path class holds.
var pathDocs = [nPathClasses]string{
	"kernels",
	"memcpys and memsets",
	"launch calls, launch latency and the device's gaps between queued work",
	"host work between API calls and other API calls",
	"blocking calls' own time past the work they waited for",
}
