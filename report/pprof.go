package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/klauspost/compress/gzip"

	"github.com/traceql/traceql/metrics"
)

// WritePprof writes GPU time by host stack as a gzipped pprof profile with
// two sample values, gpu_time (ns) and kernels (count). `go tool pprof -top`
// and `-http` then show where GPU time comes from in the user's code.
// Python frames written as "file.py(12): func" become function func in
// file.py at line 12. A sample's step is its string label "step", so
// `-tagfocus 'step=ProfilerStep#7$'` picks a step while the flame graph
// merges them. Each function's SystemName is its full name and Name what
// pprof shows (see displayNames).
func WritePprof(w io.Writer, samples []metrics.StackSample) error {
	p := &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "gpu_time", Unit: "nanoseconds"}, {Type: "kernels", Unit: "count"}},
		PeriodType:        &profile.ValueType{Type: "gpu_time", Unit: "nanoseconds"},
		Period:            1,
		DefaultSampleType: "gpu_time",
	}
	// A sample's leaf frame is its kernel, and most kernels' stacks are
	// alike: about one new location a sample at most. The records are
	// allocated in one slice each, not one by one: a million kernel names
	// made millions of small objects for the collector to scan.
	type fnKey struct{ name, file string }
	funcs := make(map[fnKey]*profile.Function, len(samples))
	locs := make(map[string]*profile.Location, len(samples))
	var fnSlab []profile.Function
	var locSlab []profile.Location
	loc := func(frame string) *profile.Location {
		if l, ok := locs[frame]; ok {
			return l
		}
		// A name with a newline would break the lines of pprof -top.
		name, file, line := parseFrame(blankControls(frame))
		f := funcs[fnKey{name, file}]
		if f == nil {
			fnSlab = grown(fnSlab, len(samples))
			fnSlab = append(fnSlab, profile.Function{ID: uint64(len(p.Function) + 1), SystemName: name, Filename: file})
			f = &fnSlab[len(fnSlab)-1]
			funcs[fnKey{name, file}] = f
			p.Function = append(p.Function, f)
		}
		locSlab = grown(locSlab, len(samples))
		locSlab = append(locSlab, profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f, Line: line}}})
		l := &locSlab[len(locSlab)-1]
		locs[frame] = l
		p.Location = append(p.Location, l)
		return l
	}
	frames := 0
	for _, s := range samples {
		frames += len(s.Stack)
	}
	ss := make([]profile.Sample, len(samples))
	values := make([]int64, 2*len(samples))
	stacks := make([]*profile.Location, frames)
	p.Sample = make([]*profile.Sample, len(samples))
	for i, s := range samples {
		ls := stacks[:len(s.Stack):len(s.Stack)]
		stacks = stacks[len(s.Stack):]
		for j, frame := range s.Stack {
			ls[len(s.Stack)-1-j] = loc(frame) // pprof wants the leaf first
		}
		v := values[2*i : 2*i+2 : 2*i+2]
		v[0], v[1] = s.GPUNS, int64(s.Kernels)
		ss[i] = profile.Sample{Location: ls, Value: v}
		if s.Step != "" {
			ss[i].Label = map[string][]string{"step": {s.Step}}
		}
		p.Sample[i] = &ss[i]
	}
	displayNames(p.Function)
	if err := p.CheckValid(); err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	// Gzipped as profile.Write does, by klauspost/compress: the standard
	// library's deflate took most of the time of writing a large profile.
	zw := gzip.NewWriter(w)
	if err := p.WriteUncompressed(zw); err != nil {
		return err
	}
	return zw.Close()
}

// parseFrame splits a Kineto python_function name "path/file.py(123): func"
// into function, file and line; other names are functions without a file.
func parseFrame(s string) (name, file string, line int64) {
	head, fn, ok := strings.Cut(s, "): ")
	i := strings.LastIndexByte(head, '(')
	if !ok || i < 0 {
		return bracketed(s), "", 0
	}
	n, err := strconv.ParseInt(head[i+1:], 10, 64)
	if err != nil {
		return bracketed(s), "", 0
	}
	return bracketed(fn), head[:i], n
}

// bracketed writes a Python name in angle brackets, "<module>", "<lambda>"
// or "<built-in method argmax of Tensor object at 0x7f…>", in square ones
// without the object's address: pprof strips C++ template arguments "<…>"
// for display, which would leave them nameless, and the address would make
// one builtin a function per object.
func bracketed(s string) string {
	if len(s) < 2 || s[0] != '<' || s[len(s)-1] != '>' {
		return s
	}
	inner := s[1 : len(s)-1]
	if i := strings.LastIndex(inner, " at 0x"); i >= 0 {
		inner = inner[:i]
	}
	return "[" + inner + "]"
}

// grown returns xs, or a new slice of capacity n when xs is full: records
// pointed into stay where they are.
func grown[T any](xs []T, n int) []T {
	if len(xs) < cap(xs) {
		return xs
	}
	return make([]T, 0, max(n, 64))
}
