package report

import (
	"fmt"

	"github.com/traceql/traceql/metrics"
)

// stepIdleTable lists each step's idle time by cause, the device's three
// (sync, launch, other), with the rows the other step tables list.
func stepIdleTable(steps []metrics.StepStat, suffix string) *Table {
	t := &Table{Title: "step idle time by cause" + suffix, Columns: []Column{{Name: "step", Unit: metrics.Text},
		{Name: "idle", Unit: metrics.NS}, {Name: "sync", Unit: metrics.NS}, {Name: "launch", Unit: metrics.NS}, {Name: "other", Unit: metrics.NS}}}
	skip := max(len(steps)-stepRows, 0)
	for i, s := range steps {
		switch {
		case i < stepRows/2 || i >= stepRows/2+skip:
			t.Rows = append(t.Rows, []any{fmt.Sprintf("#%d", s.Number), s.IdleNS, s.IdleSyncNS, s.IdleLaunchNS, s.IdleOtherNS})
		case i == stepRows/2:
			t.Rows = append(t.Rows, []any{"…", "", "", "", ""})
		}
	}
	t.Notes = []string{"by the device's rule (idle_sync_ns, idle_launch_ns, idle_other_ns in --help), on the part of each gap inside " +
		"the step; time before the device's first work waits on it like a gap, time after its last is other"}
	return t
}
