// Package torchlog reads PyTorch's structured compile logs, the files
// TORCH_TRACE=DIR makes (what tlparse reads), plain or gzipped, into a
// Log: per compile of a frame, its compile time, graph breaks, the guard
// failures that caused a recompile, whether CUDA graphs were skipped, and
// Inductor's provenance of each generated kernel (its FX nodes and source
// lines), where the log has those artifacts.
//
// A log is a glog-prefixed line per record, "V1127 16:00:00.000000 123
// path.py:42] {envelope}", the envelope a JSON object whose keys name
// the record (compilation_metrics, artifact, ...) and its compile id
// (frame_id, frame_compile_id, attempt); when the envelope has
// "has_payload", the payload follows on lines that begin with a tab.
// The compile id "F/R" is the one the profiler's "Torch-Compiled Region:
// F/R" ops carry, which is how metrics joins a log to a runtime trace.
//
// It lives beside trace, not in it: a log is not a GPU trace and has no
// place in trace.Trace; metrics joins the two.
package torchlog

import (
	"strconv"
	"strings"
)

// An ID names one compile of one frame: Dynamo's frame id F and the
// frame's compile count R ("F/R", R > 0 a recompile). Autograd is the
// compiled-autograd id, -1 when none.
type ID struct {
	Autograd int
	Frame    int
	Compile  int
}

// String writes the id as the profiler's region names do, "F/R", with
// compiled autograd's "!A/" before it.
func (id ID) String() string {
	s := strconv.Itoa(id.Frame) + "/" + strconv.Itoa(id.Compile)
	if id.Autograd >= 0 {
		s = "!" + strconv.Itoa(id.Autograd) + "/" + s
	}
	return s
}

// A Log is what one structured compile log says, compile by compile.
type Log struct {
	Source string
	// Rank is the process's distributed rank as the envelopes say; -1
	// when they do not.
	Rank int
	// Compiles are the compiles with a frame id, by frame and then
	// compile id; their attempts (Dynamo's restarts after a graph break)
	// are merged.
	Compiles []Compile
	// Lines counts the structured-log records read.
	Lines int
	// Warnings are records that could not be read, by line, and left
	// out.
	Warnings []string
}

// Compile is one compile of a frame.
type Compile struct {
	ID ID
	// Code, File and Line are the compiled function (co_name,
	// co_filename, co_firstlineno); Dynamo names the code after a graph
	// break torch_dynamo_resume_in_FN_at_LINE.
	Code string
	File string
	Line int
	// CompileNS is the frame's compile time: the sum of its
	// compilation_metrics records' duration_us (or, in logs older than
	// that field, entire_frame_compile_time_s), parsed from their decimal
	// text. HasCompileTime says some record gave one.
	CompileNS      int64
	HasCompileTime bool
	// GraphBreaks is compilation_metrics' num_graph_breaks, -1 when the
	// log does not say; Breaks are the graph breaks Dynamo logged in this
	// compile (dynamo_graph_break_reason artifacts, else the metrics'
	// restart_reasons), in log order, repeats left out.
	GraphBreaks int
	Breaks      []Break
	// Recompile lists the guard failures that made Dynamo compile this
	// frame again (the recompile_reasons artifact, else the metrics'
	// recompile_reason), each "F/R: guard" naming the earlier compile
	// whose guard failed.
	Recompile []string
	// FailType and FailReason say why the compile failed, when it did.
	FailType, FailReason string
	// CudagraphSkip is Inductor's reason for not using CUDA graphs on
	// this compile (cudagraph_skip_reason), "" when it gave none.
	CudagraphSkip string
	// CudagraphifyNS is the time the log says cudagraph trees spent
	// recording this compile's graphs at run time
	// (runtime_cudagraphify_time_us), HasCudagraphify when it said.
	CudagraphifyNS  int64
	HasCudagraphify bool
	// Kernels is Inductor's provenance of the kernels it generated, by
	// kernel name (any ":N" debug handle removed), when the log has
	// inductor_provenance_tracking artifacts for this compile.
	Kernels map[string]*KernelSource
	// nodeSource is the user line of each post-grad FX node, from the
	// "# File:" comments of the post-grad graph the log holds.
	nodeSource map[string]SourceLine
}

// A Break is one graph break: why, and where in user code.
type Break struct {
	Reason string
	Where  string // "file.py:LINE" as Dynamo wrote it; "" when it did not
}

// KernelSource is where a generated kernel came from: Inductor's
// provenance artifacts (INDUCTOR_PROVENANCE=1) say it, and without them
// the comments Inductor writes above each kernel in its output code (the
// source and ATen nodes) and the post-grad graph's "# File:" comments
// (their lines), which every log holds unless the FX graph cache served
// the compile.
type KernelSource struct {
	// PostGrad are the post-grad FX nodes fused into the kernel, PreGrad
	// the pre-grad (user-level) nodes they came from, in the log's
	// order.
	PostGrad, PreGrad []string
	// Source are the user code lines the kernel's nodes came from, the
	// innermost frame of each stack trace the log gives, in its order,
	// repeats left out.
	Source []SourceLine
	// artifact says the nodes came from a provenance artifact, which
	// replaces what the output code's comments said.
	artifact bool
}

// fromArtifact clears the nodes the output code gave, the first time a
// provenance artifact names the kernel.
func (k *KernelSource) fromArtifact() {
	if !k.artifact {
		k.artifact = true
		k.PostGrad, k.PreGrad = nil, nil
	}
}

// SourceLine is a line of user code.
type SourceLine struct {
	File string
	Line int
	Func string
	Code string // the line's text, trimmed; "" when not given
}

// String writes "file:line in func".
func (s SourceLine) String() string {
	out := s.File + ":" + strconv.Itoa(s.Line)
	if s.Func != "" {
		out += " in " + s.Func
	}
	return out
}

// Find returns the compile with id "F/R" (as the profiler writes it), or
// nil.
func (l *Log) Find(frame, compile int) *Compile {
	for i := range l.Compiles {
		c := &l.Compiles[i]
		if c.ID.Autograd < 0 && c.ID.Frame == frame && c.ID.Compile == compile {
			return c
		}
	}
	return nil
}

// scrubPaths replaces each absolute path in a message by its base name:
// what Dynamo writes of a guard or a break names files by full path, and
// those name users' homes.
func scrubPaths(s string) string {
	if !strings.ContainsAny(s, `/\`) {
		return s
	}
	f := strings.Fields(s)
	changed := false
	for i, w := range f {
		core := strings.Trim(w, `'"(),:`)
		if len(core) > 1 && (core[0] == '/' || core[0] == '~' || len(core) > 2 && core[1] == ':' && core[2] == '\\') {
			f[i] = strings.Replace(w, core, baseName(core), 1)
			changed = true
		}
	}
	if !changed {
		return s
	}
	return strings.Join(f, " ")
}

// baseName drops the directories of a path, so that what is shown of a
// log names no user's home.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
