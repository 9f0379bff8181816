package trace

import "testing"

// TestFilterPartial: a filtered trace is Partial when the filter left out
// work of a device it kept, and only then: --stream naming every stream,
// or --kernel matching every kernel, keeps the device whole.
func TestFilterPartial(t *testing.T) {
	tr := &Trace{
		Devices: []Device{{ID: 0}, {ID: 1}},
		Streams: []Stream{{0, 7}, {0, 8}, {1, 7}},
		Kernels: []Kernel{
			{Activity: Activity{Device: 0, Stream: 7, Start: 0, End: 1}, Name: "gemm"},
			{Activity: Activity{Device: 0, Stream: 8, Start: 1, End: 2}, Name: "relu"},
			{Activity: Activity{Device: 1, Stream: 7, Start: 1, End: 2}, Name: "gemm"},
		},
		Memcpys: []Memcpy{{Activity: Activity{Device: 1, Stream: 9, Start: 3, End: 4}}},
	}
	is := func(v int64) func(int64) bool { return func(x int64) bool { return x == v } }
	for _, tt := range []struct {
		name string
		f    Filter
		want bool
	}{
		{"device 1", Filter{Device: func(d int) bool { return d == 1 }}, false},
		{"stream 7 of device 0, which has 8 too", Filter{Device: func(d int) bool { return d == 0 }, Stream: is(7)}, true},
		{"streams 7 and 8 of device 0: all it has", Filter{Device: func(d int) bool { return d == 0 }, Stream: func(s int64) bool { return s == 7 || s == 8 }}, false},
		{"stream 7 of device 1, whose copy is on 9", Filter{Device: func(d int) bool { return d == 1 }, Stream: is(7)}, true},
		{"kernels matching every kernel", Filter{Kernel: func(string) bool { return true }}, false},
		{"kernels named gemm", Filter{Kernel: func(n string) bool { return n == "gemm" }}, true},
		{"gemm on device 1, its only kernel", Filter{Device: func(d int) bool { return d == 1 }, Kernel: func(n string) bool { return n == "gemm" }}, false},
	} {
		if got := tr.Filter(tt.f).Partial; got != tt.want {
			t.Errorf("%s: Partial %v, want %v", tt.name, got, tt.want)
		}
	}
	if tr.Partial {
		t.Error("Filter changed the trace it was called on")
	}
}
