package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/trace"
)

// TestReadEach: results come in argument order whatever the jobs, a bad
// file in its place; no more than --jobs are held at once, nor more than
// the memory budget allows; when use fails, reading stops and its error is
// returned; and when the context is cancelled, every file is answered.
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
	var least int64 = math.MaxInt64 // the smallest footprint
	for _, f := range files {
		n, err := trace.Footprint(f)
		if err != nil {
			t.Fatal(err)
		}
		least = min(least, n)
	}
	for _, c := range []struct {
		jobs   int
		memory int64
		most   int64 // files held at once
	}{
		{1, 0, 1}, {2, 0, 2}, {5, 0, 5}, {0, 0, int64(runtime.GOMAXPROCS(0))},
		{5, 1, 1},         // every file over the budget: each read alone
		{5, 2 * least, 2}, // no three files fit
	} {
		jobs := c.jobs
		var held, peak atomic.Int64
		count := func(t *trace.Trace) int {
			peak.Store(max(peak.Load(), held.Add(1)))
			return len(t.Kernels)
		}
		var got []string
		var kernels []int
		err := readEach(context.Background(), files, &readOptions{Jobs: jobs, memory: c.memory}, count, func(f string, n int, err error) error {
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
		if peak.Load() > c.most {
			t.Errorf("jobs %d, memory %d: %d results held at once, want at most %d", jobs, c.memory, peak.Load(), c.most)
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

	// Cancelled while the first file is held, and the rest wait for its
	// memory: the rest fail, and none is left waiting.
	ctx, cancel := context.WithCancel(context.Background())
	var failed int
	err = readEach(ctx, files, &readOptions{Jobs: 2, memory: 1}, func(*trace.Trace) bool { cancel(); return true },
		func(_ string, _ bool, err error) error {
			if err != nil {
				failed++
			}
			return nil
		})
	if err != nil || failed != len(files)-1 {
		t.Errorf("cancelled after the first file: %v, %d files failed; want nil, %d", err, failed, len(files)-1)
	}
}

// TestStdin: "-" reads the trace on standard input, gzipped or not, and
// names it so; what is no trace says "standard input", not a temporary
// file's name.
func TestStdin(t *testing.T) {
	gz, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	want, err := readTrace(context.Background(), sample, &readOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := gunzipBytes(gz)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range [][]byte{gz, plain} {
		r := &readOptions{stdin: bytes.NewReader(in)}
		got, err := readTrace(context.Background(), stdinName, r)
		if err != nil {
			t.Fatal(err)
		}
		if got.Source != "-" || len(got.Kernels) != len(want.Kernels) || len(got.APICalls) != len(want.APICalls) {
			t.Errorf("stdin: source %q, %d kernels, %d calls; want -, %d, %d", got.Source, len(got.Kernels), len(got.APICalls), len(want.Kernels), len(want.APICalls))
		}
	}
	_, err = readTrace(context.Background(), stdinName, &readOptions{stdin: strings.NewReader("x")})
	if err == nil || !strings.HasPrefix(err.Error(), "standard input: unknown trace format") {
		t.Errorf("stdin holding x: %v", err)
	}
	files, _, errs := expandInputs([]string{stdinName})
	if len(errs) != 0 || !slices.Equal(files, []string{stdinName}) {
		t.Errorf("expandInputs(-) = %q, %v", files, errs)
	}
}

func gunzipBytes(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}
