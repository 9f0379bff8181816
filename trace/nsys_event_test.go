package trace

import (
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/traceql/traceql/internal/nsysgen"
	"github.com/traceql/traceql/internal/shared"
)

// TestNsysEventWaits: the record each event sync and stream wait of a
// generated export waits for is the one its eventSyncId names, else the
// last record of its event in its process before it; without the
// CUDA_EVENT table (nsys 2021), none.
func TestNsysEventWaits(t *testing.T) {
	for _, shape := range []nsysgen.Shape{nsysgen.Shape2026, nsysgen.Shape2021} {
		t.Run(shape.String(), func(t *testing.T) {
			spec := nsysgen.Spec{Shape: shape,
				GPUs: []nsysgen.GPU{{ID: 0, Name: "GPU-A"}},
				Kernels: []nsysgen.Kernel{
					{Activity: act(100, 200, 0, 7, 1, 100), Name: "k"},
				},
				Syncs: []nsysgen.Sync{
					{Activity: act(300, 310, 0, 0xFFFFFFFF, 11, 100), Type: 1, EventID: 5}, // event sync: record 10
					{Activity: act(320, 330, 0, 9, 25, 100), Type: 2, EventID: 5},          // stream 9 waits: record 20
					{Activity: act(340, 350, 0, 9, 8, 100), Type: 2, EventID: 5},           // before any record: none
					{Activity: act(360, 370, 0, 3, 40, 200), Type: 2, EventID: 5},          // process 200's own record 5, not 100's 20
					{Activity: act(380, 390, 0, 7, 41, 100), Type: 3},                      // a stream sync: no event
				},
			}
			want := [][2]int64{{7, 10}, {8, 20}, {0, 0}, {4, 5}, {0, 0}} // WaitStream, WaitRecord by start
			if shape == nsysgen.Shape2026 {
				spec.Events = []nsysgen.Event{
					{Stream: 7, Correlation: 10, PID: 100, EventID: 5},
					{Stream: 9, Correlation: 12, PID: 100, EventID: 5, EventSyncID: 77},
					{Stream: 8, Correlation: 20, PID: 100, EventID: 5},
					{Stream: 4, Correlation: 5, PID: 200, EventID: 5},
				}
				// eventSyncId names record 12, though 20 is later.
				spec.Syncs = append(spec.Syncs, nsysgen.Sync{Activity: act(400, 410, 0, 9, 30, 100), Type: 2, EventID: 5, EventSyncID: 77})
				want = append(want, [2]int64{9, 12})
			} else {
				want = make([][2]int64, len(spec.Syncs))
			}
			tr, err := Options{Strict: true}.Open(context.Background(), writeExport(t, "events.sqlite", spec))
			if err != nil {
				t.Fatal(err)
			}
			var got [][2]int64
			for _, s := range tr.Syncs {
				got = append(got, [2]int64{s.WaitStream, s.WaitRecord})
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("waits (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNsysEventWaitsReal: in the real exports, every event sync and
// stream wait (the API calls, by name) gets the record it waits for where
// the export has the CUDA_EVENT table: a cudaEventRecord call of its
// process made before it.
func TestNsysEventWaitsReal(t *testing.T) {
	for _, tt := range []struct {
		file  string
		waits int // cudaEventSynchronize and cudaStreamWaitEvent calls with a sync row
	}{
		{"nsys2021.2_mordred_cuda.sqlite", 0}, // no CUDA_EVENT table: the records' streams are not in the export
		{"nsys2022.1.3_dlprof_pytorch.sqlite", 15 + 40},
		{"nsys2024.2.1_mmagic_pytorch.sqlite", 18},
		{"nsys2026.1.1_testcuda_streams.sqlite", 1},
	} {
		t.Run(tt.file, func(t *testing.T) {
			tr, err := Open(context.Background(), filepath.Join(shared.Traces(t), "nsys", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			type key struct{ pid, corr int64 }
			calls := map[key]*APICall{}
			for i := range tr.APICalls {
				c := &tr.APICalls[i]
				calls[key{c.PID, c.Correlation}] = c
			}
			n := 0
			for _, s := range tr.Syncs {
				c := calls[key{s.PID, s.Correlation}]
				if c == nil || !strings.Contains(c.Name, "EventSynchronize") && !strings.Contains(c.Name, "StreamWaitEvent") {
					if s.WaitRecord != 0 {
						t.Errorf("%s sync %+v: a record for a call that waits on no event", tt.file, s)
					}
					continue
				}
				if s.WaitRecord == 0 {
					continue
				}
				n++
				rec := calls[key{s.PID, s.WaitRecord}]
				if rec == nil || !strings.HasPrefix(rec.Name, "cudaEventRecord") || rec.Start >= c.Start {
					t.Errorf("%s: %s at %d waits on record %d: %+v, want a cudaEventRecord call before it", tt.file, c.Name, c.Start, s.WaitRecord, rec)
				}
			}
			if n != tt.waits {
				t.Errorf("%s: %d waits with their record, want %d", tt.file, n, tt.waits)
			}
		})
	}
}

// TestNsysSyncKindsReal: each synchronization row's kind is the kind of
// the call that made it, whatever syncType the export wrote (before nsys
// 2025.5 the codes did not follow ENUM_CUPTI_SYNC_TYPE: 2022.1 writes 3
// for cudaStreamWaitEvent and 2 for cudaEventSynchronize). The counts are
// sqlite3's, joining the SYNCHRONIZATION rows to the RUNTIME calls by
// correlation id.
func TestNsysSyncKindsReal(t *testing.T) {
	for _, tt := range []struct {
		file  string
		kinds map[string]int
	}{
		{"nsys2022.1.3_dlprof_pytorch.sqlite", map[string]int{"Context Sync": 2, "Event Sync": 15, "Stream Sync": 11, "Stream Wait": 40}},
		{"nsys2024.2.1_mmagic_pytorch.sqlite", map[string]int{"Stream Sync": 10, "Stream Wait": 18}},
		{"nsys2026.1.1_testcuda_streams.sqlite", map[string]int{"Event Sync": 1}},
	} {
		tr, err := Open(context.Background(), filepath.Join(shared.Traces(t), "nsys", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, s := range tr.Syncs {
			got[s.Kind]++
		}
		if !maps.Equal(got, tt.kinds) {
			t.Errorf("%s: sync kinds %v, want %v", tt.file, got, tt.kinds)
		}
	}
}
