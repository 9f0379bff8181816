package annotate

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// Annotations are what traceql adds to a trace for a timeline viewer
// (Perfetto, chrome://tracing), computed by metrics: per device the idle
// gaps by class, the utilization timeline and the steps, and the summary
// whose verdicts go in the metadata.
type Annotations struct {
	Summary  metrics.Summary
	Gaps     []metrics.ClassifiedGap    // all devices', by device, then time
	Timeline map[int][]metrics.Point    // by device
	Steps    map[int][]metrics.StepStat // by device
}

// BasePID is the process ID of the first device's traceql track;
// device N's is BasePID+N. Far above real process IDs (at most
// 2^22 on Linux) and Kineto's device pids, it collides with neither.
const BasePID = 1 << 30

// The threads of each device's traceql process.
const (
	annotateGapsTID  = 1
	annotateStepsTID = 2
)

// Category is the cat of every event Splice adds: traceql's
// own reader skips it, so that an annotated trace summarizes as the
// original does.
const Category = "traceql"

// Splice copies a Kineto trace (Chrome Trace Event Format JSON, object
// or array form) from src to dst unchanged but for what it adds: a
// top-level "traceql" member with each device's verdict, and at the start
// of traceEvents one process per device named "traceql GPU N" and its
// bound (annotationProcess), its process_labels the verdict, with a
// thread of idle gaps (slices named by class: sync, launch, other), a
// thread of steps (a slice over each step with its time, kernels, busy
// and idle time and utilization; steps that partially overlap on more
// threads, as Perfetto nests a thread's slices) and a "GPU utilization"
// counter. It reads src once, in order, holding only a
// buffer: the events it passes are neither parsed nor kept. A UTF-8 byte
// order mark, which the trace reader accepts, is dropped: JSON parsers
// (JavaScript's JSON.parse, Python's json) refuse one.
func Splice(dst io.Writer, src io.Reader, a Annotations) error {
	in := bufio.NewReaderSize(src, 1<<20)
	out := bufio.NewWriterSize(dst, 1<<20)
	if b, _ := in.Peek(len(utf8BOM)); string(b) == utf8BOM {
		in.Discard(len(utf8BOM))
	}
	if err := splice(out, in, a); err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		return err
	}
	return out.Flush()
}

// utf8BOM is the byte order mark a trace may start with.
const utf8BOM = "\xef\xbb\xbf"

// errNoEvents says that the input has no traceEvents array to add to.
var errNoEvents = errors.New(`not a Chrome trace: no top-level "traceEvents" array`)

// splice copies src up to the start of its events, writing the metadata
// member after the top-level object's "{" and the added events after the
// events array's "[". It scans only that far: strings and nesting, to
// find "traceEvents" among the top-level members.
func splice(out *bufio.Writer, in *bufio.Reader, a Annotations) error {
	first, err := skipSpace(out, in)
	if err != nil {
		return errNoEvents
	}
	in.ReadByte()
	out.WriteByte(first)
	switch first {
	case '[': // the array form: events alone
		return addEvents(out, in, a)
	case '{':
	default:
		return errNoEvents
	}
	out.WriteString(`"traceql":`)
	writeMeta(out, a)
	out.WriteByte(',')
	depth := 1
	var key []byte // the last string closed at depth 1
	afterKey := false
	for {
		c, err := in.ReadByte()
		if err != nil {
			return errNoEvents
		}
		out.WriteByte(c)
		switch c {
		case '"':
			s, err := copyString(out, in)
			if err != nil {
				return errNoEvents
			}
			if depth == 1 {
				key, afterKey = s, false
			}
			continue
		case ':':
			if depth == 1 {
				afterKey = true
				continue
			}
		case ' ', '\t', '\n', '\r':
			continue
		case '[':
			if depth == 1 && afterKey && string(key) == "traceEvents" {
				return addEvents(out, in, a)
			}
			depth++
		case '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return errNoEvents
			}
		}
		afterKey = false
	}
}

// copyString copies the rest of a JSON string, its closing quote
// included, and returns its content when short (a key), else nil.
func copyString(out *bufio.Writer, in *bufio.Reader) ([]byte, error) {
	var s []byte
	for {
		c, err := in.ReadByte()
		if err != nil {
			return nil, err
		}
		out.WriteByte(c)
		switch c {
		case '"':
			return s, nil
		case '\\':
			c, err = in.ReadByte()
			if err != nil {
				return nil, err
			}
			out.WriteByte(c)
			s = nil // an escaped key is not one looked for
			continue
		}
		if len(s) < 32 {
			s = append(s, c)
		}
	}
}

// skipSpace copies whitespace and returns the next byte, unread.
func skipSpace(out *bufio.Writer, in *bufio.Reader) (byte, error) {
	for {
		b, err := in.Peek(1)
		if err != nil {
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\n', '\r':
			in.ReadByte()
			out.WriteByte(b[0])
			continue
		}
		return b[0], nil
	}
}

// addEvents writes the added events just after the events array's "[",
// and a comma after them when the array has events of its own.
func addEvents(out *bufio.Writer, in *bufio.Reader, a Annotations) error {
	n := writeEvents(out, a)
	next, err := skipSpace(out, in)
	if err != nil {
		return errNoEvents
	}
	if next != ']' && n > 0 {
		out.WriteByte(',')
	}
	return nil
}

// writeMeta writes the "traceql" member's value: each device's verdict.
func writeMeta(out *bufio.Writer, a Annotations) {
	out.WriteString(`{"devices":[`)
	for i := range a.Summary.Devices {
		d := &a.Summary.Devices[i]
		if i > 0 {
			out.WriteByte(',')
		}
		fmt.Fprintf(out, `{"device":%d,"pid":%d,"bound":%s,"verdict":%s}`, d.Device, BasePID+d.Device,
			strconv.Quote(metrics.Verdict(d).String()), jsonString(report.VerdictNote(d)))
	}
	out.WriteString(`]}`)
}

// annotationProcess names device d's traceql process: "traceql GPU N",
// and what holds it back when something does ("traceql GPU 0
// (launch-bound)"). Perfetto shows no process_labels (only
// process_name, thread_name and the sort indexes among the "M" events,
// in src/trace_processor/importers/json/json_trace_parser.cc): without
// it there, Perfetto would show no verdict.
func annotationProcess(d *metrics.DeviceSummary) string {
	name := fmt.Sprintf("traceql GPU %d", d.Device)
	if b := metrics.Verdict(d); b != metrics.Unbound {
		name += " (" + b.String() + "-bound)"
	}
	return name
}

// jsonString quotes s as a JSON string.
func jsonString(s string) string { return string(report.AppendJSONString(nil, s)) }

// usTime writes ns as Kineto writes times: decimal microseconds, to the
// nanosecond.
func usTime(ns int64) string {
	sign := ""
	if ns < 0 {
		sign, ns = "-", -ns
	}
	return fmt.Sprintf("%s%d.%03d", sign, ns/1000, ns%1000)
}

// perfettoNS is the time in ns that Perfetto's JSON importer reads for
// usTime(ns). It reads decimal µs as a double, the integer part plus the
// fraction (StringToDouble in src/trace_processor/util/json_parser.h),
// and rounds that times 1000 to the nanosecond (CoerceToTs in
// src/trace_processor/importers/json/json_trace_tokenizer.cc). That is
// exact below 2^51 ns (2.2e12 µs, 26 days); Kineto's times, around
// 4.5e12 µs since boot or 1.7e15 µs since 1970, come out up to 1 ns or
// up to 250 ns off, each its own way.
func perfettoNS(ns int64) int64 {
	neg := ns < 0
	if neg {
		ns = -ns
	}
	v := float64(ns/1000) + float64(ns%1000)/1000
	var r int64
	if v == math.Trunc(v) {
		r = int64(v) * 1000
	} else {
		r = int64(math.Round(v * 1000)) // llround: halves away from 0
	}
	if neg {
		return -r
	}
	return r
}

// sliceDur is the dur of a complete ("X") event from start to end: the
// length between the ends as Perfetto reads them, not end − start.
// Perfetto puts a slice's end at its ts as read plus its dur, and its
// ends are each read off by up to perfettoNS's error: written exact, a
// slice that ends where the next begins, as steps do, can end past the
// next's start there, and Perfetto, which nests the slices of a thread
// and takes no partial overlap (MaybeCloseStack in
// src/trace_processor/importers/common/slice_tracker.cc), moves the next
// to an overflow track and reports an error, or, before June 2026,
// drops it. Read so, the ends keep their order: slices disjoint or
// nested stay so. The args hold the exact lengths.
func sliceDur(start, end int64) string {
	return usTime(max(0, perfettoNS(end)-perfettoNS(start)))
}

// sliceLanes assigns slices, given as start and end, to lanes (threads)
// on which Perfetto nests them all: a slice goes on the first lane where
// it does not partially overlap one still open, taken in Perfetto's
// order, by start then longest first (trace_sorter.h), at the times
// Perfetto reads (perfettoNS). Steps may overlap (device-side windows of
// several streams); gaps never do.
func sliceLanes(start, end []int64) []int {
	type open struct{ start, end int64 }
	order := make([]int, len(start))
	for i := range order {
		order[i] = i
	}
	read := func(i int) (int64, int64) {
		s := perfettoNS(start[i])
		return s, s + max(0, perfettoNS(end[i])-s)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		sa, ea := read(a)
		sb, eb := read(b)
		if sa != sb {
			return cmp.Compare(sa, sb)
		}
		return cmp.Compare(eb-sb, ea-sa)
	})
	lane := make([]int, len(start))
	var stacks [][]open
	for _, i := range order {
		s, e := read(i)
		l := 0
		for ; l < len(stacks); l++ {
			st := stacks[l]
			for len(st) > 0 {
				top := st[len(st)-1]
				if top.end < s || top.end == s && !(top.start == top.end && s == e) {
					st = st[:len(st)-1]
					continue
				}
				break
			}
			stacks[l] = st
			if len(st) == 0 || e <= st[len(st)-1].end {
				break
			}
		}
		if l == len(stacks) {
			stacks = append(stacks, nil)
		}
		stacks[l] = append(stacks[l], open{s, e})
		lane[i] = l
	}
	return lane
}

// writeEvents writes the added events, comma-separated, and returns how
// many.
func writeEvents(out *bufio.Writer, a Annotations) int {
	n := 0
	ev := func(format string, args ...any) {
		if n > 0 {
			out.WriteByte(',')
		}
		out.WriteByte('\n')
		fmt.Fprintf(out, format, args...)
		n++
	}
	const cat = `"cat":"` + Category + `"`
	stepLanes := map[int][]int{}
	for i := range a.Summary.Devices {
		d := &a.Summary.Devices[i]
		pid := BasePID + d.Device
		steps := a.Steps[d.Device]
		start, end := make([]int64, len(steps)), make([]int64, len(steps))
		for j, s := range steps {
			start[j], end[j] = s.Start, s.End
		}
		lanes := sliceLanes(start, end)
		stepLanes[d.Device] = lanes
		ev(`{"ph":"M",%s,"name":"process_name","pid":%d,"tid":0,"args":{"name":%s}}`, cat, pid, jsonString(annotationProcess(d)))
		ev(`{"ph":"M",%s,"name":"process_labels","pid":%d,"tid":0,"args":{"labels":%s}}`, cat, pid, jsonString(report.VerdictNote(d)))
		ev(`{"ph":"M",%s,"name":"process_sort_index","pid":%d,"tid":0,"args":{"sort_index":%d}}`, cat, pid, pid)
		ev(`{"ph":"M",%s,"name":"thread_name","pid":%d,"tid":%d,"args":{"name":"idle gaps (by class)"}}`, cat, pid, annotateGapsTID)
		ev(`{"ph":"M",%s,"name":"thread_name","pid":%d,"tid":%d,"args":{"name":"steps"}}`, cat, pid, annotateStepsTID)
		for l := 1; l <= slices.Max(append(lanes, 0)); l++ {
			ev(`{"ph":"M",%s,"name":"thread_name","pid":%d,"tid":%d,"args":{"name":"steps (overlapping, %d)"}}`, cat, pid, annotateStepsTID+l, l+1)
		}
	}
	for _, g := range a.Gaps {
		ev(`{"ph":"X",%s,"name":"%s","pid":%d,"tid":%d,"ts":%s,"dur":%s,"args":{"dur_ns":%d,"sync_ns":%d,"launch_ns":%d,"other_ns":%d}}`,
			cat, g.Class(), BasePID+g.Device, annotateGapsTID, usTime(g.Start), sliceDur(g.Start, g.End), g.Len(), g.SyncNS, g.LaunchNS, g.OtherNS)
	}
	for _, d := range a.Summary.Devices {
		pid := BasePID + d.Device
		for j, s := range a.Steps[d.Device] {
			ev(`{"ph":"X",%s,"name":"step %d","pid":%d,"tid":%d,"ts":%s,"dur":%s,"args":{"time_ns":%d,"kernels":%d,"busy_ns":%d,"idle_ns":%d,"gpu_util":%s}}`,
				cat, s.Number, pid, annotateStepsTID+stepLanes[d.Device][j], usTime(s.Start), sliceDur(s.Start, s.End), s.DurNS(), s.Kernels, s.BusyNS, s.IdleNS,
				strconv.FormatFloat(s.Util, 'g', -1, 64))
		}
		pts := a.Timeline[d.Device]
		for _, p := range pts {
			ev(`{"ph":"C",%s,"name":"GPU utilization","pid":%d,"tid":0,"ts":%s,"args":{"util %%":%s}}`,
				cat, pid, usTime(p.StartNS), strconv.FormatFloat(100*p.Util, 'f', 2, 64))
		}
		if len(pts) > 0 { // the last bin ends: the counter drops to 0
			ev(`{"ph":"C",%s,"name":"GPU utilization","pid":%d,"tid":0,"ts":%s,"args":{"util %%":0}}`,
				cat, pid, usTime(pts[len(pts)-1].EndNS))
		}
	}
	return n
}
