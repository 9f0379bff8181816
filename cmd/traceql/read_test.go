package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/trace"
)

// TestReadEach: results come in argument order whatever the jobs, a bad
// file in its place; no more than --jobs are held at once; and when use
// fails, reading stops and its error is returned.
func TestReadEach(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i := range 7 {
		f := filepath.Join(dir, fmt.Sprintf("rank%d.json", i))
		if i == 3 {
			if err := os.WriteFile(f, []byte(`{"traceEvents": [}]}`), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if _, err := synth.WriteFile(f, synth.Config{Seed: int64(i + 1), Steps: 1, KernelsPerStep: 20 + 5*i}, false); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for _, jobs := range []int{1, 2, 5, 0} {
		var held, peak atomic.Int64
		count := func(t *trace.Trace) int {
			peak.Store(max(peak.Load(), held.Add(1)))
			return len(t.Kernels)
		}
		var got []string
		var kernels []int
		err := readEach(context.Background(), files, &readOptions{Jobs: jobs}, count, func(f string, n int, err error) error {
			name := filepath.Base(f)
			if err != nil {
				name += " failed"
			} else {
				held.Add(-1)
				kernels = append(kernels, n)
			}
			got = append(got, name)
			return nil
		})
		want := []string{"rank0.json", "rank1.json", "rank2.json", "rank3.json failed", "rank4.json", "rank5.json", "rank6.json"}
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("jobs %d: %q, %v; want %q", jobs, got, err, want)
		}
		if !slices.IsSorted(kernels) || kernels[0] == kernels[len(kernels)-1] {
			t.Errorf("jobs %d: kernels %v, want the files' growing counts in order", jobs, kernels)
		}
		if jobs > 0 && peak.Load() > int64(jobs) {
			t.Errorf("jobs %d: %d results held at once", jobs, peak.Load())
		}
	}

	stop := errors.New("stop")
	var used, read atomic.Int64
	err := readEach(context.Background(), files, &readOptions{Jobs: 2}, func(*trace.Trace) bool { read.Add(1); return true },
		func(string, bool, error) error {
			if used.Add(1) == 2 {
				return stop
			}
			return nil
		})
	if err != stop || used.Load() != 2 {
		t.Errorf("use failing at the second file: %v after %d files, want %v after 2", err, used.Load(), stop)
	}
	if n := read.Load(); n > 4 {
		t.Errorf("%d files read after use failed at the second, with 2 jobs", n)
	}
}
