package synth

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// A LogCompile is one compile of a frame as WriteTorchLog writes it in a
// structured compile log (TORCH_TRACE), with what the log says of it.
type LogCompile struct {
	Frame, Compile int
	Code, File     string
	Line           int
	// CompileUS is the compile time, written as compilation_metrics'
	// duration_us; CompileS, when not "", is written instead as the
	// older entire_frame_compile_time_s, decimal text as given.
	CompileUS int64
	CompileS  string
	// RuntimeUS, when > 0, adds a run-time compilation_metrics record
	// (is_runtime) of that duration, which is not compile time.
	RuntimeUS int64
	// Breaks are "WHERE|REASON" graph breaks, each written as a
	// dynamo_graph_break_reason artifact; NumBreaks, when >= 0, as the
	// metrics' num_graph_breaks.
	Breaks    []string
	NumBreaks int
	// Recompile are the guard failures, a recompile_reasons artifact.
	Recompile     []string
	CudagraphSkip string
	// Kernels, when any, are written as provenance artifacts (node
	// mappings and kernel stack traces) under each name with a ":N"
	// debug handle.
	Kernels map[string]LogKernel
}

// LogKernel is a generated kernel's provenance.
type LogKernel struct {
	Post []string // post-grad nodes
	Pre  []string // the pre-grad node of each post-grad node, index for index
	// Stack is the user frame of the kernel: "file.py|LINE|FUNC|CODE".
	Stack []string
}

// WriteTorchLog writes a structured compile log holding compiles, with
// glog prefixes, tab-indented payloads and an unrelated log line or two
// between records, as torch writes them.
func WriteTorchLog(w io.Writer, compiles []LogCompile) error {
	var b strings.Builder
	line := 0
	rec := func(env map[string]any, payload string) {
		line++
		js, err := json.Marshal(env)
		if err != nil {
			panic(err) // maps of strings and numbers always marshal
		}
		fmt.Fprintf(&b, "V1127 16:00:%02d.%06d 4242 torch/_logging/structured.py:%d] %s\n", line%60, line, line, js)
		if payload != "" {
			for _, l := range strings.Split(payload, "\n") {
				b.WriteString("\t" + l + "\n")
			}
		}
	}
	id := func(c LogCompile, env map[string]any) map[string]any {
		env["frame_id"], env["frame_compile_id"], env["attempt"] = c.Frame, c.Compile, 0
		return env
	}
	mustJSON := func(v any) string {
		js, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		return string(js)
	}
	rec(map[string]any{"str": []any{"/home/someone/model.py", 0}}, "")
	for _, c := range compiles {
		rec(id(c, map[string]any{"dynamo_start": map[string]any{"stack": []any{}}}), "")
		b.WriteString("I1127 16:00:00.000000 4242 torch/_dynamo/eval_frame.py:1] an unstructured line\n")
		if len(c.Recompile) > 0 {
			rec(id(c, map[string]any{"artifact": map[string]any{"name": "recompile_reasons", "encoding": "json"}, "has_payload": "x"}),
				mustJSON(c.Recompile))
		}
		for _, br := range c.Breaks {
			where, reason, _ := strings.Cut(br, "|")
			rec(id(c, map[string]any{"artifact": map[string]any{"name": "dynamo_graph_break_reason", "encoding": "string"}, "has_payload": "x"}),
				"Graph break in user code at /home/someone/"+where+"\nGraph Break Reason: "+reason+"\n  Explanation: made up\nUser code traceback:\n  File \"/home/someone/"+strings.Split(where, ":")[0]+"\", line 1, in f")
		}
		if len(c.Kernels) > 0 {
			codeToPost, postToPre, stacks := map[string][]string{}, map[string][]string{}, map[string][]string{}
			names := slices.Sorted(maps.Keys(c.Kernels))
			for n, name := range names {
				k := c.Kernels[name]
				h := fmt.Sprintf("%s:%d", name, n+1)
				codeToPost[h] = k.Post
				for i, p := range k.Post {
					if i < len(k.Pre) {
						postToPre[p] = []string{k.Pre[i]}
					}
				}
				for _, s := range k.Stack {
					f := strings.SplitN(s, "|", 4)
					stacks[h] = append(stacks[h], fmt.Sprintf("  File \"/home/someone/%s\", line %s, in %s\n    %s\n", f[0], f[1], f[2], f[3]))
				}
			}
			rec(id(c, map[string]any{"artifact": map[string]any{"name": "inductor_provenance_tracking_node_mappings", "encoding": "json"}, "has_payload": "x"}),
				mustJSON(map[string]any{"preToPost": map[string]any{}, "postToPre": postToPre, "cppCodeToPost": codeToPost, "postToCppCode": map[string]any{}}))
			rec(id(c, map[string]any{"artifact": map[string]any{"name": "inductor_provenance_tracking_kernel_stack_traces", "encoding": "json"}, "has_payload": "x"}),
				mustJSON(stacks))
		}
		m := map[string]any{"co_name": c.Code, "co_filename": "/home/someone/" + c.File, "co_firstlineno": c.Line,
			"is_runtime": false, "cudagraph_skip_reason": nil, "num_graph_breaks": nil}
		if c.CompileS != "" {
			m["entire_frame_compile_time_s"] = json.RawMessage(c.CompileS)
		} else {
			m["duration_us"] = c.CompileUS
		}
		if c.NumBreaks >= 0 {
			m["num_graph_breaks"] = c.NumBreaks
		}
		if c.CudagraphSkip != "" {
			m["cudagraph_skip_reason"] = c.CudagraphSkip
		}
		rec(id(c, map[string]any{"compilation_metrics": m}), "")
		if c.RuntimeUS > 0 {
			rec(id(c, map[string]any{"compilation_metrics": map[string]any{"is_runtime": true, "duration_us": c.RuntimeUS,
				"runtime_cudagraphify_time_us": c.RuntimeUS}}), "")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
