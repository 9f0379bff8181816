package outfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteCancelled: an interrupt that comes once everything is
// written, before the rename, still leaves the file as it was; so does
// one between writes, which then fail.
func TestWriteCancelled(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "k.csv")
	if err := os.WriteFile(out, []byte("PRECIOUS\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mid := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		var second error
		err := Write(ctx, out, func(w io.Writer) error {
			io.WriteString(w, "new\n")
			cancel()
			if mid {
				_, second = io.WriteString(w, "more\n")
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) || mid && !errors.Is(second, context.Canceled) {
			t.Errorf("mid=%v: %v, second write %v; want context.Canceled", mid, err, second)
		}
		if b, _ := os.ReadFile(out); string(b) != "PRECIOUS\n" {
			t.Errorf("mid=%v: k.csv now holds %q", mid, b)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries in the folder, want k.csv alone", len(ents))
	}
}

// TestFD: the names of this process's descriptors, and no others.
func TestFD(t *testing.T) {
	for path, want := range map[string]int{"/dev/stdout": 1, "/dev/stderr": 2, "/dev/fd/0": 0, "/dev/fd/7": 7, "/proc/self/fd/12": 12,
		"/dev/fd/": -1, "/dev/fd/x": -1, "/dev/fd/-1": -1, "/dev/null": -1, "fd/3": -1, "/proc/1/fd/3": -1} {
		fd, ok := FD(path)
		if ok != (want >= 0) || ok && fd != want {
			t.Errorf("FD(%q) = %d, %v; want %d", path, fd, ok, want)
		}
	}
}

// TestWriteNames: a name of 249 bytes, whose temporary file would pass
// NAME_MAX with the whole name in it, is written; a folder is refused,
// named; a write's error names the path given, not the temporary file,
// and leaves the folder as it was.
func TestWriteNames(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "a"+strings.Repeat("é", 122)+".csv") // cut inside an é
	if err := Write(context.Background(), long, func(w io.Writer) error {
		_, err := io.WriteString(w, "x\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(long); err != nil || string(b) != "x\n" {
		t.Errorf("the long name holds %q (%v)", b, err)
	}
	if err := Write(context.Background(), dir, func(io.Writer) error { return nil }); err == nil || err.Error() != dir+": is a directory" {
		t.Errorf("a folder: %v", err)
	}
	out := filepath.Join(dir, "k.csv")
	full := errors.New("no space left on device")
	err := Write(context.Background(), out, func(w io.Writer) error { return &os.PathError{Op: "write", Path: "elsewhere", Err: full} })
	if err == nil || err.Error() != out+": no space left on device" {
		t.Errorf("a failed write: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries in the folder, want the long name alone", len(ents))
	}
}
