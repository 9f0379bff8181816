package main

import (
	"bytes"
	"testing"
)

// TestProgressDraw checks the bar's line: its fill, and the size in the
// decimal units of the rest of traceql's output (1.01 GB, not 966 MB).
func TestProgressDraw(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, total: 1_013_590_834}
	p.add(506_795_417)
	p.draw()
	want := "\rreading [===============               ]  50 % of 1.01 GB"
	if got := buf.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
