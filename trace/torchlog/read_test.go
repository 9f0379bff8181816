package torchlog

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/synth"
)

// TestTlparseInputs reads logs from pytorch/tlparse's tests/inputs
// (BSD-3, testdata/LICENSE.tlparse). The expected compile times were read
// apart from this package, with Python's json and decimal modules; the
// rest by reading the files.
func TestTlparseInputs(t *testing.T) {
	type compile struct {
		id        string
		code      string
		ns        int64
		breaks    int
		recompile []string
	}
	for _, tt := range []struct {
		file     string
		records  int
		compiles []compile
		kernels  int // provenance entries of 0/0
	}{
		// Two graph breaks (torch._dynamo.graph_break()) split fn into
		// three frames; the log of that torch gives them as restart_reasons.
		{"tlparse_comp_metrics.log", 26, []compile{
			{"0/0", "fn", 12439489, 1, nil},
			{"1/0", "torch_dynamo_resume_in_fn_at_9551", 7198095, 1, nil},
			{"2/0", "torch_dynamo_resume_in_fn_at_9553", 3393888, 0, nil},
		}, 0},
		{"tlparse_provenance_jit_debug_handle.log.gz", 161, []compile{{"0/0", "forward", 4420942000, 0, nil}}, 4},
		// The first two compiles of a frame recompiled for each new size.
		{"tlparse_recompiles_head.log.gz", 88, []compile{
			{"0/0", "kernel", 1334062000, 0, nil},
			{"0/1", "kernel", 16248000, 0, []string{"0/0: tensor 'x' size mismatch at index 0. expected 2, actual 3"}},
		}, 0},
	} {
		t.Run(tt.file, func(t *testing.T) {
			l, err := Open(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if l.Lines != tt.records || len(l.Warnings) > 0 {
				t.Errorf("%d records, warnings %q; want %d, none", l.Lines, l.Warnings, tt.records)
			}
			if len(l.Compiles) != len(tt.compiles) {
				t.Fatalf("%d compiles, want %d", len(l.Compiles), len(tt.compiles))
			}
			for i, want := range tt.compiles {
				c := l.Compiles[i]
				if c.ID.String() != want.id || c.Code != want.code || c.CompileNS != want.ns || !c.HasCompileTime ||
					len(c.Breaks) != want.breaks || !slices.Equal(c.Recompile, want.recompile) {
					t.Errorf("compile %d: %s %q %d ns, breaks %q, recompile %q; want %+v", i, c.ID, c.Code, c.CompileNS, c.Breaks, c.Recompile, want)
				}
				for _, b := range c.Breaks {
					if strings.Contains(b.Reason, "/data/users") {
						t.Errorf("%s: a break names a full path: %q", c.ID, b.Reason)
					}
				}
			}
			if n := len(l.Compiles[0].Kernels); n != tt.kernels {
				t.Errorf("0/0 has provenance of %d kernels, want %d", n, tt.kernels)
			}
		})
	}
}

// TestProvenance checks a kernel's FX nodes and source lines in the
// tlparse provenance log, read by hand from its artifacts: the ":1"
// debug handle goes, the post-grad nodes map to the pre-grad ones, and
// each stack trace gives its innermost frame.
func TestProvenance(t *testing.T) {
	l, err := Open("testdata/tlparse_provenance_jit_debug_handle.log.gz")
	if err != nil {
		t.Fatal(err)
	}
	k := l.Find(0, 0).Kernels["triton_poi_fused_addmm_gelu_2"]
	if k == nil {
		t.Fatal("no provenance of triton_poi_fused_addmm_gelu_2")
	}
	if want := []string{"mul_3", "mul_1", "add_tensor", "add", "erf", "mul_2"}; !slices.Equal(k.PostGrad, want) {
		t.Errorf("post-grad %q, want %q", k.PostGrad, want)
	}
	if want := []string{"z", "y"}; !slices.Equal(k.PreGrad, want) {
		t.Errorf("pre-grad %q, want %q", k.PreGrad, want)
	}
	want := []SourceLine{
		{"test_provenance_tracing.py", 84, "forward", "z = torch.nn.functional.gelu(y)"},
		{"test_provenance_tracing.py", 83, "forward", "y = torch.addmm(c, d, b)"},
	}
	if !slices.Equal(k.Source, want) {
		t.Errorf("source %#v, want %#v", k.Source, want)
	}
}

// TestSynthLog writes logs with internal/synth and reads back what was
// written: compile times in both encodings (run-time records left out),
// breaks, guard failures, cudagraph skips and provenance.
func TestSynthLog(t *testing.T) {
	in := []synth.LogCompile{
		{Frame: 0, Compile: 0, Code: "forward", File: "model.py", Line: 10, CompileUS: 1_234_567, NumBreaks: 1,
			Breaks: []string{"model.py:12|Unsupported Tensor.item() call"}, RuntimeUS: 999,
			Kernels: map[string]synth.LogKernel{"triton_poi_fused_add_0": {Post: []string{"add"}, Pre: []string{"x"}, Stack: []string{"model.py|11|forward|x = x + 1"}}}},
		{Frame: 1, Compile: 0, Code: "torch_dynamo_resume_in_forward_at_12", File: "model.py", Line: 12, CompileS: "2.5e-05", NumBreaks: -1,
			CudagraphSkip: "skipping cudagraphs due to mutated inputs (1 instances)"},
		{Frame: 1, Compile: 1, Code: "torch_dynamo_resume_in_forward_at_12", File: "model.py", Line: 12, CompileS: "0.000000001", NumBreaks: -1,
			Recompile: []string{"1/0: tensor 'x' size mismatch at index 0. expected 2, actual 3"}},
	}
	var buf bytes.Buffer
	if err := synth.WriteTorchLog(&buf, in); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(buf.Bytes())
	zw.Close()
	dir := t.TempDir()
	for name, data := range map[string][]byte{"plain.log": buf.Bytes(), "z.log.gz": gz.Bytes()} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Compiles) != 3 || len(l.Warnings) > 0 {
			t.Fatalf("%s: %d compiles, warnings %q", name, len(l.Compiles), l.Warnings)
		}
		c0, c1, c2 := l.Compiles[0], l.Compiles[1], l.Compiles[2]
		if c0.CompileNS != 1_234_567_000 || c0.GraphBreaks != 1 || c0.CudagraphifyNS != 999_000 ||
			!slices.Equal(c0.Breaks, []Break{{"Unsupported Tensor.item() call", "model.py:12"}}) || c0.File != "model.py" || c0.Line != 10 {
			t.Errorf("%s: 0/0 = %+v", name, c0)
		}
		if k := c0.Kernels["triton_poi_fused_add_0"]; k == nil || !slices.Equal(k.PreGrad, []string{"x"}) ||
			!slices.Equal(k.Source, []SourceLine{{"model.py", 11, "forward", "x = x + 1"}}) {
			t.Errorf("%s: 0/0 kernel = %+v", name, k)
		}
		if c1.CompileNS != 25_000 || c1.GraphBreaks != -1 || c1.CudagraphSkip != in[1].CudagraphSkip {
			t.Errorf("%s: 1/0 = %+v", name, c1)
		}
		if c2.CompileNS != 1 || !slices.Equal(c2.Recompile, in[2].Recompile) || c2.ID.String() != "1/1" {
			t.Errorf("%s: 1/1 = %+v", name, c2)
		}
	}
}

// TestBadLog: what is not a log is an error naming the file; a record
// that cannot be read is a warning naming its line, and the rest is read.
func TestBadLog(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for name, s := range map[string]string{
		"empty.log":   "",
		"kineto.json": `{"traceEvents": []}`,
		"text.log":    "hello\nworld\n",
		"gz.log.gz":   "\x1f\x8b\x08\x00garbage",
	} {
		p := write(name, s)
		_, err := Open(p)
		if err == nil || !strings.HasPrefix(err.Error(), p+":") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line naming the file", name, err)
		}
	}
	p := write("partial.log", "V1127 16:00:00.000000 1 a.py:1] {\"frame_id\": 0, \"frame_compile_id\": 0, \"compilation_metrics\": {\"co_name\": \"f\", \"duration_us\": 5}}\n"+
		"V1127 16:00:00.000000 1 a.py:1] {\"frame_id\": 0, \"frame_co\n"+
		"V1127 16:00:00.000000 1 a.py:1] {\"frame_id\": 0, \"frame_compile_id\": 0, \"artifact\": {\"name\": \"recompile_reasons\", \"encoding\": \"json\"}, \"has_payload\": \"x\"}\n\t[\"unterminated\n")
	l, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Compiles) != 1 || l.Compiles[0].CompileNS != 5000 || len(l.Warnings) != 2 ||
		!strings.Contains(l.Warnings[0], "line 2") || !strings.Contains(l.Warnings[1], "line 3") {
		t.Errorf("compiles %+v, warnings %q", l.Compiles, l.Warnings)
	}
}

func TestDecimalNanos(t *testing.T) {
	for _, tt := range []struct {
		s    string
		exp  int
		want int64
		bad  bool
	}{
		{"1334062", 3, 1334062000, false},
		{"1.334062", 9, 1334062000, false},
		{"0.0123456789", 9, 12345678, false},
		{"2.5e-05", 9, 25000, false},
		{"1E2", 3, 100000, false},
		{"0", 9, 0, false},
		{"1e-12", 9, 0, false},
		{"-1", 9, 0, true},
		{"1.2.3", 9, 0, true},
		{"", 9, 0, true},
		{"99999999999999999999", 9, 0, true},
	} {
		got, err := decimalNanos(tt.s, tt.exp)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("decimalNanos(%q, %d) = %d, %v; want %d, bad %v", tt.s, tt.exp, got, err, tt.want, tt.bad)
		}
	}
}

// TestOutputCodeSource: without the provenance artifacts, a kernel's
// nodes come from the comments above it in Inductor's output code and its
// lines from the post-grad graph's "# File:" comments. The expectations
// are those comments in the tlparse log, read by hand.
func TestOutputCodeSource(t *testing.T) {
	zr, err := os.Open("testdata/tlparse_provenance_jit_debug_handle.log.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	gz, err := gzip.NewReader(zr)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(gz)
	if err != nil {
		t.Fatal(err)
	}
	// Leave out the provenance artifacts and their payloads.
	var kept []string
	skip := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "\t") {
			if !skip {
				kept = append(kept, line)
			}
			continue
		}
		skip = strings.Contains(line, `"inductor_provenance_tracking`) || strings.Contains(line, `"inductor_triton_kernel_to_post_grad_nodes"`)
		if !skip {
			kept = append(kept, line)
		}
	}
	l, err := Parse(strings.NewReader(strings.Join(kept, "\n")), "stripped.log")
	if err != nil {
		t.Fatal(err)
	}
	k := l.Find(0, 0).Kernels["triton_poi_fused_addmm_gelu_2"]
	if k == nil {
		t.Fatal("no nodes of triton_poi_fused_addmm_gelu_2 from the output code")
	}
	if want := []string{"y", "z"}; !slices.Equal(k.PreGrad, want) {
		t.Errorf("pre-grad %q, want %q", k.PreGrad, want)
	}
	if want := []string{"add_tensor", "add", "erf", "mul_1", "mul_2", "mul_3"}; !slices.Equal(k.PostGrad, want) {
		t.Errorf("post-grad %q, want %q", k.PostGrad, want)
	}
	want := []SourceLine{
		{"test_provenance_tracing.py", 83, "forward", "y = torch.addmm(c, d, b)"},
		{"test_provenance_tracing.py", 84, "forward", "z = torch.nn.functional.gelu(y)"},
	}
	if !slices.Equal(k.Source, want) {
		t.Errorf("source %#v, want %#v", k.Source, want)
	}
}
