package metrics

import (
	"strings"
	"testing"

	"github.com/traceql/traceql/trace"
)

func TestVerdict(t *testing.T) {
	// A device with a 1 s span and idle time split as given.
	dev := func(idle, launch, short, sync int64, graphs int) *DeviceSummary {
		d := &DeviceSummary{SpanNS: 1e9, IdleNS: idle, IdleLaunchNS: launch, ShortLaunchNS: short, IdleSyncNS: sync}
		d.Launch.GraphLaunches = graphs
		return d
	}
	for _, c := range []struct {
		name string
		d    *DeviceSummary
		want Bound
	}{
		{"no span", &DeviceSummary{}, Unbound},
		{"idle under a tenth", dev(99_999_999, 99_999_999, 99_999_999, 0, 0), Unbound},
		{"idle a tenth, all short launch gaps", dev(1e8, 1e8, 1e8, 0, 0), LaunchBound},
		{"launch half, short half of that", dev(4e8, 2e8, 1e8, 0, 0), LaunchBound},
		{"the same with graphs", dev(4e8, 2e8, 1e8, 0, 3), GraphLaunchBound},
		{"launch half, short under half of that", dev(4e8, 2e8, 1e8-1, 0, 0), HostBound},
		{"launch under half, sync half", dev(4e8, 2e8-1, 2e8-1, 2e8, 0), SyncBound},
		{"neither has half", dev(4e8, 2e8-1, 2e8-1, 2e8-1, 0), Unbound},
		{"near MaxTime", &DeviceSummary{SpanNS: trace.MaxTime, IdleNS: trace.MaxTime, IdleSyncNS: trace.MaxTime}, SyncBound},
		{"measured in part", &DeviceSummary{SpanNS: 1e9, IdleNS: 1e9, IdleLaunchNS: 1e9, ShortLaunchNS: 1e9, Partial: true}, Unbound},
		{"copies exposed half the span", classes(dev(0, 0, 0, 0, 0), ClassH2D, 3e8, ClassD2H, 1e8, ClassOtherCopy, 1e8), CopyBound},
		{"copies exposed under half", classes(dev(0, 0, 0, 0, 0), ClassH2D, 5e8-1), Unbound},
		{"copies before idle causes", classes(dev(4e8, 4e8, 4e8, 0, 0), ClassD2H, 5e8), CopyBound},
		{"comm exposed half the span", classes(dev(0, 0, 0, 0, 0), ClassComm, 5e8), CommBound},
		{"copies win over comm", classes(dev(0, 0, 0, 0, 0), ClassComm, 5e8, ClassMemset, 0, ClassH2D, 5e8), CopyBound},
		{"memsets are no copies", classes(dev(0, 0, 0, 0, 0), ClassMemset, 6e8), Unbound},
		{"compute is no bound", classes(dev(0, 0, 0, 0, 0), ClassCompute, 1e9), Unbound},
	} {
		if got := Verdict(c.d); got != c.want {
			t.Errorf("%s: Verdict = %v, want %v", c.name, got, c.want)
		}
	}
	var names []string
	for b := Unbound; b <= CommBound; b++ {
		names = append(names, b.String())
	}
	if got := strings.Join(names, " "); got != "none launch graph-launch host sync copy comm" {
		t.Errorf("bound names %q", got)
	}
}

// classes sets d's busy classes, given as class, time pairs.
func classes(d *DeviceSummary, kv ...int64) *DeviceSummary {
	for i := 0; i < len(kv); i += 2 {
		d.Classes[kv[i]] = kv[i+1]
	}
	return d
}
