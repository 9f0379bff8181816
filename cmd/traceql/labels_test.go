package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLabels: every table has a label column, --label's for each trace
// of its argument (a DIR's for each trace in it), else the file name.
func TestLabels(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a/rank0.pt.trace.json.gz", "a/rank1.pt.trace.json.gz", "b/rank0.pt.trace.json.gz"} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b", "rank0.pt.trace.json.gz")
	labelsOf := func(args ...string) map[string]string { // file → label
		out, errOut, code := traceql(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		recs := csvRecords(t, out)
		file, label := -1, -1
		for j, name := range recs[0] {
			switch name {
			case "file":
				file = j
			case "label":
				label = j
			}
		}
		if file < 0 || label < 0 {
			t.Fatalf("%v: columns %q, want file and label", args, recs[0])
		}
		got := map[string]string{}
		for _, r := range recs[1:] {
			got[strings.TrimPrefix(r[file], dir+"/")] = r[label]
		}
		return got
	}
	want := map[string]string{"a/rank0.pt.trace.json.gz": "eager", "a/rank1.pt.trace.json.gz": "eager", "b/rank0.pt.trace.json.gz": "compiled"}
	for _, table := range []string{"summary", "kernels", "kernel-stats", "steps", "gaps", "memcpy", "streams", "copy-stats", "api", "ranges"} {
		got := labelsOf("export", a, b, "--table", table, "--label", "eager,compiled")
		if len(got) != 3 {
			t.Errorf("export --table %s: %v, want a row per file", table, got)
		}
		for f, l := range got {
			if want[f] != l {
				t.Errorf("export --table %s: %s labelled %q, want %q", table, f, l, want[f])
			}
		}
	}
	if got := labelsOf("summarize", a, b, "-f", "csv", "--label", "eager,compiled"); len(got) != 3 || got["b/rank0.pt.trace.json.gz"] != "compiled" {
		t.Errorf("summarize: %v", got)
	}
	// Without --label, as compare labels runs: the name, and the folders
	// that tell them apart.
	got := labelsOf("summarize", a, b, "-f", "csv")
	if got["a/rank0.pt.trace.json.gz"] != "a/rank0" || got["a/rank1.pt.trace.json.gz"] != "a/rank1" || got["b/rank0.pt.trace.json.gz"] != "b/rank0" {
		t.Errorf("default labels: %v", got)
	}
	// Each worker's shard labels its files as the whole run does.
	sharded := map[string]string{}
	for _, s := range []string{"0/3", "1/3", "2/3"} {
		for f, l := range labelsOf("export", a, b, "--shard", s) {
			sharded[f] = l
		}
	}
	if len(sharded) != 3 {
		t.Errorf("shards: %v, want the three files", sharded)
	}
	for f, l := range sharded {
		if got[f] != l {
			t.Errorf("shard labels %s %q, the whole run %q", f, l, got[f])
		}
	}
	_, errOut, code := traceql("summarize", a, b, "--label", "one")
	if code != 2 || errOut != "traceql: --label has 1 label for 2 arguments\n" {
		t.Errorf("one label for two arguments: exit %d, %q", code, errOut)
	}
}
