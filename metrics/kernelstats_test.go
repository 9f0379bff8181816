package metrics_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/internal/usns"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// TestKernelDistsNsight: per-kernel statistics on the shared Nsight
// exports equal what SQL says of the same rows, as nsys stats'
// cuda_gpu_kern_sum computes them: count, total, min and max by GROUP BY,
// median and sample standard deviation from the durations the query
// returns in order.
func TestKernelDistsNsight(t *testing.T) {
	dir := shared.Traces(t)
	files, _ := filepath.Glob(filepath.Join(dir, "nsys", "*.sqlite"))
	if len(files) != 4 {
		t.Fatalf("%d Nsight exports in %s, want the four", len(files), dir)
	}
	checked := 0
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			tr, err := trace.Open(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			db, err := sql.Open("sqlite", "file:"+f+"?mode=ro&immutable=1")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			// The name traceql gives a kernel: its demangled name, else its
			// short one.
			const name = `coalesce(nullif(d.value, ''), s.value)`
			const from = ` FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN StringIds d ON d.id = k.demangledName
				LEFT JOIN StringIds s ON s.id = k.shortName`
			rows, err := db.Query(`SELECT k.deviceId, ` + name + `, count(*), sum(k."end" - k.start), min(k."end" - k.start), max(k."end" - k.start)` +
				from + ` GROUP BY 1, 2`)
			if err != nil {
				t.Fatal(err)
			}
			type key struct {
				dev  int
				name string
			}
			want := map[key]metrics.KernelDist{}
			for rows.Next() {
				var k key
				var d metrics.KernelDist
				if err := rows.Scan(&k.dev, &k.name, &d.Count, &d.TotalNS, &d.MinNS, &d.MaxNS); err != nil {
					t.Fatal(err)
				}
				want[k] = d
			}
			rows.Close()
			durs := map[key][]int64{}
			rows, err = db.Query(`SELECT k.deviceId, ` + name + `, k."end" - k.start` + from + ` ORDER BY 1, 2, 3`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var k key
				var d int64
				if err := rows.Scan(&k.dev, &k.name, &d); err != nil {
					t.Fatal(err)
				}
				durs[k] = append(durs[k], d)
			}
			rows.Close()
			got := 0
			for _, dev := range tr.Devices {
				for _, s := range metrics.KernelDists(tr, dev.ID) {
					k := key{dev.ID, s.Name}
					w, ok := want[k]
					if !ok {
						t.Errorf("GPU %d %q: not in SQL", dev.ID, s.Name)
						continue
					}
					ds := durs[k]
					n := len(ds)
					med := float64(ds[n/2])
					if n%2 == 0 {
						med = (float64(ds[n/2-1]) + float64(ds[n/2])) / 2
					}
					mean := float64(w.TotalNS) / float64(n)
					var ss float64
					for _, x := range ds {
						ss += (float64(x) - mean) * (float64(x) - mean)
					}
					sd := 0.0
					if n > 1 {
						sd = math.Sqrt(ss / float64(n-1))
					}
					if s.Count != w.Count || s.TotalNS != w.TotalNS || s.MinNS != w.MinNS || s.MaxNS != w.MaxNS || s.MedianNS != med ||
						math.Abs(s.StddevNS-sd) > 1e-9*max(sd, 1) {
						t.Errorf("GPU %d %.60q: %d/%d/%d/%d median %v sd %v; SQL %d/%d/%d/%d median %v sd %v", dev.ID, s.Name, s.Count, s.TotalNS,
							s.MinNS, s.MaxNS, s.MedianNS, s.StddevNS, w.Count, w.TotalNS, w.MinNS, w.MaxNS, med, sd)
					}
					got++
				}
			}
			if got != len(want) {
				t.Errorf("%d kernel names checked, SQL has %d", got, len(want))
			}
			checked += got
		})
	}
	if checked == 0 {
		t.Error("no kernel name checked")
	}
}

// TestAPIStatsNsight: the host API summary of the shared Nsight exports
// equals the runtime and driver rows SQL returns, grouped by name with the
// CUPTI version suffix (_v7000, _v11060) taken off, as cuda_api_sum does.
func TestAPIStatsNsight(t *testing.T) {
	dir := shared.Traces(t)
	files, _ := filepath.Glob(filepath.Join(dir, "nsys", "*.sqlite"))
	suffix := regexp.MustCompile(`_v[0-9]{4,5}$`)
	checked := 0
	for _, f := range files {
		tr, err := trace.Open(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("sqlite", "file:"+f+"?mode=ro&immutable=1")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]int64{}
		for _, table := range []string{"CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"} {
			rows, err := db.Query(`SELECT s.value, r."end" - r.start FROM ` + table + ` r JOIN StringIds s ON s.id = r.nameId`)
			if err != nil {
				continue // an export without the table
			}
			for rows.Next() {
				var name string
				var d int64
				if err := rows.Scan(&name, &d); err != nil {
					t.Fatal(err)
				}
				name = suffix.ReplaceAllString(name, "")
				want[name] = append(want[name], d)
			}
			rows.Close()
		}
		db.Close()
		got := metrics.APIStats(tr)
		if len(got) != len(want) {
			t.Errorf("%s: %d API names, SQL has %d", filepath.Base(f), len(got), len(want))
		}
		for _, g := range got {
			ds := want[g.Name]
			var total int64
			for _, d := range ds {
				total += d
			}
			if g.Count != len(ds) || g.TotalNS != total || g.MinNS != slices.Min(ds) || g.MaxNS != slices.Max(ds) {
				t.Errorf("%s %s: %d calls, %d ns, %d–%d; SQL %d, %d ns", filepath.Base(f), g.Name, g.Count, g.TotalNS, g.MinNS, g.MaxNS, len(ds), total)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Error("no API name checked")
	}
}

// TestStreamStats: each stream's busy time is the union of its own
// activity, checked a nanosecond at a time on a generated trace of two
// streams.
func TestStreamStats(t *testing.T) {
	gen, tr := writeIdle(t, synth.IdleConfig{Seed: 9, Launches: 200})
	got := metrics.StreamStats(tr, 0)
	if len(got) != 2 {
		t.Fatalf("%d streams, want 2", len(got))
	}
	for _, st := range got {
		var ivs [][2]int64
		kernels := 0
		for _, k := range gen.Kernels {
			if k.Stream == st.Stream {
				ivs = append(ivs, [2]int64{k.Start, k.End})
				kernels++
			}
		}
		lo, hi := ivs[0][0], ivs[0][1]
		for _, iv := range ivs {
			lo, hi = min(lo, iv[0]), max(hi, iv[1])
		}
		busy := make([]bool, hi-lo)
		for _, iv := range ivs {
			for x := iv[0]; x < iv[1]; x++ {
				busy[x-lo] = true
			}
		}
		var n int64
		for _, b := range busy {
			if b {
				n++
			}
		}
		if st.Kernels != kernels || st.SpanNS != hi-lo || st.BusyNS != n || st.IdleNS != hi-lo-n {
			t.Errorf("stream %d: %+v; want %d kernels, span %d, busy %d", st.Stream, st, kernels, hi-lo, n)
		}
	}
}

// TestCopyDists: copies by kind and memory kinds on the README's sample
// equal its generator's truth (count, bytes, time), and the sizes equal a
// decode of its events with encoding/json (min, median, max).
func TestCopyDists(t *testing.T) {
	const path = "../testdata/sample.pt.trace.json.gz"
	var truth synth.Truth
	if b, err := os.ReadFile("../testdata/sample.truth.json"); err != nil {
		t.Fatal(err)
	} else if err := json.Unmarshal(b, &truth); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Cat  string `json:"cat"`
			Name string `json:"name"`
			Args struct {
				Device int   `json:"device"`
				Bytes  int64 `json:"bytes"`
			} `json:"args"`
		} `json:"traceEvents"`
	}
	decodeJSON(t, path, &doc)
	sizes := map[string][]int64{} // "device name" → sizes
	for _, e := range doc.TraceEvents {
		if e.Cat == "gpu_memcpy" {
			k := fmt.Sprint(e.Args.Device, " ", e.Name)
			sizes[k] = append(sizes[k], e.Args.Bytes)
		}
	}
	tr, err := trace.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, dt := range truth.Devices {
		got := map[string]metrics.CopyDist{}
		for _, c := range metrics.CopyDists(tr, dt.Device) {
			got[c.Kind+" "+c.Src+" "+c.Dst] = c
		}
		for _, w := range dt.Copies {
			g := got[w.Kind+" "+w.Src+" "+w.Dst]
			xs := sizes[fmt.Sprint(dt.Device, " ", w.Name)]
			slices.Sort(xs)
			med := float64(xs[len(xs)/2])
			if len(xs)%2 == 0 {
				med = float64(xs[len(xs)/2-1]+xs[len(xs)/2]) / 2
			}
			if g.Count != w.Copies || g.Bytes != w.Bytes || g.NS != w.NS || g.MinBytes != xs[0] || g.MaxBytes != xs[len(xs)-1] || g.MedianBytes != med {
				t.Errorf("GPU %d %s: %+v; want %d copies, %d B, %d ns, sizes %d/%v/%d", dt.Device, w.Name, g, w.Copies, w.Bytes, w.NS, xs[0], med, xs[len(xs)-1])
			}
			checked++
		}
	}
	if checked < 5 {
		t.Errorf("%d copy kinds checked", checked)
	}
}

// TestRangeStatsNsight: the range summary of the shared Nsight exports
// equals the NVTX push/pop and start/end ranges SQL returns, named
// coalesce(text, StringIds[textId]) and grouped by name as nvtx_sum does.
// Two of the four exports record NVTX; the test fails if neither is read.
func TestRangeStatsNsight(t *testing.T) {
	dir := shared.Traces(t)
	files, _ := filepath.Glob(filepath.Join(dir, "nsys", "*.sqlite"))
	checked := 0
	for _, f := range files {
		db, err := sql.Open("sqlite", "file:"+f+"?mode=ro&immutable=1")
		if err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query(`SELECT coalesce(n.text, s.value), n."end" - n.start FROM NVTX_EVENTS n
			LEFT JOIN StringIds s ON s.id = n.textId WHERE n.eventType IN (59, 60) AND n."end" IS NOT NULL`)
		if err != nil {
			db.Close()
			continue // an export without NVTX
		}
		want := map[string][]int64{}
		for rows.Next() {
			var name string
			var d int64
			if err := rows.Scan(&name, &d); err != nil {
				t.Fatal(err)
			}
			want[name] = append(want[name], d)
		}
		rows.Close()
		db.Close()
		tr, err := trace.Open(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		got := metrics.RangeStats(tr)
		if len(got) != len(want) {
			t.Errorf("%s: %d range names, SQL has %d", filepath.Base(f), len(got), len(want))
		}
		for _, g := range got {
			ds := want[g.Name]
			if len(ds) == 0 {
				t.Errorf("%s: range %q not in SQL", filepath.Base(f), g.Name)
				continue
			}
			slices.Sort(ds)
			var total int64
			for _, d := range ds {
				total += d
			}
			median := float64(ds[len(ds)/2])
			if len(ds)%2 == 0 {
				median = (float64(ds[len(ds)/2-1]) + float64(ds[len(ds)/2])) / 2
			}
			if g.Count != len(ds) || g.TotalNS != total || g.MinNS != ds[0] || g.MaxNS != ds[len(ds)-1] || g.MedianNS != median {
				t.Errorf("%s %q: %d ranges, %d ns, %d–%d, median %g; SQL %d, %d ns, %d–%d, median %g", filepath.Base(f), g.Name,
					g.Count, g.TotalNS, g.MinNS, g.MaxNS, g.MedianNS, len(ds), total, ds[0], ds[len(ds)-1], median)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Error("no NVTX range name checked")
	}
}

// TestOccupancyReal: on real Kineto traces that record launch efficiency,
// each kernel name's occupancy in KernelDists is the duration-weighted
// mean of its events' "est. achieved occupancy %", and PerSM gives the
// "blocks per SM" and "warps per SM" Kineto wrote (summed per name, to
// Kineto's printed precision), decoded here with encoding/json.
func TestOccupancyReal(t *testing.T) {
	dir := shared.Traces(t)
	checked := 0
	for _, rel := range []string{"hta/trace_diff/control/control.json.gz", "kineto/resnet50_v100_workers0.pt.trace.json.gz"} {
		path := filepath.Join(dir, rel)
		var doc struct {
			TraceEvents []struct {
				Ph, Cat, Name string
				Dur           json.Number
				Args          map[string]any
			} `json:"traceEvents"`
		}
		decodeJSON(t, path, &doc)
		type key struct {
			dev  int
			name string
		}
		type want struct {
			pctNS, ns      int64
			blocks, warps  float64
			perSM, withOcc int
		}
		wants := map[key]*want{}
		num := func(a map[string]any, k string) (float64, bool) {
			n, ok := a[k].(json.Number)
			if !ok {
				return 0, false
			}
			v, err := n.Float64()
			return v, err == nil
		}
		for _, e := range doc.TraceEvents {
			if e.Ph != "X" || !strings.EqualFold(e.Cat, "kernel") { // "Kernel" in 2021
				continue
			}
			dev, _ := num(e.Args, "device")
			k := key{int(dev), e.Name}
			w := wants[k]
			if w == nil {
				w = &want{}
				wants[k] = w
			}
			if pct, ok := num(e.Args, "est. achieved occupancy %"); ok {
				dur := usns.Parse(t, string(e.Dur))
				w.pctNS, w.ns, w.withOcc = w.pctNS+int64(pct)*dur, w.ns+dur, w.withOcc+1
			}
			b, okB := num(e.Args, "blocks per SM")
			wp, okW := num(e.Args, "warps per SM")
			if okB && okW {
				w.blocks, w.warps, w.perSM = w.blocks+b, w.warps+wp, w.perSM+1
			}
		}
		tr, err := trace.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		sms := map[int]int{}
		for _, d := range tr.Devices {
			sms[d.ID] = d.SMs
		}
		got := map[key]*want{}
		for i := range tr.Kernels {
			k := &tr.Kernels[i]
			g := got[key{k.Device, k.Name}]
			if g == nil {
				g = &want{}
				got[key{k.Device, k.Name}] = g
			}
			if b, w, ok := metrics.PerSM(k, sms[k.Device]); ok {
				g.blocks, g.warps, g.perSM = g.blocks+b, g.warps+w, g.perSM+1
			}
		}
		near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(math.Abs(a), math.Abs(b)) }
		for dev := range sms {
			for _, kd := range metrics.KernelDists(tr, dev) {
				k := key{dev, kd.Name}
				w, g := wants[k], got[k]
				if w == nil {
					t.Errorf("%s: device %d kernel %q not among the events", rel, dev, kd.Name)
					continue
				}
				if kd.HasOccupancy != (w.withOcc > 0) || w.ns > 0 && kd.OccupancyPct != float64(w.pctNS)/float64(w.ns) {
					t.Errorf("%s: %q occupancy %v %.6g, events give %.6g over %d", rel, kd.Name, kd.HasOccupancy, kd.OccupancyPct,
						float64(w.pctNS)/float64(w.ns), w.withOcc)
				}
				if g.perSM != w.perSM || !near(g.blocks, w.blocks) || !near(g.warps, w.warps) {
					t.Errorf("%s: %q per SM: %d kernels, blocks %.9g, warps %.9g; Kineto %d, %.9g, %.9g", rel, kd.Name,
						g.perSM, g.blocks, g.warps, w.perSM, w.blocks, w.warps)
				}
				checked += w.withOcc
			}
		}
	}
	if checked == 0 {
		t.Error("no kernel with an occupancy checked")
	}
}
