package metrics

import "strings"

// A ProjectionColumn is one column of whatif's rows: its name in CSV and
// JSON, its label, unit and definition (shown by `traceql whatif --help`)
// and how to read it from a Projection. Beside Columns, the one place
// whatif's numbers are defined.
type ProjectionColumn struct {
	Name  string
	Label string
	Unit  Unit
	Doc   string
	Value func(*Projection) any // nil: no value
}

// ProjectionColumns lists whatif's columns, after the file.
func ProjectionColumns() []ProjectionColumn {
	cols := []ProjectionColumn{
		{"device", "device", Count, "the GPU", func(p *Projection) any { return p.Device }},
		{"edits", "edits", Text, "the edits replayed, as their flags", func(p *Projection) any { return p.Edits }},
		{"steps", "steps", Count, "ProfilerStep#N windows replayed (those summarize measures)", func(p *Projection) any { return p.Steps }},
		{"step_median_ns", "median step, measured", NS, "median length of the measured step windows (summarize's step_median_ns)", func(p *Projection) any { return p.StepMedianNS }},
		{"replay_step_median_ns", "median step, replayed", NS, "median step of the replay without edits: how close the model comes to the measured step", func(p *Projection) any { return p.ReplayStepMedianNS }},
		{"projected_step_ns", "median step, projected", NS, "median step of the replay with the edits: a projection from the model, not a measurement", func(p *Projection) any { return p.ProjectedStepNS }},
		{"span_ns", "span of the steps, measured", NS, "first step's start to last step's end, measured", func(p *Projection) any { return p.SpanNS }},
		{"projected_span_ns", "span of the steps, projected", NS, "first step's start to last step's end in the replay with the edits", func(p *Projection) any { return p.ProjectedSpanNS }},
	}
	for i, class := range PathClassNames {
		key := strings.ReplaceAll(strings.ToLower(class), " ", "_")
		cols = append(cols,
			ProjectionColumn{"path_" + key + "_ns", class, NS, "time of the replayed median step's critical path in " + pathDocs[i] + ", without edits",
				func(p *Projection) any { return p.Before[i] }},
			ProjectionColumn{"projected_path_" + key + "_ns", class + ", projected", NS, "the same with the edits",
				func(p *Projection) any { return p.After[i] }})
	}
	cols = append(cols,
		ProjectionColumn{"captures", "graph launches made", Count, "graph launches --graphs made: one per compiled region (or per step's launches) between blocking calls and host copies", func(p *Projection) any { return p.Captures }},
		ProjectionColumn{"graph_nodes", "kernels in them", Count, "device work those graph launches replay", func(p *Projection) any { return p.GraphNodes }},
		ProjectionColumn{"unlaunched", "work not replayed", Count, "device work inside the steps whose launch call is not in the trace: left out of the replay", func(p *Projection) any { return p.Unlaunched }},
		ProjectionColumn{"launch_latency_ns", "launch latency", NS, "the trace's median launch call start to kernel start on an idle stream: stands in for a launch's wait where the stream held", func(p *Projection) any { return p.LaunchLatencyNS }},
		ProjectionColumn{"stream_gap_ns", "gap between queued work", NS, "the trace's median gap between queued work on a stream: stands in where the launch held", func(p *Projection) any { return p.StreamGapNS }},
	)
	for _, c := range AllConstants() {
		cols = append(cols, ProjectionColumn{c.Name, c.Name, c.Unit, "a constant of the model: " + c.Doc + "; none when no edit used it", func(p *Projection) any {
			for _, u := range p.Constants {
				if u.Name == c.Name {
					return u.Value
				}
			}
			return nil
		}})
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
