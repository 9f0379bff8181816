//go:build linux

package memlimit

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/traceql/traceql/internal/nsysgen"
	"github.com/traceql/traceql/internal/synth"
)

// TestAddressSpaceLimit runs the built command under prlimit --as, as a
// cluster's ulimit -v does: a 200 MB trace is summarized under 1 GiB,
// which a 1 GB one needs too (the Go runtime alone reserves some 800 MB,
// and each thread took a 64 MiB malloc arena), and an export that cannot
// Fit fails with one line that names the limit and what to do, exit 1:
// no goroutine stacks, not the exit code of bad usage.
func TestAddressSpaceLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and writes 300 MB of traces")
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit here (util-linux)")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build traceql")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "traceql")
	if out, err := exec.Command(goCmd, "build", "-o", bin, "../../cmd/traceql").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	kineto := filepath.Join(dir, "run.json")
	if _, err := synth.WriteFile(kineto, synth.Config{Seed: 1, TargetBytes: 200 << 20}, false); err != nil {
		t.Fatal(err)
	}
	nsys := filepath.Join(dir, "many.sqlite")
	spec := nsysgen.Spec{Version: "2026.1.1.204", GPUs: []nsysgen.GPU{{ID: 0, Name: "generated GPU", SMs: 132}},
		Kernels: nsysgen.ManyKernels(1_000_000)}
	if err := nsysgen.Write(nsys, spec); err != nil {
		t.Fatal(err)
	}
	run := func(kib int64, env []string, args ...string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := exec.Command(prlimit, append([]string{"--as=" + strconv.FormatInt(kib<<10, 10), bin}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return o.String(), e.String(), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return o.String(), e.String(), 0
	}
	// Near 1 GiB, a Go program linked with cgo dies as the runtime
	// starts in about one run of 30, before any of traceql's code: the
	// runtime's own crash (exit 2, "runtime:" or "fatal error:") is run
	// again, at most twice, and logged. traceql's answers are never
	// retried.
	limited := func(kib int64, env []string, args ...string) (stdout, stderr string, code int) {
		t.Helper()
		for try := 1; ; try++ {
			stdout, stderr, code = run(kib, env, args...)
			startup := code == 2 && (strings.HasPrefix(stderr, "runtime:") || strings.HasPrefix(stderr, "fatal error:"))
			if !startup || try == 3 {
				return stdout, stderr, code
			}
			t.Logf("try %d: the Go runtime died as it started under the limit; again:\n%.300s", try, stderr)
		}
	}

	out, errOut, code := limited(1<<20, nil, "summarize", "-q", "-f", "csv", kineto)
	if code != 0 || strings.Count(out, "\n") < 2 || !strings.Contains(out, "run.json,") {
		t.Errorf("200 MB trace under ulimit -v 1048576: exit %d, %d lines; stderr:\n%.2000s", code, strings.Count(out, "\n"), errOut)
	}

	// 1 M kernels take some 175 MB, more than the 110 MB that 900 MiB
	// leaves. MALLOC_ARENA_MAX=1 given here spares the first process
	// its restart: a Go program linked with cgo may die as it starts
	// under such a limit, before any of its code runs, at random.
	_, errOut, code = limited(900<<10, []string{"MALLOC_ARENA_MAX=1"}, "export", "-q", nsys)
	want := "traceql: out of memory under the address-space limit of 900 MiB (ulimit -v 921600): read one file at a time (--jobs 1)"
	if code != 1 || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("1 M kernels under ulimit -v 921600: exit %d, stderr:\n%.2000s\nwant exit 1 and one line starting %q", code, errOut, want)
	}
}

// TestGCHoldRestores checks that holds taken at once, as the files read
// at once take them, leave the collector as they found it.
func TestGCHoldRestores(t *testing.T) {
	old := debug.SetGCPercent(123)
	defer debug.SetGCPercent(old)
	var h GCHold
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 4 {
				release := h.Hold()
				if p := debug.SetGCPercent(-1); p != -1 {
					t.Errorf("GC percent while held: %d, want -1", p)
				}
				release()
			}
		})
	}
	wg.Wait()
	if got := debug.SetGCPercent(old); got != 123 {
		t.Errorf("GC percent after the holds: %d, want 123", got)
	}
}
