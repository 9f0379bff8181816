package annotate

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
)

// oneGap is the annotations of one device with one launch gap.
var oneGap = Annotations{
	Summary: metrics.Summary{Devices: []metrics.DeviceSummary{{Device: 0, SpanNS: 10, IdleNS: 5, IdleLaunchNS: 5}}},
	Gaps:    []metrics.ClassifiedGap{{Device: 0, Interval: metrics.Interval{Start: 1_000_001, End: 1_000_006}, LaunchNS: 5}},
}

// TestAnnotateSplice: the additions go into the top-level traceEvents
// array alone, whatever precedes it, and the rest is copied byte for byte.
func TestAnnotateSplice(t *testing.T) {
	tests := []struct {
		name, in string
		ok       bool
		events   int // in traceEvents after
	}{
		{"object", `{"schemaVersion": 1, "traceEvents": [{"ph": "X"}]}`, true, 7},
		{"empty array", `{"traceEvents" : [ ]}`, true, 6},
		{"array form", ` [{"ph":"X"}, {"ph":"X"}]`, true, 8},
		{"nested decoy", `{"a": {"traceEvents": [1]}, "b": ["traceEvents", [2]], "c": "\"traceEvents\": [", "traceEvents": [{}]}`, true, 7},
		{"key as value", `{"x": "traceEvents", "y": [1], "traceEvents": [{}]}`, true, 7},
		{"no events", `{"schemaVersion": 1}`, false, 0},
		{"not JSON", `hello`, false, 0},
		{"truncated", `{"traceEvents"`, false, 0},
		// A byte order mark, which the reader accepts, is dropped.
		{"BOM", "\ufeff" + `{"traceEvents": [{"ph": "X"}]}`, true, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			err := Splice(&b, strings.NewReader(tt.in), oneGap)
			if (err == nil) != tt.ok {
				t.Fatalf("error %v, want ok=%v", err, tt.ok)
			}
			if !tt.ok {
				return
			}
			var v any
			if err := json.Unmarshal(b.Bytes(), &v); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, b.String())
			}
			events, ok := v.([]any)
			if m, isObj := v.(map[string]any); isObj {
				events, ok = m["traceEvents"].([]any)
				if m["traceql"] == nil {
					t.Error("no traceql member")
				}
				if tt.name == "nested decoy" && len(m["a"].(map[string]any)["traceEvents"].([]any)) != 1 {
					t.Error("the decoy got the events")
				}
			}
			if !ok || len(events) != tt.events {
				t.Fatalf("%d events, want %d:\n%s", len(events), tt.events, b.String())
			}
			// The input is the output with at most two runs of bytes taken out.
			out := b.String()
			in := strings.TrimPrefix(tt.in, "\ufeff")
			p := 0
			for p < len(in) && in[p] == out[p] {
				p++
			}
			r, o := in[p:], out[p:]
			k := 0
			for k < len(r) && r[len(r)-1-k] == o[len(o)-1-k] {
				k++
			}
			if !strings.Contains(o[:len(o)-k], r[:len(r)-k]) {
				t.Errorf("the input's bytes changed:\n%s\n%s", in, out)
			}
			gap := `{"ph":"X","cat":"traceql","name":"launch","pid":1073741824,"tid":1,"ts":1000.001,"dur":0.005,"args":{"dur_ns":5,"sync_ns":0,"launch_ns":5,"other_ns":0}}`
			if !strings.Contains(out, gap) {
				t.Errorf("no gap event %s in\n%s", gap, out)
			}
		})
	}
}

// TestPerfettoNS: the times Perfetto's JSON importer reads for Kineto's
// decimal µs: exact below 2^51 ns (2.2e12 µs), up to 1 ns off at 4.5e12
// µs (since boot) and up to 250 ns at 1.7e15 µs (since 1970).
func TestPerfettoNS(t *testing.T) {
	for _, tt := range []struct{ ns, want int64 }{
		{123_456_789, 123_456_789},
		{-1_500, -1_500},
		{4_498_181_057_784_028, 4_498_181_057_784_029},
		{1_712_195_495_603_245_883, 1_712_195_495_603_246_000},
		{1_712_195_495_698_982_741, 1_712_195_495_698_982_656},
		{1_712_195_495_698_982_000, 1_712_195_495_698_982_000},
	} {
		if got := perfettoNS(tt.ns); got != tt.want {
			t.Errorf("perfettoNS(%d) = %d, want %d", tt.ns, got, tt.want)
		}
	}
}

// TestSliceLanes: slices go on as few threads as Perfetto, which nests a
// thread's slices and takes no partial overlap, needs: one for disjoint
// or nested slices, and for slices that end where the next begins even
// where Perfetto reads their times off (the dur is then the length
// between the ends as read); another for one that partially overlaps.
func TestSliceLanes(t *testing.T) {
	const epoch = 1_712_195_495_603_245_883 // read 117 ns late
	for _, tt := range []struct {
		name       string
		start, end []int64
		want       []int
	}{
		{"disjoint", []int64{0, 20}, []int64{10, 30}, []int{0, 0}},
		{"abutting", []int64{0, 10}, []int64{10, 20}, []int{0, 0}},
		{"nested", []int64{0, 10}, []int64{100, 20}, []int{0, 0}},
		{"abutting at 1.7e15 µs", []int64{epoch, epoch + 95_736_858}, []int64{epoch + 95_736_858, epoch + 2*95_736_858}, []int{0, 0}},
		{"overlapping", []int64{0, 50, 120}, []int64{100, 150, 200}, []int{0, 1, 0}},
		{"out of order", []int64{50, 0, 60}, []int64{150, 100, 70}, []int{1, 0, 0}},
		{"same start", []int64{0, 0}, []int64{10, 20}, []int{0, 0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := sliceLanes(tt.start, tt.end); !slices.Equal(got, tt.want) {
				t.Errorf("lanes %v, want %v", got, tt.want)
			}
		})
	}
	// Written so, abutting slices at 1.7e15 µs end, as Perfetto reads
	// them, where the next begins; written exact, the first would end
	// 202 ns past it.
	mid := int64(epoch + 95_736_858)
	if end := perfettoNS(epoch) + usNS(t, sliceDur(epoch, mid)); end != perfettoNS(mid) {
		t.Errorf("the first ends at %d as read, the second begins at %d", end, perfettoNS(mid))
	}
}

// usNS reads decimal µs written by usTime back to ns.
func usNS(t *testing.T, s string) int64 {
	t.Helper()
	whole, frac, _ := strings.Cut(s, ".")
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil || len(frac) != 3 || w < 0 {
		t.Fatalf("%q: not µs to the ns", s)
	}
	return w*1000 + f
}
