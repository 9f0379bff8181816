//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/traceql/traceql/internal/memlimit"
)

// TestStderrClosedPlain: a plain run (no supervisor) whose standard error
// is a pipe nobody reads ends with its own exit status (0 after a
// warning about a truncated file, its -o written and no temporary file
// left; 1 for a missing file; 2 for bad usage). Go killed it with SIGPIPE
// at its first line on stderr, before any cleanup (issue 66); the
// supervised child's fix (memlimit.Stderr) is every run's now.
func TestStderrClosedPlain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	bin := buildTraceql(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "truncated.json")
	if err := os.WriteFile(bad, []byte(`{"traceEvents": [{"ph": "X", "cat": "kernel"`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.csv")
	for _, tt := range []struct {
		name string
		args []string
		code int
	}{
		{"export, a warning", []string{"export", "-q", bad, sample, "-o", out}, 0},
		{"summarize, missing file", []string{"summarize", "-q", filepath.Join(dir, "nope.json")}, 1},
		{"bad usage", []string{"summarize", "--top", "0", sample}, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close()
			cmd := exec.Command(bin, tt.args...)
			// Never supervised, whatever limits the test runs under: the
			// plain run is the case.
			cmd.Env = append(os.Environ(), memlimit.SupervisedEnv)
			cmd.Stderr = w
			err = cmd.Run()
			w.Close()
			st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
			if !ok || st.Signaled() || st.ExitStatus() != tt.code {
				t.Fatalf("ended %v (signal %v, %v); want exit %d", st, st.Signal(), err, tt.code)
			}
		})
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".out.csv.*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "sample.pt.trace.json.gz") {
		t.Errorf("the sample's rows were not written: %v", err)
	}
}
