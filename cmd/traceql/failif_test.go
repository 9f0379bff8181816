package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/synth"
)

// writeIdleRun writes a generated run of 8 steps to dir/name.json.
func writeIdleRun(t *testing.T, dir, name string, cfg synth.IdleConfig) string {
	t.Helper()
	path := filepath.Join(dir, name+".json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synth.WriteIdle(f, cfg); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDiffFailIf: on generated runs, a known regression (the same run
// with every time 1.5×: each step 50 % longer, the kernels the same)
// fails the gate, exit 3; the same run against itself, and another seed
// of the same workload (noise only: its median step 9.2 % off, but
// within the steps' spread), pass, exit 0; each gate is worded on stderr.
func TestDiffFailIf(t *testing.T) {
	dir := t.TempDir()
	base := synth.IdleConfig{Seed: 11, Launches: 400, Steps: 8, QuietHost: true, Scale: 1000}
	old := writeIdleRun(t, dir, "old", base)
	slow := base
	slow.Scale = 1500
	regressed := writeIdleRun(t, dir, "regressed", slow)
	other := base
	other.Seed = 12
	noise := writeIdleRun(t, dir, "noise", other)
	gate := "step_median>+3%,kernels>+10%"
	tests := []struct {
		name     string
		old, new string
		code     int
		stepLine string // the step_median gate's end
	}{
		{"regression", old, regressed, 3, ": FAIL"},
		{"same run", old, old, 0, "0.0 %; within step-to-step spread (Mann-Whitney p=1): pass"},
		// The other seed's median step is 9.2 % shorter: from it, the
		// step is past +3 %, but within the steps' spread.
		{"noise", noise, old, 0, "within step-to-step spread (Mann-Whitney p=0.195): past the threshold but noise: pass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := traceql("diff", tt.old, tt.new, "--fail-if", gate)
			t.Log(errOut)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s", code, tt.code, errOut)
			}
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			if len(lines) < 2 || !strings.HasPrefix(lines[0], "traceql: --fail-if step_median_ns>+3%: device pair 0: ") ||
				!strings.HasSuffix(lines[0], tt.stepLine) || !strings.HasPrefix(lines[1], "traceql: --fail-if kernels>+10%") {
				t.Errorf("stderr:\n%s", errOut)
			}
			if tt.code == 3 && (!strings.Contains(errOut, "outside step-to-step spread") || !strings.Contains(errOut, "traceql: --fail-if: 1 metric worse past the threshold")) {
				t.Errorf("no closing line:\n%s", errOut)
			}
		})
	}
	for _, bad := range []string{"step_median", "speed>+3%", "kernels>-3%", "kernels>+3"} {
		if _, errOut, code := traceql("diff", old, old, "--fail-if", bad); code != 2 {
			t.Errorf("--fail-if %s: exit %d, %s", bad, code, errOut)
		}
	}
}
