package report

import (
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
)

// TestStepTableUntested: with too few steps for the test to reach p < 0.05
// the change is shown and marked untested, not written "~" as if it were
// within the step-to-step spread.
func TestStepTableUntested(t *testing.T) {
	few := metrics.StepDelta{Metric: "step time", Unit: metrics.NS, Old: []float64{1, 2, 3}, New: []float64{30, 31, 32},
		P: 0.1, MinP: 0.1}
	many := metrics.StepDelta{Metric: "step time", Unit: metrics.NS, Old: []float64{1, 2, 3, 4}, New: []float64{2, 3, 4, 5},
		P: 0.49, MinP: 0.029, Testable: true}

	tab := stepTable([]metrics.StepDelta{few})
	if got := tab.Rows[0][5]; got != "+1450 % ×15.5 †" {
		t.Errorf("untested change %q, want the medians' change marked †", got)
	}
	if len(tab.Notes) != 1 || !strings.Contains(tab.Notes[0], "with 3 and 3 steps the smallest p the test can give is 0.100") {
		t.Errorf("notes %q", tab.Notes)
	}

	tab = stepTable([]metrics.StepDelta{many})
	if got := tab.Rows[0][5]; got != "~" || len(tab.Notes) != 0 {
		t.Errorf("testable, not significant: change %q, notes %q; want ~ and no note", got, tab.Notes)
	}
}
