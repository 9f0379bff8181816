package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestBusyHeadline: on an 80-column terminal every run's GPU busy line
// says what the GPU is busy with in one line of at most 80 columns, and
// the copy-bound run of the shared traces reads copy-bound, naming its
// copies' direction, memory kinds and rate.
func TestBusyHeadline(t *testing.T) {
	copyBound := filepath.Join(realTraces(t), "nsys", "nsys2026.1.1_testcuda_streams.sqlite")
	files := []string{sample, copyBound, filepath.Join("..", "..", "testdata", "gpu", "pair-pageable-copy_before.pt.trace.json.gz")}
	lines := 0
	for _, f := range files {
		ios, out, errOut := testStreams()
		ios.SetStdoutTTY(true)
		ios.SetTerminalWidth(80)
		if code := run(context.Background(), []string{"summarize", f}, ios); code != 0 {
			t.Fatalf("%s: exit %d: %s", f, code, errOut)
		}
		for line := range strings.Lines(out.String()) {
			line = strings.TrimSuffix(line, "\n")
			if !strings.HasPrefix(line, "  GPU busy ") {
				continue
			}
			lines++
			if n := utf8.RuneCountInString(line); n > 80 || !strings.Contains(line, "compute") {
				t.Errorf("%s: %d columns: %q", f, n, line)
			}
		}
		if f == copyBound {
			text := strings.Join(strings.Fields(out.String()), " ")
			for _, want := range []string{"GPU busy 91.0 % (92.2 ms): copies 90.5 % (H2D, D2H), compute 0.5 %", "copy-bound:",
				"H2D 61.3 ms exposed (8 copies Pinned → Device, 800 MB in 61.3 ms at 13.0 GB/s)", "The host memory is pinned already"} {
				if !strings.Contains(text, want) {
					t.Errorf("copy-bound run: no %q in\n%s", want, out)
				}
			}
		}
	}
	if lines < 4 {
		t.Errorf("%d GPU busy lines checked, want 4 (the sample has 2 GPUs)", lines)
	}
}
