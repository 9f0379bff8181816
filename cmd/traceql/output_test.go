//go:build unix

package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// exportCSV is what export writes to stdout for the sample: the bytes
// every -o below must receive.
func exportCSV(t *testing.T) string {
	t.Helper()
	out, errOut, code := traceql("export", sample, "-t", "kernels")
	if code != 0 || out == "" {
		t.Fatalf("export: exit %d: %s", code, errOut)
	}
	return out
}

// TestOutputFIFO: a FIFO given to -o is written through, not replaced by
// a regular file; so is a descriptor named /dev/fd/N, as a shell's >(…)
// gives.
func TestOutputFIFO(t *testing.T) {
	want := exportCSV(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "k.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if _, errOut, code := traceql("export", sample, "-t", "kernels", "-o", fifo); code != 0 {
		t.Fatalf("export -o FIFO: exit %d: %s", code, errOut)
	}
	if g := <-got; g != want {
		t.Errorf("the FIFO's reader got %d bytes, want the %d of stdout", len(g), len(want))
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode().Type() != os.ModeNamedPipe {
		t.Errorf("the FIFO is now %v (%v)", st.Mode(), err)
	}

	// A link to the FIFO is followed, not replaced.
	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink("k.csv", link); err != nil {
		t.Fatal(err)
	}
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if _, errOut, code := traceql("export", sample, "-t", "kernels", "-o", link); code != 0 {
		t.Fatalf("export -o link to FIFO: exit %d: %s", code, errOut)
	}
	if g := <-got; g != want {
		t.Errorf("through the link, the FIFO's reader got %d bytes, want %d", len(g), len(want))
	}
	if st, err := os.Lstat(link); err != nil || st.Mode().Type() != os.ModeSymlink {
		t.Errorf("the link is now %v (%v)", st.Mode(), err)
	}

	// A socket cannot be opened as a file: an error, and it stays.
	sock := filepath.Join(dir, "s.csv")
	if l, err := net.Listen("unix", sock); err == nil {
		defer l.Close()
		if _, errOut, code := traceql("export", sample, "-o", sock); code != 1 || !strings.HasPrefix(errOut, "traceql: "+sock+": ") {
			t.Errorf("export -o socket: exit %d, %q", code, errOut)
		}
		if st, err := os.Lstat(sock); err != nil || st.Mode().Type() != os.ModeSocket {
			t.Errorf("the socket is now %v (%v)", st.Mode(), err)
		}
	}

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	name := "/dev/fd/" + strconv.Itoa(int(w.Fd()))
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	_, errOut, code := traceql("export", sample, "-t", "kernels", "-o", name)
	w.Close()
	if code != 0 {
		t.Fatalf("export -o %s: exit %d: %s", name, code, errOut)
	}
	if g := <-got; g != want {
		t.Errorf("%s: the pipe's reader got %d bytes, want %d", name, len(g), len(want))
	}
}

// TestOutputCharDevice: a character device given to -o is written in
// place and stays a device. The devices are made in the test's own
// folder (null and full, as root only): the machine's /dev is never
// touched.
func TestOutputCharDevice(t *testing.T) {
	dir := t.TempDir()
	null, full := filepath.Join(dir, "null"), filepath.Join(dir, "full")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("cannot make a character device in a temporary folder (needs root and CAP_MKNOD): %v", err)
	}
	if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, 1<<8|7); err != nil {
		t.Fatal(err)
	}
	if f, err := os.OpenFile(null, os.O_WRONLY, 0); err != nil {
		t.Skipf("devices cannot be opened here (a nodev mount): %v", err)
	} else {
		f.Close()
	}
	if _, errOut, code := traceql("export", sample, "-o", null); code != 0 {
		t.Errorf("export -o null device: exit %d: %s", code, errOut)
	}
	_, errOut, code := traceql("export", sample, "-o", full)
	if code != 1 || errOut != "traceql: "+full+": no space left on device\n" {
		t.Errorf("export -o full device: exit %d, %q", code, errOut)
	}
	for _, p := range []string{null, full} {
		if st, err := os.Lstat(p); err != nil || st.Mode().Type() != os.ModeDevice|os.ModeCharDevice {
			t.Errorf("%s is now %v (%v), not a character device", p, st.Mode(), err)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d entries in the folder, want the 2 devices", len(ents))
	}
}

// TestOutputModes: a new output honours the umask; a replaced one keeps
// its mode; a link to a file stays a link, its target replaced; a name of
// 250 bytes, whose temporary file would pass NAME_MAX with a longer
// name, is written.
func TestOutputModes(t *testing.T) {
	want := exportCSV(t)
	dir := t.TempDir()
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	check := func(path string, mode os.FileMode) {
		t.Helper()
		st, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode() != mode {
			t.Errorf("%s: mode %v, want %v", filepath.Base(path), st.Mode(), mode)
		}
		if b, _ := os.ReadFile(path); string(b) != want {
			t.Errorf("%s: %d bytes, want %d", filepath.Base(path), len(b), len(want))
		}
	}
	export := func(path string) {
		t.Helper()
		if _, errOut, code := traceql("export", sample, "-t", "kernels", "-o", path); code != 0 {
			t.Fatalf("export -o %s: exit %d: %s", filepath.Base(path), code, errOut)
		}
	}
	fresh := filepath.Join(dir, "new.csv")
	export(fresh)
	check(fresh, 0o600)

	kept := filepath.Join(dir, "kept.csv")
	if err := os.WriteFile(kept, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(kept, 0o640)
	export(kept)
	check(kept, 0o640)

	link := filepath.Join(dir, "link.csv")
	if err := os.Symlink("kept.csv", link); err != nil {
		t.Fatal(err)
	}
	export(link)
	if st, err := os.Lstat(link); err != nil || st.Mode().Type() != os.ModeSymlink {
		t.Errorf("the link is now %v (%v)", st.Mode(), err)
	}
	check(kept, 0o640)

	long := filepath.Join(dir, strings.Repeat("n", 246)+".csv")
	export(long)
	check(long, 0o600)
	ents, _ := os.ReadDir(dir)
	if len(ents) != 4 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the folder holds %q, want the 4 outputs alone", names)
	}
}

// failWriter fails every write, as a full disk does.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestWriteErrors: every output whose write fails exits 1 with one line,
// text and markdown tables and help as well.
func TestWriteErrors(t *testing.T) {
	for _, args := range [][]string{
		{"summarize", sample}, {"summarize", sample, "-f", "markdown"}, {"summarize", sample, "-f", "csv"},
		{"summarize", sample, "-f", "json"}, {"diff", sample, sample}, {"diff", sample, sample, "-f", "markdown"},
		{"compare", sample, sample}, {"compare", sample, sample, "-f", "csv"}, {"export", sample},
		{"pprof", sample, "-o", "-"}, {"--help"}, {"summarize", "--help"}, {"version"},
	} {
		var errOut bytes.Buffer
		code := run(context.Background(), args, newIOStreams(strings.NewReader(""), failWriter{}, &errOut))
		e := errOut.String()
		if code != 1 || !strings.HasPrefix(e, "traceql: ") || strings.Count(e, "\n") != 1 || !strings.Contains(e, "no space left on device") {
			t.Errorf("%v: exit %d, %q; want 1 and one line", args, code, e)
		}
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		// Written in place, as every device is: never replaced.
		_, errOut, code := traceql("export", sample, "-f", "parquet", "-o", "/dev/full")
		if code != 1 || errOut != "traceql: /dev/full: no space left on device\n" {
			t.Errorf("-o /dev/full: exit %d, %q", code, errOut)
		}
		if st, err := os.Lstat("/dev/full"); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("/dev/full is now %v (%v)", st.Mode(), err)
		}
	}
}

// TestExportFormatFromName: -o's extension says the format; a --format
// that disagrees is refused.
func TestExportFormatFromName(t *testing.T) {
	dir := t.TempDir()
	for ext, magic := range map[string]string{".parquet": "PAR1", ".jsonl": `{"file":`, ".json": `{"version": 1, "table": "summary", "rows": [`, ".csv": "file,", ".txt": "file,"} {
		out := filepath.Join(dir, "k"+ext)
		if _, errOut, code := traceql("export", sample, "-o", out); code != 0 {
			t.Fatalf("%s: exit %d: %s", ext, code, errOut)
		}
		if b, _ := os.ReadFile(out); !bytes.HasPrefix(b, []byte(magic)) {
			t.Errorf("-o k%s starts %q, want %q", ext, b[:min(len(b), 8)], magic)
		}
	}
	if _, _, code := traceql("export", sample, "-f", "parquet", "-o", filepath.Join(dir, "a.parquet")); code != 0 {
		t.Errorf("agreeing --format: exit %d", code)
	}
	_, errOut, code := traceql("export", sample, "-f", "csv", "-o", filepath.Join(dir, "b.parquet"))
	if code != 2 || !strings.Contains(errOut, "b.parquet is parquet, but --format is csv") {
		t.Errorf("disagreeing --format: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.parquet")); err == nil {
		t.Error("b.parquet written despite the refusal")
	}
}

// TestExportAllFailed: when no input can be read, export writes nothing:
// an -o file keeps its bytes and mode, whatever the format, and stdout
// gets no header. When some are read, the others' rows are written and
// the run still exits 1, as docs/reference.md says.
func TestExportAllFailed(t *testing.T) {
	dir := t.TempDir()
	bad := writeTrace(t, "obj.json", "{}")
	missing := filepath.Join(dir, "missing.json")
	for _, ext := range []string{".csv", ".parquet", ".json", ".jsonl"} {
		out := filepath.Join(dir, "k"+ext)
		if err := os.WriteFile(out, []byte("PRECIOUS\n"), 0o640); err != nil {
			t.Fatal(err)
		}
		os.Chmod(out, 0o640)
		_, errOut, code := traceql("export", "-q", bad, missing, "-o", out)
		if code != 1 || strings.Count(errOut, "\n") != 2 {
			t.Errorf("-o k%s: exit %d, %q; want 1 and a line for each input", ext, code, errOut)
		}
		if b, _ := os.ReadFile(out); string(b) != "PRECIOUS\n" {
			t.Errorf("-o k%s now holds %q", ext, b[:min(len(b), 20)])
		}
		if st, _ := os.Stat(out); st.Mode() != 0o640 {
			t.Errorf("-o k%s: mode %v", ext, st.Mode())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 4 {
		t.Errorf("%d entries in the folder, want the 4 outputs alone", len(ents))
	}
	if out, _, code := traceql("export", "-q", bad); code != 1 || out != "" {
		t.Errorf("stdout: exit %d, %q; want 1 and nothing", code, out)
	}
	out, _, code := traceql("export", "-q", bad, sample, "-t", "kernels")
	if want := exportCSV(t); code != 1 || out != want {
		t.Errorf("one bad, one good: exit %d, %d bytes; want 1 and the good one's %d", code, len(out), len(want))
	}
}
