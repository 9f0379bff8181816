package trace

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/traceql/traceql/trace/internal/blocks"
	"github.com/traceql/traceql/trace/internal/jsonlex"
)

// An eventDecoder turns event objects into model records. Each worker of a
// parallel read has its own, so none of this state is shared.
type eventDecoder struct {
	stacks     bool                  // keep python_function events (Needs.Stacks)
	dropOps    bool                  // drop cpu_ops but steps, torch.compile's and keepOp
	dropPolls  bool                  // drop runtime and driver calls that poll
	dropHost   bool                  // dropOps || dropPolls
	keepOp     string                // Needs.Op
	shapes     bool                  // keep cpu_ops' shapes (Needs.Shapes)
	shapesOf   map[string]bool       // Needs.ShapesOf
	sh         shapeArgs             // the current event's shape arguments, when shapes
	shapesSeen map[string]seenShapes // parsed argument sets by their raw text (opArgs)
	shapeKey   []byte                // opArgs' key, reused
	names      map[string]string     // interned event names
	lx         jsonlex.Lexer
	eventMemo  jsonlex.MemberMemo
	argsMemo   [clsPython + 1]jsonlex.MemberMemo // by class: args differ by class
	drops      *jsonlex.DropMemo[dropTag]        // how dropped events began; nil: none (a test's reference)
	parts      *sync.Pool                        // emptied parts (Workers.parts)
	launchArgs bool                              // keep Trace.LaunchArgs (Needs.LaunchArgs)
}

func newEventDecoder(in *input) *eventDecoder {
	n, lean := in.opts.needs()
	d := &eventDecoder{stacks: n.Stacks, dropOps: lean && !n.Ops && !n.Stacks && !n.Shapes, dropPolls: lean && !n.Polls, keepOp: n.Op,
		shapes: n.Shapes, shapesOf: n.ShapesOf, launchArgs: n.LaunchArgs,
		names: map[string]string{}, drops: &jsonlex.DropMemo[dropTag]{}, parts: &in.workers.parts}
	d.dropHost = d.dropOps || d.dropPolls
	if d.shapes {
		d.shapesSeen = map[string]seenShapes{}
	}
	return d
}

// A part holds the records decoded from a run of consecutive events.
type part struct {
	t    Trace // only the record slices are used
	warn warningCounts
	n    int         // events read
	size int         // bytes read
	end  int64       // file offset after them
	err  *eventError // the error that stopped the run
	// leanSkipped counts the events skipped for the read's needs.
	leanSkipped int
	pool        *sync.Pool // where recycle puts it
}

// Parts are recycled once the stitcher has copied their records into the
// trace, so that decoding a block does not allocate (and zero, and fault
// in) fresh slices for its records; reads that share Workers share them.
func newPart(pool *sync.Pool) *part {
	if p, ok := pool.Get().(*part); ok {
		return p
	}
	return &part{pool: pool}
}

// recycle empties p, whose records were copied, for reuse by newPart.
func (p *part) recycle() {
	for _, tab := range recordTables {
		tab.empty(&p.t)
	}
	*p = part{t: p.t, pool: p.pool}
	p.pool.Put(p)
}

// An eventError is malformed input in the events array. Its message
// numbers the event in the whole file, which a part learns only when the
// parts before it are known.
type eventError struct {
	off   int64
	index int // event number within the part
	msg   func(index int) string
}

// Failed reports whether malformed input stopped the part.
func (p *part) Failed() bool { return p.err != nil }

// fail records the error that stops the part, about its event i.
func (p *part) fail(off int64, i int, msg func(int) string) {
	p.err = &eventError{off: off, index: i, msg: msg}
}

// Decode decodes the elements of the events array in b, starting in state
// st, into a new part; base is the file offset of b[0]. It stops at the
// closing ']', at the first error, or at the end of b; an event that b
// cuts short is left unread, so that stop is where reading resumes when
// more bytes are at hand.
func (d *eventDecoder) Decode(b []byte, base int64, st blocks.State) (stop int, _ blocks.State, p *part) {
	p = newPart(d.parts)
	defer func() { p.size, p.end = stop, base+int64(stop) }()
	i := 0
	for {
		if i = jsonlex.SkipSpace(b, i); i >= len(b) {
			return i, st, p
		}
		c := b[i]
		if st == blocks.After {
			switch c {
			case ',':
				st = blocks.Elem
				i++
			case ']':
				return i + 1, blocks.End, p
			default:
				p.fail(base+int64(i), p.n-1, func(n int) string {
					return fmt.Sprintf("expected ',' or ']' after event #%d, found %q", n, c)
				})
				return i, st, p
			}
			continue
		}
		if c == ']' && st == blocks.First {
			return i + 1, blocks.End, p
		}
		if c != '{' {
			p.fail(base+int64(i), p.n, func(n int) string { return fmt.Sprintf("event #%d is not a JSON object", n) })
			return i, st, p
		}
		end, err := d.event(b, i, p)
		if err == jsonlex.ErrMore {
			return i, st, p
		}
		if err != nil {
			at := i
			if je, ok := err.(*jsonlex.Error); ok {
				at = je.At
			}
			p.fail(base+int64(at), p.n, func(n int) string { return fmt.Sprintf("event #%d: invalid JSON: %v", n, err) })
			return i, st, p
		}
		p.n++
		i, st = end, blocks.After
	}
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
	clsPython // python_function, kept only with Needs.Stacks
)

// categories are the Kineto categories traceql keeps, in both eras'
// spellings (matched case-insensitively). Everything else ([memory],
// flows, metadata) is skipped.
var categories = []struct {
	name string
	cls  eventClass
}{
	// Most frequent first.
	{"python_function", clsPython}, {"cpu_op", clsCPUOp}, {"kernel", clsKernel}, {"cuda_runtime", clsRuntime},
	{"cuda_driver", clsDriver}, {"gpu_memcpy", clsMemcpy}, {"gpu_memset", clsMemset}, {"user_annotation", clsUserAnnotation},
	{"gpu_user_annotation", clsGPUAnnotation}, {"cuda_sync", clsSync},
	// The 2021 spellings.
	{"memcpy", clsMemcpy}, {"memset", clsMemset}, {"runtime", clsRuntime}, {"operator", clsCPUOp},
}

// classOf is the class of an event whose "cat" is v: clsSkip for a
// category not kept, or not a string, and for python_function unless the
// read needs stacks.
func (d *eventDecoder) classOf(v jsonlex.Value) eventClass {
	if v.Kind != 's' {
		return clsSkip
	}
	cat := v.Text()
	for _, c := range categories {
		if len(c.name) == len(cat) && strings.EqualFold(c.name, cat) {
			if c.cls == clsPython && !d.stacks {
				return clsSkip
			}
			return c.cls
		}
	}
	return clsSkip
}

// rawEvent holds the members of one event that traceql reads.
type rawEvent struct {
	cls               eventClass
	catOK             bool // "cat" was a JSON string
	ph, name          jsonlex.Value
	pid, tid, ts, dur jsonlex.Value
	hasTS, hasDur     bool
	args              eventArgs
	argsLater         []byte // "args" seen before "cat": read once the event is kept
}

// event decodes the event object at b[i]. It is dropped as soon as its
// category says so (or its phase, or for the read's needs its name), or
// as soon as it begins as an event dropped before did (dropMemo), and
// the rest of it is only skipped; what is kept, or has no readable
// category, is checked as JSON in full.
func (d *eventDecoder) event(b []byte, i int, p *part) (int, error) {
	// An event that begins as one dropped before is skipped here, not in a
	// method of its own: the memo's hits are the commonest events of a real
	// trace (flows), and a call more for each shows in BenchmarkEventDecoder.
	if n, tag, ok := d.drops.Match(b[i:]); ok {
		if j := i + n; !tag.byName || d.leanName(b, &j) {
			end, err := jsonlex.SkipNested(b, j, 1)
			if err == nil && tag.lean {
				p.leanSkipped++
			}
			return end, err
		}
	}
	// r is set field by field: from a composite literal the compiler
	// built the whole struct aside and then copied it, on every event.
	var r eventRead
	r.d, r.b, r.start, r.decided = d, b, i, -1
	if d.shapes {
		d.sh = shapeArgs{}
	}
	lx, e := &d.lx, &r.e
	lx.Lenient = false
	// The members are read here, in a closure: the common paths inline,
	// what follows a decision to drop in eventRead's methods. A method
	// value as the callback, or a method per member, adds calls to every
	// event.
	end, err := lx.Members(b, i, &d.eventMemo, func(key string, i int) (int, error) {
		switch key {
		case "cat":
			var v jsonlex.Value
			i, err := lx.Value(b, i, &v)
			r.seenCat, e.catOK, e.cls = true, v.Kind == 's', d.classOf(v)
			if d.dropHost && e.name.Kind != 0 {
				r.leaned = d.lean(e)
			}
			if err == nil && e.cls == clsSkip && e.catOK {
				return r.dropAt(i)
			}
			return i, err
		case "ph":
			i, err := lx.Value(b, i, &e.ph)
			if err == nil && e.ph.Kind == 's' && isFlowPhase(e.ph.Raw) {
				return r.dropAt(i)
			}
			return i, err
		case "name":
			cls, at := e.cls, i
			i, err := lx.Value(b, i, &e.name)
			if err == nil && d.dropHost && r.seenCat && d.lean(e) {
				return r.dropByName(cls, at, i)
			}
			return i, err
		case "pid":
			return lx.Value(b, i, &e.pid)
		case "tid":
			return lx.Value(b, i, &e.tid)
		case "ts":
			e.hasTS = true
			return lx.Value(b, i, &e.ts)
		case "dur":
			e.hasDur = true
			return lx.Value(b, i, &e.dur)
		case "args":
			if b[i] == '{' && r.seenCat {
				return d.args(b, i, e.cls, &e.args)
			}
			return r.argsLater(i)
		}
		return lx.Value(b, i, nil)
	})
	if err == jsonlex.ErrDropped {
		r.dropped(p)
		return end, nil
	}
	if err != nil {
		return end, err
	}
	if lx.Lenient && (e.cls != clsSkip || !e.catOK) {
		p.warn.add("events with control characters or bare N/A, NaN or Infinity tokens read leniently (known Kineto bugs)")
	}
	if e.cls == clsSkip {
		return end, nil
	}
	if e.argsLater != nil {
		d.args(e.argsLater, 0, e.cls, &e.args) // checked already
	}
	d.keep(e, p)
	return end, nil
}

// An eventRead is the reading of one event object's members; its
// methods finish the reading of those that decide a drop.
type eventRead struct {
	d       *eventDecoder
	b       []byte
	e       rawEvent
	start   int  // where the event begins
	decided int  // where the prefix that decided a drop ends, or -1
	byName  bool // the prefix is a cpu_op's up to its name
	leaned  bool // the drop is for the read's needs
	seenCat bool
}

// dropped counts an event that was dropped while its members were read,
// and teaches the memo how it began.
func (r *eventRead) dropped(p *part) {
	if r.leaned {
		p.leanSkipped++
	}
	if r.decided > r.start {
		r.d.drops.Learn(r.b[r.start:r.decided], dropTag{lean: r.leaned, byName: r.byName})
	}
}

// dropAt drops the event whose member that decided it ends at b[i]: a cat
// whose events are not kept, or the ph of a flow. Flow events link other
// events and are never kept; Kineto writes ph first and cat last in them,
// a third of a real trace's events, which would otherwise be read in full.
func (r *eventRead) dropAt(i int) (int, error) {
	r.decided = i
	return drop(r.b, i)
}

// dropByName drops an event that the read's needs leave out, judged by
// its name, which starts at b[at] and ends at b[i]; cls is the event's
// class before the name was read (Kineto writes cat before name).
func (r *eventRead) dropByName(cls eventClass, at, i int) (int, error) {
	r.leaned = true
	switch {
	case cls == clsCPUOp:
		// cpu_ops have names of many kinds: the prefix ends before the
		// name, which leanName judges.
		r.decided, r.byName = at, true
	case r.e.name.Kind == 's':
		r.decided = i
	}
	return drop(r.b, i)
}

// argsLater reads an "args" member that is no object, or that comes
// before "cat": its text is kept to be read once the event is.
func (r *eventRead) argsLater(i int) (int, error) {
	lx, b := &r.d.lx, r.b
	if b[i] != '{' {
		return lx.Value(b, i, nil)
	}
	start := i
	i, err := lx.SkipValue(b, i)
	r.e.argsLater = b[start:i]
	return i, err
}

// lean skips e, whose category and name are read, if the read's needs
// leave it out: a runtime or driver call that polls, or a cpu_op other
// than a profiler step, one of torch.compile's, one the findings read
// (isFindingOp) or one named Needs.Op. It
// reports whether it did.
func (d *eventDecoder) lean(e *rawEvent) bool {
	named := e.name.Kind == 's'
	switch e.cls {
	case clsCPUOp:
		if !d.dropOps {
			return false
		}
		if named {
			if name := e.name.Text(); strings.HasPrefix(name, StepPrefix) || d.keepOp != "" && name == d.keepOp || isCompileOp(name) || isFindingOp(name) {
				return false
			}
		}
	case clsRuntime, clsDriver:
		if !d.dropPolls || !named || !isPoll(e.name.Text()) {
			return false
		}
	default:
		return false
	}
	e.cls = clsSkip
	return true
}

// leanName reports whether the read's needs drop the cpu_op whose name's
// string starts at b[*j], and if so moves *j past it. A name with escapes
// or control characters is left to the full read.
func (d *eventDecoder) leanName(b []byte, j *int) bool {
	if *j >= len(b) || b[*j] != '"' {
		return false
	}
	end, esc, ctl, err := jsonlex.ScanString(b, *j)
	if err != nil || esc || ctl {
		return false
	}
	e := rawEvent{cls: clsCPUOp, name: jsonlex.Value{Kind: 's', Raw: b[*j+1 : end-1]}}
	if !d.lean(&e) {
		return false
	}
	*j = end
	return true
}

// isPoll reports whether an API call asks whether work is done, which
// returns at once: it neither launches nor waits for device work.
func isPoll(name string) bool {
	switch name {
	case "cudaEventQuery", "cudaStreamQuery", "cuEventQuery", "cuStreamQuery", "hipEventQuery", "hipStreamQuery":
		return true
	}
	return false
}

// drop skips the rest of an event that is not kept, from b[i], after a
// member's value; the error is jsonlex.ErrDropped unless the rest is malformed.
func drop(b []byte, i int) (int, error) {
	i, err := jsonlex.SkipNested(b, i, 1)
	if err == nil {
		err = jsonlex.ErrDropped
	}
	return i, err
}

// isFlowPhase reports whether ph is that of a flow event: s, t or f.
func isFlowPhase(ph []byte) bool {
	return len(ph) == 1 && (ph[0] == 's' || ph[0] == 't' || ph[0] == 'f')
}

// keep turns a kept event into a model record, or counts why it cannot.
func (d *eventDecoder) keep(e *rawEvent, p *part) {
	start, end, ok := e.span(p)
	if !ok {
		return
	}
	name := d.intern(e.name.Text(), p)
	switch e.cls {
	case clsKernel, clsMemcpy, clsMemset, clsSync:
		e.keepActivity(name, start, end, p)
	case clsRuntime, clsDriver:
		e.keepAPICall(d, name, start, end, p)
	case clsCPUOp, clsUserAnnotation, clsGPUAnnotation, clsPython:
		e.keepOp(name, start, end, p)
		if d.shapes && e.cls == clsCPUOp && d.sh.wanted(name, d.shapesOf) {
			p.t.Ops[len(p.t.Ops)-1].Args = d.opArgs(p)
		}
	}
}

// span reads e's start and end, or counts why it has none: only complete
// events (ph X) with a ts and dur that are decimal µs within ±MaxTime.
func (e *rawEvent) span(p *part) (start, end int64, ok bool) {
	if ph := e.ph.Text(); e.ph.Kind != 's' || ph != "X" {
		p.warn.add(fmt.Sprintf("%s events with ph %q (not a complete event) skipped", e.catName(), ph))
		return 0, 0, false
	}
	if !e.hasTS || !e.hasDur {
		p.warn.add(e.catName() + ` events without "ts" or "dur" skipped`)
		return 0, 0, false
	}
	start, err := micros(e.ts)
	if err != nil {
		p.warn.add(fmt.Sprintf("%s events with a bad ts skipped (%v)", e.catName(), err))
		return 0, 0, false
	}
	dur, err := micros(e.dur)
	if err != nil {
		p.warn.add(fmt.Sprintf("%s events with a bad dur skipped (%v)", e.catName(), err))
		return 0, 0, false
	}
	if dur < 0 {
		p.warn.add(e.catName() + " events with negative dur skipped")
		return 0, 0, false
	}
	if start < -MaxTime || start > MaxTime || dur > MaxTime-start {
		p.warn.add(e.catName() + " events beyond ±2^62 ns (146 years) of zero skipped")
		return 0, 0, false
	}
	return start, start + dur, true
}

// keepActivity adds a kernel, copy, memset or sync record. Its device and
// stream come from args, or else from pid and tid as Kineto lays them out.
func (e *rawEvent) keepActivity(name string, start, end int64, p *part) {
	a, t := &e.args, &p.t
	act := Activity{Start: start, End: end, Correlation: a.correlation, Device: int(a.device), Stream: a.stream}
	if !a.hasDevice {
		id, ok := jsonlex.IntOf(e.pid)
		if !ok {
			p.warn.add(e.catName() + " events without a numeric device skipped")
			return
		}
		act.Device = int(id)
	}
	if !a.hasStream {
		act.Stream = streamOf(e.tid)
	}
	switch e.cls {
	case clsKernel:
		t.Kernels = append(t.Kernels, Kernel{Activity: act, Name: name, ExternalID: a.external,
			Grid: a.grid, Block: a.block, Registers: a.registers, OccupancyPct: a.occupancy, HasOccupancy: a.hasOccupancy, SharedMem: a.sharedMem,
			GraphID: a.graphID, GraphNode: a.graphNode})
	case clsMemcpy:
		kind, src, dst := parseMemcpyName(name)
		t.Memcpys = append(t.Memcpys, Memcpy{Activity: act, Kind: kind, Src: src, Dst: dst, Bytes: a.bytes})
	case clsMemset:
		t.Memsets = append(t.Memsets, Memset{Activity: act, Mem: parseMemsetName(name), Bytes: a.bytes})
	case clsSync:
		var ws, wr int64 // Kineto writes -1 for what it does not know
		if a.hasWait && a.waitRecord > 0 {
			ws, wr = a.waitStream, a.waitRecord
		}
		t.Syncs = append(t.Syncs, Sync{Activity: act, Kind: name, WaitStream: ws, WaitRecord: wr})
	}
}

// keepAPICall adds a runtime or driver call record.
func (e *rawEvent) keepAPICall(d *eventDecoder, name string, start, end int64, p *part) {
	pid, _ := jsonlex.IntOf(e.pid)
	tid, _ := jsonlex.IntOf(e.tid)
	kind := Runtime
	if e.cls == clsDriver {
		kind = Driver
	}
	p.t.APICalls = append(p.t.APICalls, APICall{Name: name, Kind: kind, PID: pid, TID: tid,
		Start: start, End: end, Correlation: e.args.correlation, ExternalID: e.args.external})
	if d.launchArgs && (e.args.kernel.Kind == 's' || e.args.graphNode != 0) {
		la := LaunchArg{PID: pid, Correlation: e.args.correlation, GraphNode: e.args.graphNode}
		if e.args.kernel.Kind == 's' {
			la.Kernel = d.intern(e.args.kernel.Text(), p)
		}
		p.t.LaunchArgs = append(p.t.LaunchArgs, la)
	}
}

// keepOp adds a host op record: a cpu_op, an annotation or a Python
// function. A GPU annotation lies on a device and stream, not a thread.
func (e *rawEvent) keepOp(name string, start, end int64, p *part) {
	a := &e.args
	op := Op{Name: name, Start: start, End: end, ExternalID: a.external}
	op.PID, _ = jsonlex.IntOf(e.pid)
	op.TID, _ = jsonlex.IntOf(e.tid)
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
		op.TID = a.stream
		if !a.hasStream {
			op.TID = streamOf(e.tid)
		}
	}
	p.t.Ops = append(p.t.Ops, op)
}

func (e *rawEvent) catName() string {
	return [...]string{"", "kernel", "memcpy", "memset", "runtime", "driver", "cpu_op", "user_annotation", "gpu_user_annotation", "cuda_sync", "python_function"}[e.cls]
}

// micros converts a ts or dur member to ns.
func micros(v jsonlex.Value) (int64, error) {
	switch v.Kind {
	case 'n':
		return jsonlex.MicrosToNanos(jsonlex.Str(v.Raw))
	case 's':
		return jsonlex.MicrosToNanos(strings.TrimSpace(v.Text()))
	}
	return 0, jsonlex.ErrNotNumber
}

// intern returns a copy of s that outlives the input, one per name, with
// invalid UTF-8 replaced.
func (d *eventDecoder) intern(s string, p *part) string {
	v, ok := d.internValid(s)
	if !ok {
		p.warn.add(badUTF8Names)
	}
	return v
}

const badUTF8Names = "events with invalid UTF-8 in their names (shown with U+FFFD)"

// internValid is intern without the warning: ok is false when s had
// invalid UTF-8.
func (d *eventDecoder) internValid(s string) (v string, ok bool) {
	v, ok = d.names[s]
	if !ok {
		v = d.newName(s)
	}
	return v, v == s
}

func (d *eventDecoder) newName(s string) string {
	key := strings.Clone(s)
	v := key
	if !utf8.ValidString(v) {
		v = strings.ToValidUTF8(v, "\uFFFD")
	}
	d.names[key] = v
	return v
}

// eventArgs are the members of "args" traceql reads.
type eventArgs struct {
	device, stream        int64
	hasDevice, hasStream  bool
	correlation, external int64
	bytes, sharedMem      int64
	registers             int32
	occupancy             uint8
	hasOccupancy          bool
	grid, block           [3]int32
	graphID, graphNode    int64
	// waitStream and waitRecord are a cuda_sync's event (Sync); 0 when absent.
	waitStream, waitRecord int64
	hasWait                bool
	// kernel is a launch call's "kernel" (ROCm names the kernel there);
	// it aliases the input, read while the event is kept.
	kernel jsonlex.Value
}

// args reads the "args" object at b[i].
func (d *eventDecoder) args(b []byte, i int, cls eventClass, a *eventArgs) (int, error) {
	return d.lx.Members(b, i, &d.argsMemo[cls], func(key string, i int) (int, error) {
		var err error
		var v jsonlex.Value
		switch key {
		case "grid":
			a.grid, i, err = d.dim3(b, i)
		case "block":
			a.block, i, err = d.dim3(b, i)
		case "Input Dims", "Input dims", "Input type", "Concrete Inputs":
			start := i
			i, err = d.lx.Value(b, i, nil)
			if d.shapes && cls == clsCPUOp && err == nil {
				d.sh.set(key, b[start:i])
			}
		default:
			i, err = d.lx.Value(b, i, &v)
			switch key {
			case "device":
				a.device, a.hasDevice = jsonlex.IntOf(v)
			case "stream":
				a.stream, a.hasStream = jsonlex.IntOf(v)
			case "correlation":
				a.correlation, _ = jsonlex.IntOf(v)
			case "External id", "external id":
				a.external, _ = jsonlex.IntOf(v)
			case "bytes":
				a.bytes, _ = jsonlex.IntOf(v)
			case "registers per thread":
				r, _ := jsonlex.IntOf(v)
				a.registers = int32(r)
			case "est. achieved occupancy %":
				if pct, ok := jsonlex.IntOf(v); ok && pct >= 0 && pct <= 100 {
					a.occupancy, a.hasOccupancy = uint8(pct), true
				}
			case "shared memory":
				a.sharedMem, _ = jsonlex.IntOf(v)
			case "graph id":
				a.graphID, _ = jsonlex.IntOf(v)
			case "graph node id":
				a.graphNode, _ = jsonlex.IntOf(v)
			case "wait_on_stream":
				a.waitStream, a.hasWait = jsonlex.IntOf(v)
			case "wait_on_cuda_event_record_corr_id":
				a.waitRecord, _ = jsonlex.IntOf(v)
			case "flops":
				if d.shapes && cls == clsCPUOp {
					d.sh.flops, d.sh.hasFlops = jsonlex.IntOf(v)
				}
			case "kernel":
				if cls == clsRuntime || cls == clsDriver {
					a.kernel = v
				}
			}
		}
		return i, err
	})
}

// dim3 reads the first three integers of an array such as "grid": [1, 2, 3].
func (d *eventDecoder) dim3(b []byte, i int) ([3]int32, int, error) {
	var dim [3]int32
	if b[i] != '[' {
		i, err := d.lx.Value(b, i, nil)
		return dim, i, err
	}
	if i = jsonlex.SkipSpace(b, i+1); i >= len(b) {
		return dim, i, jsonlex.ErrMore
	}
	if b[i] == ']' {
		return dim, i + 1, nil
	}
	for k := 0; ; k++ {
		var v jsonlex.Value
		j, err := d.lx.Value(b, i, &v)
		if err != nil {
			return dim, j, err
		}
		if n, ok := jsonlex.IntOf(v); ok && k < 3 {
			dim[k] = int32(n)
		}
		if i = jsonlex.SkipSpace(b, j); i >= len(b) {
			return dim, i, jsonlex.ErrMore
		}
		if b[i] == ']' {
			return dim, i + 1, nil
		}
		if b[i] != ',' {
			return dim, i, jsonlex.Bad(b, i, "after array element")
		}
		i = jsonlex.SkipSpace(b, i+1)
	}
}

// streamOf reads a stream id from a tid: 7, "7", or the 2021 form "stream 7".
func streamOf(v jsonlex.Value) int64 {
	if n, ok := jsonlex.IntOf(v); ok {
		return n
	}
	if v.Kind == 's' {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(v.Text()), "stream "); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64); err == nil {
				return n
			}
		}
	}
	return 0
}

// parseMemcpyName reads "Memcpy HtoD (Pageable -> Device)".
func parseMemcpyName(name string) (CopyKind, MemKind, MemKind) {
	rest, ok := strings.CutPrefix(name, "Memcpy ")
	if !ok {
		return CopyUnknown, MemUnknown, MemUnknown
	}
	tok, paren, _ := strings.Cut(rest, " ")
	kind := parseCopyKind(tok)
	src, dst := MemUnknown, MemUnknown
	if p, ok := strings.CutPrefix(paren, "("); ok {
		p = strings.TrimSuffix(p, ")")
		if s, t, ok := strings.Cut(p, " -> "); ok {
			src, dst = parseMemKind(s), parseMemKind(t)
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
	return parseMemKind(strings.TrimSuffix(p, ")"))
}

// A dropTag is what the memo of dropped events' prefixes (d.drops) says of
// one: whether the drop was for the read's needs (counted in
// part.leanSkipped), and whether the prefix is a cpu_op's up to its name,
// which decides (leanName).
type dropTag struct {
	lean, byName bool
}
