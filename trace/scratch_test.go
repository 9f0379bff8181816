package trace

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestScratch(t *testing.T) {
	files, _ := filepath.Glob("../../shared/traces/*/*.json*")
	more, _ := filepath.Glob("../../shared/traces/*/*/*.json*")
	more2, _ := filepath.Glob("../../shared/traces/*/*/*/*.json*")
	files = append(append(files, more...), more2...)
	for _, f := range files {
		t0 := time.Now()
		tr, err := Open(context.Background(), f)
		if err != nil {
			t.Logf("%s: ERR %v", f, err)
			continue
		}
		t.Logf("%s: %v ev=%d k=%d mc=%d ms=%d sy=%d api=%d ops=%d devs=%d streams=%d warn=%v", f[20:], time.Since(t0), tr.Meta.Events, len(tr.Kernels), len(tr.Memcpys), len(tr.Memsets), len(tr.Syncs), len(tr.APICalls), len(tr.Ops), len(tr.Devices), len(tr.Streams), tr.Warnings)
	}
}
