package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/synth"
)

// writeRanks writes a small job of n ranks into dir, rank i in rank<i>.json,
// every fifth with two GPUs. Rank straggler (when ≥ 0) keeps one
// communication kernel, of 5 µs, the others being renamed to a computation
// kernel: it spends far less time in communication than the others.
func writeRanks(t testing.TB, dir string, n, straggler int) {
	t.Helper()
	for rank := range n {
		cfg := synth.Config{Seed: int64(rank + 1), Steps: 8, KernelsPerStep: 6 + rank%5, Rank: rank, WorldSize: n}
		if rank%5 == 4 {
			cfg.Devices = 2
		}
		path := filepath.Join(dir, fmt.Sprintf("rank%d.json", rank))
		if _, err := synth.WriteFile(path, cfg, false); err != nil {
			t.Fatal(err)
		}
		if rank == straggler {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			const comm = `"name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"`
			first, rest, ok := strings.Cut(string(b), comm)
			if !ok || !strings.Contains(rest, comm) {
				t.Fatalf("rank %d has fewer than two communication kernels", rank)
			}
			// The one kept lasts 5 µs.
			head, tail, _ := strings.Cut(rest, `"dur": `)
			_, tail, _ = strings.Cut(tail, ",")
			rest = head + `"dur": 5.000,` + tail
			s := first + comm + strings.ReplaceAll(rest, comm, `"name": "void at::native::vectorized_elementwise_kernel<4>(copy)"`)
			if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestShardMerge: N workers each export their --shard of a job's ranks as
// Parquet; summarize reads the parts back and prints, byte for byte, the
// overview (and the CSV) of one process reading every trace, straggler
// note included.
func TestShardMerge(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	writeRanks(t, dir, 24, 13)
	want, errOut, code := traceql("summarize", "--overview", dir)
	if code != 0 {
		t.Fatalf("summarize: exit %d: %s", code, errOut)
	}
	straggler := "least communication time: " + filepath.Join(dir, "rank13.json") + " GPU 0"
	if !strings.Contains(strings.ReplaceAll(want, "\n", " "), straggler) {
		t.Fatalf("the overview does not name the straggler (%q):\n%s", straggler, want)
	}
	wantCSV, _, _ := traceql("summarize", "-f", "csv", dir)
	const n = 5
	// summarize --shard: the shards' rows are the rows of all, once each.
	var lines []string
	for k := range n {
		out, errOut, code := traceql("summarize", "--shard", fmt.Sprintf("%d/%d", k, n), "-f", "csv", dir)
		if code != 0 {
			t.Fatalf("summarize shard %d: %s", k, errOut)
		}
		lines = append(lines, strings.Split(strings.TrimSpace(out), "\n")[1:]...)
	}
	all := strings.Split(strings.TrimSpace(wantCSV), "\n")[1:]
	slices.Sort(lines)
	slices.Sort(all)
	if !slices.Equal(lines, all) {
		t.Errorf("summarize --shard K/%d: %d rows in all, want the %d rows of one process", n, len(lines), len(all))
	}
	var parts []string
	rows := 0
	for k := n - 1; k >= 0; k-- { // parts in any order
		part := filepath.Join(out, fmt.Sprintf("part-%d.parquet", k))
		if _, errOut, code := traceql("export", "--shard", fmt.Sprintf("%d/%d", k, n), "--table", "summary", "-f", "parquet", "-o", part, dir); code != 0 {
			t.Fatalf("export shard %d: exit %d: %s", k, code, errOut)
		}
		parts = append(parts, part)
		one, errOut, code := traceql("summarize", "-f", "csv", part)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", part, code, errOut)
		}
		rows += strings.Count(one, "\n") - 1
	}
	if want := strings.Count(wantCSV, "\n") - 1; rows != want {
		t.Errorf("the parts hold %d rows, want %d", rows, want)
	}
	got, errOut, code := traceql(append([]string{"summarize", "--overview"}, parts...)...)
	if code != 0 || got != want {
		t.Errorf("overview of the parts: exit %d, %s\n%s\nwant, from the traces:\n%s", code, errOut, got, want)
	}
	if got, _, _ := traceql(append([]string{"summarize", "-f", "csv"}, parts...)...); got != wantCSV {
		t.Errorf("CSV of the parts:\n%s\nwant\n%s", got, wantCSV)
	}
	if got, _, _ := traceql(append([]string{"summarize", "-f", "markdown"}, parts...)...); !strings.Contains(got, "| min ") {
		t.Errorf("markdown of the parts has no min row:\n%s", got)
	}

	// What cannot be read back says why.
	stats := filepath.Join(out, "stats.parquet")
	if _, errOut, code := traceql("export", "--table", "kernel-stats", "-f", "parquet", "-o", stats, dir); code != 0 {
		t.Fatal(errOut)
	}
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"summarize", stats}, 1, "not traceql's summary table"},
		{[]string{"summarize", parts[0], filepath.Join(dir, "rank0.json")}, 2, "is a Parquet file and"},
		{[]string{"summarize", "-f", "json", parts[0]}, 2, "--format json"},
		{[]string{"summarize", "--steps", "2:", parts[0]}, 2, "give --steps"},
		{[]string{"summarize", "-f", "csv", parts[0], parts[1], filepath.Join(out, "part-99.parquet")}, 1, "part-99.parquet"},
	} {
		if _, errOut, code := traceql(tt.args...); code != tt.code || !strings.Contains(errOut, tt.msg) {
			t.Errorf("%v: exit %d, %s; want exit %d and %q", tt.args, code, errOut, tt.code, tt.msg)
		}
	}
}

// TestShardEmpty: a worker whose share is empty still writes a Parquet
// part with the columns of the others, which reads back as no rows.
func TestShardEmpty(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	writeRanks(t, dir, 2, -1)
	var empty string
	for k := range 64 {
		if len((&shard{k, 64}).pick([]string{dir}, []string{filepath.Join(dir, "rank0.json"), filepath.Join(dir, "rank1.json")})) == 0 {
			empty = fmt.Sprintf("%d/64", k)
			break
		}
	}
	part := filepath.Join(out, "part.parquet")
	if _, errOut, code := traceql("export", "--shard", empty, "-f", "parquet", "-o", part, dir); code != 0 {
		t.Fatal(errOut)
	}
	if _, err := os.Stat(part); err != nil {
		t.Fatal(err)
	}
	got, errOut, code := traceql("summarize", "-f", "csv", part)
	if code != 0 || !strings.HasPrefix(got, "file,rank,world_size,device,") || strings.Count(got, "\n") != 1 {
		t.Errorf("empty part: exit %d, %s\n%s", code, errOut, got)
	}
}
