package trace_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/trace"
)

// TestKinetoSyncWaits reads what a cuda_sync event waits for (the event's
// stream and the correlation of its record call) from HTA's multi-stream
// event-sync trace, where the values are in the file.
func TestKinetoSyncWaits(t *testing.T) {
	path := filepath.Join(shared.Traces(t), "hta/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz")
	tr, err := trace.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][3]int64{ // kind → stream, wait stream, wait record
		"Stream Wait Event": {24, 20, 1385},
		"Context Sync":      {-1, 0, 0}, // nothing recorded
	}
	for _, s := range tr.Syncs {
		w, ok := want[s.Kind]
		if !ok {
			continue
		}
		delete(want, s.Kind)
		if got := [3]int64{s.Stream, s.WaitStream, s.WaitRecord}; got != w {
			t.Errorf("%s: stream, wait stream, wait record %v, want %v", s.Kind, got, w)
		}
	}
	if len(want) > 0 {
		t.Errorf("no sync record of kinds %v", want)
	}
}
