package metrics

import (
	"errors"
	"fmt"

	"github.com/traceql/traceql/trace"
)

// A WindowSpec says which part of a trace to measure: the steady state,
// without warm-up and compilation, or the part a user names. At most one of
// its fields is set; the zero WindowSpec measures the whole trace. The
// command line sets it from --steps/--skip-steps, --window, --range and
// --steady.
type WindowSpec struct {
	Steps  *StepSpec // ProfilerStep#N by number; nil: not by steps
	Time   *TimeSpec // a span of time after the first GPU activity; nil: not by time
	Range  string    // the union of the ranges of this name (rangeParts); "": none
	Steady bool      // the steps after the warm-up (WarmupWindows)
}

// A StepSpec selects the steps numbered From to To, inclusive, and then
// leaves out the first Skip of them.
type StepSpec struct {
	From, To int // step numbers; < 0: no bound
	Skip     int
}

// A TimeSpec selects Start to End ns after the first GPU activity.
type TimeSpec struct {
	Start int64
	End   int64 // < 0: to the end of the trace
	// Text is the span as the user wrote it ("100ms:500ms"): the window
	// is named by it.
	Text string
}

// A Selection is the part of a trace a WindowSpec selects.
type Selection struct {
	// Window is what to clip the trace to (trace.Clip), its Label naming
	// it; nil: the whole trace is measured.
	Window *trace.Window
	// Warning says why a selection measures the whole trace after all;
	// "" when it does not.
	Warning string
	// LeftIn are the leading steps a selection by steps kept that look
	// like warm-up or graph capture (LeftStep); nil when none does.
	LeftIn []LeftStep
}

// ErrNoSteps says that a trace has no ProfilerStep#N to select steps from.
var ErrNoSteps = errors.New("the trace has no ProfilerStep#N (profile with a schedule and call prof.step())")

// ErrNoGPUActivity says that a trace has no GPU activity for a time span to
// start from.
var ErrNoGPUActivity = errors.New("no GPU activity to measure from")

// A NoStepsSelectedError says that a StepSpec keeps none of a trace's
// steps, numbered First to Last.
type NoStepsSelectedError struct{ First, Last int }

// Error says which steps there were, for a message that names the
// selection before it ("--steps 9 selects none of steps 1..4").
func (e *NoStepsSelectedError) Error() string {
	return fmt.Sprintf("selects none of steps %d..%d", e.First, e.Last)
}

// A LateWindowError says that a TimeSpec starts after the GPU activity,
// which lasts ActivityNS.
type LateWindowError struct{ ActivityNS int64 }

// Error says how long the GPU activity lasts, for a message that names
// the span before it.
func (e *LateWindowError) Error() string {
	return fmt.Sprintf("starts after the GPU activity, which lasts %d ns", e.ActivityNS)
}

// noStepsWarning is the Warning of a steady selection in a trace without
// steps.
const noStepsWarning = "no ProfilerStep#N (profile with a schedule and call prof.step()): the whole trace is measured"

// SelectWindow returns the part of t that s selects, or why it selects
// nothing: ErrNoSteps, ErrNoGPUActivity, a *NoStepsSelectedError, a
// *LateWindowError, or rangeWindow's error. A steady selection of a trace
// without steps measures the whole trace, with a Warning.
func SelectWindow(t *trace.Trace, s WindowSpec) (Selection, error) {
	var win trace.Window
	switch {
	case s.Range != "":
		parts, err := rangeParts(t, s.Range)
		if err != nil {
			return Selection{}, err
		}
		win = trace.Window{Start: parts[0].Start, End: parts[len(parts)-1].End, Label: "range " + s.Range}
		if len(parts) > 1 {
			for _, p := range parts {
				win.Parts = append(win.Parts, trace.Span{Start: p.Start, End: p.End})
			}
		}
	case s.Steady:
		all := Steps(t)
		if len(all) == 0 {
			return Selection{Warning: noStepsWarning}, nil
		}
		n := WarmupWindows(all)
		win = stepsWindow(all[n:])
		win.Label = "steady: " + win.Label
		if n > 0 {
			win.Label += fmt.Sprintf(" (warm-up %s left out)", stepRange(all[:n]))
		}
	case s.Time != nil:
		origin, last, ok := gpuSpan(t)
		if !ok {
			return Selection{}, ErrNoGPUActivity
		}
		a, b := s.Time.Start, s.Time.End
		if a >= last-origin {
			return Selection{}, &LateWindowError{ActivityNS: last - origin}
		}
		// Times are within ±trace.MaxTime: so are the bounds, which then
		// cannot wrap around.
		a, b = min(a, trace.MaxTime), min(b, trace.MaxTime)
		win = trace.Window{Start: origin + a, End: origin + b, Label: "window " + s.Time.Text}
		if b < 0 {
			win.End = 1<<63 - 1
		}
	case s.Steps != nil:
		all := Steps(t)
		if len(all) == 0 {
			return Selection{}, ErrNoSteps
		}
		sel := selectSteps(all, s.Steps.From, s.Steps.To, s.Steps.Skip)
		if len(sel) == 0 {
			return Selection{}, &NoStepsSelectedError{First: all[0].Number, Last: all[len(all)-1].Number}
		}
		win = stepsWindow(sel)
		return Selection{Window: &win, LeftIn: leftIn(t, sel)}, nil
	default:
		return Selection{}, nil
	}
	return Selection{Window: &win}, nil
}

// stepsWindow is the window of the steps sel, labelled with their numbers.
func stepsWindow(sel []Step) trace.Window {
	win := trace.Window{Start: sel[0].Start, End: sel[0].End, Label: stepRange(sel)}
	for _, s := range sel {
		win.Start, win.End = min(win.Start, s.Start), max(win.End, s.End)
		win.Steps = append(win.Steps, s.Number)
	}
	return win
}

// stepRange names steps: "step 3", or "steps 2–9" from the first to the
// last number.
func stepRange(steps []Step) string {
	a, b := steps[0].Number, steps[len(steps)-1].Number
	if a == b {
		return fmt.Sprintf("step %d", a)
	}
	return fmt.Sprintf("steps %d–%d", a, b)
}

// gpuSpan returns the earliest start and the latest end of GPU work.
func gpuSpan(t *trace.Trace) (first, last int64, ok bool) {
	t.EachGPUActivity(func(a *trace.Activity) {
		if !ok {
			first, last, ok = a.Start, a.End, true
		}
		first, last = min(first, a.Start), max(last, a.End)
	})
	return first, last, ok
}
