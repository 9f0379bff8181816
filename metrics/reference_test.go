package metrics_test

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// TestReference reproduces every row of ../shared/traces/reference.csv,
// values computed independently of traceql: integers exactly, ratios to
// 1e-9 relative.
func TestReference(t *testing.T) {
	dir := shared.Traces(t)
	f, err := os.Open(filepath.Join(dir, "reference.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header, rows := rows[0], rows[1:]
	byFile := map[string][]map[string]string{}
	var order []string
	for _, r := range rows {
		m := map[string]string{}
		for i, h := range header {
			m[h] = r[i]
		}
		if byFile[m["file"]] == nil {
			order = append(order, m["file"])
		}
		byFile[m["file"]] = append(byFile[m["file"]], m)
	}
	compared, missing := 0, 0 // missing: values traceql leaves out, that reference.csv has as 0
	for _, file := range order {
		t.Run(file, func(t *testing.T) {
			tr, err := trace.Open(context.Background(), filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			sum := metrics.Summarize(tr, metrics.Options{})
			devs := map[string]metrics.DeviceSummary{}
			for _, d := range sum.Devices {
				devs[strconv.Itoa(d.Device)] = d
			}
			for _, want := range byFile[file] {
				d, ok := devs[want["device"]]
				if !ok {
					t.Errorf("device %s: not in summary (devices %v)", want["device"], sum.Devices)
					continue
				}
				got := map[string]any{}
				for _, c := range metrics.Columns() {
					got[c.Name] = c.Get(&d)
				}
				for _, col := range header[2:] {
					if got[col] == nil {
						// reference.csv writes 0 for the bandwidth of a
						// copy kind without copies (its README: "0 when
						// there are no copies"), where traceql has no
						// value. Only there: that kind's copy time is 0
						// in the reference too.
						kind, ok := strings.CutSuffix(col, "_gbps")
						if !ok || want[kind+"_ns"] != "0" || want[col] != "0" && want[col] != "0.0" {
							t.Errorf("device %s %s: no value, want %s", want["device"], col, want[col])
						}
						missing++
						continue
					}
					compare(t, "device "+want["device"]+" "+col, got[col], want[col])
					compared++
				}
			}
			if len(sum.Devices) != len(byFile[file]) {
				t.Errorf("%d devices with activity, reference has %d", len(sum.Devices), len(byFile[file]))
			}
		})
	}
	if compared == 0 {
		t.Fatal("no value compared")
	}
	t.Logf("%d values compared; %d bandwidths of no copies, 0 in the reference, have none", compared, missing)
}

func compare(t *testing.T, what string, got any, want string) {
	t.Helper()
	switch g := got.(type) {
	case int64:
		w, err := strconv.ParseFloat(want, 64)
		if err != nil || float64(g) != w {
			t.Errorf("%s = %d, want %s", what, g, want)
		}
	case int:
		compare(t, what, int64(g), want)
	case float64:
		w, err := strconv.ParseFloat(want, 64)
		if err != nil || math.Abs(g-w) > 1e-9*math.Max(math.Abs(w), 1e-300) && g != w {
			t.Errorf("%s = %v, want %s", what, g, want)
		}
	default:
		t.Errorf("%s: no such column in metrics.Columns", what)
	}
}
