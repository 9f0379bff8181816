package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// A RowWriter streams tidy rows as CSV (with a header), one JSON
// document (see WriteJSON: a row a line), JSON lines or to a RowSink
// (Parquet, report/parquet), so an export of millions of kernels never
// builds a table in memory. Every row has exactly its columns, each of its
// column's type, or no value: the writer refuses others.
type RowWriter struct {
	cols []Column
	csv  bool          // CSV, written to bw
	bw   *bufio.Writer // CSV, JSON or JSON lines
	doc  bool          // one JSON document: the rows an array in it
	rows int           // written
	keys [][]byte      // JSON-quoted column names
	buf  []byte        // a JSON line
	vals []Value
	sink RowSink
	opts CSVOptions // of CSV text cells
}

// SetCSV sets how CSV text cells are written from the next row on.
func (rw *RowWriter) SetCSV(o CSVOptions) { rw.opts = o }

// A RowSink takes the rows a RowWriter checked against its columns, each
// value of its column's kind or none where the column is Null. A format
// whose library report should not link (Parquet: report/parquet) is one.
type RowSink interface {
	WriteRow(row []Value) error
	Close() error // ends the stream
}

// NewSinkWriter starts a stream of rows with these columns to sink.
func NewSinkWriter(sink RowSink, cols []Column) *RowWriter {
	return &RowWriter{cols: cols, sink: sink}
}

// NewRowWriter starts a CSV ("csv"), JSON ("json": one document) or JSON
// lines ("jsonl") stream of the table name with these columns.
func NewRowWriter(w io.Writer, format, name string, cols []Column) (*RowWriter, error) {
	rw := &RowWriter{cols: cols}
	switch format {
	case "csv":
		rw.csv, rw.bw = true, bufio.NewWriterSize(w, 1<<16)
		var b []byte
		for i, c := range cols {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCSVField(b, c.Name)
		}
		_, err := rw.bw.Write(append(b, '\n'))
		return rw, err
	case "json", "jsonl":
		rw.bw = bufio.NewWriterSize(w, 1<<16)
		for _, c := range cols {
			k, _ := json.Marshal(c.Name)
			rw.keys = append(rw.keys, k)
		}
		if format == "json" {
			rw.doc = true
			q, _ := json.Marshal(name)
			fmt.Fprintf(rw.bw, "{\"version\": %d, \"table\": %s, \"rows\": [", SchemaVersion, q)
		}
		return rw, nil
	}
	return nil, fmt.Errorf("unknown row format %q", format)
}

// WriteRecord adds one record, a row of a Table: int, int64, float64 or
// string values, or nil for none, one per column and of its type.
func (rw *RowWriter) WriteRecord(row []any) error {
	if len(row) != len(rw.cols) {
		return fmt.Errorf("a row of %d values for %d columns", len(row), len(rw.cols))
	}
	rw.vals = rw.vals[:0]
	for i, v := range row {
		x, ok := valueOf(v)
		if !ok {
			return fmt.Errorf("column %s: a value of type %T", rw.cols[i].Name, v)
		}
		rw.vals = append(rw.vals, x)
	}
	return rw.write(rw.vals)
}

// write adds one row of typed values, checked against the columns.
func (rw *RowWriter) write(row []Value) error {
	if len(row) != len(rw.cols) {
		return fmt.Errorf("a row of %d values for %d columns", len(row), len(rw.cols))
	}
	for i, v := range row {
		switch c := &rw.cols[i]; {
		case v.kind == 0 && !c.Null:
			return fmt.Errorf("column %s: no value, in a column that always has one", c.Name)
		case v.kind != 0 && v.kind != c.kind():
			return fmt.Errorf("column %s: a value of kind %c, want %c", c.Name, v.kind, c.kind())
		}
	}
	if rw.sink != nil {
		return rw.sink.WriteRow(row)
	}
	if rw.csv {
		// As encoding/csv writes a record, numbers straight into the
		// line: a CSV of millions of kernels makes no string a cell.
		b := rw.buf[:0]
		for i, v := range row {
			if i > 0 {
				b = append(b, ',')
			}
			switch v.kind {
			case 'i':
				b = strconv.AppendInt(b, v.i, 10)
			case 'f':
				b = strconv.AppendFloat(b, v.f, 'f', -1, 64)
			case 's':
				b = appendCSVField(b, csvText(v.s, rw.opts))
			}
		}
		rw.buf = append(b, '\n')
		_, err := rw.bw.Write(rw.buf)
		return err
	}
	b := rw.buf[:0]
	if rw.doc {
		if rw.rows > 0 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	rw.rows++
	b = append(b, '{')
	for i, v := range row {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(b, rw.keys[i]...), ':')
		b = v.appendJSON(b)
	}
	b = append(b, '}')
	if !rw.doc {
		b = append(b, '\n')
	}
	rw.buf = b
	_, err := rw.bw.Write(rw.buf)
	return err
}

// appendJSONString appends s as a JSON string, as json.Marshal writes it.
// Names are mostly printable ASCII, which needs no escapes and is copied
// as it is; others go through json.Marshal.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// appendCSVField appends s as encoding/csv writes a field: quoted, with
// quotes doubled, when it holds a comma, a quote or a line break, starts
// with a space, or is \. (which a reader could take for the end of
// data).
func appendCSVField(b []byte, s string) []byte {
	r, _ := utf8.DecodeRuneInString(s)
	quote := s == `\.` || s != "" && unicode.IsSpace(r)
	for i := 0; i < len(s) && !quote; i++ {
		switch s[i] {
		case ',', '"', '\r', '\n':
			quote = true
		}
	}
	if !quote {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// Flush ends the stream.
func (rw *RowWriter) Flush() error {
	if rw.sink != nil {
		return rw.sink.Close()
	}
	if rw.csv {
		return rw.bw.Flush()
	}
	if rw.doc {
		if rw.rows > 0 {
			rw.bw.WriteString("\n")
		}
		rw.bw.WriteString("]}\n")
	}
	return rw.bw.Flush()
}

// An ExportInput is what the export tables of one trace are made from:
// the trace's own events, and what metrics computed of it, each filled
// when the table asked for needs it (cmd/traceql's exportInput).
type ExportInput struct {
	Label string       // the run's label, on every row
	Trace *trace.Trace // kernels, memcpy: its events; the file of every row
	// Summary is the trace's summary: the summary, steps, host and
	// host-ops tables.
	Summary *metrics.Summary
	Gaps    []metrics.ClassifiedGap
	// Devices are each device's per-name, per-stream, per-copy-kind and
	// per-scope tables: kernel-stats, streams, copy-stats, ops, regions.
	Devices []metrics.DeviceTables
	// Names are the host API calls (api) or ranges (ranges) by name.
	Names []metrics.NameDist
	// KernelOps and KernelRegions are the op and region of each kernel of
	// Trace, by index (metrics.KernelScopes); KernelWork, when not nil,
	// the work of the op instance that launched it.
	KernelOps, KernelRegions []string
	KernelWork               []metrics.KernelWork
}

// An exportTable is one table export writes: its columns, declared once
// (a row type's fields, or the summary's metrics.Columns), and its rows.
type exportTable struct {
	name string
	row  string // what one row is, for the schema
	cols []Column
	rows func(rw *RowWriter, in *ExportInput) error
}

// structTable declares a table whose rows are values of T (see rowType).
func structTable[T any](name, row string, rows func(in *ExportInput, put func(T) error) error) exportTable {
	rt := rowTypeOf[T]()
	return exportTable{name, row, rt.cols, func(rw *RowWriter, in *ExportInput) error {
		row := new(T) // one, reused: a row costs no allocation
		rv := reflect.ValueOf(row).Elem()
		return rows(in, func(r T) error {
			*row = r
			rw.vals = rt.values(rw.vals, rv)
			return rw.write(rw.vals)
		})
	}}
}

// recordsTable declares a table whose rows are a Table's records.
func recordsTable(name, row string, cols []Column, records func(in *ExportInput) *Table) exportTable {
	return exportTable{name, row, cols, func(rw *RowWriter, in *ExportInput) error {
		for _, r := range records(in).Rows {
			if err := rw.WriteRecord(r); err != nil {
				return err
			}
		}
		return nil
	}}
}

type kernelRow struct {
	deviceKey
	Stream      int64  `col:"stream" doc:"stream id"`
	Name        string `col:"name" doc:"kernel name as the trace gives it"`
	Start       int64  `col:"start_ns,ns" doc:"start, on the trace's clock"`
	End         int64  `col:"end_ns,ns" doc:"end, on the trace's clock"`
	Dur         int64  `col:"dur_ns,ns" doc:"end_ns − start_ns"`
	Correlation optInt `col:"correlation" doc:"correlation id linking the kernel to its launch call; none when unknown"`
	ExternalID  optInt `col:"external_id" doc:"Kineto External id (the launching op); none when absent"`
	GridX       optInt `col:"grid_x" doc:"grid size, x; none when unknown"`
	GridY       optInt `col:"grid_y" doc:"grid size, y; none when unknown"`
	GridZ       optInt `col:"grid_z" doc:"grid size, z; none when unknown"`
	BlockX      optInt `col:"block_x" doc:"block size, x; none when unknown"`
	BlockY      optInt `col:"block_y" doc:"block size, y; none when unknown"`
	BlockZ      optInt `col:"block_z" doc:"block size, z; none when unknown"`
	Registers   optInt `col:"registers" doc:"registers per thread; none when unknown"`
	SharedMem   optInt `col:"shared_mem_bytes,bytes" doc:"static + dynamic shared memory; none when unknown"`
	GraphID     optInt `col:"graph_id" doc:"CUDA graph the kernel was replayed from; none when none or unknown"`
	Occupancy   optInt `col:"occupancy_pct" doc:"Kineto's est. achieved occupancy, 0–100 %; none where the trace gives none (Nsight exports, older traces)"`
	BlocksPerSM opt    `col:"blocks_per_sm" doc:"the grid's blocks / the device's SMs, as Kineto computes its blocks per SM; none when either is unknown"`
	WarpsPerSM  opt    `col:"warps_per_sm" doc:"blocks_per_sm × threads a block / 32, as Kineto computes its warps per SM; none when unknown"`
	Op          string `col:"op" doc:"the innermost cpu_op open on the launching thread when the kernel's launch call began (graph replays: the graph launch's, or with --capture the op that captured the kernel); empty where none is, or the call is not in the trace"`
	Region      string `col:"region" doc:"the innermost record_function annotation or NVTX range (not a ProfilerStep) open then; empty where none is"`
	OpFlops     optInt `col:"op_flops,flop" doc:"the FLOPs of the op instance that launched the kernel (see ops' flops); none where it has no FLOP count"`
	OpBytes     optInt `col:"op_bytes,bytes" doc:"its minimum memory traffic (see ops' bytes); none where unknown"`
	OpTFLOPS    opt    `col:"op_achieved_tflops,tflops" doc:"op_flops / the GPU time of all the kernels the instance launched, TFLOP/s"`
	OpIntensity opt    `col:"op_arithmetic_intensity" doc:"op_flops / op_bytes, FLOP per byte"`
	OpBound     string `col:"op_roofline_bound" doc:"compute or memory: the instance's intensity above or below the device's ridge (peak / bandwidth); empty without peaks"`
	OpPeakShare opt    `col:"op_peak_share,ratio" doc:"op_achieved_tflops / the roofline's attainable TFLOP/s at its intensity"`
	Label       string `col:"label" doc:"the run's label (see the summary table)"`
}

type kernelStatsRow struct {
	deviceKey
	Name      string  `col:"name" doc:"kernel name"`
	Family    string  `col:"family" doc:"the name's family (diff --group family)"`
	Count     int     `col:"count" doc:"instances"`
	TotalNS   int64   `col:"total_ns,ns" doc:"sum of their durations"`
	MeanNS    float64 `col:"mean_ns,ns" doc:"total_ns / count"`
	MinNS     int64   `col:"min_ns,ns" doc:"shortest"`
	MaxNS     int64   `col:"max_ns,ns" doc:"longest"`
	Share     float64 `col:"share,ratio" doc:"total_ns / the device's kernel time"`
	MedianNS  float64 `col:"median_ns,ns" doc:"median duration; the mean of the two middle values for an even count"`
	StddevNS  float64 `col:"stddev_ns,ns" doc:"sample standard deviation (n − 1); 0 for one instance"`
	Occupancy opt     `col:"occupancy_pct" doc:"mean est. achieved occupancy of the instances that have one, weighted by their durations (TensorBoard's kernel view); none where none has"`
	Label     string  `col:"label" doc:"the run's label (see the summary table)"`
}

type stepRow struct {
	deviceKey
	Step    int   `col:"step" doc:"N of ProfilerStep#N"`
	Start   int64 `col:"start_ns,ns" doc:"the step window's start, on the trace's clock"`
	End     int64 `col:"end_ns,ns" doc:"its end"`
	Dur     int64 `col:"dur_ns,ns" doc:"end_ns − start_ns"`
	Kernels int   `col:"kernels" doc:"kernels that started inside the window"`
	BusyNS  int64 `col:"busy_ns,ns" doc:"GPU activity inside the window (union, clipped)"`
	IdleNS  int64 `col:"idle_ns,ns" doc:"dur_ns − busy_ns"`
	// The busy classes inside the window (see summarize --help):
	// they add up to busy_ns.
	ComputeNS   int64 `col:"compute_ns,ns" doc:"time a compute kernel runs"`
	CommNS      int64 `col:"comm_exposed_ns,ns" doc:"time a communication kernel runs and no compute kernel does"`
	H2DNS       int64 `col:"h2d_exposed_ns,ns" doc:"time an HtoD copy runs and no kernel does"`
	D2HNS       int64 `col:"d2h_exposed_ns,ns" doc:"time a DtoH copy runs and no kernel or HtoD copy does"`
	OtherCopyNS int64 `col:"other_copy_exposed_ns,ns" doc:"time another copy runs and no kernel, HtoD or DtoH copy does"`
	MemsetNS    int64 `col:"memset_exposed_ns,ns" doc:"time only memsets run: compute_ns + comm_exposed_ns + h2d, d2h and other_copy_exposed_ns + memset_exposed_ns = busy_ns"`
	// The host row: idle_ns by what the host was in meanwhile.
	DataLoaderNS int64 `col:"idle_dataloader_ns,ns" doc:"idle GPU time inside a DataLoader fetch on the host (a range named enumerate(DataLoader)…)"`
	OptimizerNS  int64 `col:"idle_optimizer_ns,ns" doc:"the rest of the idle GPU time inside an optimizer step or zero_grad (Optimizer.step#…, Optimizer.zero_grad#…)"`
	OtherHostNS  int64 `col:"idle_other_host_ns,ns" doc:"the rest of idle_ns: idle_dataloader_ns + idle_optimizer_ns + idle_other_host_ns = idle_ns"`
	// idle_ns by cause, the device's rule (idle_sync_ns… in summarize
	// --help) applied to the part of each gap inside the window.
	IdleSyncNS   int64  `col:"idle_sync_ns,ns" doc:"idle time inside the window during a host synchronization (the device's rule: see idle_sync_ns in summarize --help)"`
	IdleLaunchNS int64  `col:"idle_launch_ns,ns" doc:"the rest of the window's part of each idle gap whose next GPU work was launched late (idle_launch_ns); time before the device's first work is a gap ended by that work"`
	IdleOtherNS  int64  `col:"idle_other_ns,ns" doc:"the rest of idle_ns, including time after the device's last work: idle_sync_ns + idle_launch_ns + idle_other_ns = idle_ns"`
	Util         opt    `col:"gpu_util,ratio" doc:"busy_ns / dur_ns; none for a window of no time"`
	Source       string `col:"source" doc:"where the window comes from: gpu, projected or cpu (see summarize --help)"`
	Flops        optInt `col:"flops,flop" doc:"FLOPs of the op instances with a count (see flops in summarize --help) whose first kernel, copy or memset on the device starts inside the window; none where the trace recorded no shapes"`
	MFU          opt    `col:"mfu,ratio" doc:"flops / (dur_ns × the device's peak_tflops): the step's model FLOPs utilization, a lower bound as mfu is; none where the device has no mfu"`
	Label        string `col:"label" doc:"the run's label (see the summary table)"`
}

type gapRow struct {
	deviceKey
	Start    int64  `col:"start_ns,ns" doc:"the gap's start: the end of a merged busy interval"`
	End      int64  `col:"end_ns,ns" doc:"its end: the start of the next"`
	Dur      int64  `col:"dur_ns,ns" doc:"end_ns − start_ns"`
	SyncNS   int64  `col:"sync_ns,ns" doc:"time of it in host syncs (see idle_sync_ns)"`
	LaunchNS int64  `col:"launch_ns,ns" doc:"time of it waiting on a late launch (see idle_launch_ns)"`
	OtherNS  int64  `col:"other_ns,ns" doc:"the rest: sync_ns + launch_ns + other_ns = dur_ns"`
	Class    string `col:"class" doc:"the cause holding most of it: sync, launch or other"`
	Stream   optInt `col:"stream" doc:"the stream, for the gaps of each stream alone (--per-stream); none for a device's gaps"`
	Label    string `col:"label" doc:"the run's label (see the summary table)"`
}

type memcpyRow struct {
	deviceKey
	Stream      int64  `col:"stream" doc:"stream id"`
	Kind        string `col:"kind" doc:"HtoD, DtoH, DtoD, …"`
	Src         string `col:"src" doc:"source memory kind"`
	Dst         string `col:"dst" doc:"destination memory kind"`
	Bytes       int64  `col:"bytes,bytes" doc:"bytes moved"`
	Start       int64  `col:"start_ns,ns" doc:"start, on the trace's clock"`
	End         int64  `col:"end_ns,ns" doc:"end"`
	Dur         int64  `col:"dur_ns,ns" doc:"end_ns − start_ns"`
	GBps        opt    `col:"gbps,gbps" doc:"bytes / dur_ns, GB/s (GB = 1e9 B); none for no time"`
	Correlation optInt `col:"correlation" doc:"correlation id linking the copy to its call; none when unknown"`
	Label       string `col:"label" doc:"the run's label (see the summary table)"`
}

type hostOpRow struct {
	fileKey
	Name    string `col:"name" doc:"host op name"`
	Count   int    `col:"count" doc:"calls"`
	TotalNS int64  `col:"total_ns,ns" doc:"sum of their durations"`
	SelfNS  int64  `col:"self_ns,ns" doc:"total_ns minus the time in ops nested directly inside, same thread"`
	Label   string `col:"label" doc:"the run's label (see the summary table)"`
}

type streamRow struct {
	deviceKey
	Stream  int64  `col:"stream" doc:"stream id"`
	Kernels int    `col:"kernels" doc:"kernels on the stream"`
	Copies  int    `col:"copies" doc:"memcpys and memsets on the stream"`
	SpanNS  int64  `col:"span_ns,ns" doc:"the stream's last activity end − its first start"`
	BusyNS  int64  `col:"busy_ns,ns" doc:"length of the union of the stream's activity"`
	IdleNS  int64  `col:"idle_ns,ns" doc:"span_ns − busy_ns"`
	Util    opt    `col:"util,ratio" doc:"busy_ns / span_ns; none for a span of 0"`
	Label   string `col:"label" doc:"the run's label (see the summary table)"`
}

type scopeRow struct {
	deviceKey
	Name    string  `col:"op" doc:"the innermost cpu_op enclosing the launch call on its thread; (none) for the rest"`
	Calls   int     `col:"calls" doc:"calls of the op"`
	Kernels int     `col:"kernels" doc:"kernels, copies and memsets launched from inside it"`
	GPUNS   int64   `col:"gpu_ns,ns" doc:"their GPU time"`
	CPUNS   int64   `col:"cpu_ns,ns" doc:"the op's CPU time"`
	Share   float64 `col:"share,ratio" doc:"gpu_ns / the GPU time of all work on the device"`
	// The work of the op's calls that have a FLOP count (metrics.OpCost).
	CostedCalls optInt `col:"flops_calls" doc:"calls with a FLOP count: the profiler's (with_flops) or the FLOP model's from their shapes (record_shapes); none where the trace recorded no shapes. With --capture a captured op's calls are its replays, one a graph launch"`
	Flops       optInt `col:"flops,flop" doc:"their floating-point operations (a multiply-add is 2); none where no call has a count (an op the model does not know)"`
	Bytes       optInt `col:"bytes,bytes" doc:"their minimum memory traffic: each input read and each output written once"`
	TFLOPS      opt    `col:"achieved_tflops,tflops" doc:"flops / the GPU time of those calls' kernels, copies and memsets, TFLOP/s"`
	Intensity   opt    `col:"arithmetic_intensity" doc:"flops / bytes, FLOP per byte"`
	Bound       string `col:"roofline_bound" doc:"compute or memory: the intensity above or below the device's ridge (dense peak of the op's precision / memory bandwidth); empty without peaks"`
	PeakShare   opt    `col:"peak_share,ratio" doc:"achieved_tflops / the roofline's attainable TFLOP/s at that intensity: min(peak, intensity × bandwidth)"`
	Label       string `col:"label" doc:"the run's label (see the summary table)"`
}

type regionRow struct {
	deviceKey
	Name    string  `col:"region" doc:"the innermost record_function annotation or NVTX range enclosing the launch call; (none) for the rest"`
	Calls   int     `col:"calls" doc:"instances of the region"`
	Kernels int     `col:"kernels" doc:"kernels, copies and memsets launched from inside it"`
	GPUNS   int64   `col:"gpu_ns,ns" doc:"their GPU time"`
	CPUNS   int64   `col:"cpu_ns,ns" doc:"the region's CPU time"`
	Share   float64 `col:"share,ratio" doc:"gpu_ns / the GPU time of all work on the device"`
	Label   string  `col:"label" doc:"the run's label (see the summary table)"`
}

type copyStatsRow struct {
	deviceKey
	Kind        string  `col:"kind" doc:"copy kind (HtoD, …) or memset"`
	Src         string  `col:"src" doc:"source memory kind"`
	Dst         string  `col:"dst" doc:"destination memory kind"`
	Count       int     `col:"count" doc:"copies or memsets"`
	Bytes       int64   `col:"bytes,bytes" doc:"bytes in all"`
	MinBytes    int64   `col:"min_bytes,bytes" doc:"the smallest"`
	MedianBytes float64 `col:"median_bytes,bytes" doc:"the median size"`
	MaxBytes    int64   `col:"max_bytes,bytes" doc:"the largest"`
	NS          int64   `col:"ns,ns" doc:"sum of durations"`
	GBps        opt     `col:"gbps,gbps" doc:"bytes / ns, GB/s; none for no time"`
	Label       string  `col:"label" doc:"the run's label (see the summary table)"`
}

type nameRow struct {
	fileKey
	Name     string  `col:"name" doc:"call or range name"`
	Count    int     `col:"count" doc:"instances"`
	TotalNS  int64   `col:"total_ns,ns" doc:"sum of their durations"`
	MeanNS   float64 `col:"mean_ns,ns" doc:"total_ns / count"`
	MedianNS float64 `col:"median_ns,ns" doc:"median duration; the mean of the two middle values for an even count"`
	MinNS    int64   `col:"min_ns,ns" doc:"shortest"`
	MaxNS    int64   `col:"max_ns,ns" doc:"longest"`
	StddevNS float64 `col:"stddev_ns,ns" doc:"sample standard deviation (n − 1); 0 for one instance"`
	Share    float64 `col:"share,ratio" doc:"total_ns / the total of all names"`
	Label    string  `col:"label" doc:"the run's label (see the summary table)"`
}

// known is an id or size the model holds as 0 when the trace does not
// give it: no value then.
func known(v int64) optInt { return optInt{v, v != 0} }

// optIf is v when ok, else no value.
func optIf(v float64, ok bool) opt { return opt{v, ok} }

// optIntIf is v when ok, else no value.
func optIntIf(v int64, ok bool) optInt { return optInt{v, ok} }

// exportTables declares every table export writes, in the order --help
// lists them.
func exportTables() []exportTable {
	eachDevice := func(in *ExportInput, f func(d *metrics.DeviceTables) error) error {
		for i := range in.Devices {
			if err := f(&in.Devices[i]); err != nil {
				return err
			}
		}
		return nil
	}
	names := func(in *ExportInput, put func(nameRow) error) error {
		for _, n := range in.Names {
			if err := put(nameRow{fileKey: in.fileKey(), Name: n.Name, Count: n.Count, TotalNS: n.TotalNS, MeanNS: n.MeanNS, MedianNS: n.MedianNS,
				MinNS: n.MinNS, MaxNS: n.MaxNS, StddevNS: n.StdNS, Share: n.Share, Label: in.Label}); err != nil {
				return err
			}
		}
		return nil
	}
	summaries := func(in *ExportInput) []metrics.Summary {
		if in.Summary == nil {
			return nil
		}
		s := *in.Summary
		s.Label = in.Label
		return []metrics.Summary{s}
	}
	return []exportTable{
		recordsTable("summary", "one per (file, device)", SummaryRecords(nil).Columns, func(in *ExportInput) *Table { return SummaryRecords(summaries(in)) }),
		structTable("kernels", "one per kernel", func(in *ExportInput, put func(kernelRow) error) error {
			sms := map[int]int{}
			for _, d := range in.Trace.Devices {
				sms[d.ID] = d.SMs
			}
			for i := range in.Trace.Kernels {
				k := &in.Trace.Kernels[i]
				blocks, warps, perSM := metrics.PerSM(k, sms[k.Device])
				row := kernelRow{deviceKey: in.deviceKey(k.Device), Stream: k.Stream, Name: k.Name, Start: k.Start, End: k.End, Dur: k.Dur(),
					Correlation: known(k.Correlation), ExternalID: known(k.ExternalID),
					GridX: known(int64(k.Grid[0])), GridY: known(int64(k.Grid[1])), GridZ: known(int64(k.Grid[2])),
					BlockX: known(int64(k.Block[0])), BlockY: known(int64(k.Block[1])), BlockZ: known(int64(k.Block[2])),
					Registers: known(int64(k.Registers)), SharedMem: known(k.SharedMem), GraphID: known(k.GraphID),
					Occupancy: optInt{int64(k.OccupancyPct), k.HasOccupancy}, BlocksPerSM: optIf(blocks, perSM), WarpsPerSM: optIf(warps, perSM),
					Op: in.KernelOps[i], Region: in.KernelRegions[i], Label: in.Label}
				if i < len(in.KernelWork) && in.KernelWork[i].Costed {
					w := in.KernelWork[i]
					row.OpFlops, row.OpBytes = optInt{w.Flops, true}, optInt{w.Bytes, w.Bytes > 0}
					row.OpTFLOPS, row.OpIntensity = optIf(w.AchievedTFLOPS(), w.OpKernelNS > 0), optIf(w.Intensity, w.Bytes > 0)
					row.OpBound, row.OpPeakShare = w.Bound, optIf(w.PeakShare, w.Bound != "")
				}
				if err := put(row); err != nil {
					return err
				}
			}
			return nil
		}),
		structTable("kernel-stats", "one per (file, device, kernel name)", func(in *ExportInput, put func(kernelStatsRow) error) error {
			return eachDevice(in, func(d *metrics.DeviceTables) error {
				for _, s := range d.KernelDists {
					if err := put(kernelStatsRow{deviceKey: in.deviceKey(d.Device), Name: s.Name, Family: metrics.Family(s.Name), Count: s.Count,
						TotalNS: s.TotalNS, MeanNS: s.MeanNS, MinNS: s.MinNS, MaxNS: s.MaxNS, Share: s.Share, MedianNS: s.MedianNS,
						StddevNS: s.StddevNS, Occupancy: optIf(s.OccupancyPct, s.HasOccupancy), Label: in.Label}); err != nil {
						return err
					}
				}
				return nil
			})
		}),
		structTable("steps", "one per (file, device, ProfilerStep#N)", func(in *ExportInput, put func(stepRow) error) error {
			for _, d := range summaries(in) {
				for _, dev := range d.Devices {
					for _, s := range dev.Steps {
						c := s.Classes
						if err := put(stepRow{deviceKey: in.deviceKey(dev.Device), Step: s.Number, Start: s.Start, End: s.End, Dur: s.DurNS(),
							Kernels: s.Kernels, BusyNS: s.BusyNS, IdleNS: s.IdleNS,
							ComputeNS: c[metrics.ClassCompute], CommNS: c[metrics.ClassComm], H2DNS: c[metrics.ClassH2D], D2HNS: c[metrics.ClassD2H],
							OtherCopyNS: c[metrics.ClassOtherCopy], MemsetNS: c[metrics.ClassMemset],
							DataLoaderNS: s.Host[metrics.HostDataLoader], OptimizerNS: s.Host[metrics.HostOptimizer], OtherHostNS: s.Host[metrics.HostOther],
							IdleSyncNS: s.IdleSyncNS, IdleLaunchNS: s.IdleLaunchNS, IdleOtherNS: s.IdleOtherNS,
							Util: optIf(s.Util, s.DurNS() > 0), Source: s.Source, Flops: optIntIf(dev.Util.StepFlops(&s)), MFU: optIf(dev.Util.StepMFU(&s)), Label: in.Label}); err != nil {
							return err
						}
					}
				}
			}
			return nil
		}),
		structTable("gaps", "one per idle gap between merged busy intervals of a device (of a stream with --per-stream)", func(in *ExportInput, put func(gapRow) error) error {
			for _, g := range in.Gaps {
				if err := put(gapRow{deviceKey: in.deviceKey(g.Device), Start: g.Start, End: g.End, Dur: g.Len(), SyncNS: g.SyncNS, LaunchNS: g.LaunchNS,
					OtherNS: g.OtherNS, Class: g.Class(), Stream: optInt{g.Stream, g.PerStream}, Label: in.Label}); err != nil {
					return err
				}
			}
			return nil
		}),
		structTable("memcpy", "one per copy", func(in *ExportInput, put func(memcpyRow) error) error {
			for i := range in.Trace.Memcpys {
				m := &in.Trace.Memcpys[i]
				if err := put(memcpyRow{deviceKey: in.deviceKey(m.Device), Stream: m.Stream, Kind: m.Kind.String(), Src: m.Src.String(), Dst: m.Dst.String(),
					Bytes: m.Bytes, Start: m.Start, End: m.End, Dur: m.Dur(), GBps: optIf(metrics.CopyGBps(m.Bytes, m.Dur()), m.Dur() > 0),
					Correlation: known(m.Correlation), Label: in.Label}); err != nil {
					return err
				}
			}
			return nil
		}),
		recordsTable("host", "one per trace without GPU activity (CPU, MPS runs)", HostRecords(nil).Columns, func(in *ExportInput) *Table { return HostRecords(summaries(in)) }),
		structTable("host-ops", "one per (file, host op name) of traces without GPU activity", func(in *ExportInput, put func(hostOpRow) error) error {
			for _, s := range summaries(in) {
				for _, op := range s.Host.AllOps {
					if err := put(hostOpRow{fileKey: in.fileKey(), Name: op.Name, Count: op.Count, TotalNS: op.TotalNS, SelfNS: op.SelfNS, Label: in.Label}); err != nil {
						return err
					}
				}
			}
			return nil
		}),
		structTable("streams", "one per (file, device, stream)", func(in *ExportInput, put func(streamRow) error) error {
			return eachDevice(in, func(d *metrics.DeviceTables) error {
				for _, st := range d.Streams {
					if err := put(streamRow{deviceKey: in.deviceKey(d.Device), Stream: st.Stream, Kernels: st.Kernels, Copies: st.Copies,
						SpanNS: st.SpanNS, BusyNS: st.BusyNS, IdleNS: st.IdleNS, Util: optIf(st.Util, st.SpanNS > 0), Label: in.Label}); err != nil {
						return err
					}
				}
				return nil
			})
		}),
		structTable("api", "one per (file, host API call name)", names),
		structTable("ranges", "one per (file, record_function or NVTX range name)", names),
		structTable("ops", "one per (file, device, host op)", func(in *ExportInput, put func(scopeRow) error) error {
			return eachDevice(in, func(d *metrics.DeviceTables) error {
				for _, o := range d.Ops {
					row := scopeRow{deviceKey: in.deviceKey(d.Device), Name: o.Name, Calls: o.Calls, Kernels: o.Kernels, GPUNS: o.GPUNS,
						CPUNS: o.CPUNS, Share: o.Share, Label: in.Label}
					if w := &o.Work; w.Costed() {
						row.CostedCalls, row.Flops, row.Bytes = optInt{int64(w.CostedCalls), true}, optInt{w.Flops, true}, optInt{w.Bytes, w.Bytes > 0}
						row.TFLOPS, row.Intensity = optIf(w.AchievedTFLOPS(), w.CostedGPUNS > 0), optIf(w.Intensity(), w.Bytes > 0)
						if d.Util != nil {
							if b, share, ok := d.Util.Roofline(w); ok {
								row.Bound, row.PeakShare = b, optIf(share, true)
							}
						}
					} else if o.Name != metrics.NoScope && d.Util != nil && d.Util.Work.Costed() {
						row.CostedCalls = optInt{0, true}
					}
					if err := put(row); err != nil {
						return err
					}
				}
				return nil
			})
		}),
		structTable("regions", "one per (file, device, code region)", func(in *ExportInput, put func(regionRow) error) error {
			return eachDevice(in, func(d *metrics.DeviceTables) error {
				for _, o := range d.Regions {
					if err := put(regionRow{deviceKey: in.deviceKey(d.Device), Name: o.Name, Calls: o.Calls, Kernels: o.Kernels,
						GPUNS: o.GPUNS, CPUNS: o.CPUNS, Share: o.Share, Label: in.Label}); err != nil {
						return err
					}
				}
				return nil
			})
		}),
		findingsTable(),
		structTable("copy-stats", "one per (file, device, copy kind and memory kinds; memsets as kind memset)", func(in *ExportInput, put func(copyStatsRow) error) error {
			return eachDevice(in, func(d *metrics.DeviceTables) error {
				for _, c := range d.Copies {
					if err := put(copyStatsRow{deviceKey: in.deviceKey(d.Device), Kind: c.Kind, Src: c.Src, Dst: c.Dst, Count: c.Count, Bytes: c.Bytes,
						MinBytes: c.MinBytes, MedianBytes: c.MedianBytes, MaxBytes: c.MaxBytes, NS: c.NS, GBps: optIf(c.GBps, c.NS > 0), Label: in.Label}); err != nil {
						return err
					}
				}
				return nil
			})
		}),
	}
}

func findTable(name string) (exportTable, bool) {
	for _, t := range exportTables() {
		if t.name == name {
			return t, true
		}
	}
	return exportTable{}, false
}

// ExportTables lists the table names ExportColumns and Export accept.
func ExportTables() []string {
	var names []string
	for _, t := range exportTables() {
		names = append(names, t.name)
	}
	return names
}

// ExportColumns returns the columns of an export table.
func ExportColumns(table string) ([]Column, bool) {
	t, ok := findTable(table)
	return t.cols, ok
}

// Export writes the rows of one table for one trace, made from in; rw
// must have been made with the table's columns.
func Export(rw *RowWriter, table string, in *ExportInput) error {
	t, ok := findTable(table)
	if !ok {
		return fmt.Errorf("unknown table %q", table)
	}
	if !slices.EqualFunc(t.cols, rw.cols, func(a, b Column) bool { return a.Name == b.Name && a.kind() == b.kind() }) {
		return fmt.Errorf("table %s: the writer has other columns", table)
	}
	return t.rows(rw, in)
}
