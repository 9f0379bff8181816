package report

import (
	"bytes"
	"encoding/json"
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			err := Annotate(&b, strings.NewReader(tt.in), oneGap)
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
			in := tt.in
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
