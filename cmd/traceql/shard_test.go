package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestShardPartition: the shards of N workers cover the input list exactly
// once, in its order; adding files moves no file to another worker; and a
// file's worker does not depend on the working directory or on the
// argument being absolute or relative.
func TestShardPartition(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "job", "traces")
	touch := func(names ...string) {
		for _, n := range names {
			p := filepath.Join(dir, n)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var names []string
	for i := range 300 {
		names = append(names, fmt.Sprintf("node%d/rank%d.json", i/8, i))
	}
	touch(names...)
	files, _, errs := expandInputs([]string{dir})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(files) != 300 {
		t.Fatalf("%d files, want 300", len(files))
	}
	for _, n := range []int{1, 2, 3, 7, 64, 500} {
		var union []string
		where := map[string]int{}
		nonEmpty := 0
		for k := range n {
			part := (&shard{k, n}).pick([]string{dir}, files)
			for _, f := range part {
				if prev, ok := where[f]; ok {
					t.Fatalf("N=%d: %s in shards %d and %d", n, f, prev, k)
				}
				where[f] = k
			}
			if len(part) > 0 {
				nonEmpty++
			}
			union = append(union, part...)
		}
		slices.SortFunc(union, naturalCompare)
		if !slices.Equal(union, files) {
			t.Fatalf("N=%d: the shards hold %d files, want the %d inputs", n, len(union), len(files))
		}
		if want := min(n, 300) * 3 / 4; nonEmpty < want { // a hash, not one worker for all
			t.Errorf("N=%d: %d shards have files, want %d or more", n, nonEmpty, want)
		}

		// Files added later, in old and new folders, leave the others
		// where they were.
		if n == 64 {
			touch("node0/rank1000.json", "late/rank5.json", "node3/rank301.json")
			more, _, errs := expandInputs([]string{dir})
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			moved, found := 0, 0
			for k := range n {
				for _, f := range (&shard{k, n}).pick([]string{dir}, more) {
					if old, ok := where[f]; ok {
						found++
						if old != k {
							moved++
						}
					}
				}
			}
			if moved != 0 || found != 300 {
				t.Errorf("after adding files: %d of %d old files moved", moved, found)
			}
			for _, f := range []string{"node0/rank1000.json", "late/rank5.json", "node3/rank301.json"} {
				os.Remove(filepath.Join(dir, f))
			}
		}
	}

	// The same files named other ways: from another directory, relative,
	// absolute, with a trailing slash, or one by one.
	shardsOf := func(args ...string) map[string]int {
		files, _, errs := expandInputs(args)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		out := map[string]int{}
		for k := range 16 {
			for _, f := range (&shard{k, 16}).pick(args, files) {
				rel, _ := filepath.Rel(dir, f)
				if !filepath.IsAbs(f) {
					wd, _ := os.Getwd()
					rel, _ = filepath.Rel(dir, filepath.Join(wd, f))
				}
				out[rel] = k
			}
		}
		return out
	}
	want := shardsOf(dir)
	t.Chdir(root)
	for _, args := range [][]string{{"job/traces"}, {"./job/traces/"}, {dir + "/"}} {
		if got := shardsOf(args...); !maps(got, want) {
			t.Errorf("%v: files on other shards than for %s", args, dir)
		}
	}
	t.Chdir(filepath.Join(dir, "node1"))
	if got := shardsOf("../"); !maps(got, want) {
		t.Errorf("../ from node1: files on other shards")
	}
	// FILE arguments go by base name: the same shard whatever the path.
	t.Chdir(filepath.Join(dir, "node2"))
	for _, f := range []string{"rank16.json", "rank17.json", "rank23.json"} {
		for _, arg := range []string{f, filepath.Join(dir, "node2", f), "./" + f} {
			if got, want := shardOf(shardKey([]string{arg}, arg), 16), shardOf(f, 16); got != want {
				t.Errorf("%s: shard %d, want %d", arg, got, want)
			}
		}
	}
}

func maps(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestShardFlag: --shard takes K/N with 0 ≤ K < N; anything else is a
// usage error (exit 2) naming the flag.
func TestShardFlag(t *testing.T) {
	for _, tt := range []struct {
		arg  string
		want shard
		ok   bool
	}{
		{"0/1", shard{0, 1}, true},
		{"63/64", shard{63, 64}, true},
		{"64/64", shard{}, false},
		{"-1/4", shard{}, false},
		{"1/0", shard{}, false},
		{"3", shard{}, false},
		{"a/b", shard{}, false},
	} {
		t.Run(tt.arg, func(t *testing.T) {
			var got shard
			err := got.Set(tt.arg)
			if (err == nil) != tt.ok || got != tt.want {
				t.Errorf("Set(%q) = %v, %v; want %v, ok %v", tt.arg, got, err, tt.want, tt.ok)
			}
			for _, cmd := range []string{"summarize", "export"} {
				_, errOut, code := traceql(cmd, "--shard", tt.arg, "no-such-file")
				if !tt.ok && (code != 2 || !strings.Contains(errOut, `"--shard"`)) {
					t.Errorf("%s --shard %s: exit %d, %s", cmd, tt.arg, code, errOut)
				}
			}
		})
	}
}
