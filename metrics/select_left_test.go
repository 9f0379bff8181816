package metrics

import (
	"fmt"
	"slices"
	"testing"

	"github.com/traceql/traceql/trace"
)

// TestLeftIn: the leading selected steps of 5× the median of the others
// or more, or holding a graph capture, are left in; a steady step stops
// the list. The expected steps are worked out by hand from the lengths.
func TestLeftIn(t *testing.T) {
	tests := []struct {
		name    string
		lens    []int64 // step lengths in ns, steps numbered from 1
		capture int     // the step whose host range begins a capture; 0: none
		want    []int   // the steps left in
	}{
		{"steady", []int64{100, 110, 90, 100}, 0, nil},
		{"just under 5x", []int64{499, 100, 100, 100}, 0, nil},
		{"5x", []int64{500, 100, 100, 100}, 0, []int{1}},
		{"two", []int64{5000, 600, 100, 100, 100}, 0, []int{1, 2}},
		{"a later long step is no warm-up", []int64{100, 5000, 100, 100}, 0, nil},
		{"capture in a short step", []int64{120, 100, 100}, 1, []int{1}},
		{"capture after a steady step", []int64{100, 120, 100}, 2, nil},
		{"the last step is kept", []int64{900, 100}, 0, []int{1}},
		{"one step", []int64{900}, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &trace.Trace{}
			var sel []Step
			at := int64(1000)
			for i, n := range tt.lens {
				s := Step{Number: i + 1, Start: at, End: at + n}
				sel = append(sel, s)
				tr.Ops = append(tr.Ops, trace.Op{Name: fmt.Sprintf("ProfilerStep#%d", i+1), Kind: trace.UserAnnotation, Start: s.Start, End: s.End})
				if tt.capture == i+1 {
					tr.APICalls = append(tr.APICalls, trace.APICall{Name: "cudaStreamBeginCapture", Start: s.Start + n/2, End: s.Start + n/2 + 1})
				}
				at += n
			}
			var got []int
			for j, l := range leftIn(tr, sel) {
				got = append(got, l.Number)
				if l.Skip != j+1 {
					t.Errorf("step %d: Skip %d, want %d", l.Number, l.Skip, j+1)
				}
				if l.Captures != (tt.capture == l.Number) {
					t.Errorf("step %d: Captures %v", l.Number, l.Captures)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("left in %v, want %v", got, tt.want)
			}
		})
	}
}
