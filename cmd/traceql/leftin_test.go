package main

import (
	"strings"
	"testing"
)

// TestSkipStepsLeavesCaptureIn: --skip-steps 1 on a reduce-overhead run
// keeps its 46 ms graph-capture step; one warning line says so without
// --all, and the --skip-steps it names leaves no warning.
func TestSkipStepsLeavesCaptureIn(t *testing.T) {
	const warmup = "../../testdata/gpu/vit-small_reduce-overhead_b1_warmup.pt.trace.json.gz"
	_, errOut, code := traceql("summarize", warmup, "--skip-steps", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "traceql: warning: " + warmup + ": --skip-steps 1 keeps step 1 (46.0 ms, 38× the median of the other steps, captures CUDA graphs), " +
		"which looks like warm-up or graph capture: --skip-steps 2 leaves it out\n"
	if errOut != want {
		t.Errorf("stderr\n%s\nwant\n%s", errOut, want)
	}
	for _, args := range [][]string{{"--skip-steps", "2"}, {"--steps", "2:"}, {"--steady"}} {
		if _, errOut, code := traceql(append([]string{"summarize", warmup}, args...)...); code != 0 || strings.Contains(errOut, "warning") {
			t.Errorf("%v: exit %d, stderr %q; want no warning", args, code, errOut)
		}
	}
	if _, errOut, _ := traceql("summarize", warmup, "--steps", "1:3"); !strings.Contains(errOut, "--steps 1:3 --skip-steps 1 leaves it out") {
		t.Errorf("--steps 1:3: stderr %q; want the --skip-steps that leaves step 1 out", errOut)
	}
}
