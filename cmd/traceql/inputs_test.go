package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestNaturalCompare(t *testing.T) {
	want := []string{"", "a", "rank01", "rank1", "rank2", "rank9.json", "rank10.json", "rank10a", "rank10b", "rank100", "rankA", "x/1/y", "x/2", "x/10/y"}
	got := slices.Clone(want)
	for _, perm := range [][]string{got, reversed(got)} {
		slices.SortFunc(perm, naturalCompare)
		if !slices.Equal(perm, want) {
			t.Errorf("sorted:\n%q\nwant\n%q", perm, want)
		}
	}
	for _, a := range want {
		for _, b := range want {
			if c, d := naturalCompare(a, b), naturalCompare(b, a); c != -d || (c == 0) != (a == b) {
				t.Errorf("compare(%q, %q) = %d, reversed %d", a, b, c, d)
			}
		}
	}
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

// TestExpandInputsOrder: a directory's trace files, found recursively, come
// in natural order (rank2 before rank10), after the files named before it.
func TestExpandInputsOrder(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"rank10.json", "rank2.json.gz", "rank1.sqlite", "notes.txt", "sub/rank3.json"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	first := filepath.Join(dir, "rank10.json")
	got, notes, errs := expandInputs([]string{first, dir})
	if len(errs) > 0 || len(notes) > 0 {
		t.Fatal(errs, notes)
	}
	var want []string
	for _, name := range []string{"rank10.json", "rank1.sqlite", "rank2.json.gz", "rank10.json", "sub/rank3.json"} {
		want = append(want, filepath.Join(dir, name))
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// TestExpandInputsLinks: a link to a trace file counts; links to folders
// are not followed (no loop) and dangling links are skipped.
func TestExpandInputsLinks(t *testing.T) {
	dir := t.TempDir()
	store, ranks := filepath.Join(dir, "store"), filepath.Join(dir, "ranks")
	for _, d := range []string{store, ranks} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(store, "a.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"rank0.json":    "../store/a.json",
		"loop":          ".",
		"folder.json":   "../store",
		"dangling.json": "../store/missing.json",
	} {
		if err := os.Symlink(target, filepath.Join(ranks, link)); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	got, notes, errs := expandInputs([]string{ranks})
	if want := []string{filepath.Join(ranks, "rank0.json")}; len(errs) > 0 || !slices.Equal(got, want) {
		t.Errorf("got %q, %v; want %q", got, errs, want)
	}
	// The dangling link named like a trace gets a note; the folder link
	// and "loop" do not.
	if len(notes) != 1 || !strings.Contains(notes[0], "dangling.json: skipped, a link that leads to no file") {
		t.Errorf("notes %q; want one for dangling.json", notes)
	}
}

func TestRunLabels(t *testing.T) {
	tests := []struct{ paths, want []string }{
		{[]string{"a/default.json", "b/reduce.pt.trace.json.gz"}, []string{"default", "reduce"}},
		{[]string{"runs/eager/trace.json", "runs/compiled/trace.json"}, []string{"eager/trace", "compiled/trace"}},
		{[]string{"x/run.json", "run.json"}, []string{"x/run", "run"}},
		{[]string{"/r/rank0.json", "/r/rank0.json", "/r/rank1.json"}, []string{"rank0", "rank0 (2)", "rank1"}},
	}
	for _, tt := range tests {
		if got := runLabels(tt.paths); !slices.Equal(got, tt.want) {
			t.Errorf("runLabels(%q) = %q, want %q", tt.paths, got, tt.want)
		}
	}
}

// TestMissingInputGoesOn: a missing path, an unreadable folder and a
// dangling link among the inputs are each reported on stderr, the other
// traces are still read and written, and the exit code is 1.
func TestMissingInputGoesOn(t *testing.T) {
	dir := t.TempDir()
	ranks := filepath.Join(dir, "ranks")
	if err := os.MkdirAll(filepath.Join(ranks, "locked"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"ranks/rank0.json.gz", "ranks/locked/rank1.json.gz"} {
		if err := os.WriteFile(filepath.Join(dir, p), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("gone.json", filepath.Join(ranks, "rank2.json")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	locked := os.Chmod(filepath.Join(ranks, "locked"), 0) == nil && os.Getuid() != 0
	defer os.Chmod(filepath.Join(ranks, "locked"), 0o755)
	if !locked {
		t.Log("running as root: a folder without permissions is still read, so that case is not checked")
	}
	missing := filepath.Join(dir, "missing.json")
	for _, args := range [][]string{{"summarize", "-f", "csv"}, {"export"}} {
		args = append(args, missing, ranks)
		out, errOut, code := traceql(args...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1", args[0], code)
		}
		rows := 3 // the header and rank0's two GPUs
		if !locked {
			rows += 2 // rank1's
		}
		if n := strings.Count(out, "\n"); n != rows || !strings.Contains(out, "rank0.json.gz") {
			t.Errorf("%v: %d lines of output, want %d:\n%s", args[0], n, rows, out)
		}
		want := []string{"traceql: " + missing + ": no such file or directory",
			"traceql: warning: " + filepath.Join(ranks, "rank2.json") + ": skipped, a link that leads to no file"}
		if locked {
			want = append(want, "traceql: "+filepath.Join(ranks, "locked")+": permission denied; its traces are not read")
		}
		for _, w := range want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", args[0], w, errOut)
			}
		}
	}
}

// TestWalkSkipsNonTraces: a run's folder also holds its config.json, a
// checkpoint .tar.gz and a harness's list of results; a walk notes and
// skips them and keeps the exit code, while each named on the command line
// still fails.
func TestWalkSkipsNonTraces(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	var tgz bytes.Buffer
	zw := gzip.NewWriter(&tgz)
	zw.Write([]byte("config.json\x00\x00\x00 a tar header, not JSON"))
	zw.Close()
	files := map[string][]byte{
		"rank0.json.gz":          data,
		"config.json":            []byte(`{"lr": 0.1, "batch": 32}`),
		"checkpoint.tar.gz":      tgz.Bytes(),
		"execution_details.json": []byte(`[{"name": "run", "time": 1.5}, {"name": "warmup"}]`),
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range []string{"summarize", "export"} {
		out, errOut, code := traceql(cmd, "-f", "csv", dir)
		if code != 0 || strings.Count(out, "rank0.json.gz") != 2 || strings.Count(errOut, ": skipped, not a trace\n") != 3 {
			t.Errorf("%s of the folder: exit %d, stdout %d rows of the trace, stderr:\n%s", cmd, code, strings.Count(out, "rank0.json.gz"), errOut)
		}
	}
	for _, name := range []string{"config.json", "checkpoint.tar.gz", "execution_details.json"} {
		_, errOut, code := traceql("summarize", filepath.Join(dir, name))
		if code != 1 || !strings.Contains(errOut, "unknown trace format") {
			t.Errorf("summarize %s: exit %d, %q; want 1 and an unknown format", name, code, errOut)
		}
	}
}
