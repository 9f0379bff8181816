//go:build unix

package main

import (
	"net"
	"os"
	"path/filepath"
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

// TestInputMessages: a file that cannot be opened is "FILE: reason" from
// every command, export and summarize of several files too (they said
// "open FILE: reason"); standard input named twice is a usage error, not
// "standard input: empty file" for the second; report's count of labels
// agrees with its number.
func TestInputMessages(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "sock.json") // opening a socket fails, even for root
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Skipf("no Unix socket here: %v", err)
	}
	defer l.Close()
	want := "traceql: " + sock + ": no such device or address\n"
	for _, args := range [][]string{
		{"export", "-q", sock}, {"summarize", "-q", sock}, {"export", "-q", sock, sock}, {"summarize", "-q", sock, sock},
		{"pprof", sock, "-o", "-"}, {"diff", sock, sock},
	} {
		_, errOut, code := traceql(args...)
		if code != 1 || !strings.HasPrefix(errOut, want) {
			t.Errorf("%v: exit %d, %q; want 1 and %q", args, code, errOut, want)
		}
	}
	for _, args := range [][]string{{"summarize", "-", "-"}, {"export", "-", sample, "-"}, {"diff", "-", "-"}, {"compare", "-", "-"}} {
		_, errOut, code := traceql(args...)
		if code != 2 || errOut != "traceql: standard input can be read once: give - once\n" {
			t.Errorf("%v: exit %d, %q; want a usage error", args, code, errOut)
		}
	}
	_, errOut, code := traceql("report", sample, sample, "--label", "a", "-o", filepath.Join(dir, "r.html"))
	if code != 2 || errOut != "traceql: --label has 1 label for 2 traces\n" {
		t.Errorf("report --label a: exit %d, %q", code, errOut)
	}
}
