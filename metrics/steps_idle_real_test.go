package metrics_test

import (
	"context"
	"testing"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// TestStepIdleRealTraces: on every real trace with steps, each step's
// idle causes add up to its idle time, and the summary's steps and
// StepStats' agree.
func TestStepIdleRealTraces(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every real trace")
	}
	steps := 0
	for _, path := range realTraceFiles(t) {
		tr, err := trace.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range metrics.Summarize(tr, metrics.Options{}).Devices {
			if d.Partial {
				continue
			}
			apart := metrics.StepStats(tr, d.Device)
			for i, s := range d.Steps {
				if s.IdleSyncNS < 0 || s.IdleLaunchNS < 0 || s.IdleOtherNS < 0 || s.IdleSyncNS+s.IdleLaunchNS+s.IdleOtherNS != s.IdleNS {
					t.Errorf("%s GPU %d step #%d: sync %d + launch %d + other %d ≠ idle %d", path, d.Device, s.Number,
						s.IdleSyncNS, s.IdleLaunchNS, s.IdleOtherNS, s.IdleNS)
				}
				if i < len(apart) && (apart[i].IdleSyncNS != s.IdleSyncNS || apart[i].IdleLaunchNS != s.IdleLaunchNS || apart[i].IdleOtherNS != s.IdleOtherNS) {
					t.Errorf("%s GPU %d step #%d: StepStats %d/%d/%d, summary %d/%d/%d", path, d.Device, s.Number, apart[i].IdleSyncNS,
						apart[i].IdleLaunchNS, apart[i].IdleOtherNS, s.IdleSyncNS, s.IdleLaunchNS, s.IdleOtherNS)
				}
				steps++
			}
		}
	}
	if steps == 0 {
		t.Fatal("no step checked")
	}
	t.Logf("%d steps checked", steps)
}
