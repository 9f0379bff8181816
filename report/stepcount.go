package report

import (
	"fmt"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// stepCountNote says that the runs measured different numbers of steps
// (ProfilerStep#N), so that their totals (kernels, span, idle) differ by
// that alone: 4 steady steps against 10 read as kernels ×2.50. "" when the
// counts agree, or a run has no steps at all. devs[i] nil: run i has no
// such device.
func stepCountNote(labels []string, devs []*metrics.DeviceSummary) string {
	var counts []string
	same := true
	first := -1
	for i, d := range devs {
		if d == nil {
			continue
		}
		if len(d.Steps) == 0 { // no steps to count: an Nsight export, a vLLM run
			return ""
		}
		if first < 0 {
			first = i
		}
		same = same && len(d.Steps) == len(devs[first].Steps)
		counts = append(counts, fmt.Sprintf("%s %d", Printable(labels[i]), len(d.Steps)))
	}
	if same {
		return ""
	}
	if devs[first].PerStep > 0 {
		return "the runs measured different numbers of steps (" + strings.Join(counts, ", ") +
			"): counts and times are per step, each run's divided by its own steps"
	}
	return "the runs measured different numbers of steps (" + strings.Join(counts, ", ") +
		"): totals (kernels, kernel time, span, idle, launches) differ by that alone; compare the median step, " +
		"or measure the same steps (--steps, --steady)"
}

// tiny reports whether column c's value rests on too little in every run
// (metrics.Col.Tiny): a default table leaves it out, as it leaves out
// zeros.
func tiny(c metrics.Column, devs []*metrics.DeviceSummary) bool {
	if c.Tiny == nil {
		return false
	}
	for _, d := range devs {
		if d != nil && !c.Tiny(d) {
			return false
		}
	}
	return true
}

// perStepTitle is the title's line saying that the counts and times are
// per step (metrics.DeviceSummary.PerStep), and of how many: "per step
// (10 steps)", or each run's count when they differ (stepCountNote then
// says more), on one line where it fits 80 columns, else a line a run
// (perRunLines); "" for totals. --help says which metrics are divided.
func perStepTitle(labels []string, devs []*metrics.DeviceSummary) string {
	var runs, counts []string
	n, same := -1, true
	for i, d := range devs {
		if d == nil {
			continue
		}
		if d.PerStep == 0 {
			return ""
		}
		same = same && (n < 0 || d.PerStep == n)
		n = d.PerStep
		runs = append(runs, labels[i])
		counts = append(counts, plural(d.PerStep, "steps"))
	}
	if n < 0 {
		return ""
	}
	if same {
		return fmt.Sprintf("\n  per step (%s)", plural(n, "steps"))
	}
	var one []string
	for i, r := range runs {
		one = append(one, Printable(r)+" "+counts[i])
	}
	if line := "  per step (" + strings.Join(one, ", ") + ")"; columns(line) <= textWidth {
		return "\n" + line
	}
	return "\n  per step:" + perRunLines(runs, counts)
}

// textWidth is the width every line of a title keeps to: an 80-column
// terminal's.
const textWidth = 80

// perRunLines writes a line a run, "    label: value", the labels cut as
// tables cut names (shortNames, keeping what tells them apart) so that
// every line fits textWidth.
func perRunLines(labels, values []string) string {
	widest := 0
	for _, v := range values {
		widest = max(widest, columns(v))
	}
	short := shortNames(labels, Printable, max(textWidth-len("    : ")-widest, 8))
	var b strings.Builder
	for i := range labels {
		b.WriteString("\n    " + short[i] + ": " + values[i])
	}
	return b.String()
}
