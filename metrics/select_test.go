package metrics_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// stepTrace makes a trace of one GPU whose ProfilerStep#1, #2, … follow one
// another and last durs ns each, starting at 1000. Each step launches one
// kernel, 20 to 50 ns into it: the steps' windows are their host ranges.
// Two device-side "fwd" annotations cover steps 2 and 3's kernels.
func stepTrace(durs ...int64) *trace.Trace {
	tr := &trace.Trace{Devices: []trace.Device{{ID: 0}}, Streams: []trace.Stream{{Device: 0, ID: 7}}}
	at := int64(1000)
	for i, d := range durs {
		c := int64(i + 1)
		tr.Ops = append(tr.Ops, trace.Op{Name: fmt.Sprintf("ProfilerStep#%d", i+1), Kind: trace.UserAnnotation, PID: 1, TID: 1, Start: at, End: at + d})
		tr.APICalls = append(tr.APICalls, trace.APICall{Name: "cudaLaunchKernel", PID: 1, TID: 1, Start: at + 10, End: at + 15, Correlation: c})
		tr.Kernels = append(tr.Kernels, trace.Kernel{Activity: trace.Activity{Stream: 7, Start: at + 20, End: at + 50, Correlation: c, PID: 1}, Name: "k"})
		if i == 1 || i == 2 {
			tr.Ops = append(tr.Ops, trace.Op{Name: "fwd", Kind: trace.GPUAnnotation, Start: at + 20, End: at + 50})
		}
		at += d
	}
	return tr
}

// TestSelectWindow: each way of selecting a window, on traces with steps
// of known lengths, with warm-up steps and without steps.
func TestSelectWindow(t *testing.T) {
	// Steps 1–6 from 1000: 1000, 1000, then 100 ns each; 3–6 run from
	// 3000 to 3400. The kernels run from 1020 to 3350.
	warm2 := stepTrace(1000, 1000, 100, 100, 100, 100)
	// Steps 1–4: 1000, then 100 ns each; 2–4 run from 2000 to 2300.
	warm1 := stepTrace(1000, 100, 100, 100)
	even := stepTrace(100, 100, 100, 100)
	noSteps := &trace.Trace{Devices: []trace.Device{{ID: 0}}, Streams: []trace.Stream{{Device: 0, ID: 7}},
		Kernels: []trace.Kernel{{Activity: trace.Activity{Stream: 7, Start: 500, End: 900}, Name: "k"}}}
	hostOnly := &trace.Trace{Ops: []trace.Op{{Name: "ProfilerStep#1", Kind: trace.UserAnnotation, Start: 0, End: 10}}}
	steps := func(from, to, skip int) metrics.WindowSpec {
		return metrics.WindowSpec{Steps: &metrics.StepSpec{From: from, To: to, Skip: skip}}
	}
	span := func(a, b int64, text string) metrics.WindowSpec {
		return metrics.WindowSpec{Time: &metrics.TimeSpec{Start: a, End: b, Text: text}}
	}
	win := func(start, end int64, label string, steps ...int) *trace.Window {
		return &trace.Window{Start: start, End: end, Label: label, Steps: steps}
	}
	for _, tt := range []struct {
		name    string
		t       *trace.Trace
		spec    metrics.WindowSpec
		want    *trace.Window // nil: the whole trace
		warning string
		err     error  // wanted with errors.Is, or of its type
		errText string // wanted in the error's text
	}{
		{name: "whole trace", t: warm2},
		{name: "whole trace without steps", t: noSteps},

		{name: "steps 3:5", t: warm2, spec: steps(3, 5, 0), want: win(3000, 3300, "steps 3–5", 3, 4, 5)},
		{name: "step 4", t: warm2, spec: steps(4, 4, 0), want: win(3100, 3200, "step 4", 4)},
		{name: "steps 3:", t: warm2, spec: steps(3, -1, 0), want: win(3000, 3400, "steps 3–6", 3, 4, 5, 6)},
		{name: "steps :2", t: warm2, spec: steps(-1, 2, 0), want: win(1000, 3000, "steps 1–2", 1, 2)},
		{name: "skip-steps 2", t: warm2, spec: steps(-1, -1, 2), want: win(3000, 3400, "steps 3–6", 3, 4, 5, 6)},
		{name: "steps 3: skip-steps 2", t: warm2, spec: steps(3, -1, 2), want: win(3200, 3400, "steps 5–6", 5, 6)},
		{name: "steps past the last", t: warm2, spec: steps(7, -1, 0), err: &metrics.NoStepsSelectedError{}, errText: "selects none of steps 1..6"},
		{name: "skip-steps all", t: warm2, spec: steps(-1, -1, 6), err: &metrics.NoStepsSelectedError{}, errText: "selects none of steps 1..6"},
		{name: "steps without steps", t: noSteps, spec: steps(1, 2, 0), err: metrics.ErrNoSteps},

		{name: "window 100ns:500ns", t: warm2, spec: span(100, 500, "100ns:500ns"), want: win(1120, 1520, "window 100ns:500ns")},
		{name: "window :500ns", t: warm2, spec: span(0, 500, ":500ns"), want: win(1020, 1520, "window :500ns")},
		{name: "window 2us:", t: warm2, spec: span(2000, -1, "2us:"), want: win(3020, 1<<63-1, "window 2us:")},
		{name: "window ending past trace.MaxTime", t: warm2, spec: span(0, 1<<62+5, ":4611686018427387909ns"),
			want: win(1020, 1020+trace.MaxTime, "window :4611686018427387909ns")},
		{name: "window after the activity", t: warm2, spec: span(2330, -1, "2330ns:"), err: &metrics.LateWindowError{}, errText: "lasts 2330 ns"},
		{name: "window without GPU activity", t: hostOnly, spec: span(0, 10, "0ns:10ns"), err: metrics.ErrNoGPUActivity},
		{name: "window without steps", t: noSteps, spec: span(100, 200, "100ns:200ns"), want: win(600, 700, "window 100ns:200ns")},

		{name: "range fwd", t: warm2, spec: metrics.WindowSpec{Range: "fwd"}, want: win(2020, 3050, "range fwd")},
		{name: "range missing", t: warm2, spec: metrics.WindowSpec{Range: "bwd"}, errText: `no range, annotation or op named "bwd"`},

		{name: "steady after 2 warm-up steps", t: warm2, spec: metrics.WindowSpec{Steady: true},
			want: win(3000, 3400, "steady: steps 3–6 (warm-up steps 1–2 left out)", 3, 4, 5, 6)},
		{name: "steady after 1 warm-up step", t: warm1, spec: metrics.WindowSpec{Steady: true},
			want: win(2000, 2300, "steady: steps 2–4 (warm-up step 1 left out)", 2, 3, 4)},
		{name: "steady without warm-up", t: even, spec: metrics.WindowSpec{Steady: true},
			want: win(1000, 1400, "steady: steps 1–4", 1, 2, 3, 4)},
		{name: "steady without steps", t: noSteps, spec: metrics.WindowSpec{Steady: true},
			warning: "no ProfilerStep#N (profile with a schedule and call prof.step()): the whole trace is measured"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sel, err := metrics.SelectWindow(tt.t, tt.spec)
			if tt.err != nil || tt.errText != "" {
				if err == nil {
					t.Fatalf("selected %+v, want an error", sel)
				}
				if tt.err != nil && !errors.Is(err, tt.err) && fmt.Sprintf("%T", err) != fmt.Sprintf("%T", tt.err) {
					t.Errorf("error %v (%T), want %v (%T)", err, err, tt.err, tt.err)
				}
				if !strings.Contains(err.Error(), tt.errText) {
					t.Errorf("error %q, want it to say %q", err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sel.Warning != tt.warning {
				t.Errorf("warning %q, want %q", sel.Warning, tt.warning)
			}
			if (sel.Window == nil) != (tt.want == nil) {
				t.Fatalf("window %+v, want %+v", sel.Window, tt.want)
			}
			if w := sel.Window; w != nil && (w.Start != tt.want.Start || w.End != tt.want.End || w.Label != tt.want.Label || !slices.Equal(w.Steps, tt.want.Steps)) {
				t.Errorf("window %+v, want %+v", *w, *tt.want)
			}
		})
	}
}
