// Package nsysgen writes Nsight Systems–shaped SQLite exports from Go
// values, so that tests of traceql's reader know the ground truth and
// benchmarks can make big inputs without committing them.
//
// The tables are created with the DDL of real exports (schema2026.sql,
// schema2021.sql), and, as nsys does, only when they get rows: a Spec with
// no kernels gives a file without CUPTI_ACTIVITY_KIND_KERNEL.
package nsysgen

import (
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Shape selects which generation of the export schema is written.
type Shape int

// The schema generations.
const (
	// Shape2026 is schema 3.24.14 (nsys 2026.1.1): commented DDL,
	// META_DATA_EXPORT, ENUM_* tables, TARGET_INFO_CUDA_DEVICE, and the newest
	// kernel columns (mangledName, graphId, …).
	Shape2026 Shape = iota
	// Shape2021 is what nsys 2021.2 wrote: one-line DDL, no metadata or ENUM
	// tables, no mangledName, graphId or greenContextId, no NVTX_EVENTS.
	Shape2021
)

// String returns the year of the shape, "2026" or "2021".
func (s Shape) String() string {
	switch s {
	case Shape2026:
		return "2026"
	case Shape2021:
		return "2021"
	}
	return fmt.Sprintf("Shape(%d)", int(s))
}

// A Spec is the content of one export. Times are ns on the session clock.
type Spec struct {
	Shape Shape
	// Version is EXPORT_PRODUCT_VERSION in META_DATA_EXPORT ("2026.1.1.204");
	// "" writes no metadata table. Shape2021 never has one.
	Version string

	GPUs        []GPU        // TARGET_INFO_GPU rows
	CUDADevices []CUDADevice // TARGET_INFO_CUDA_DEVICE rows (Shape2026 only)

	Kernels []Kernel
	Memcpys []Memcpy
	Memsets []Memset
	Syncs   []Sync
	// Events are CUPTI_ACTIVITY_KIND_CUDA_EVENT rows (Shape2026 only):
	// the cudaEventRecord calls' records.
	Events  []Event
	Runtime []API  // CUPTI_ACTIVITY_KIND_RUNTIME rows
	Driver  []API  // CUPTI_ACTIVITY_KIND_DRIVER rows
	NVTX    []NVTX // NVTX_EVENTS rows (Shape2026 only)
	// GraphNodes are CUDA_GRAPH_NODE_EVENTS rows (Shape2026 only), what
	// nsys --cuda-graph-trace=node records of graph nodes.
	GraphNodes []GraphNode

	// SQL holds extra statements run after the rows are inserted, in the
	// same transaction: odd tables, broken rows, whatever a test needs.
	SQL []string
}

// A GPU is one row of TARGET_INFO_GPU.
type GPU struct {
	ID              int
	Name            string
	TotalMemory     int64 // bytes
	MemoryBandwidth int64 // bytes/s
	SMs             int
	ComputeMajor    int
	ComputeMinor    int
}

// A CUDADevice is one row of TARGET_INFO_CUDA_DEVICE.
type CUDADevice struct {
	GPUID  int
	CUDAID int
	PID    int64
	SMs    int
}

// Activity holds the columns every device-side table has. PID is the plain
// process id; it is written as globalPid (see GlobalPID).
type Activity struct {
	Start, End  int64
	Device      int
	Context     int
	Stream      int64
	Correlation int64
	PID         int64
}

// A Kernel is one row of CUPTI_ACTIVITY_KIND_KERNEL.
type Kernel struct {
	Activity
	Name      string // demangledName
	ShortName string // shortName; "" derives it from Name
	Grid      [3]int32
	Block     [3]int32
	Registers int32
	// StaticShared and DynamicShared are shared memory bytes.
	StaticShared, DynamicShared int64
	// GraphID and GraphNode are written as NULL when 0. Shape2021 has no
	// graphId column; GraphID is then dropped.
	GraphID, GraphNode int64
}

// A Memcpy is one row of CUPTI_ACTIVITY_KIND_MEMCPY. Kind, Src and Dst are
// the CUPTI codes (copyKind 1 = HtoD, srcKind 1 = pinned, …).
type Memcpy struct {
	Activity
	Bytes    int64
	Kind     int
	Src, Dst int
}

// A Memset is one row of CUPTI_ACTIVITY_KIND_MEMSET.
type Memset struct {
	Activity
	Bytes   int64
	MemKind int
}

// A Sync is one row of CUPTI_ACTIVITY_KIND_SYNCHRONIZATION; Type is the
// CUPTI syncType (1 event, 2 stream wait, 3 stream, 4 context). EventID
// is the event an event sync or a stream wait waits on (0 writes CUPTI's
// invalid value, as nsys does for the others); EventSyncID links it to
// its record (Shape2026 only; 0 writes NULL).
type Sync struct {
	Activity
	Type                 int
	EventID, EventSyncID int64
}

// An Event is one row of CUPTI_ACTIVITY_KIND_CUDA_EVENT: a cudaEventRecord
// call (Correlation) recording event EventID on Stream. EventSyncID is
// written as NULL when 0.
type Event struct {
	Device      int
	Context     int
	Stream      int64
	Correlation int64
	PID         int64
	EventID     int64
	EventSyncID int64
}

// cuptiInvalid is CUPTI_SYNCHRONIZATION_INVALID_VALUE: no event, no stream.
const cuptiInvalid = 4294967295

// An API is one row of CUPTI_ACTIVITY_KIND_RUNTIME or _DRIVER. Name is
// stored as given, version suffix included ("cudaLaunchKernel_v7000").
type API struct {
	Start, End  int64
	PID, TID    int64
	Correlation int64
	Name        string
	Class       int // eventClass: 0 CUDA runtime, 1 CUDA driver
}

// A GraphNode is one row of CUDA_GRAPH_NODE_EVENTS: a node made on
// thread TID at Start (inside the API call that made it: a launch
// captured from a stream), or, with Original set, a clone of node
// Original (cudaGraphInstantiate clones each node of the graph into the
// executable graph, whose node ids the replayed kernels carry).
type GraphNode struct {
	Start, End int64
	PID, TID   int64
	Node       int64
	Original   int64 // written as NULL when 0
	Name       string
}

// An NVTX is one row of NVTX_EVENTS.
type NVTX struct {
	Start, End int64
	Open       bool // write end as NULL (an unterminated range, a mark)
	Type       int  // eventType: 59 push/pop, 60 start/end, 34 mark, …
	Text       string
	ByID       bool // store Text through textId → StringIds instead of inline
	PID, TID   int64
}

// LocalVM is the VM/host id nsys puts in the top bits of globalPid and
// globalTid for the local machine.
const LocalVM int64 = 1 << 48

// GlobalPID packs a process id the way nsys writes globalPid.
func GlobalPID(pid int64) int64 { return LocalVM | (pid&0xFFFFFF)<<24 }

// GlobalTID packs a process and thread id the way nsys writes globalTid.
func GlobalTID(pid, tid int64) int64 { return GlobalPID(pid) | tid&0xFFFFFF }

//go:embed schema2026.sql
var schema2026 string

//go:embed schema2021.sql
var schema2021 string

var createRE = regexp.MustCompile(`CREATE TABLE (\w+)`)

// ddl maps table names to their CREATE TABLE statements.
func ddl(s Shape) (map[string]string, error) {
	var text string
	switch s {
	case Shape2026:
		text = schema2026
	case Shape2021:
		text = schema2021
	default:
		return nil, fmt.Errorf("nsysgen: unknown shape %v", s)
	}
	m := map[string]string{}
	for stmt := range strings.SplitSeq(text, ";\n") {
		match := createRE.FindStringSubmatch(stmt)
		if match == nil {
			continue
		}
		m[match[1]] = strings.TrimSpace(stmt[strings.Index(stmt, "CREATE TABLE"):])
	}
	return m, nil
}

// DSN returns the database/sql data source name that opens path with the
// modernc.org/sqlite driver; query is appended as the URI's parameters
// ("mode=ro&immutable=1").
func DSN(path, query string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: query}
	return u.String(), nil
}

// Write creates an export at path holding spec, replacing any file there.
func Write(path string, spec Spec) error {
	if err := write(path, spec); err != nil {
		return fmt.Errorf("nsysgen: write %s: %w", path, err)
	}
	return nil
}

func write(path string, spec Spec) (err error) {
	schema, err := ddl(spec.Shape)
	if err != nil {
		return err
	}
	if spec.Shape == Shape2021 {
		if len(spec.NVTX) > 0 {
			return errors.New("the 2021 shape has no NVTX_EVENTS table")
		}
		if len(spec.CUDADevices) > 0 {
			return errors.New("the 2021 shape has no TARGET_INFO_CUDA_DEVICE table")
		}
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	dsn, err := DSN(path, "mode=rwc")
	if err != nil {
		return err
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := db.Close(); err == nil {
			err = cerr
		}
	}()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	for _, p := range []string{"PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF"} {
		if _, err := db.ExecContext(ctx, p); err != nil {
			return err
		}
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	w := &writer{ctx: ctx, tx: tx, schema: schema, shape: spec.Shape, strings: map[string]int64{}}
	if err := w.fill(&spec); err != nil {
		return err
	}
	return tx.Commit()
}

// A writer fills one export inside a transaction.
type writer struct {
	ctx     context.Context
	tx      *sql.Tx
	schema  map[string]string
	shape   Shape
	strings map[string]int64 // StringIds: value → id
	order   []string         // StringIds values by id
	pids    map[int64]bool
}

// str interns s in StringIds and returns its id.
func (w *writer) str(s string) int64 {
	if id, ok := w.strings[s]; ok {
		return id
	}
	id := int64(len(w.order))
	w.strings[s] = id
	w.order = append(w.order, s)
	return id
}

func (w *writer) create(table string) error {
	stmt, ok := w.schema[table]
	if !ok {
		return fmt.Errorf("shape %v has no table %s", w.shape, table)
	}
	_, err := w.tx.ExecContext(w.ctx, stmt)
	return err
}

// table creates table and returns an inserter for cols.
func (w *writer) table(table string, cols ...string) (*inserter, error) {
	if err := w.create(table); err != nil {
		return nil, err
	}
	return newInserter(w.ctx, w.tx, table, cols)
}

func nullable(v int64) any {
	if v == 0 {
		return nil
	}
	return v
}

func (w *writer) gpid(pid int64) int64 {
	if w.pids == nil {
		w.pids = map[int64]bool{}
	}
	w.pids[pid] = true
	return GlobalPID(pid)
}

func (w *writer) fill(spec *Spec) error {
	if err := w.create("StringIds"); err != nil {
		return err
	}
	if spec.Version != "" && w.shape == Shape2026 {
		in, err := w.table("META_DATA_EXPORT", "name", "value")
		if err != nil {
			return err
		}
		for _, kv := range [][2]string{
			{"EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"},
			{"EXPORT_PRODUCT_VERSION", spec.Version},
			{"EXPORT_SCHEMA_VERSION", "3.24.14"},
		} {
			if err := in.add(kv[0], kv[1]); err != nil {
				return err
			}
		}
		if err := in.close(); err != nil {
			return err
		}
	}
	if w.shape == Shape2026 {
		if err := w.enums(); err != nil {
			return err
		}
	}
	steps := []func(*Spec) error{w.gpus, w.kernels, w.memcpys, w.memsets, w.syncs, w.events, w.apis, w.nvtx, w.graphNodes, w.processes, w.stringIDs}
	for _, step := range steps {
		if err := step(spec); err != nil {
			return err
		}
	}
	for _, q := range spec.SQL {
		if _, err := w.tx.ExecContext(w.ctx, q); err != nil {
			return fmt.Errorf("%.60s: %w", q, err)
		}
	}
	return nil
}

func (w *writer) enums() error {
	enums := []struct {
		table  string
		labels []string
	}{
		{"ENUM_CUDA_MEMCPY_OPER", []string{"Unknown", "Host-to-Device", "Device-to-Host", "Host-to-Array", "Array-to-Host", "Array-to-Array", "Array-to-Device", "Device-to-Array", "Device-to-Device", "Host-to-Host", "Peer-to-Peer", "Unified Host-to-Device", "Unified Device-to-Host", "Unified Device-to-Device"}},
		{"ENUM_CUDA_MEM_KIND", []string{"Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static", "Unknown"}},
		{"ENUM_CUPTI_SYNC_TYPE", []string{"Unknown", "Event sync", "Stream wait sync", "Stream sync", "Context sync"}},
	}
	for _, e := range enums {
		in, err := w.table(e.table, "id", "name", "label")
		if err != nil {
			return err
		}
		for i, l := range e.labels {
			name := strings.ToUpper(strings.NewReplacer(" ", "_", "-", "").Replace(l))
			if err := in.add(i, name, l); err != nil {
				return err
			}
		}
		if err := in.close(); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) gpus(spec *Spec) error {
	if len(spec.GPUs) > 0 {
		in, err := w.table("TARGET_INFO_GPU", "vmId", "id", "name", "totalMemory", "memoryBandwidth", "smCount", "computeMajor", "computeMinor")
		if err != nil {
			return err
		}
		for _, g := range spec.GPUs {
			if err := in.add(0, g.ID, g.Name, g.TotalMemory, g.MemoryBandwidth, g.SMs, g.ComputeMajor, g.ComputeMinor); err != nil {
				return err
			}
		}
		if err := in.close(); err != nil {
			return err
		}
	}
	if len(spec.CUDADevices) > 0 {
		in, err := w.table("TARGET_INFO_CUDA_DEVICE", "gpuId", "cudaId", "pid", "numMultiprocessors")
		if err != nil {
			return err
		}
		for _, d := range spec.CUDADevices {
			if err := in.add(d.GPUID, d.CUDAID, d.PID, d.SMs); err != nil {
				return err
			}
		}
		return in.close()
	}
	return nil
}

// ShortName derives nsys's shortName from a demangled kernel name: the
// function's base name without return type, namespaces, template
// arguments or parameters.
func ShortName(name string) string {
	s := name
	if i := strings.IndexByte(s, '('); i > 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '<'); i > 0 {
		s = s[:i]
	}
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.LastIndex(s, "::"); i >= 0 {
		s = s[i+2:]
	}
	if s == "" {
		return name
	}
	return s
}

func (w *writer) kernels(spec *Spec) error {
	if len(spec.Kernels) == 0 {
		return nil
	}
	cols := []string{"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
		"demangledName", "shortName", "launchType", "registersPerThread",
		"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
		"staticSharedMemory", "dynamicSharedMemory", "localMemoryPerThread", "localMemoryTotal", "gridId", "graphNodeId"}
	if w.shape == Shape2026 {
		cols = append(cols, "graphId")
	}
	in, err := w.table("CUPTI_ACTIVITY_KIND_KERNEL", cols...)
	if err != nil {
		return err
	}
	short := map[string]int64{}
	row := make([]any, len(cols))
	for i := range spec.Kernels {
		k := &spec.Kernels[i]
		var sid int64
		if k.ShortName != "" {
			sid = w.str(k.ShortName)
		} else if id, ok := short[k.Name]; ok {
			sid = id
		} else {
			sid = w.str(ShortName(k.Name))
			short[k.Name] = sid
		}
		row = append(row[:0], k.Start, k.End, k.Device, k.Context, k.Stream, k.Correlation, w.gpid(k.PID),
			w.str(k.Name), sid, 1, k.Registers,
			k.Grid[0], k.Grid[1], k.Grid[2], k.Block[0], k.Block[1], k.Block[2],
			k.StaticShared, k.DynamicShared, 0, 0, int64(i+1), nullable(k.GraphNode))
		if w.shape == Shape2026 {
			row = append(row, nullable(k.GraphID))
		}
		if err := in.add(row...); err != nil {
			return err
		}
	}
	return in.close()
}

func (w *writer) memcpys(spec *Spec) error {
	if len(spec.Memcpys) == 0 {
		return nil
	}
	in, err := w.table("CUPTI_ACTIVITY_KIND_MEMCPY", "start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
		"bytes", "copyKind", "srcKind", "dstKind", "srcDeviceId", "dstDeviceId")
	if err != nil {
		return err
	}
	for _, m := range spec.Memcpys {
		if err := in.add(m.Start, m.End, m.Device, m.Context, m.Stream, m.Correlation, w.gpid(m.PID),
			m.Bytes, m.Kind, m.Src, m.Dst, m.Device, m.Device); err != nil {
			return err
		}
	}
	return in.close()
}

func (w *writer) memsets(spec *Spec) error {
	if len(spec.Memsets) == 0 {
		return nil
	}
	in, err := w.table("CUPTI_ACTIVITY_KIND_MEMSET", "start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
		"value", "bytes", "memKind")
	if err != nil {
		return err
	}
	for _, m := range spec.Memsets {
		if err := in.add(m.Start, m.End, m.Device, m.Context, m.Stream, m.Correlation, w.gpid(m.PID), 0, m.Bytes, m.MemKind); err != nil {
			return err
		}
	}
	return in.close()
}

func (w *writer) syncs(spec *Spec) error {
	if len(spec.Syncs) == 0 {
		return nil
	}
	cols := []string{"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "syncType", "eventId"}
	if w.shape == Shape2026 {
		cols = append(cols, "eventSyncId")
	}
	in, err := w.table("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", cols...)
	if err != nil {
		return err
	}
	for _, s := range spec.Syncs {
		ev := s.EventID
		if ev == 0 {
			ev = cuptiInvalid
		}
		row := []any{s.Start, s.End, s.Device, s.Context, s.Stream, s.Correlation, w.gpid(s.PID), s.Type, ev}
		if w.shape == Shape2026 {
			row = append(row, nullIfZero(s.EventSyncID))
		}
		if err := in.add(row...); err != nil {
			return err
		}
	}
	return in.close()
}

func (w *writer) events(spec *Spec) error {
	if len(spec.Events) == 0 {
		return nil
	}
	in, err := w.table("CUPTI_ACTIVITY_KIND_CUDA_EVENT", "timestamp", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
		"eventId", "eventSyncId")
	if err != nil {
		return err
	}
	for _, e := range spec.Events {
		if err := in.add(0, e.Device, e.Context, e.Stream, e.Correlation, w.gpid(e.PID), e.EventID, nullIfZero(e.EventSyncID)); err != nil {
			return err
		}
	}
	return in.close()
}

// nullIfZero is v, or NULL when it is 0.
func nullIfZero(v int64) any {
	if v == 0 {
		return nil
	}
	return v
}

func (w *writer) apis(spec *Spec) error {
	for _, t := range []struct {
		table string
		rows  []API
	}{{"CUPTI_ACTIVITY_KIND_RUNTIME", spec.Runtime}, {"CUPTI_ACTIVITY_KIND_DRIVER", spec.Driver}} {
		if len(t.rows) == 0 {
			continue
		}
		in, err := w.table(t.table, "start", "end", "eventClass", "globalTid", "correlationId", "nameId", "returnValue")
		if err != nil {
			return err
		}
		for _, a := range t.rows {
			w.gpid(a.PID)
			if err := in.add(a.Start, a.End, a.Class, GlobalTID(a.PID, a.TID), a.Correlation, w.str(a.Name), 0); err != nil {
				return err
			}
		}
		if err := in.close(); err != nil {
			return err
		}
	}
	return nil
}

func (w *writer) nvtx(spec *Spec) error {
	if len(spec.NVTX) == 0 {
		return nil
	}
	in, err := w.table("NVTX_EVENTS", "start", "end", "eventType", "text", "textId", "globalTid", "endGlobalTid")
	if err != nil {
		return err
	}
	for _, n := range spec.NVTX {
		var end, text, textID any = n.End, n.Text, nil
		if n.Open {
			end = nil
		}
		if n.ByID {
			text, textID = nil, w.str(n.Text)
		}
		w.gpid(n.PID)
		gtid := GlobalTID(n.PID, n.TID)
		if err := in.add(n.Start, end, n.Type, text, textID, gtid, gtid); err != nil {
			return err
		}
	}
	return in.close()
}

func (w *writer) graphNodes(spec *Spec) error {
	if len(spec.GraphNodes) == 0 {
		return nil
	}
	in, err := w.table("CUDA_GRAPH_NODE_EVENTS", "start", "end", "eventClass", "globalTid", "nameId", "graphNodeId", "originalGraphNodeId")
	if err != nil {
		return err
	}
	for _, g := range spec.GraphNodes {
		w.gpid(g.PID)
		if err := in.add(g.Start, g.End, 0, GlobalTID(g.PID, g.TID), w.str(g.Name), g.Node, nullable(g.Original)); err != nil {
			return err
		}
	}
	return in.close()
}

func (w *writer) processes(*Spec) error {
	if w.shape != Shape2026 || len(w.pids) == 0 {
		return nil
	}
	in, err := w.table("PROCESSES", "globalPid", "pid", "name")
	if err != nil {
		return err
	}
	for pid := range w.pids {
		if err := in.add(GlobalPID(pid), pid, fmt.Sprintf("proc%d", pid)); err != nil {
			return err
		}
	}
	return in.close()
}

func (w *writer) stringIDs(*Spec) error {
	in, err := newInserter(w.ctx, w.tx, "StringIds", []string{"id", "value"})
	if err != nil {
		return err
	}
	for id, s := range w.order {
		if err := in.add(id, s); err != nil {
			return err
		}
	}
	return in.close()
}

// An inserter adds rows to one table, many rows per statement.
type inserter struct {
	ctx   context.Context
	tx    *sql.Tx
	table string
	cols  []string
	batch int       // rows per prepared statement
	stmt  *sql.Stmt // inserts batch rows
	args  []any     // pending rows, flattened
}

// maxParams stays under SQLite's limit on host parameters per statement.
const maxParams = 999

func newInserter(ctx context.Context, tx *sql.Tx, table string, cols []string) (*inserter, error) {
	in := &inserter{ctx: ctx, tx: tx, table: table, cols: cols, batch: max(1, min(64, maxParams/len(cols)))}
	stmt, err := tx.PrepareContext(ctx, in.query(in.batch))
	if err != nil {
		return nil, err
	}
	in.stmt = stmt
	return in, nil
}

func (in *inserter) query(rows int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "INSERT INTO %s (%s) VALUES ", in.table, strings.Join(in.cols, ", "))
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", len(in.cols)), ",") + ")"
	for i := range rows {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(one)
	}
	return b.String()
}

func (in *inserter) add(vals ...any) error {
	if len(vals) != len(in.cols) {
		return fmt.Errorf("%s: %d values for %d columns", in.table, len(vals), len(in.cols))
	}
	in.args = append(in.args, vals...)
	if len(in.args) == in.batch*len(in.cols) {
		if _, err := in.stmt.ExecContext(in.ctx, in.args...); err != nil {
			return fmt.Errorf("insert into %s: %w", in.table, err)
		}
		in.args = in.args[:0]
	}
	return nil
}

// close inserts the pending rows and releases the statement.
func (in *inserter) close() error {
	defer in.stmt.Close()
	if len(in.args) == 0 {
		return nil
	}
	if _, err := in.tx.ExecContext(in.ctx, in.query(len(in.args)/len(in.cols)), in.args...); err != nil {
		return fmt.Errorf("insert into %s: %w", in.table, err)
	}
	in.args = in.args[:0]
	return nil
}

// ManyKernels returns n synthetic kernels for benchmarks: sorted by start,
// back to back on four streams of device 0 in process 4242, with 16
// distinct names and varied launch shapes. Kernel i has correlation id
// i+1.
func ManyKernels(n int) []Kernel {
	names := make([]string, 16)
	for i := range names {
		names[i] = fmt.Sprintf("void ns::kernel_%02d<float, %d>(float const*, float*, int)", i, 128<<(i%4))
	}
	ks := make([]Kernel, n)
	t := int64(1_000_000_000)
	for i := range ks {
		dur := int64(2000 + (i*7919)%50000)
		ks[i] = Kernel{
			Activity: Activity{
				Start:       t,
				End:         t + dur,
				Stream:      int64(7 + i%4),
				Correlation: int64(i + 1),
				PID:         4242,
			},
			Name:          names[(i*31)%len(names)],
			Grid:          [3]int32{int32(1 + i%1024), 1, 1},
			Block:         [3]int32{128 << (i % 4), 1, 1},
			Registers:     32,
			StaticShared:  1024,
			DynamicShared: int64(i%3) * 4096,
		}
		t += dur/2 + 100
	}
	return ks
}
