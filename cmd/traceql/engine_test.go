package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The engine tests run the recipes of docs/many-ranks.md with the
// engines themselves, and skip, saying so, when an engine is not
// installed (.ci/run installs them when it can).

// buildTraceql builds the command, for engines that run it as a program.
func buildTraceql(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "traceql")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// daskScript runs N shard tasks on a Dask LocalCluster; each calls
// traceql export, as the Dask recipe of docs/many-ranks.md does, and the script prints
// the parts' paths.
const daskScript = `
import subprocess, sys
from dask.distributed import Client, LocalCluster

traceql, traces, out, N = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def part(k):
    p = f"{out}/part-{k}.parquet"
    subprocess.run([traceql, "export", traces, "--shard", f"{k}/{N}", "--table", "summary",
                    "--format", "parquet", "-q", "-j", "1", "-o", p], check=True)
    return p

if __name__ == "__main__":
    with LocalCluster(n_workers=2, threads_per_worker=2, dashboard_address=None) as cluster, Client(cluster) as client:
        parts = client.gather(client.map(part, range(N)))
    print("\n".join(parts))
`

// TestEngineDask: 16 Dask tasks export their shards of 64 ranks, one of
// them a straggler, and the overview of their parts is the overview of one
// process reading every trace, byte for byte.
func TestEngineDask(t *testing.T) {
	python := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import dask.distributed").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		t.Skip("no Python with dask.distributed: apt-get install python3-dask python3-distributed")
	}
	bin := buildTraceql(t)
	dir, out := t.TempDir(), t.TempDir()
	writeRanks(t, dir, 64, 41)
	script := filepath.Join(t.TempDir(), "shards.py")
	if err := os.WriteFile(script, []byte(daskScript), 0o644); err != nil {
		t.Fatal(err)
	}
	const n = 16
	cmd := exec.Command(python, script, bin, dir, out, strconv.Itoa(n))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("dask: %v\n%s", err, stderr.Bytes())
	}
	parts := strings.Fields(string(stdout))
	if len(parts) != n {
		t.Fatalf("dask returned %d parts, want %d:\n%s", len(parts), n, stdout)
	}
	want, errOut, code := traceql("summarize", "--overview", dir)
	if code != 0 {
		t.Fatal(errOut)
	}
	if !strings.Contains(want, "least communication time: "+filepath.Join(dir, "rank41.json")) || !strings.Contains(want, "64 traces") {
		t.Fatalf("the one-process overview has not the 64 traces and the straggler:\n%s", want)
	}
	got, err := exec.Command(bin, append([]string{"summarize", "--overview"}, parts...)...).CombinedOutput()
	if err != nil || string(got) != want {
		t.Errorf("overview of the Dask parts (%v):\n%s\nwant, from one process:\n%s", err, got, want)
	}
	wantCSV, _, _ := traceql("summarize", "-f", "csv", dir)
	if got, _, _ := traceql(append([]string{"summarize", "-f", "csv"}, parts...)...); got != wantCSV {
		t.Errorf("CSV of the Dask parts differs from one process's")
	}
}

// duckdb returns a function that runs one SQL query and returns its rows
// as text: the duckdb CLI when on PATH, else Node with @duckdb/node-api
// from .ci/node.
func duckdb(t *testing.T) func(sql string) [][]string {
	if cli, err := exec.LookPath("duckdb"); err == nil {
		return func(sql string) [][]string {
			out, err := exec.Command(cli, "-csv", "-c", sql).CombinedOutput()
			if err != nil {
				t.Fatalf("duckdb %s: %v\n%s", sql, err, out)
			}
			recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
			if err != nil || len(recs) == 0 {
				t.Fatalf("duckdb output: %v\n%s", err, out)
			}
			return recs[1:]
		}
	}
	modules, _ := filepath.Abs(filepath.Join("..", "..", ".ci", "node", "node_modules"))
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no duckdb CLI and no node: install duckdb, or node and npm install --prefix .ci/node @duckdb/node-api")
	}
	if _, err := os.Stat(filepath.Join(modules, "@duckdb", "node-api")); err != nil {
		t.Skip("no duckdb CLI and no @duckdb/node-api in .ci/node: npm install --prefix .ci/node @duckdb/node-api")
	}
	script := filepath.Join(t.TempDir(), "query.cjs")
	err = os.WriteFile(script, []byte(`const { DuckDBInstance } = require('@duckdb/node-api');
(async () => {
  const con = await (await DuckDBInstance.create(':memory:')).connect();
  console.log(JSON.stringify((await con.runAndReadAll(process.argv[2])).getRowsJson()));
})().catch(e => { console.error(e.message); process.exit(1); });
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return func(sql string) [][]string {
		cmd := exec.Command(node, script, sql)
		cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("node duckdb %s: %v", sql, err)
		}
		var rows [][]any
		if err := json.Unmarshal(out, &rows); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var recs [][]string
		for _, r := range rows {
			var rec []string
			for _, v := range r {
				rec = append(rec, fmt.Sprint(v))
			}
			recs = append(recs, rec)
		}
		return recs
	}
}

// docQueries are the SQL of the duckdb -c "…" lines of
// docs/many-ranks.md.
func docQueries(t *testing.T) []string {
	b, err := os.ReadFile("../../docs/many-ranks.md")
	if err != nil {
		t.Fatal(err)
	}
	sec := string(b)
	var qs []string
	for {
		var ok bool
		if _, sec, ok = strings.Cut(sec, `duckdb -c "`); !ok {
			return qs
		}
		q, rest, _ := strings.Cut(sec, `"`)
		qs, sec = append(qs, strings.Join(strings.Fields(q), " ")), rest
	}
}

// TestEngineDuckDB: docs/many-ranks.md's DuckDB queries over the Parquet parts of
// 16 shards give the rows they give over the CSV of one process, and the
// GPUs by bound match the CSV counted here.
func TestEngineDuckDB(t *testing.T) {
	query := duckdb(t)
	dir, out := t.TempDir(), t.TempDir()
	writeRanks(t, dir, 64, 41)
	tables := map[string]string{"out": "summary", "kstats": "kernel-stats"}
	for name, table := range tables {
		if err := os.Mkdir(filepath.Join(out, name), 0o755); err != nil {
			t.Fatal(err)
		}
		for k := range 16 {
			part := filepath.Join(out, name, fmt.Sprintf("part-%d.parquet", k))
			if _, errOut, code := traceql("export", dir, "--shard", fmt.Sprintf("%d/16", k), "-t", table, "-f", "parquet", "-o", part); code != 0 {
				t.Fatal(errOut)
			}
		}
		if _, errOut, code := traceql("export", dir, "-t", table, "-o", filepath.Join(out, name+".csv")); code != 0 {
			t.Fatal(errOut)
		}
	}
	qs := docQueries(t)
	if len(qs) < 3 {
		t.Fatalf("%d duckdb queries in docs/many-ranks.md, want 3 or more", len(qs))
	}
	for _, q := range qs {
		name := ""
		for n := range tables {
			if strings.Contains(q, "'"+n+"/*.parquet'") {
				name = n
			}
		}
		if name == "" {
			t.Errorf("%s: reads none of the parts", q)
			continue
		}
		parts := strings.ReplaceAll(q, "'"+name+"/*.parquet'", "'"+filepath.Join(out, name)+"/*.parquet'")
		fromCSV := strings.ReplaceAll(q, "'"+name+"/*.parquet'", "read_csv('"+filepath.Join(out, name+".csv")+"')")
		got, want := query(parts), query(fromCSV)
		if len(got) == 0 || !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s\nover the parts:\n%v\nover the CSV:\n%v", q, got, want)
		}
		if strings.Contains(q, "max(world_size)") && fmt.Sprint(got) != "[[64 64]]" {
			t.Errorf("%s: %v, want world size 64 and 64 ranks", q, got)
		}
		if strings.Contains(q, "GROUP BY bound") {
			checkBounds(t, filepath.Join(out, "out.csv"), got)
		}
	}
}

// checkBounds compares rows of (bound, gpus, …) with the CSV's bound
// column, counted here.
func checkBounds(t *testing.T, csvPath string, rows [][]string) {
	recs := csvRecords(t, string(readFile(t, csvPath)))
	col := slices.Index(recs[0], "bound")
	n := map[string]int{}
	for _, r := range recs[1:] {
		n[r[col]]++
	}
	got := map[string]int{}
	for _, r := range rows {
		got[r[0]], _ = strconv.Atoi(r[1])
	}
	if fmt.Sprint(got) != fmt.Sprint(n) {
		t.Errorf("GPUs by bound over the parts %v, in the CSV %v", got, n)
	}
}
