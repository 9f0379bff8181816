// Package golden compares test output with files under testdata/, and
// rewrites them when the test binary runs with -update.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// Check compares got with the golden file path. With -update it writes got
// there instead. On a mismatch it writes got to path+".got" and reports a
// diff.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		os.WriteFile(path+".got", got, 0o644)
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// CheckSection compares got with the part of the file at path between the
// lines "<!-- name -->" and "<!-- /name -->", a generated part of a
// document; with -update it replaces that part.
func CheckSection(t testing.TB, path, name string, got []byte) {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	open, end := []byte("<!-- "+name+" -->\n"), []byte("<!-- /"+name+" -->")
	i, j := bytes.Index(doc, open), bytes.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no section %q (lines %q and %q)", path, name, open, end)
	}
	want := doc[i+len(open) : j]
	if *update {
		out := append(append(append([]byte{}, doc[:i+len(open)]...), got...), doc[j:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s, section %s, mismatch (-want +got; run with -update to rewrite it):\n%s", path, name, diff)
	}
}

// CheckOptional is Check for output that is usually empty, such as a
// command's stderr: empty output is kept as no file at all, and -update
// removes the file when the output became empty.
func CheckOptional(t testing.TB, path string, got []byte) {
	t.Helper()
	_, err := os.Stat(path)
	switch {
	case len(got) > 0:
		Check(t, path, got)
	case *update:
		if err == nil {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}
	case err == nil:
		t.Errorf("%s: the output is empty now; run with -update to remove the file", path)
	}
}
