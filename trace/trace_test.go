package trace

import (
	"strings"
	"testing"
)

// TestValidate breaks one invariant at a time in a valid trace, and checks
// that Validate names it; with several broken, the first table's error
// (kernels, memcpys, memsets, syncs, API calls, ops) is reported. Every
// reader's tests call Validate on what they read: this holds that it can
// fail.
func TestValidate(t *testing.T) {
	valid := func() *Trace {
		act := func(stream, start, end int64) Activity {
			return Activity{Device: 0, Stream: stream, Start: start, End: end}
		}
		return &Trace{
			Devices:  []Device{{ID: 0}},
			Streams:  []Stream{{0, 7}, {0, 9}},
			Kernels:  []Kernel{{Activity: act(7, 0, 10)}, {Activity: act(9, 5, 20)}},
			Memcpys:  []Memcpy{{Activity: act(7, 30, 40)}},
			Memsets:  []Memset{{Activity: act(9, 50, 60)}},
			Syncs:    []Sync{{Activity: act(7, 70, 80)}},
			APICalls: []APICall{{Name: "cudaLaunchKernel", Start: 0, End: 3}, {Name: "cudaLaunchKernel", Start: 4, End: 6}},
			Ops:      []Op{{Name: "aten::mm", Start: 0, End: 9}, {Name: "aten::add", Start: 0, End: 10}},
		}
	}
	if err := valid().Validate(); err != nil {
		t.Fatalf("valid trace: %v", err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*Trace)
		want   string
	}{
		{"kernel end before start", func(tr *Trace) { tr.Kernels[1].End = 4 }, "kernel 1: end 4 before start 5"},
		{"kernels not sorted", func(tr *Trace) { tr.Kernels[1].Start, tr.Kernels[1].End = -1, 0 }, "kernel 1: not sorted"},
		{"device not listed", func(tr *Trace) { tr.Memcpys[0].Device = 3 }, "memcpy 0: device 3 not listed"},
		{"stream not listed", func(tr *Trace) { tr.Memsets[0].Stream = 8 }, "memset 0: stream 8 of device 0 not listed"},
		{"sync end before start", func(tr *Trace) { tr.Syncs[0].End = 0 }, "sync 0: end 0 before start 70"},
		{"api call end before start", func(tr *Trace) { tr.APICalls[0].End = -1 }, "api call 0 (cudaLaunchKernel): end before start"},
		{"api calls not sorted", func(tr *Trace) { tr.APICalls[1].Start = -5 }, "api call 1: not sorted"},
		{"ops not sorted", func(tr *Trace) { tr.Ops[1].End = 8 }, "op 1: not sorted"},
		{"devices not sorted", func(tr *Trace) { tr.Devices = []Device{{ID: 1}, {ID: 0}} }, "devices not sorted"},
		{"streams not sorted", func(tr *Trace) { tr.Streams[0], tr.Streams[1] = tr.Streams[1], tr.Streams[0] }, "streams not sorted"},
		{"first table wins", func(tr *Trace) { tr.Ops[0].End = -1; tr.Memsets[0].End = 0; tr.Kernels[0].End = -1 }, "kernel 0: end -1"},
	} {
		tr := valid()
		tc.mutate(tr)
		err := tr.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}
