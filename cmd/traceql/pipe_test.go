//go:build unix

package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestSummarizePipe: a trace given as /dev/fd/N, as a shell's <(zcat …)
// gives, is read once. summarize's check for Parquet parts opened it
// first and took its first bytes, and the trace's read then found an
// "unknown trace format"; a FIFO hung.
func TestSummarizePipe(t *testing.T) {
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	want, errOut, code := traceql("summarize", "-q", sample)
	if code != 0 {
		t.Fatalf("summarize: exit %d: %s", code, errOut)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.Write(data)
		w.Close()
	}()
	path := "/dev/fd/" + strconv.Itoa(int(r.Fd()))
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no %s here: %v", path, err)
	}
	out, errOut, code := traceql("summarize", "-q", path)
	// The same report, named by the path.
	if first, rest, _ := strings.Cut(out, "\n"); code != 0 || !strings.HasPrefix(first, path+" ") || rest != want[strings.Index(want, "\n")+1:] {
		t.Errorf("summarize %s: exit %d, %q:\n%s", path, code, errOut, out)
	}
}
