//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/traceql/traceql/internal/synth"
)

// signalMidWrite starts bin with args, waits until a temporary file of
// the output out appears beside it, sends sig and returns the exit code
// and stderr. The output must then be as it was before, and no temporary
// file left.
func signalMidWrite(t *testing.T, bin string, sig syscall.Signal, out string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pattern := filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".*.tmp")
	deadline := time.Now().Add(time.Minute)
	for {
		if m, _ := filepath.Glob(pattern); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("%v: no temporary file of %s within a minute", args, out)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(sig)
	err := cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(pattern); len(m) > 0 {
		t.Errorf("%v, %v: temporary files left: %q", args, sig, m)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// TestSignalMidWrite: SIGTERM (kill, timeout, a CI job cancelled) and
// SIGHUP (a terminal closed) end a run as Ctrl-C does, with one line and
// the shell's code for the signal: the output is not written and its
// temporary file is removed, where the default action left up to the
// whole output hidden beside it.
func TestSignalMidWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and writes a 200 MB trace")
	}
	dir := t.TempDir()
	bin := buildTraceql(t)
	big := filepath.Join(dir, "big.json")
	if _, err := synth.WriteFile(big, synth.Config{Seed: 1, TargetBytes: 200 << 20}, false); err != nil {
		t.Fatal(err)
	}
	// Annotate writes its output after it has read the trace: the
	// interrupt comes while it copies, and used to be ignored (exit 0,
	// the output written).
	t.Run("annotate", func(t *testing.T) {
		out := filepath.Join(dir, "a.json.gz")
		if err := os.WriteFile(out, []byte("PRECIOUS\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stderr := signalMidWrite(t, bin, syscall.SIGINT, out, "annotate", "-q", big, "-o", out)
		if code != 130 || stderr != "traceql: interrupted\n" {
			t.Errorf("exit %d, stderr %q; want 130 and one line", code, stderr)
		}
		if b, _ := os.ReadFile(out); string(b) != "PRECIOUS\n" {
			t.Errorf("the output now holds %q", b[:min(len(b), 20)])
		}
		os.Remove(out)
	})
	for _, tt := range []struct {
		sig  syscall.Signal
		code int
		msg  string
	}{
		{syscall.SIGTERM, 143, "terminated"},
		{syscall.SIGHUP, 129, "hangup"},
		{syscall.SIGINT, 130, "interrupted"},
	} {
		t.Run(tt.sig.String(), func(t *testing.T) {
			out := filepath.Join(dir, "kernels.csv")
			if err := os.WriteFile(out, []byte("PRECIOUS\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stderr := signalMidWrite(t, bin, tt.sig, out, "export", "-q", big, "-t", "kernels", "-o", out)
			if code != tt.code || stderr != "traceql: "+tt.msg+"\n" {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tt.code, "traceql: "+tt.msg)
			}
			if b, _ := os.ReadFile(out); string(b) != "PRECIOUS\n" {
				t.Errorf("the output now holds %q", b[:min(len(b), 20)])
			}
		})
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) > 0 {
		t.Errorf("hidden files left: %q", m)
	}
}
