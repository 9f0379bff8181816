package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/traceql/traceql/internal/golden"
	"github.com/traceql/traceql/internal/synth"
)

// writeCompileRun writes a generated torch.compile trace and a compile
// log of its frames into dir: 0/0 with a graph break and provenance of
// its Triton kernel, 1/0 to 1/2 recompiled on failed guards, 1/1 with
// CUDA graphs skipped, and 9/0 compiled and never run.
func writeCompileRun(t *testing.T, dir string) (tracePath, logPath string) {
	t.Helper()
	tracePath = filepath.Join(dir, "run.pt.trace.json")
	f, err := os.Create(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	_, err = synth.WriteCompile(f, synth.CompileConfig{Seed: 5, Calls: 24, Recompiles: []int{0, 2}})
	if err2 := f.Close(); err == nil {
		err = err2
	}
	if err != nil {
		t.Fatal(err)
	}
	logPath = filepath.Join(dir, "dedicated_log_torch_trace_abc.log")
	lf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	err = synth.WriteTorchLog(lf, []synth.LogCompile{
		{Frame: 0, Compile: 0, Code: "forward", File: "model.py", Line: 40, CompileUS: 8_123_456, NumBreaks: 1,
			Breaks: []string{"model.py:47|Unsupported Tensor.item() call with capture_scalar_outputs=False"},
			Kernels: map[string]synth.LogKernel{"triton_poi_fused_add_0": {Post: []string{"add", "add_1"}, Pre: []string{"x", "y"},
				Stack: []string{"model.py|44|forward|x = x + self.bias", "model.py|45|forward|y = x + 1"}}}},
		{Frame: 1, Compile: 0, Code: "torch_dynamo_resume_in_forward_at_47", File: "model.py", Line: 47, CompileUS: 912_000, NumBreaks: 0},
		{Frame: 1, Compile: 1, Code: "torch_dynamo_resume_in_forward_at_47", File: "model.py", Line: 47, CompileUS: 301_500, NumBreaks: 0,
			Recompile:     []string{"1/0: tensor 'L['x']' size mismatch at index 0. expected 8, actual 16"},
			CudagraphSkip: "skipping cudagraphs due to mutated inputs (1 instances)"},
		{Frame: 1, Compile: 2, Code: "torch_dynamo_resume_in_forward_at_47", File: "model.py", Line: 47, CompileS: "0.2875", NumBreaks: -1,
			Recompile: []string{"1/1: tensor 'L['x']' size mismatch at index 0. expected 16, actual 32", "1/0: tensor 'L['x']' size mismatch at index 0. expected 8, actual 32"}},
		{Frame: 9, Compile: 0, Code: "helper", File: "util.py", Line: 3, CompileUS: 20_000, NumBreaks: 0},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tracePath, logPath
}

// TestCompileLog: summarize --compile-log on an 80-column terminal and in
// a pipe, pinned by goldens (the temporary folder written as TMP), its
// tables within 80 columns on the terminal; a folder with one log reads
// as that log.
func TestCompileLog(t *testing.T) {
	dir := t.TempDir()
	tracePath, logPath := writeCompileRun(t, dir)
	summarize := func(tty bool, args ...string) string {
		t.Helper()
		ios, out, errOut := testStreams()
		ios.SetStdoutTTY(tty)
		ios.SetTerminalWidth(80)
		if code := run(context.Background(), append([]string{"summarize", tracePath}, args...), ios); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if errOut.Len() > 0 {
			t.Errorf("stderr: %s", errOut)
		}
		return strings.ReplaceAll(out.String(), dir, "TMP")
	}
	term := summarize(true, "--compile-log", logPath)
	checkRun(t, "compile_log.term", compileLogPart(t, term), "")
	inTables := false
	for line := range strings.Lines(term) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, "compiled frames") {
			inTables = true
		}
		if n := utf8.RuneCountInString(line); inTables && n > 80 {
			t.Errorf("80 columns: a line of %d: %q", n, line)
		}
	}
	if !inTables {
		t.Fatal("no compiled frames table")
	}
	checkRun(t, "compile_log.pipe", compileLogPart(t, summarize(false, "--compile-log", logPath, "--format", "markdown")), "")
	if byDir := summarize(true, "--compile-log", dir); byDir != term {
		t.Errorf("--compile-log DIR of one log: want the log's output, got\n%s", byDir)
	}
}

// compileLogPart is the part of summarize's output that --compile-log
// adds, from the compiled frames table on: the goldens pin it alone, as
// the tables before it are pinned elsewhere.
func compileLogPart(t *testing.T, out string) string {
	t.Helper()
	i := strings.Index(out, "compiled frames")
	if i < 0 {
		t.Fatalf("no compiled frames table:\n%s", out)
	}
	return out[strings.LastIndex(out[:i], "\n")+1:]
}

// TestCompileLogReal: summarize --compile-log on the real recordings and
// their logs (testdata/gpu) on an 80-column terminal: frame 0/0 joined,
// CUDA graphs replayed in reduce-overhead only, the Triton kernels with
// their FX nodes and source lines; the reduce-overhead run pinned by a
// golden.
func TestCompileLogReal(t *testing.T) {
	for _, name := range []string{"vit-small_default_b1_flops", "vit-small_reduce-overhead_b1_flops", "vit-medium_reduce-overhead_b1_flops"} {
		t.Run(name, func(t *testing.T) {
			ios, out, errOut := testStreams()
			ios.SetStdoutTTY(true)
			ios.SetTerminalWidth(80)
			dir := filepath.Join("..", "..", "testdata", "gpu")
			args := []string{"summarize", filepath.Join(dir, name+".pt.trace.json.gz"), "--compile-log", filepath.Join(dir, name+".torch_trace.log.gz")}
			if code := run(context.Background(), args, ios); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			part := compileLogPart(t, out.String())
			graphs := strings.Contains(name, "reduce-overhead")
			if !strings.Contains(part, "\n  0/0 ") || strings.Contains(part, "replayed") != graphs || !strings.Contains(part, "FX nodes") ||
				!strings.Contains(part, "mlp.py:48 in forward: x = self.fc1(x)") || strings.Contains(part, "not in the log") {
				t.Errorf("want 0/0 joined, CUDA graphs replayed %v, FX nodes and mlp.py's lines:\n%s", graphs, part)
			}
			for line := range strings.Lines(part) {
				if n := utf8.RuneCountInString(strings.TrimSuffix(line, "\n")); n > 80 {
					t.Errorf("a line of %d: %q", n, line)
				}
			}
			if name == "vit-small_reduce-overhead_b1_flops" {
				checkRun(t, "compile_log.vit", part, errOut.String())
			}
		})
	}
	// The reference's example, as a user at the repository's root runs it.
	ios, out, errOut := testStreams()
	ios.SetStdoutTTY(true)
	ios.SetTerminalWidth(80)
	const run1 = "testdata/gpu/vit-small_reduce-overhead_b1_flops"
	if code := run(context.Background(), []string{"summarize", "../../" + run1 + ".pt.trace.json.gz", "--top", "3", "--compile-log", "../../" + run1 + ".torch_trace.log.gz"}, ios); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	part := strings.ReplaceAll(compileLogPart(t, out.String()), "../../", "")
	golden.CheckSection(t, "../../docs/reference.md", "compile-log", []byte("```text\n$ traceql summarize "+run1+".pt.trace.json.gz \\\n    --top 3 --compile-log "+run1+".torch_trace.log.gz\n…\n"+part+"```\n"))
}

// TestCompileLogErrors: a log that is missing or not a log is one line
// naming it, exit 1; a folder of several logs that names no rank, too;
// CSV and JSON are a usage error.
func TestCompileLogErrors(t *testing.T) {
	dir := t.TempDir()
	tracePath, logPath := writeCompileRun(t, dir)
	notLog := filepath.Join(dir, "notes.log")
	if err := os.WriteFile(notLog, []byte("just text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing", []string{"--compile-log", filepath.Join(dir, "nope.log")}, 1, "nope.log: no such file or directory"},
		{"not a log", []string{"--compile-log", notLog}, 1, notLog + ": not a TORCH_TRACE structured compile log"},
		{"two logs", []string{"--compile-log", dir}, 1, dir + ": 2 logs and the trace's rank is unknown"},
		{"no logs", []string{"--compile-log", empty}, 1, empty + ": no *.log or *.log.gz file"},
		{"csv", []string{"--compile-log", logPath, "-f", "csv"}, 2, "--compile-log adds text tables"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := traceql(append([]string{"summarize", tracePath}, tt.args...)...)
			lines := strings.Count(errOut, "\n")
			if code != tt.code || !strings.Contains(errOut, tt.want) || tt.code == 1 && (lines != 1 || out != "") {
				t.Errorf("exit %d, stdout %d bytes, stderr %q; want exit %d, one line with %q", code, len(out), errOut, tt.code, tt.want)
			}
			if strings.Contains(errOut, "goroutine") || strings.Contains(errOut, "panic") {
				t.Errorf("a Go stack: %s", errOut)
			}
		})
	}
}

// TestCompileLogRanks: a folder of several logs gives each trace the log
// whose name has its rank (distributedInfo), read once for all.
func TestCompileLogRanks(t *testing.T) {
	dir, logs := t.TempDir(), t.TempDir()
	var traces []string
	for _, rank := range []int{0, 1} {
		p := filepath.Join(dir, "rank"+strconv.Itoa(rank)+".json")
		if _, err := synth.WriteFile(p, synth.Config{Seed: int64(rank + 1), Streams: 1, Steps: 1, KernelsPerStep: 5, Rank: rank, WorldSize: 2}, false); err != nil {
			t.Fatal(err)
		}
		traces = append(traces, p)
		f, err := os.Create(filepath.Join(logs, "dedicated_log_torch_trace_rank_"+strconv.Itoa(rank)+"_x1y2.log"))
		if err != nil {
			t.Fatal(err)
		}
		err = synth.WriteTorchLog(f, []synth.LogCompile{{Frame: 0, Compile: 0, Code: "rank" + strconv.Itoa(rank) + "_fn", File: "m.py", CompileUS: 1, NumBreaks: -1}})
		if err2 := f.Close(); err == nil {
			err = err2
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, code := traceql(append([]string{"summarize", "--compile-log", logs}, traces...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	i0, i1 := strings.Index(out, "0/0: rank0_fn"), strings.Index(out, "0/0: rank1_fn")
	if i0 < 0 || i1 < i0 || strings.Count(out, "_rank_0_") != 1 || strings.Count(out, "_rank_1_") != 1 {
		t.Errorf("want rank 0's log joined to rank0.json and rank 1's to rank1.json:\n%s", out)
	}
}

// TestCompileLogWindow: with --steps the frames count the regions within
// the window only: steps 5 to 7 of the real run hold 3 of its 10 calls.
func TestCompileLogWindow(t *testing.T) {
	const run1 = "../../testdata/gpu/vit-small_reduce-overhead_b1_flops"
	out, errOut, code := traceql("summarize", run1+".pt.trace.json.gz", "--steps", "5:7", "--compile-log", run1+".torch_trace.log.gz")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for line := range strings.Lines(compileLogPart(t, out)) {
		if f := strings.Fields(line); len(f) > 5 && f[0] == "0/0" { // 0/0, 10.5, s, breaks, guards, calls
			if f[5] != "3" {
				t.Errorf("0/0 row %q: want 3 calls", line)
			}
			return
		}
	}
	t.Errorf("no 0/0 row:\n%s", out)
}
