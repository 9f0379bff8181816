package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// An eventDecoder turns event objects into model records. Each worker of a
// parallel read has its own, so none of this state is shared.
type eventDecoder struct {
	path         string
	pythonStacks bool
	t            Trace             // only the record slices are used
	names        map[string]string // interned event names
	warn         counter
}

func newEventDecoder(in *input) *eventDecoder {
	return &eventDecoder{path: in.path, pythonStacks: in.opts.PythonStacks, names: map[string]string{}}
}

// eventClass is what traceql keeps of an event, by its category.
type eventClass uint8

const (
	clsSkip eventClass = iota
	clsKernel
	clsMemcpy
	clsMemset
	clsRuntime
	clsDriver
	clsCPUOp
	clsUserAnnotation
	clsGPUAnnotation
	clsSync
	clsPython // python_function, kept only with Options.PythonStacks
)

// classify maps a category, case-insensitively and in both eras' spellings,
// to what traceql keeps. Everything else (python_function, [memory],
// flows, metadata) is skipped.
func classify(cat string) eventClass {
	switch len(cat) {
	case 6:
		if strings.EqualFold(cat, "kernel") {
			return clsKernel
		}
		if strings.EqualFold(cat, "memcpy") {
			return clsMemcpy
		}
		if strings.EqualFold(cat, "memset") {
			return clsMemset
		}
		if strings.EqualFold(cat, "cpu_op") {
			return clsCPUOp
		}
	case 7:
		if strings.EqualFold(cat, "runtime") {
			return clsRuntime
		}
	case 8:
		if strings.EqualFold(cat, "operator") {
			return clsCPUOp
		}
	case 9:
		if strings.EqualFold(cat, "cuda_sync") {
			return clsSync
		}
	case 10:
		if strings.EqualFold(cat, "gpu_memcpy") {
			return clsMemcpy
		}
		if strings.EqualFold(cat, "gpu_memset") {
			return clsMemset
		}
	case 11:
		if strings.EqualFold(cat, "cuda_driver") {
			return clsDriver
		}
	case 12:
		if strings.EqualFold(cat, "cuda_runtime") {
			return clsRuntime
		}
	case 15:
		if strings.EqualFold(cat, "user_annotation") {
			return clsUserAnnotation
		}
		if strings.EqualFold(cat, "python_function") {
			return clsPython
		}
	case 19:
		if strings.EqualFold(cat, "gpu_user_annotation") {
			return clsGPUAnnotation
		}
	}
	return clsSkip
}

// rawEvent holds the members of one event that traceql reads.
type rawEvent struct {
	cls                     eventClass
	ph, name                string
	pid, tid, ts, dur, args gjson.Result
	hasTS, hasDur, hasArgs  bool
	catOK                   bool // "cat" was a JSON string
}

// str views b as a string without copying. The string aliases the scanner's
// buffer: anything kept past the current event must be copied (intern).
func str(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// event decodes one event object. Uninteresting events are dropped as soon
// as their category is seen, before the rest is looked at.
func (d *eventDecoder) event(b []byte, off int64, index int) error {
	e := d.fields(b)
	// Validate only what is kept, or what has no readable category: most
	// events (python_function) are dropped on their category, and the
	// scanner already checked their nesting.
	if (e.cls != clsSkip || !e.catOK) && !gjson.ValidBytes(b) {
		fixed, ok := repairJSON(b)
		if !ok || !gjson.ValidBytes(fixed) {
			return d.invalid(b, off, index)
		}
		d.warn.add("events with control characters or bare N/A, NaN or Infinity tokens read leniently (known Kineto bugs)")
		e = d.fields(fixed)
	}
	if e.cls == clsSkip {
		return nil
	}
	return d.keep(&e)
}

// fields reads the members of an event that traceql uses, stopping early
// when the category says the event is not kept.
func (d *eventDecoder) fields(b []byte) rawEvent {
	var e rawEvent
	gjson.Parse(str(b)).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "cat":
			e.catOK = v.Type == gjson.String
			e.cls = classify(v.Str)
			if e.cls == clsPython && !d.pythonStacks {
				e.cls = clsSkip
			}
			return e.cls != clsSkip
		case "ph":
			e.ph = v.Str
		case "name":
			e.name = v.Str
		case "pid":
			e.pid = v
		case "tid":
			e.tid = v
		case "ts":
			e.ts, e.hasTS = v, true
		case "dur":
			e.dur, e.hasDur = v, true
		case "args":
			e.args, e.hasArgs = v, true
		}
		return true
	})
	return e
}

// keep turns a kept event into a model record, or counts why it cannot.
func (d *eventDecoder) keep(e *rawEvent) error {
	if e.ph != "X" {
		d.warn.add(fmt.Sprintf("%s events with ph %q (not a complete event) skipped", e.catName(), e.ph))
		return nil
	}
	if !e.hasTS || !e.hasDur {
		d.warn.add(e.catName() + ` events without "ts" or "dur" skipped`)
		return nil
	}
	start, err := d.micros(e.ts)
	if err != nil {
		d.warn.add(fmt.Sprintf("%s events with a bad ts skipped (%v)", e.catName(), err))
		return nil
	}
	dur, err := d.micros(e.dur)
	if err != nil {
		d.warn.add(fmt.Sprintf("%s events with a bad dur skipped (%v)", e.catName(), err))
		return nil
	}
	if dur < 0 {
		d.warn.add(e.catName() + " events with negative dur skipped")
		return nil
	}
	end := start + dur
	if end < start {
		d.warn.add(e.catName() + " events whose end overflows int64 ns skipped")
		return nil
	}
	a := d.args(e)
	name := d.intern(e.name)
	t := &d.t
	switch e.cls {
	case clsKernel, clsMemcpy, clsMemset, clsSync:
		act := Activity{Start: start, End: end, Correlation: a.correlation}
		act.Device = int(a.device)
		if !a.hasDevice {
			id, ok := intOf(e.pid)
			if !ok {
				d.warn.add(e.catName() + " events without a numeric device skipped")
				return nil
			}
			act.Device = int(id)
		}
		act.Stream = a.stream
		if !a.hasStream {
			act.Stream = streamOf(e.tid)
		}
		switch e.cls {
		case clsKernel:
			t.Kernels = append(t.Kernels, Kernel{Activity: act, Name: name, ExternalID: a.external,
				Grid: a.grid, Block: a.block, Registers: a.registers, SharedMem: a.sharedMem,
				GraphID: a.graphID, GraphNode: a.graphNode})
		case clsMemcpy:
			kind, src, dst := parseMemcpyName(name)
			t.Memcpys = append(t.Memcpys, Memcpy{Activity: act, Kind: kind, Src: src, Dst: dst, Bytes: a.bytes})
		case clsMemset:
			t.Memsets = append(t.Memsets, Memset{Activity: act, Mem: parseMemsetName(name), Bytes: a.bytes})
		case clsSync:
			t.Syncs = append(t.Syncs, Sync{Activity: act, Kind: name})
		}
	case clsRuntime, clsDriver:
		pid, _ := intOf(e.pid)
		tid, _ := intOf(e.tid)
		kind := Runtime
		if e.cls == clsDriver {
			kind = Driver
		}
		t.APICalls = append(t.APICalls, APICall{Name: name, Kind: kind, PID: pid, TID: tid,
			Start: start, End: end, Correlation: a.correlation, ExternalID: a.external})
	case clsCPUOp, clsUserAnnotation, clsGPUAnnotation, clsPython:
		op := Op{Name: name, Start: start, End: end, ExternalID: a.external}
		op.PID, _ = intOf(e.pid)
		op.TID, _ = intOf(e.tid)
		switch e.cls {
		case clsCPUOp:
			op.Kind = CPUOp
		case clsUserAnnotation:
			op.Kind = UserAnnotation
		case clsPython:
			op.Kind = PythonFunction
		case clsGPUAnnotation:
			op.Kind = GPUAnnotation
			if a.hasDevice {
				op.PID = a.device
			}
			if a.hasStream {
				op.TID = a.stream
			} else {
				op.TID = streamOf(e.tid)
			}
		}
		t.Ops = append(t.Ops, op)
	}
	return nil
}

func (e *rawEvent) catName() string {
	return [...]string{"", "kernel", "memcpy", "memset", "runtime", "driver", "cpu_op", "user_annotation", "gpu_user_annotation", "cuda_sync", "python_function"}[e.cls]
}

// invalid reports a malformed event with the offset of the first bad byte,
// found by encoding/json (only on this error path).
func (d *eventDecoder) invalid(b []byte, off int64, index int) error {
	var v any
	err := json.Unmarshal(b, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off += se.Offset - 1
	}
	msg := fmt.Sprintf("event #%d: invalid JSON", index)
	if se != nil {
		msg += ": " + se.Error()
	}
	return &SyntaxError{File: d.path, Offset: off, Msg: msg}
}

// micros converts a ts or dur member to ns.
func (d *eventDecoder) micros(v gjson.Result) (int64, error) {
	switch v.Type {
	case gjson.Number:
		return MicrosToNanos(v.Raw)
	case gjson.String:
		return MicrosToNanos(strings.TrimSpace(v.Str))
	}
	return 0, errNotNumber
}

func (d *eventDecoder) intern(s string) string {
	if v, ok := d.names[s]; ok {
		return v
	}
	key := strings.Clone(s)
	v := key
	if !utf8.ValidString(v) {
		d.warn.add("names with invalid UTF-8 (shown with U+FFFD)")
		v = strings.ToValidUTF8(v, "\uFFFD")
	}
	d.names[key] = v
	return v
}

// repairJSON fixes the malformed JSON known Kineto versions wrote (as
// tb-profiler's lenient reading did): raw control characters inside
// strings are escaped, bare N/A tokens become "N/A", and NaN and
// Infinity become null. ok is false when there was nothing to fix.
func repairJSON(b []byte) (fixed []byte, ok bool) {
	out := make([]byte, 0, len(b)+16)
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			case c < 0x20:
				out = fmt.Appendf(out, `\u%04x`, c)
				ok = true
				continue
			}
			out = append(out, c)
			continue
		}
		if c == '"' {
			inStr = true
		}
		rest := b[i:]
		for _, tok := range []struct{ bad, good string }{{"N/A", `"N/A"`}, {"-Infinity", "null"}, {"Infinity", "null"}, {"NaN", "null"}} {
			if bytes.HasPrefix(rest, []byte(tok.bad)) {
				out = append(out, tok.good...)
				i += len(tok.bad) - 1
				ok = true
				c = 0
				break
			}
		}
		if c != 0 {
			out = append(out, c)
		}
	}
	return out, ok
}

// eventArgs are the members of "args" traceql reads.
type eventArgs struct {
	device, stream        int64
	hasDevice, hasStream  bool
	correlation, external int64
	bytes, sharedMem      int64
	registers             int32
	grid, block           [3]int32
	graphID, graphNode    int64
}

func (d *eventDecoder) args(e *rawEvent) eventArgs {
	var a eventArgs
	if !e.hasArgs || !e.args.IsObject() {
		return a
	}
	e.args.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "device":
			a.device, a.hasDevice = intOf(v)
		case "stream":
			a.stream, a.hasStream = intOf(v)
		case "correlation":
			a.correlation, _ = intOf(v)
		case "External id", "external id":
			a.external, _ = intOf(v)
		case "bytes":
			a.bytes, _ = intOf(v)
		case "registers per thread":
			r, _ := intOf(v)
			a.registers = int32(r)
		case "shared memory":
			a.sharedMem, _ = intOf(v)
		case "grid":
			a.grid = dim3(v)
		case "block":
			a.block = dim3(v)
		case "graph id":
			a.graphID, _ = intOf(v)
		case "graph node id":
			a.graphNode, _ = intOf(v)
		}
		return true
	})
	return a
}

// intOf reads an integer that may be written as a number or a numeric
// string ("25738"), as pids and tids are in some traces.
func intOf(v gjson.Result) (int64, bool) {
	switch v.Type {
	case gjson.Number:
		if n, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
			return n, true
		}
		return v.Int(), true
	case gjson.String:
		n, err := strconv.ParseInt(strings.TrimSpace(v.Str), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// streamOf reads a stream id from a tid: 7, "7", or the 2021 form "stream 7".
func streamOf(v gjson.Result) int64 {
	if n, ok := intOf(v); ok {
		return n
	}
	if v.Type == gjson.String {
		s := strings.TrimSpace(v.Str)
		if rest, ok := strings.CutPrefix(s, "stream "); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64); err == nil {
				return n
			}
		}
	}
	return 0
}

func dim3(v gjson.Result) [3]int32 {
	var d [3]int32
	i := 0
	v.ForEach(func(_, x gjson.Result) bool {
		if i < 3 {
			d[i] = int32(x.Int())
		}
		i++
		return i < 3
	})
	return d
}

// parseMemcpyName reads "Memcpy HtoD (Pageable -> Device)".
func parseMemcpyName(name string) (CopyKind, MemKind, MemKind) {
	rest, ok := strings.CutPrefix(name, "Memcpy ")
	if !ok {
		return CopyUnknown, MemUnknown, MemUnknown
	}
	tok, paren, _ := strings.Cut(rest, " ")
	kind := ParseCopyKind(tok)
	src, dst := MemUnknown, MemUnknown
	if p, ok := strings.CutPrefix(paren, "("); ok {
		p = strings.TrimSuffix(p, ")")
		if s, t, ok := strings.Cut(p, " -> "); ok {
			src, dst = ParseMemKind(s), ParseMemKind(t)
		}
	}
	return kind, src, dst
}

// parseMemsetName reads "Memset (Device)".
func parseMemsetName(name string) MemKind {
	_, p, ok := strings.Cut(name, "(")
	if !ok {
		return MemUnknown
	}
	return ParseMemKind(strings.TrimSuffix(p, ")"))
}
