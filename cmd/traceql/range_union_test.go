package main

import (
	"encoding/csv"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestRangeUnion: --range NAME measures the union of NAME's occurrences,
// not first start to last end: a kernel between two occurrences is not
// measured, one running across the time between them counts its time
// inside them only, and idle gaps lie inside the occurrences. Checked
// against a per-nanosecond brute force of the same layout (times in µs).
func TestRangeUnion(t *testing.T) {
	parts := [][2]int64{{0, 100}, {300, 400}}                          // the occurrences of fwd
	kernels := [][2]int64{{10, 50}, {150, 200}, {95, 305}, {310, 390}} // [150, 200]: between them
	var ev []string
	for _, p := range parts {
		ev = append(ev, fmt.Sprintf(`{"ph":"X","cat":"gpu_user_annotation","name":"fwd","pid":0,"tid":7,"ts":%d,"dur":%d}`, p[0], p[1]-p[0]))
	}
	for i, k := range kernels {
		ev = append(ev, fmt.Sprintf(`{"ph":"X","cat":"kernel","name":"k%d","pid":0,"tid":7,"ts":%d,"dur":%d,"args":{"device":0,"stream":7}}`, i, k[0], k[1]-k[0]))
	}
	path := writeTrace(t, "union.json", `{"traceEvents":[`+strings.Join(ev, ",\n")+`]}`)
	out, errOut, code := traceql("summarize", "--range", "fwd", "-f", "csv", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("%v:\n%s", err, out)
	}
	col := func(name string) string { return rows[1][slices.Index(rows[0], name)] }

	// Brute force, a nanosecond at a time.
	in := func(ns int64) bool {
		for _, p := range parts {
			if ns >= p[0]*1000 && ns < p[1]*1000 {
				return true
			}
		}
		return false
	}
	busyAt := func(ns int64) bool {
		for _, k := range kernels {
			if ns >= k[0]*1000 && ns < k[1]*1000 {
				return true
			}
		}
		return false
	}
	var busy, first, last int64 = 0, -1, -1
	for ns := int64(0); ns < 500_000; ns++ {
		if in(ns) && busyAt(ns) {
			busy++
			if first < 0 {
				first = ns
			}
			last = ns
		}
	}
	var span, gaps int64
	idleRun := false
	for ns := first; ns <= last; ns++ {
		if !in(ns) {
			idleRun = false
			continue
		}
		span++
		idle := !busyAt(ns)
		if idle && !idleRun {
			gaps++
		}
		idleRun = idle
	}
	kept := 0 // kernels that overlap an occurrence
	for _, k := range kernels {
		for _, p := range parts {
			if k[0] < p[1] && k[1] > p[0] {
				kept++
				break
			}
		}
	}
	want := map[string]string{"busy_ns": fmt.Sprint(busy), "span_ns": fmt.Sprint(span), "idle_ns": fmt.Sprint(span - busy),
		"idle_gaps": fmt.Sprint(gaps), "kernels": fmt.Sprint(kept), "window": "range fwd"}
	for name, w := range want {
		if got := col(name); got != w {
			t.Errorf("%s = %s, want %s", name, got, w)
		}
	}
}
