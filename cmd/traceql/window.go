package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/trace"
)

// windowSpec is the selection the window flags make, already checked
// (check).
func (w *readOptions) windowSpec() metrics.WindowSpec {
	var s metrics.WindowSpec
	switch {
	case w.Range != "":
		s.Range = w.Range
	case w.Steady:
		s.Steady = true
	case w.Window != "":
		a, b, _ := parseWindow(w.Window)
		s.Time = &metrics.TimeSpec{Start: a, End: b, Text: w.Window}
	case w.Steps != "" || w.SkipSteps > 0:
		from, to, _ := parseStepSpec(w.Steps)
		s.Steps = &metrics.StepSpec{From: from, To: to, Skip: w.SkipSteps}
	}
	return s
}

// windowError says, naming the flags, why the window they select is not
// in the trace of source.
func (w *readOptions) windowError(source string, err error) error {
	var none *metrics.NoStepsSelectedError
	var late *metrics.LateWindowError
	switch {
	case w.Range != "":
		return fmt.Errorf("%s: --range: %w", source, err)
	case errors.As(err, &late):
		return fmt.Errorf("%s: --window %s starts after the GPU activity, which lasts %s", source, w.Window,
			report.Format(late.ActivityNS, metrics.NS))
	case w.Window != "":
		return fmt.Errorf("%s: --window: %w", source, err)
	case errors.As(err, &none):
		var flags []string
		if w.Steps != "" {
			flags = append(flags, "--steps "+w.Steps)
		}
		if w.SkipSteps > 0 {
			flags = append(flags, fmt.Sprintf("--skip-steps %d", w.SkipSteps))
		}
		return fmt.Errorf("%s: %s %w", source, strings.Join(flags, " "), err)
	default:
		return fmt.Errorf("%s: --steps: %w", source, err)
	}
}

// parseStepSpec reads "3:", "3:5", ":5" or "4"; -1 is an open bound.
func parseStepSpec(s string) (from, to int, err error) {
	if s == "" {
		return -1, -1, nil
	}
	a, b, colon := strings.Cut(s, ":")
	if !colon {
		b = a
	}
	bound := func(x string) (int, error) {
		if x == "" {
			return -1, nil
		}
		n, err := strconv.Atoi(x)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("--steps %q: want N, A:B, A: or :B with step numbers", s)
		}
		return n, nil
	}
	if from, err = bound(a); err != nil {
		return
	}
	if to, err = bound(b); err == nil && to >= 0 && to < from {
		err = fmt.Errorf("--steps %q: the last step is before the first", s)
	}
	return
}

// parseWindow reads "A:B" with units; an empty A is 0, an empty B is -1
// (to the end).
func parseWindow(s string) (a, b int64, err error) {
	if s == "" {
		return 0, -1, nil
	}
	x, y, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, fmt.Errorf("--window %q: want START:END, e.g. 100ms:500ms", s)
	}
	if a, err = parseDuration(x, 0); err != nil {
		return 0, 0, fmt.Errorf("--window %q: %w", s, err)
	}
	if b, err = parseDuration(y, -1); err != nil {
		return 0, 0, fmt.Errorf("--window %q: %w", s, err)
	}
	if b >= 0 && b <= a {
		return 0, 0, fmt.Errorf("--window %q: want an end after the start", s)
	}
	return a, b, nil
}

// parseDuration reads "250ms", "1.5s", "20us", "20µs", "100ns" into ns.
func parseDuration(s string, empty int64) (int64, error) {
	if s == "" {
		return empty, nil
	}
	for _, u := range []struct {
		suffix string
		ns     int64
	}{{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"ms", 1e6}, {"s", 1e9}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			us, err := trace.MicrosToNanos(num) // exact decimal: value in "µs" ×1000
			if err != nil || us < 0 {
				return 0, fmt.Errorf("bad time %q", s)
			}
			// us is num×1000; scale to ns of the unit without float64.
			if u.ns == 1 {
				return us / 1000, nil
			}
			f := u.ns / 1e3
			if us > (1<<63-1)/f {
				return 0, fmt.Errorf("time %q too large", s)
			}
			return us * f, nil
		}
	}
	return 0, fmt.Errorf("time %q needs a unit: ns, us, ms or s", s)
}

// leftInWarning says which warm-up or graph-capture steps the step flags
// kept (metrics.LeftStep), and the --skip-steps that leaves them out: one
// line, shown without --all, where the steps table would say it.
func (w *readOptions) leftInWarning(left []metrics.LeftStep) string {
	var flags []string
	if w.Steps != "" {
		flags = append(flags, "--steps "+w.Steps)
	}
	if w.SkipSteps > 0 {
		flags = append(flags, fmt.Sprintf("--skip-steps %d", w.SkipSteps))
	}
	var what []string
	for _, l := range left {
		s := fmt.Sprintf("step %d (%s", l.Number, report.Format(l.DurNS, metrics.NS))
		if l.Times > 0 {
			prec := 1
			if l.Times >= 10 {
				prec = 0
			}
			s += fmt.Sprintf(", %.*f× the median of the other steps", prec, l.Times)
		}
		if l.Captures {
			s += ", captures CUDA graphs"
		}
		what = append(what, s+")")
	}
	them, verb := "it", "looks"
	if len(left) > 1 {
		them, verb = "them", "look"
	}
	fix := slices.DeleteFunc(slices.Clone(flags), func(f string) bool { return strings.HasPrefix(f, "--skip-steps") })
	fix = append(fix, fmt.Sprintf("--skip-steps %d", w.SkipSteps+left[len(left)-1].Skip))
	return fmt.Sprintf("%s keeps %s, which %s like warm-up or graph capture: %s leaves %s out",
		strings.Join(flags, " "), strings.Join(what, ", "), verb, strings.Join(fix, " "), them)
}
