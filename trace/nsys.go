package trace

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/traceql/traceql/internal/pages"
	lib "modernc.org/sqlite/lib"
)

// sqliteMagic opens every SQLite 3 database file.
const sqliteMagic = "SQLite format 3\x00"

// Tables of an Nsight Systems export that traceql reads. nsys creates a
// table only when it has rows, so any of them may be missing.
const (
	nsysStrings   = "StringIds"
	nsysKernel    = "CUPTI_ACTIVITY_KIND_KERNEL"
	nsysMemcpy    = "CUPTI_ACTIVITY_KIND_MEMCPY"
	nsysMemset    = "CUPTI_ACTIVITY_KIND_MEMSET"
	nsysSync      = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
	nsysEvent     = "CUPTI_ACTIVITY_KIND_CUDA_EVENT"
	nsysRuntime   = "CUPTI_ACTIVITY_KIND_RUNTIME"
	nsysDriver    = "CUPTI_ACTIVITY_KIND_DRIVER"
	nsysNVTX      = "NVTX_EVENTS"
	nsysGPU       = "TARGET_INFO_GPU"
	nsysCUDADev   = "TARGET_INFO_CUDA_DEVICE" // 2025.3 and later
	nsysCUDAGPU   = "TARGET_INFO_CUDA_GPU"    // early 2021
	nsysMetaNew   = "META_DATA_EXPORT"        // 2023.3 and later
	nsysMetaOld   = "EXPORT_META_DATA"        // 2022.1 to 2023.2
	nvprofStrings = "StringTable"             // nvprof's SQLite output
)

// NVTX_EVENTS eventType codes (ENUM_NSYS_EVENT_TYPE) of ranges.
const (
	nvtxPushPop  = 59
	nvtxStartEnd = 60
)

// eventClass codes (ENUM_NSYS_EVENT_CLASS) of CUDA driver calls, which
// nsys writes into CUPTI_ACTIVITY_KIND_RUNTIME next to runtime calls.
const (
	eventClassDriver    = 1
	eventClassEGLDriver = 13
)

// cuptiInvalid is CUPTI_SYNCHRONIZATION_INVALID_VALUE, the streamId of a
// synchronization that waits on no stream.
const cuptiInvalid = 0xFFFFFFFF

// syncKinds names CUPTI's syncType codes (ENUM_CUPTI_SYNC_TYPE).
var syncKinds = [...]string{"Unknown", "Event Sync", "Stream Wait", "Stream Sync", "Context Sync"}

// nsysFormat reads Nsight Systems SQLite exports (`nsys export --type
// sqlite`), every schema from 2021.2 to 2026.1; see shared/formats/nsys.md.
type nsysFormat struct{}

func (nsysFormat) sniff(head []byte) bool { return bytes.HasPrefix(head, []byte(sqliteMagic)) }

func (nsysFormat) decode(ctx context.Context, in *input) (*Trace, error) {
	if in.gzipped {
		return nil, fmt.Errorf("%s: a gzipped SQLite database: gunzip it first (traceql reads Nsight Systems exports in place)", in.path)
	}
	if in.size == 0 { // yet it has a header: a pipe
		return nil, fmt.Errorf("%s: an SQLite database is read in place: give the file, not a pipe", in.path)
	}
	path, head, fsize := in.path, in.head, in.size
	if wal := in.path + "-wal"; nonEmpty(wal) {
		// Rows still in the write-ahead log are part of the database, but
		// an immutable read skips the log, and a plain read-only one would
		// make a -shm file beside the input, or fail in a read-only folder.
		dir, err := os.MkdirTemp("", "traceql-wal-")
		if err != nil {
			return nil, fmt.Errorf("%s: %s beside it holds rows not yet in the database; copying both to read them: %w", in.path, filepath.Base(wal), err)
		}
		defer os.RemoveAll(dir)
		if path, err = mergeWAL(in.path, wal, dir); err != nil {
			return nil, fmt.Errorf("%s: %s beside it holds rows not yet in the database; reading a copy of both: %w", in.path, filepath.Base(wal), err)
		}
		if head, fsize, err = sqliteHead(path); err != nil {
			return nil, fmt.Errorf("%s: %w", in.path, err)
		}
	}
	size, err := sqliteSize(in.path, head, fsize)
	if err != nil {
		return nil, err
	}
	dsn, err := sqliteDSN(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", in.path, err)
	}
	r := &nsysReader{
		ctx:    ctx,
		db:     &sqlitePool{uri: dsn},
		path:   in.path,
		size:   size,
		strict: in.opts.Strict,
		t:      &Trace{Source: in.path, Meta: Meta{Format: Nsys, Rank: -1, CorrelationPerProcess: true}},

		progress: in.opts.Progress,
		holdGC:   in.opts.HoldGC,
		workers:  in.workers.b.Size(),
		maxText:  cmp.Or(in.opts.MaxEventBytes, defaultMaxEventBytes),

		keepLaunchArgs: in.opts.Needs != nil && in.opts.Needs.LaunchArgs,
	}
	defer r.db.close()
	return r.read()
}

// nonEmpty reports whether path is a file with something in it: a -wal
// file is left empty, or removed, once checkpointed.
func nonEmpty(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Size() > 0
}

// mergeWAL copies the database at path and its write-ahead log wal into
// dir, and checkpoints the copy, which SQLite then reads as it would the
// pair: the rows in the log included, the input and its log untouched.
// It returns the copy's path.
func mergeWAL(path, wal, dir string) (string, error) {
	cp := filepath.Join(dir, "db.sqlite")
	for src, dst := range map[string]string{path: cp, wal: cp + "-wal"} {
		if err := copyFile(src, dst); err != nil {
			return "", err
		}
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(cp)}
	c, err := openSQLiteFlags(u.String(), lib.SQLITE_OPEN_READWRITE)
	if err != nil {
		return "", err
	}
	defer c.close()
	// Leaving WAL mode checkpoints the log into the copy's pages and
	// header, whose page count sqliteSize then reads.
	st, err := c.prepare("PRAGMA journal_mode=DELETE", nil)
	if err != nil {
		return "", err
	}
	defer st.close()
	for {
		more, err := st.step()
		if err != nil {
			return "", err
		}
		if !more {
			return cp, nil
		}
	}
}

// copyFile copies the file src to a new file dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// sqliteHead reads the first headLen bytes and the size of the file at
// path.
func sqliteHead(path string) ([]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	head := make([]byte, headLen)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, 0, err
	}
	return head[:n], st.Size(), nil
}

// sqliteDSN returns a read-only, immutable URI for path: nothing is ever
// written, and the export is a finished file, so SQLite may skip locking.
func sqliteDSN(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: "mode=ro&immutable=1"}
	return u.String(), nil
}

// sqliteSize returns the database's size: its header's page count times
// its page size, or the file's size where the header's count is not valid
// (its version-valid-for number must equal the change counter). A file
// shorter than its header says, as a cut-off download or copy is, is an
// error; one longer (padded) has the header's size, which bounds the rows
// it may hold.
func sqliteSize(path string, head []byte, size int64) (int64, error) {
	if len(head) < 100 {
		return size, nil
	}
	pageSize := int64(binary.BigEndian.Uint16(head[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize&(pageSize-1) != 0 {
		return size, nil
	}
	if !bytes.Equal(head[24:28], head[92:96]) {
		return size, nil
	}
	pages := int64(binary.BigEndian.Uint32(head[28:32]))
	want := pages * pageSize
	if pages > 0 && size < want {
		return 0, &SyntaxError{File: path, Offset: -1, Msg: fmt.Sprintf("truncated SQLite database: the header says %d bytes, the file has %d", want, size)}
	}
	if pages > 0 {
		return want, nil
	}
	return size, nil
}

// An nsysReader reads one export.
type nsysReader struct {
	ctx    context.Context
	db     *sqlitePool
	path   string
	size   int64 // of the file
	strict bool
	t      *Trace
	tables map[string]bool
	warn   warningCounts

	// Names are StringIds ids while rows are read, resolved at the end in
	// one query: an export holds far more strings than its kernels and
	// API calls use.
	kernelNames [][2]int64 // demangledName, shortName per t.Kernels; -1 when NULL
	apiNames    []int64    // nameId per t.APICalls
	nvtxNames   []nvtxName // NVTX ranges named by textId
	texts       map[string]string

	// progress reports rows read as the file's bytes they stand for:
	// SQLite reads the file itself, so the bytes cannot be counted.
	progress    func(n int)
	bytesPerRow float64

	holdGC  func() func() // Options.HoldGC, for the tables made at once
	workers int           // the most goroutines that read a table (Options.Workers)
	// keepLaunchArgs keeps Trace.LaunchArgs (Needs.LaunchArgs): the
	// graph node ids of captured launch calls (graphNodes).
	keepLaunchArgs bool
	// maxText bounds one string read (Options.MaxEventBytes), and four
	// times it the names read together: a column of StringIds can be
	// generated, 100 MB a name from a file of 2 MB.
	maxText int
}

// An nvtxName is a textId to resolve for t.Ops[op].
type nvtxName struct {
	op int
	id int64
}

func (r *nsysReader) read() (*Trace, error) {
	if err := r.listTables(); err != nil {
		return nil, err
	}
	if !r.tables[nsysStrings] {
		if r.tables[nvprofStrings] {
			return nil, fmt.Errorf("%s: an SQLite database but not an Nsight Systems export (no %s table; nvprof's format has %s, which traceql does not read)", r.path, nsysStrings, nvprofStrings)
		}
		return nil, fmt.Errorf("%s: an SQLite database but not an Nsight Systems export (no %s table; expected the output of `nsys export --type sqlite`)", r.path, nsysStrings)
	}
	r.startProgress()
	steps := []func() error{r.version, r.kernels, r.memcpys, r.memsets, r.syncs, r.apiCalls, r.nvtx, r.resolveNames, r.syncKindsByCall, r.graphNodes}
	for _, step := range steps {
		if err := r.ctx.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", r.path, err)
		}
		if err := step(); err != nil {
			return nil, err
		}
	}
	devices, err := r.devices()
	if err != nil {
		return nil, err
	}
	r.t.Warnings = r.warn.lines()
	return finish(r.t, devices, r.strict)
}

// tableErr wraps an error met while reading table.
func (r *nsysReader) tableErr(table string, err error) error {
	if ctxErr := r.ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", r.path, ctxErr)
	}
	var se *SyntaxError
	if errors.As(err, &se) {
		return err
	}
	return &SyntaxError{File: r.path, Offset: -1, Table: table, Err: err}
}

// listTables reads the schema: a file that is no database fails here.
func (r *nsysReader) listTables() error {
	r.tables = map[string]bool{}
	err := r.db.query("SELECT name FROM sqlite_master WHERE type = 'table'", nil, func(st *sqliteStmt) error {
		r.tables[st.text(0)] = true
		return nil
	})
	if err != nil {
		return r.notReadable(err)
	}
	return nil
}

func (r *nsysReader) notReadable(err error) error {
	if ctxErr := r.ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: %w", r.path, ctxErr)
	}
	return &SyntaxError{File: r.path, Offset: -1, Msg: "not a readable SQLite database", Err: err}
}

// columns returns the names of table's columns.
func (r *nsysReader) columns(table string) (map[string]bool, error) {
	cols := map[string]bool{}
	err := r.db.query("SELECT name FROM pragma_table_info(?)", []string{table}, func(st *sqliteStmt) error {
		cols[st.text(0)] = true
		return nil
	})
	if err != nil {
		return nil, r.tableErr(table, err)
	}
	return cols, nil
}

// selectFrom builds a query of table's columns, in order. A name
// prefixed with "?" is optional and reads as NULL when the table lacks
// it; a missing required column is an error.
func (r *nsysReader) selectFrom(table string, cols []string, where string) (string, error) {
	have, err := r.columns(table)
	if err != nil {
		return "", err
	}
	exprs := make([]string, len(cols))
	for i, c := range cols {
		name, optional := strings.CutPrefix(c, "?")
		switch {
		case have[name]:
			exprs[i] = strconv.Quote(name)
		case optional:
			exprs[i] = "NULL"
		default:
			return "", &SyntaxError{File: r.path, Offset: -1, Table: table, Msg: fmt.Sprintf("no column %s", name)}
		}
	}
	q := fmt.Sprintf("SELECT %s FROM %s", strings.Join(exprs, ", "), table)
	if where != "" {
		q += " WHERE " + where
	}
	return q, nil
}

// parallelRows is the size from which readTable splits a table between
// goroutines, each reading a range of rowids on its own connection.
const parallelRows = 1 << 16

// maxParts bounds the goroutines (and connections) readTable uses.
const maxParts = 4

// minRowBytes is less than any activity row takes in the file: a table
// with more rowids than fileSize/minRowBytes has gaps in its rowids.
const minRowBytes = 16

// readTable reads table's rows: row turns the current row into a value and
// a side value (StringIds ids to resolve later), or skips it. A missing
// table has no rows. Big tables are read in parallel, by rowid ranges,
// each range into its own window of the result, so the rows keep their
// file order.
func readTable[T, A any](r *nsysReader, table string, cols []string, where string, row func(s *rowScanner) (T, A, bool, error)) ([]T, []A, error) {
	if !r.tables[table] {
		return nil, nil, nil
	}
	q, err := r.selectFrom(table, cols, where)
	if err != nil {
		return nil, nil, err
	}
	lo, hi, ok := r.rowids(table)
	span := hi - lo + 1
	if !ok || where != "" || span > max(r.size/minRowBytes, parallelRows) {
		// Filtered, or rowids with gaps: windows would waste memory.
		var ts []T
		var as []A
		s, err := r.scanRows(table, q, cols, 1, func(s *rowScanner) error {
			t, a, ok, err := row(s)
			if ok {
				ts = append(ts, t)
				as = append(as, a)
			}
			return err
		})
		r.merge(s)
		return ts, as, err
	}

	parts := 1
	if span >= parallelRows {
		parts = min(r.workers, maxParts)
	}
	alloc := pages.Options{Hold: r.holdGC, Workers: r.workers}
	ts := pages.Make[T](alloc, int(span), int(span))
	as := pages.Make[A](alloc, int(span), int(span))
	type part struct {
		lo, hi int64 // rowids, inclusive
		n      int   // rows kept, stored from ts[p.lo-lo] on
		s      *rowScanner
		err    error
	}
	ps := make([]part, parts)
	var wg sync.WaitGroup
	for i := range ps {
		p := &ps[i]
		p.lo = lo + span*int64(i)/int64(parts)
		p.hi = lo + span*int64(i+1)/int64(parts) - 1
		wg.Go(func() {
			off := p.lo - lo
			win := p.hi - p.lo + 1
			pq := fmt.Sprintf("%s WHERE rowid BETWEEN %d AND %d", q, p.lo, p.hi)
			p.s, p.err = r.scanRows(table, pq, cols, p.lo, func(s *rowScanner) error {
				t, a, ok, err := row(s)
				if ok {
					if int64(p.n) >= win {
						return fmt.Errorf("more rows than rowids between %d and %d", p.lo, p.hi)
					}
					ts[off+int64(p.n)] = t
					as[off+int64(p.n)] = a
					p.n++
				}
				return err
			})
		})
	}
	wg.Wait()
	n := 0
	for i := range ps {
		p := &ps[i]
		r.merge(p.s)
		if p.err != nil {
			return nil, nil, p.err
		}
		if off := int(p.lo - lo); off != n {
			copy(ts[n:], ts[off:off+p.n])
			copy(as[n:], as[off:off+p.n])
		}
		n += p.n
	}
	clear(ts[n:])
	return ts[:n:n], as[:n:n], nil
}

// rowids returns the smallest and largest rowid of table; ok is false for
// an empty table or one without rowids. SQLite finds each in one seek when
// it is a query's only aggregate: "SELECT min(rowid), max(rowid)" scans the
// whole table.
func (r *nsysReader) rowids(table string) (lo, hi int64, ok bool) {
	err := r.db.query("SELECT (SELECT min(rowid) FROM "+table+"), (SELECT max(rowid) FROM "+table+")", nil, func(st *sqliteStmt) error {
		if st.kind(0) == lib.SQLITE_INTEGER && st.kind(1) == lib.SQLITE_INTEGER {
			lo, hi, ok = st.int64(0), st.int64(1), true
		}
		return nil
	})
	// hi - lo in uint64: rowids from -2^63 to 2^63-1 overflow an int64.
	if err != nil || !ok || hi < lo || uint64(hi)-uint64(lo) > 1<<40 {
		return 0, 0, false
	}
	return lo, hi, true
}

// progressTables are the tables whose rows make up nearly all the reading.
var progressTables = []string{nsysKernel, nsysMemcpy, nsysMemset, nsysSync, nsysRuntime, nsysDriver, nsysNVTX}

// startProgress sets how many of the file's bytes a row read stands for:
// the file's size over the rows of the tables read.
func (r *nsysReader) startProgress() {
	if r.progress == nil {
		return
	}
	var rows int64
	for _, table := range progressTables {
		if !r.tables[table] {
			continue
		}
		if lo, hi, ok := r.rowids(table); ok {
			rows += hi - lo + 1
		}
	}
	if rows > 0 {
		r.bytesPerRow = float64(r.size) / float64(rows)
	}
}

// checkRows is how often a scan checks its context and reports progress.
const checkRows = 1 << 14

// scanRows runs q and calls row for each result. first is the number of
// the first row, for messages.
func (r *nsysReader) scanRows(table, q string, cols []string, first int64, row func(s *rowScanner) error) (*rowScanner, error) {
	s := &rowScanner{table: table, path: r.path, strict: r.strict, cols: cols, first: first, maxText: r.maxText}
	err := r.db.query(q, nil, func(st *sqliteStmt) error {
		s.st = st
		s.n++
		if s.n%checkRows == 0 {
			if err := r.ctx.Err(); err != nil {
				return err
			}
			if r.bytesPerRow > 0 {
				r.progress(int(r.bytesPerRow * checkRows))
			}
		}
		if err := row(s); err != nil {
			return err
		}
		if s.bad != nil {
			return &SyntaxError{File: r.path, Offset: -1, Table: table, Msg: fmt.Sprintf("row %d", s.row()), Err: s.bad}
		}
		return nil
	})
	if err != nil {
		return s, r.tableErr(table, err)
	}
	return s, nil
}

// merge adds what a scan counted to the trace.
func (r *nsysReader) merge(s *rowScanner) {
	if s == nil {
		return
	}
	r.t.Meta.Events += s.n
	for _, m := range s.warn.order {
		if r.warn.n == nil {
			r.warn.n = map[string]int{}
		}
		if r.warn.n[m] == 0 {
			r.warn.order = append(r.warn.order, m)
		}
		r.warn.n[m] += s.warn.n[m]
	}
}

// A rowScanner reads the current row of a query, and counts its own
// warnings, so that several can run at once.
type rowScanner struct {
	table  string
	path   string
	strict bool
	cols   []string
	st     *sqliteStmt
	first  int64         // number of the first row
	n      int           // rows read so far
	bad    error         // the first value of the current row that has the wrong type or size
	warn   warningCounts // skipped rows
	// maxText bounds a text value (nsysReader.maxText); 0: no bound.
	maxText int
}

// row returns the number of the current row: its rowid when rowids have
// no gaps.
func (s *rowScanner) row() int64 { return s.first + int64(s.n) - 1 }

// null reports whether column i is NULL.
func (s *rowScanner) null(i int) bool { return s.st.kind(i) == lib.SQLITE_NULL }

// int returns integer column i, 0 when NULL.
func (s *rowScanner) int(i int) int64 {
	switch s.st.kind(i) {
	case lib.SQLITE_INTEGER:
		return s.st.int64(i)
	case lib.SQLITE_NULL:
		return 0
	case lib.SQLITE_FLOAT:
		if v := s.st.float64(i); v == float64(int64(v)) {
			return int64(v)
		}
	}
	if s.bad == nil {
		v, _ := s.text(i)
		if s.st.kind(i) != lib.SQLITE_FLOAT {
			v = fmt.Sprintf("%.40q", v)
		}
		s.bad = fmt.Errorf("column %s: %s is not an integer", strings.TrimPrefix(s.cols[i], "?"), v)
	}
	return 0
}

// text returns text column i and whether it was not NULL; numbers are
// given in decimal.
func (s *rowScanner) text(i int) (string, bool) {
	switch s.st.kind(i) {
	case lib.SQLITE_NULL:
		return "", false
	case lib.SQLITE_INTEGER:
		return strconv.FormatInt(s.st.int64(i), 10), true
	case lib.SQLITE_FLOAT:
		return strconv.FormatFloat(s.st.float64(i), 'g', -1, 64), true
	}
	if n := s.st.bytes(i); s.maxText > 0 && n > s.maxText {
		if s.bad == nil {
			s.bad = fmt.Errorf("column %s: a value of %d bytes, larger than the %s the memory available allows reading", strings.TrimPrefix(s.cols[i], "?"), n, mib(s.maxText))
		}
		return "", true
	}
	return s.st.text(i), true
}

// span checks the start and end of the current row, in columns 0 and 1.
// A row without both, or ending before it starts, is skipped with a
// warning, or is an error under Strict.
func (s *rowScanner) span() (start, end int64, ok bool, err error) {
	if s.null(0) || s.null(1) {
		return 0, 0, false, s.skip("without start or end", "start or end is NULL")
	}
	start, end = s.int(0), s.int(1)
	if end < start {
		return 0, 0, false, s.skip("with end before start", fmt.Sprintf("end %d before start %d", end, start))
	}
	if start < -MaxTime || end > MaxTime {
		return 0, 0, false, s.skip("beyond ±2^62 ns (146 years) of zero", fmt.Sprintf("start %d or end %d beyond ±2^62 ns", start, end))
	}
	return start, end, true, nil
}

func (s *rowScanner) skip(what, detail string) error {
	if s.strict {
		return &SyntaxError{File: s.path, Offset: -1, Table: s.table, Msg: fmt.Sprintf("row %d: %s", s.row(), detail)}
	}
	s.warn.add(fmt.Sprintf("%s rows %s skipped", s.table, what))
	return nil
}

// pidOf unpacks the process id from a globalPid or globalTid.
func pidOf(global int64) int64 { return (global >> 24) & 0xFFFFFF }

// tidOf unpacks the thread id from a globalTid.
func tidOf(global int64) int64 { return global & 0xFFFFFF }

// activityCols are the columns every device table starts with.
var activityCols = []string{"start", "end", "deviceId", "streamId", "?correlationId", "?globalPid"}

// activity makes the Activity of a row that starts with activityCols.
func activity(s *rowScanner, start, end int64) Activity {
	return Activity{
		Start:       start,
		End:         end,
		Device:      int(s.int(2)),
		Stream:      s.int(3),
		Correlation: s.int(4),
		PID:         pidOf(s.int(5)),
	}
}

func (r *nsysReader) kernels() (err error) {
	cols := append(slices.Clone(activityCols),
		"?demangledName", "?shortName", // 6, 7
		"?gridX", "?gridY", "?gridZ", "?blockX", "?blockY", "?blockZ", // 8–13
		"?registersPerThread", "?staticSharedMemory", "?dynamicSharedMemory", // 14–16
		"?graphId", "?graphNodeId") // 17, 18
	r.t.Kernels, r.kernelNames, err = readTable(r, nsysKernel, cols, "", func(s *rowScanner) (Kernel, [2]int64, bool, error) {
		start, end, ok, err := s.span()
		if !ok {
			return Kernel{}, [2]int64{}, false, err
		}
		names := [2]int64{-1, -1}
		for i := range names {
			if !s.null(6 + i) {
				names[i] = s.int(6 + i)
			}
		}
		return Kernel{
			Activity:  activity(s, start, end),
			Grid:      [3]int32{int32(s.int(8)), int32(s.int(9)), int32(s.int(10))},
			Block:     [3]int32{int32(s.int(11)), int32(s.int(12)), int32(s.int(13))},
			Registers: int32(s.int(14)),
			SharedMem: s.int(15) + s.int(16),
			GraphID:   s.int(17),
			GraphNode: s.int(18),
		}, names, true, nil
	})
	return err
}

// copyKind keeps CUPTI's code, so kinds newer than traceql still differ.
func copyKind(code int64) CopyKind {
	if code < 0 || code > 255 {
		return CopyUnknown
	}
	return CopyKind(code)
}

func memKind(s *rowScanner, i int) MemKind {
	if s.null(i) {
		return MemUnknown
	}
	code := s.int(i)
	if code < 0 || code > 255 {
		return MemUnknown
	}
	return MemKind(code)
}

func (r *nsysReader) memcpys() (err error) {
	cols := append(slices.Clone(activityCols), "bytes", "copyKind", "?srcKind", "?dstKind")
	r.t.Memcpys, _, err = readTable(r, nsysMemcpy, cols, "", func(s *rowScanner) (Memcpy, struct{}, bool, error) {
		start, end, ok, err := s.span()
		if !ok {
			return Memcpy{}, struct{}{}, false, err
		}
		return Memcpy{
			Activity: activity(s, start, end),
			Bytes:    s.int(6),
			Kind:     copyKind(s.int(7)),
			Src:      memKind(s, 8),
			Dst:      memKind(s, 9),
		}, struct{}{}, true, nil
	})
	return err
}

func (r *nsysReader) memsets() (err error) {
	cols := append(slices.Clone(activityCols), "bytes", "?memKind")
	r.t.Memsets, _, err = readTable(r, nsysMemset, cols, "", func(s *rowScanner) (Memset, struct{}, bool, error) {
		start, end, ok, err := s.span()
		if !ok {
			return Memset{}, struct{}{}, false, err
		}
		return Memset{
			Activity: activity(s, start, end),
			Bytes:    s.int(6),
			Mem:      memKind(s, 7),
		}, struct{}{}, true, nil
	})
	return err
}

func (r *nsysReader) syncs() (err error) {
	cols := append(slices.Clone(activityCols), "?syncType", "?eventId", "?eventSyncId")
	var evs []syncEvent
	r.t.Syncs, evs, err = readTable(r, nsysSync, cols, "", func(s *rowScanner) (Sync, syncEvent, bool, error) {
		start, end, ok, err := s.span()
		if !ok {
			return Sync{}, syncEvent{}, false, err
		}
		kind := syncKinds[0]
		if c := s.int(6); c > 0 && c < int64(len(syncKinds)) {
			kind = syncKinds[c]
		}
		a := activity(s, start, end)
		if a.Stream == cuptiInvalid {
			a.Stream = -1 // event and context syncs belong to no stream
		}
		ev := syncEvent{id: -1, syncID: s.int(8)}
		if !s.null(7) && s.int(7) != cuptiInvalid {
			ev.id = s.int(7)
		}
		return Sync{Activity: a, Kind: kind}, ev, true, nil
	})
	if err != nil {
		return err
	}
	return r.eventWaits(evs)
}

// syncCallKinds names the kind of synchronization each runtime or driver
// call makes, as syncKinds does.
var syncCallKinds = map[string]string{
	"cudaStreamWaitEvent": "Stream Wait", "cuStreamWaitEvent": "Stream Wait",
	"cudaEventSynchronize": "Event Sync", "cuEventSynchronize": "Event Sync",
	"cudaStreamSynchronize": "Stream Sync", "cuStreamSynchronize": "Stream Sync",
	"cudaDeviceSynchronize": "Context Sync", "cuCtxSynchronize": "Context Sync",
}

// syncKindsByCall takes each synchronization's kind from the call that
// made it, where the export has that call: before nsys 2025.5 the
// syncType codes did not follow ENUM_CUPTI_SYNC_TYPE (seen: nsys 2022.1
// writes 1 for cudaDeviceSynchronize, 2 for cudaEventSynchronize and 3
// for cudaStreamWaitEvent; 2024.2 writes 3 for cudaStreamWaitEvent), and a
// stream's wait on an event read as a host sync would blame the host for
// idle time it did not cause.
func (r *nsysReader) syncKindsByCall() error {
	if len(r.t.Syncs) == 0 {
		return nil
	}
	type key struct{ pid, corr int64 }
	kinds := map[key]string{}
	for i := range r.t.APICalls {
		c := &r.t.APICalls[i]
		if k, ok := syncCallKinds[c.Name]; ok && c.Correlation != 0 {
			kinds[key{c.PID, c.Correlation}] = k
		}
	}
	for i := range r.t.Syncs {
		s := &r.t.Syncs[i]
		if k, ok := kinds[key{s.PID, s.Correlation}]; ok {
			s.Kind = k
		}
	}
	return nil
}

// A syncEvent is the event a SYNCHRONIZATION row waits on (an event sync,
// a stream's wait on an event): CUPTI's eventId (-1: none) and, from nsys
// 2025.5, the eventSyncId that names the record it waits for (0: none).
type syncEvent struct{ id, syncID int64 }

// An eventRecord is a CUDA_EVENT row: the cudaEventRecord call
// (correlation) that recorded event id on stream.
type eventRecord struct{ pid, stream, corr, id, syncID int64 }

// eventWaits says which record each event sync and stream wait of
// r.t.Syncs (evs[i] is Syncs[i]'s event) waits for, as Kineto's
// wait_on_stream and wait_on_cuda_event_record_corr_id do: the record its
// eventSyncId names, else the last record of its event in its process
// made before it (correlation ids rise with the calls). Exports without
// the CUDA_EVENT table (nsys 2021) leave them unknown.
func (r *nsysReader) eventWaits(evs []syncEvent) error {
	if !r.tables[nsysEvent] || !slices.ContainsFunc(evs, func(e syncEvent) bool { return e.id >= 0 }) {
		return nil
	}
	recs, _, err := readTable(r, nsysEvent, []string{"streamId", "?correlationId", "?globalPid", "eventId", "?eventSyncId"},
		"", func(s *rowScanner) (eventRecord, struct{}, bool, error) {
			rec := eventRecord{stream: s.int(0), corr: s.int(1), pid: pidOf(s.int(2)), id: s.int(3), syncID: s.int(4)}
			return rec, struct{}{}, rec.corr > 0, nil
		})
	if err != nil {
		return err
	}
	type key struct{ pid, id int64 }
	bySync := map[key]eventRecord{}
	byEvent := map[key][]eventRecord{}
	for _, rec := range recs {
		if rec.syncID != 0 {
			bySync[key{rec.pid, rec.syncID}] = rec
		}
		byEvent[key{rec.pid, rec.id}] = append(byEvent[key{rec.pid, rec.id}], rec)
	}
	for _, rs := range byEvent {
		slices.SortFunc(rs, func(a, b eventRecord) int { return cmp.Compare(a.corr, b.corr) })
	}
	for i, ev := range evs {
		s := &r.t.Syncs[i]
		if ev.id < 0 {
			continue
		}
		rec, ok := bySync[key{s.PID, ev.syncID}]
		if ev.syncID == 0 || !ok {
			rs := byEvent[key{s.PID, ev.id}]
			k, _ := slices.BinarySearchFunc(rs, s.Correlation, func(r eventRecord, c int64) int { return cmp.Compare(r.corr, c) })
			if k == 0 || s.Correlation == 0 {
				continue
			}
			rec = rs[k-1]
		}
		s.WaitStream, s.WaitRecord = rec.stream, rec.corr
	}
	return nil
}

func (r *nsysReader) apiCalls() error {
	cols := []string{"start", "end", "?globalTid", "?correlationId", "nameId", "?eventClass"}
	for _, table := range []string{nsysRuntime, nsysDriver} {
		calls, names, err := readTable(r, table, cols, "", func(s *rowScanner) (APICall, int64, bool, error) {
			start, end, ok, err := s.span()
			if !ok {
				return APICall{}, 0, false, err
			}
			kind := Runtime
			if c := s.int(5); table == nsysDriver || c == eventClassDriver || c == eventClassEGLDriver {
				kind = Driver
			}
			tid := s.int(2)
			return APICall{
				Kind:        kind,
				PID:         pidOf(tid),
				TID:         tidOf(tid),
				Start:       start,
				End:         end,
				Correlation: s.int(3),
			}, s.int(4), true, nil
		})
		if err != nil {
			return err
		}
		r.t.APICalls = append(r.t.APICalls, calls...)
		r.apiNames = append(r.apiNames, names...)
	}
	return nil
}

func (r *nsysReader) nvtx() (err error) {
	cols := []string{"start", "end", "?text", "?textId", "?globalTid"}
	// Other event types are marks, domains and categories. A range whose
	// end is NULL was still open when the capture stopped.
	where := fmt.Sprintf(`"eventType" IN (%d, %d) AND "end" IS NOT NULL`, nvtxPushPop, nvtxStartEnd)
	var ids []int64
	r.t.Ops, ids, err = readTable(r, nsysNVTX, cols, where, func(s *rowScanner) (Op, int64, bool, error) {
		start, end, ok, err := s.span()
		if !ok {
			return Op{}, 0, false, err
		}
		tid := s.int(4)
		op := Op{Kind: NVTXRange, PID: pidOf(tid), TID: tidOf(tid), Start: start, End: end}
		id := int64(-1)
		if text, ok := s.text(2); ok {
			op.Name = text
		} else if !s.null(3) {
			id = s.int(3)
		}
		return op, id, true, nil
	})
	for i, id := range ids {
		if id >= 0 {
			r.nvtxNames = append(r.nvtxNames, nvtxName{op: i, id: id})
		} else {
			r.t.Ops[i].Name = r.intern(r.t.Ops[i].Name)
		}
	}
	return err
}

// intern returns the one copy of s that this trace keeps.
func (r *nsysReader) intern(s string) string {
	if v, ok := r.texts[s]; ok {
		return v
	}
	if r.texts == nil {
		r.texts = map[string]string{}
	}
	r.texts[s] = s
	return s
}

// resolveNames looks up the StringIds the rows referred to and names the
// kernels, API calls and NVTX ranges.
func (r *nsysReader) resolveNames() error {
	want := map[int64]string{}
	// Rows come in runs of one name: skip the map when the id repeats.
	need := func(last *int64, id int64) {
		if id >= 0 && id != *last {
			want[id] = ""
			*last = id
		}
	}
	lastK, lastS, lastA, lastN := int64(-1), int64(-1), int64(-1), int64(-1)
	for _, n := range r.kernelNames {
		need(&lastK, n[0])
		need(&lastS, n[1])
	}
	for _, id := range r.apiNames {
		need(&lastA, id)
	}
	for _, n := range r.nvtxNames {
		need(&lastN, n.id)
	}
	if len(want) == 0 {
		return nil
	}
	strs, err := r.strings(want)
	if err != nil {
		return err
	}

	missing := func(table, what string, id int64) string {
		r.warn.add(fmt.Sprintf("%s %s not in %s", table, what, nsysStrings))
		return fmt.Sprintf("unknown (%s %d missing)", nsysStrings, id)
	}
	unknown := map[int64]string{} // names of missing ids, made once
	for i, n := range r.kernelNames {
		name, ok := strs[n[0]]
		if !ok || name == "" {
			if short, ok := strs[n[1]]; ok && short != "" {
				name = short
			} else {
				if name, ok = unknown[n[0]]; !ok {
					name = missing(nsysKernel, "names", n[0])
					unknown[n[0]] = name
				}
			}
		}
		r.t.Kernels[i].Name = name
	}
	api := map[int64]string{}
	for i, id := range r.apiNames {
		name, ok := api[id]
		if !ok {
			if s, found := strs[id]; found {
				name = stripAPIVersion(s)
			} else {
				name = missing("API", "names", id)
			}
			api[id] = name
		}
		r.t.APICalls[i].Name = name
	}
	for _, n := range r.nvtxNames {
		name, ok := strs[n.id]
		if !ok {
			r.warn.add(fmt.Sprintf("%s textIds not in %s", nsysNVTX, nsysStrings))
		}
		r.t.Ops[n.op].Name = name
	}
	r.kernelNames, r.apiNames, r.nvtxNames = nil, nil, nil
	return nil
}

// strings fetches the StringIds values of the ids in want, in one query.
func (r *nsysReader) strings(want map[int64]string) (map[int64]string, error) {
	var ids strings.Builder
	ids.WriteByte('[')
	for id := range want {
		if ids.Len() > 1 {
			ids.WriteByte(',')
		}
		ids.WriteString(strconv.FormatInt(id, 10))
	}
	ids.WriteByte(']')
	q := `SELECT "id", "value" FROM ` + nsysStrings + ` WHERE "id" IN (SELECT value FROM json_each(?))`
	got := make(map[int64]string, len(want))
	var total int64
	err := r.db.query(q, []string{ids.String()}, func(st *sqliteStmt) error {
		n := st.bytes(1)
		total += int64(n)
		switch {
		case n > r.maxText:
			return fmt.Errorf("id %d: a string of %d bytes, larger than the %s the memory available allows reading", st.int64(0), n, mib(r.maxText))
		case total > 4*int64(r.maxText):
			return fmt.Errorf("the names used take more than %s", mib(4*r.maxText))
		}
		got[st.int64(0)] = st.text(1)
		return nil
	})
	if err != nil {
		return nil, r.tableErr(nsysStrings, err)
	}
	return got, nil
}

// stripAPIVersion drops the CUPTI version suffix of an API name:
// cudaLaunchKernel_v7000 → cudaLaunchKernel, cudaLaunchKernelExC_v11060 →
// cudaLaunchKernelExC. nsys stats strips exactly six characters ("_v" and
// four more), so it keeps five-digit versions; traceql drops "_v" followed
// by four or five digits, and keeps shorter suffixes that are part of the
// function's name (cuGetProcAddress_v2).
func stripAPIVersion(name string) string {
	i := strings.LastIndex(name, "_v")
	if i <= 0 {
		return name
	}
	digits := name[i+2:]
	if len(digits) < 4 || len(digits) > 5 {
		return name
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return name
		}
	}
	return name[:i]
}

func (r *nsysReader) version() error {
	for _, table := range []string{nsysMetaNew, nsysMetaOld} {
		if !r.tables[table] {
			continue
		}
		found := false
		err := r.db.query(`SELECT "value" FROM `+table+` WHERE "name" = 'EXPORT_PRODUCT_VERSION' LIMIT 1`, nil, func(st *sqliteStmt) error {
			r.t.Meta.Version, found = st.text(0), true
			return nil
		})
		if err != nil {
			return r.tableErr(table, err)
		}
		if found {
			return nil
		}
	}
	return nil
}

// devices reads what the export says about GPUs: TARGET_INFO_GPU lists
// every GPU of the machine; exports without it have
// TARGET_INFO_CUDA_DEVICE (SM counts only) or, early in 2021,
// TARGET_INFO_CUDA_GPU. The activity tables' deviceId is Nsight's GPU id,
// TARGET_INFO_GPU.id, which is how nsys's own cuda_gpu_trace report joins
// them; its cuDevice column, the CUDA ordinal, is another numbering (on
// the shared 4×A100 export, id 0 is cuDevice 1), so a device's number here
// is Nsight's, not what torch.cuda.device() would say.
func (r *nsysReader) devices() ([]Device, error) {
	var devs []Device
	seen := map[int]bool{}
	add := func(d Device) {
		if !seen[d.ID] {
			seen[d.ID] = true
			devs = append(devs, d)
		}
	}
	switch {
	case r.tables[nsysGPU]:
		cols := []string{"id", "?name", "?totalMemory", "?smCount", "?memoryBandwidth", "?computeMajor", "?computeMinor"}
		err := r.scanInfo(nsysGPU, cols, func(s *rowScanner) {
			name, _ := s.text(1)
			add(Device{ID: int(s.int(0)), Name: name, TotalMemBytes: s.int(2), SMs: int(s.int(3)),
				MemBandwidthBs: s.int(4), ComputeMajor: int(s.int(5)), ComputeMinor: int(s.int(6))})
		})
		return devs, err
	case r.tables[nsysCUDADev]:
		cols := []string{"?gpuId", "cudaId", "?numMultiprocessors"}
		err := r.scanInfo(nsysCUDADev, cols, func(s *rowScanner) {
			id := s.int(0)
			if s.null(0) {
				id = s.int(1)
			}
			add(Device{ID: int(id), SMs: int(s.int(2))})
		})
		return devs, err
	case r.tables[nsysCUDAGPU]:
		have, err := r.columns(nsysCUDAGPU)
		if err != nil {
			return nil, err
		}
		id := "id"
		if have["deviceId"] {
			id = "deviceId"
		}
		mem := "?totalMemory"
		if have["totalGlobalMem"] {
			mem = "totalGlobalMem"
		}
		cols := []string{id, "?name", mem, "?numMultiprocessors", "?memoryBandwidth", "?computeCapabilityMajor", "?computeCapabilityMinor"}
		err = r.scanInfo(nsysCUDAGPU, cols, func(s *rowScanner) {
			name, _ := s.text(1)
			add(Device{ID: int(s.int(0)), Name: name, TotalMemBytes: s.int(2), SMs: int(s.int(3)),
				MemBandwidthBs: s.int(4), ComputeMajor: int(s.int(5)), ComputeMinor: int(s.int(6))})
		})
		return devs, err
	}
	return nil, nil
}

// scanInfo reads a table that describes the target rather than events.
func (r *nsysReader) scanInfo(table string, cols []string, row func(s *rowScanner)) error {
	q, err := r.selectFrom(table, cols, "")
	if err != nil {
		return err
	}
	_, err = r.scanRows(table, q, cols, 1, func(s *rowScanner) error {
		row(s)
		return nil
	})
	return err
}
