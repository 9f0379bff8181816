package annotate

import (
	"bufio"
	"cmp"
	"io"
	"maps"
	"slices"
	"strconv"

	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/trace"
)

// WriteChrome writes t, a trace read from a format a timeline viewer
// does not open (an Nsight Systems export), as a Chrome Trace Event Format
// JSON object in Kineto's dialect, followed by the tracks Splice adds:
// kernels, copies and memsets on process "GPU N" (pid N, as Kineto
// writes them), one thread a stream, and device syncs beside them, one
// thread a stream's (syncTID); runtime and driver calls
// and host ranges (NVTX, ops) on their host process and thread; metadata
// events naming every process and thread. Kineto's dialect, so that
// traceql reads the result back as it read t: categories kernel,
// gpu_memcpy, gpu_memset, cuda_sync, cuda_runtime, cuda_driver, cpu_op,
// user_annotation; copy and memset names that carry their kinds
// ("Memcpy HtoD (Pinned -> Device)"); device, stream and correlation in
// args; times as decimal µs to the nanosecond.
func WriteChrome(w io.Writer, t *trace.Trace, a Annotations) error {
	out := bufio.NewWriterSize(w, 1<<20)
	c := chromeWriter{out: out, corr: chromeCorrelations(t)}
	out.WriteString(`{"schemaVersion":1,"displayTimeUnit":"ns","traceql":`)
	writeMeta(out, a)
	if t.Meta.Version != "" {
		out.WriteString(`,"source":{"format":` + jsonString(string(t.Meta.Format)) + `,"version":` + jsonString(t.Meta.Version) + `}`)
	}
	out.WriteString(`,"deviceProperties":[`)
	for i, d := range t.Devices {
		if i > 0 {
			out.WriteByte(',')
		}
		out.WriteString(`{"id":` + strconv.Itoa(d.ID) + `,"name":` + jsonString(d.Name) +
			`,"computeMajor":` + strconv.Itoa(d.ComputeMajor) + `,"computeMinor":` + strconv.Itoa(d.ComputeMinor) +
			`,"totalGlobalMem":` + strconv.FormatInt(d.TotalMemBytes, 10) + `,"numSms":` + strconv.Itoa(d.SMs) + `}`)
	}
	out.WriteString(`],"traceEvents":[`)
	c.names(t)
	for i := range t.Kernels {
		k := &t.Kernels[i]
		c.device("kernel", k.Name, &k.Activity)
		c.b = append(c.b, `,"grid":[`...)
		c.b = appendDim3(c.b, k.Grid)
		c.b = append(c.b, `],"block":[`...)
		c.b = appendDim3(c.b, k.Block)
		c.b = append(c.b, ']')
		c.intArg("registers per thread", int64(k.Registers))
		c.intArg("shared memory", k.SharedMem)
		if k.GraphID != 0 || k.GraphNode != 0 {
			c.intArg("graph id", k.GraphID)
			c.intArg("graph node id", k.GraphNode)
		}
		c.end()
	}
	for i := range t.Memcpys {
		m := &t.Memcpys[i]
		c.device("gpu_memcpy", "Memcpy "+m.Kind.String()+" ("+m.Src.String()+" -> "+m.Dst.String()+")", &m.Activity)
		c.intArg("bytes", m.Bytes)
		c.end()
	}
	for i := range t.Memsets {
		m := &t.Memsets[i]
		c.device("gpu_memset", "Memset ("+m.Mem.String()+")", &m.Activity)
		c.intArg("bytes", m.Bytes)
		c.end()
	}
	for i := range t.Syncs {
		s := &t.Syncs[i]
		c.deviceOn(syncTID(s.Stream), "cuda_sync", s.Kind, &s.Activity)
		c.end()
	}
	for i := range t.APICalls {
		call := &t.APICalls[i]
		cat := "cuda_runtime"
		if call.Kind == trace.Driver {
			cat = "cuda_driver"
		}
		c.slice(cat, call.Name, call.PID, call.TID, call.Start, call.End)
		c.b = append(c.b, `,"args":{"correlation":`...)
		c.b = strconv.AppendInt(c.b, c.corr(call.PID, call.Correlation), 10)
		c.intArg("External id", call.ExternalID)
		c.end()
	}
	for i := range t.Ops {
		o := &t.Ops[i]
		cat := "user_annotation" // NVTX ranges and record_function ranges alike
		switch o.Kind {
		case trace.CPUOp:
			cat = "cpu_op"
		case trace.PythonFunction:
			cat = "python_function"
		case trace.GPUAnnotation:
			cat = "gpu_user_annotation"
		}
		c.slice(cat, o.Name, o.PID, o.TID, o.Start, o.End)
		c.b = append(c.b, `,"args":{"External id":`...)
		c.b = strconv.AppendInt(c.b, o.ExternalID, 10)
		c.end()
	}
	if c.n > 0 {
		c.b = append(c.b, ',')
	}
	out.Write(c.b)
	if writeEvents(out, a) == 0 && c.n > 0 {
		// Nothing added after the comma: close the list with an event
		// that says so rather than leave a trailing comma.
		out.WriteString(`{"ph":"M","cat":"` + Category + `","name":"process_name","pid":` +
			strconv.Itoa(BasePID) + `,"tid":0,"args":{"name":"traceql (no GPU activity)"}}`)
	}
	out.WriteString("\n]}\n")
	return out.Flush()
}

// chromeWriter appends events to b, comma-separated, flushing it to out
// as it grows.
type chromeWriter struct {
	out  *bufio.Writer
	b    []byte
	n    int                         // events written
	corr func(pid, corr int64) int64 // the correlation id written for a record
}

// chromeCorrelations returns the correlation id to write for a record of
// process pid. Kineto's ids are one space per trace and Nsight's one per
// process (trace.Meta.CorrelationPerProcess): an id that two processes of
// an export both use is written, for every process but the first to use
// it, as a new id above all of the trace's, so that the trace read back
// joins each kernel to its own process's call.
func chromeCorrelations(t *trace.Trace) func(pid, corr int64) int64 {
	same := func(_, corr int64) int64 { return corr }
	if !t.Meta.CorrelationPerProcess {
		return same
	}
	type key struct{ pid, corr int64 }
	owner := map[int64]int64{} // id → the first process seen with it
	moved := map[key]int64{}
	var top int64
	see := func(pid, corr int64) {
		if corr == 0 {
			return
		}
		top = max(top, corr)
		if p, ok := owner[corr]; !ok {
			owner[corr] = pid
		} else if p != pid {
			moved[key{pid, corr}] = 0
		}
	}
	for i := range t.APICalls {
		see(t.APICalls[i].PID, t.APICalls[i].Correlation)
	}
	t.EachGPUActivity(func(a *trace.Activity) { see(a.PID, a.Correlation) })
	for i := range t.Syncs {
		see(t.Syncs[i].PID, t.Syncs[i].Correlation)
	}
	if len(moved) == 0 {
		return same
	}
	keys := make([]key, 0, len(moved))
	for k := range moved {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.pid, b.pid), cmp.Compare(a.corr, b.corr)) })
	for i, k := range keys {
		moved[k] = top + 1 + int64(i)
	}
	return func(pid, corr int64) int64 {
		if id, ok := moved[key{pid, corr}]; ok {
			return id
		}
		return corr
	}
}

// begin starts an event.
func (c *chromeWriter) begin() {
	if len(c.b) > 64<<10 {
		c.out.Write(c.b)
		c.b = c.b[:0]
	}
	if c.n > 0 {
		c.b = append(c.b, ',')
	}
	c.b = append(c.b, '\n')
	c.n++
}

// slice starts a complete ("X") event, up to its args.
func (c *chromeWriter) slice(cat, name string, pid, tid, start, end int64) {
	c.begin()
	c.b = append(c.b, `{"ph":"X","cat":"`...)
	c.b = append(c.b, cat...)
	c.b = append(c.b, `","name":`...)
	c.b = report.AppendJSONString(c.b, name)
	c.b = append(c.b, `,"pid":`...)
	c.b = strconv.AppendInt(c.b, pid, 10)
	c.b = append(c.b, `,"tid":`...)
	c.b = strconv.AppendInt(c.b, tid, 10)
	c.b = append(c.b, `,"ts":`...)
	c.b = appendUS(c.b, start)
	c.b = append(c.b, `,"dur":`...)
	c.b = appendUS(c.b, end-start)
}

// device starts an event of GPU activity on process "GPU N", thread
// "stream S", up to the last of its args.
func (c *chromeWriter) device(cat, name string, a *trace.Activity) {
	c.deviceOn(a.Stream, cat, name, a)
}

// syncTID is the thread of the syncs of stream s on its GPU's process.
// Not the stream's: Kineto puts a sync on its stream's thread, where it
// may start inside a copy or kernel and end after it, and Perfetto, which
// nests a thread's slices, moves or drops such a slice (MaybeCloseStack
// in src/trace_processor/importers/common/slice_tracker.cc). And never
// negative: Perfetto reads a negative tid, a sync on no stream (-1), as
// 0 (CoerceToUint32 in
// src/trace_processor/importers/json/json_trace_tokenizer.cc). Far above
// stream IDs; traceql reads the stream from args.
func syncTID(s int64) int64 { return 1<<30 + s }

// deviceOn is device on thread tid.
func (c *chromeWriter) deviceOn(tid int64, cat, name string, a *trace.Activity) {
	c.slice(cat, name, int64(a.Device), tid, a.Start, a.End)
	c.b = append(c.b, `,"args":{"device":`...)
	c.b = strconv.AppendInt(c.b, int64(a.Device), 10)
	c.intArg("stream", a.Stream)
	c.intArg("correlation", c.corr(a.PID, a.Correlation))
}

// intArg appends an integer member of args.
func (c *chromeWriter) intArg(key string, v int64) {
	c.b = append(c.b, `,"`...)
	c.b = append(c.b, key...)
	c.b = append(c.b, `":`...)
	c.b = strconv.AppendInt(c.b, v, 10)
}

// end closes args and the event.
func (c *chromeWriter) end() { c.b = append(c.b, "}}"...) }

// names writes the metadata events naming each GPU process and stream
// thread, and each host process and thread that has calls or ranges.
func (c *chromeWriter) names(t *trace.Trace) {
	meta := func(name string, pid, tid int64, key, value string) {
		c.begin()
		c.b = append(c.b, `{"ph":"M","name":"`...)
		c.b = append(c.b, name...)
		c.b = append(c.b, `","pid":`...)
		c.b = strconv.AppendInt(c.b, pid, 10)
		c.b = append(c.b, `,"tid":`...)
		c.b = strconv.AppendInt(c.b, tid, 10)
		c.b = append(c.b, `,"args":{"`...)
		c.b = append(c.b, key...)
		c.b = append(c.b, `":`...)
		c.b = append(c.b, value...)
		c.b = append(c.b, "}}"...)
	}
	for _, d := range t.Devices {
		label := "GPU " + strconv.Itoa(d.ID)
		if d.Name != "" {
			label += ": " + d.Name
		}
		meta("process_name", int64(d.ID), 0, "name", jsonString(label))
		meta("process_sort_index", int64(d.ID), 0, "sort_index", strconv.Itoa(d.ID))
	}
	for _, s := range t.Streams {
		if s.ID >= 0 { // -1: syncs on no stream, which have their own thread
			meta("thread_name", int64(s.Device), s.ID, "name", jsonString("stream "+strconv.FormatInt(s.ID, 10)))
		}
	}
	type stream struct{ dev, id int64 }
	syncs := map[stream]bool{}
	for i := range t.Syncs {
		syncs[stream{int64(t.Syncs[i].Device), t.Syncs[i].Stream}] = true
	}
	for _, s := range slices.SortedFunc(maps.Keys(syncs), func(a, b stream) int { return cmp.Or(cmp.Compare(a.dev, b.dev), cmp.Compare(a.id, b.id)) }) {
		name := "stream " + strconv.FormatInt(s.id, 10) + " syncs"
		if s.id < 0 {
			name = "syncs on no stream"
		}
		meta("thread_name", s.dev, syncTID(s.id), "name", jsonString(name))
	}
	type thread struct{ pid, tid int64 }
	seen := map[thread]bool{}
	for i := range t.APICalls {
		seen[thread{t.APICalls[i].PID, t.APICalls[i].TID}] = true
	}
	for i := range t.Ops {
		if o := &t.Ops[i]; o.Kind != trace.GPUAnnotation {
			seen[thread{o.PID, o.TID}] = true
		}
	}
	threads := make([]thread, 0, len(seen))
	for th := range seen {
		threads = append(threads, th)
	}
	slices.SortFunc(threads, func(a, b thread) int { return cmp.Or(cmp.Compare(a.pid, b.pid), cmp.Compare(a.tid, b.tid)) })
	for i, th := range threads {
		if i == 0 || threads[i-1].pid != th.pid {
			meta("process_name", th.pid, 0, "name", jsonString("host process "+strconv.FormatInt(th.pid, 10)))
		}
		meta("thread_name", th.pid, th.tid, "name", jsonString("thread "+strconv.FormatInt(th.tid, 10)))
	}
}

// appendDim3 appends x,y,z.
func appendDim3(b []byte, d [3]int32) []byte {
	for i, v := range d {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(v), 10)
	}
	return b
}

// appendUS appends ns as decimal µs to the nanosecond, as usTime formats
// it.
func appendUS(b []byte, ns int64) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	f := ns % 1000
	return append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}
