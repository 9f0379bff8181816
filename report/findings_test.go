package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/traceql/traceql/metrics"
)

// TestVerdictNamesHostCall: idle while the host sits inside one long call
// is named by it, not blamed on data loading; a sync behind a stream's
// event wait says that removing syncs does not help.
func TestVerdictNamesHostCall(t *testing.T) {
	host := func(call string) *metrics.DeviceSummary {
		return &metrics.DeviceSummary{SpanNS: 1e9, IdleNS: 9e8, IdleLaunchNS: 9e8, HostCall: call, HostCallIdleNS: 8e8, HostCallMaxNS: 8e8}
	}
	for call, want := range map[string]string{
		"cudaLaunchKernel": "module loading", "hipFree": "allocates or frees device memory", "cudaMalloc": "allocates or frees",
		"cuMemFree": "allocates or frees", "hipStreamWaitEvent": "waits for an event", "cudaGetDeviceProperties": "inside cudaGetDeviceProperties",
	} {
		v := verdict(host(call))
		if !strings.Contains(v, want) || !strings.Contains(v, call) || strings.Contains(v, "data loading, Python or other host code") {
			t.Errorf("%s: %q; want it named, with %q", call, v, want)
		}
	}
	// Under half the launch wait inside the call: the usual sentence.
	d := host("hipFree")
	d.HostCallIdleNS = 3e8
	if v := verdict(d); !strings.Contains(v, "data loading, Python or other host code") {
		t.Errorf("a call of a third of the idle: %q", v)
	}
	sync := &metrics.DeviceSummary{SpanNS: 1e9, IdleNS: 9e8, IdleSyncNS: 8.9e8, IdleStreamWaitNS: 8.8e8}
	if v := verdict(sync); !strings.HasPrefix(v, "sync-bound") || !strings.Contains(v, "removing syncs does not change") {
		t.Errorf("sync behind an event wait: %q", v)
	}
	sync.IdleStreamWaitNS = 0
	if v := verdict(sync); strings.Contains(v, "event") {
		t.Errorf("sync without event waits: %q", v)
	}
}

// TestFindingLineFits: each rule's headline line fits 80 columns with
// the headline's indent, at six-digit counts and three-digit times: bytes
// only for the copy rules, a saving only where the rule has one.
func TestFindingLineFits(t *testing.T) {
	for _, r := range metrics.Rules() {
		f := metrics.Finding{Rule: r.ID, Severity: metrics.High, Count: 999_999, TimeNS: 999_400_000}
		if strings.Contains(r.ID, "copy") || strings.Contains(r.ID, "memset") {
			f.Bytes = 999_400_000_000
		}
		if r.Savings != "" {
			f.SavingsNS, f.HasSavings = f.TimeNS, true
		}
		line := "  finding " + findingLine(f, 1_000_000_000)
		if n := utf8.RuneCountInString(line); n > 80 {
			t.Errorf("%s: %d columns: %q", r.ID, n, line)
		}
	}
}
