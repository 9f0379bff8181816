package metrics_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
	"github.com/traceql/traceql/trace/torchlog"
)

// logFindings summarizes the trace at path joined to the log written from
// lc, and returns its recompile and graph-break findings before and after
// ApplyCompileLog.
func logFindings(t *testing.T, path string, lc []synth.LogCompile) (guess, logged map[string]metrics.Finding) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "log")
	lf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.WriteTorchLog(lf, lc); err != nil {
		t.Fatal(err)
	}
	lf.Close()
	log, err := torchlog.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(tr, metrics.Options{})
	pick := func() map[string]metrics.Finding {
		out := map[string]metrics.Finding{}
		for _, d := range s.Devices {
			for _, f := range d.Findings {
				if f.Rule == "recompile" || f.Rule == "graph-break" {
					out[f.Rule] = f
				}
			}
		}
		return out
	}
	guess = pick()
	s.CompileLog = metrics.JoinCompileLog(tr, log, 0)
	metrics.ApplyCompileLog(&s)
	return guess, pick()
}

// TestCompileLogFindings: with a compile log, recompile and graph-break
// count what the log holds, counted here from what was written to it: 2
// recompiles of frame 0 and 3 graph breaks (two logged as artifacts, one
// only as num_graph_breaks), not the trace's frame-number guess; a log of
// no break and no recompile leaves neither.
func TestCompileLogFindings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synth.WriteCompile(f, synth.CompileConfig{Seed: 1, Recompiles: []int{0, 3, 1}}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	lc := []synth.LogCompile{
		{Frame: 0, Compile: 0, Code: "f", File: "m.py", Line: 1, CompileUS: 100, NumBreaks: -1,
			Breaks: []string{"m.py:10|Unsupported: call to print", "m.py:20|Data-dependent branching"}},
		{Frame: 0, Compile: 1, Code: "f", File: "m.py", Line: 1, CompileUS: 50, NumBreaks: -1, Recompile: []string{"0/0: tensor 'x' size mismatch at index 0"}},
		{Frame: 0, Compile: 2, Code: "f", File: "m.py", Line: 1, CompileUS: 70, NumBreaks: -1, Recompile: []string{"0/1: tensor 'x' size mismatch at index 0"}},
		{Frame: 1, Compile: 0, Code: "torch_dynamo_resume_in_f_at_10", File: "m.py", Line: 10, CompileUS: 30, NumBreaks: 1},
	}
	wantRecompiles, wantBreaks := 0, 0
	for _, c := range lc {
		if c.Compile > 0 {
			wantRecompiles++
		}
		wantBreaks += max(len(c.Breaks), c.NumBreaks)
	}
	guess, got := logFindings(t, path, lc)
	if g := got["recompile"]; g.Count != wantRecompiles || !strings.Contains(g.Evidence, "compile log") || !strings.Contains(g.Evidence, "size mismatch") {
		t.Errorf("recompile %+v, want %d from the log (the trace's guess %+v)", g, wantRecompiles, guess["recompile"])
	}
	if g := got["graph-break"]; g.Count != wantBreaks || !strings.Contains(g.Evidence, "m.py:10 Unsupported: call to print") {
		t.Errorf("graph-break %+v, want %d from the log (the trace's guess %+v)", g, wantBreaks, guess["graph-break"])
	}
	if guess["recompile"].Count == wantRecompiles {
		t.Fatalf("the trace guesses %d recompiles, as the log says: the case shows nothing", wantRecompiles)
	}

	// One recompile and one break are counted in the singular (issue 63:
	// "1 graph breaks").
	_, got = logFindings(t, path, []synth.LogCompile{lc[0], lc[1]})
	if g := got["graph-break"].Evidence; !strings.Contains(g, "from the compile log: 2 graph breaks") {
		t.Errorf("graph-break evidence %q", g)
	}
	_, got = logFindings(t, path, []synth.LogCompile{{Frame: 0, Compile: 0, Code: "f", File: "m.py", Line: 1, CompileUS: 100, NumBreaks: -1,
		Breaks: []string{"m.py:10|Unsupported: call to print"}}, lc[1]})
	if r, b := got["recompile"].Evidence, got["graph-break"].Evidence; !strings.Contains(r, "from the compile log: 1 recompile taking") ||
		!strings.Contains(b, "from the compile log: 1 graph break;") {
		t.Errorf("one recompile and one break: evidence %q and %q", r, b)
	}

	// A clean log: no finding, whatever the frame numbers guess.
	_, got = logFindings(t, path, []synth.LogCompile{{Frame: 0, Compile: 0, Code: "f", File: "m.py", CompileUS: 10, NumBreaks: 0}})
	if len(got) > 0 {
		t.Errorf("a log of no break or recompile: %+v", got)
	}
}

// TestCompileLogFindingsReal: the ViT runs' own logs hold one compile of
// one frame and no break: with them, neither rule fires.
func TestCompileLogFindingsReal(t *testing.T) {
	logs, _ := filepath.Glob(filepath.Join(gpuTraces, "*_flops.torch_trace.log.gz"))
	if len(logs) == 0 {
		t.Fatal("no compile logs in testdata/gpu")
	}
	for _, lp := range logs {
		log, err := torchlog.Open(lp)
		if err != nil {
			t.Fatal(err)
		}
		breaks, recompiles := 0, 0
		for _, c := range log.Compiles {
			breaks += max(len(c.Breaks), c.GraphBreaks)
			if c.ID.Compile > 0 {
				recompiles++
			}
		}
		tr, err := trace.Open(context.Background(), strings.TrimSuffix(lp, ".torch_trace.log.gz")+".pt.trace.json.gz")
		if err != nil {
			t.Fatal(err)
		}
		s := metrics.Summarize(tr, metrics.Options{})
		s.CompileLog = metrics.JoinCompileLog(tr, log, 0)
		metrics.ApplyCompileLog(&s)
		for _, f := range s.Devices[0].Findings {
			if f.Rule == "recompile" && f.Count != recompiles || f.Rule == "graph-break" && f.Count != breaks {
				t.Errorf("%s: %s %d, the log holds %d breaks, %d recompiles", filepath.Base(lp), f.Rule, f.Count, breaks, recompiles)
			}
		}
		if breaks+recompiles > 0 {
			t.Logf("%s: %d breaks, %d recompiles", filepath.Base(lp), breaks, recompiles)
		}
	}
}
