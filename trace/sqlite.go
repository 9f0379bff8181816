package trace

import (
	"encoding/binary"
	"fmt"
	"sync"
	"unsafe"

	"modernc.org/libc"
	lib "modernc.org/sqlite/lib"
)

// A sqliteConn is a read-only connection to an SQLite file through the C
// API of modernc.org/sqlite, opened with SQLITE_OPEN_NOMUTEX. The
// database/sql driver opens every connection SQLITE_OPEN_FULLMUTEX, and
// its mutex, taken and released for every column read, was a fifth of the
// CPU time of reading a million kernel rows. A connection and its
// statements are used by one goroutine at a time.
type sqliteConn struct {
	tls *libc.TLS
	db  uintptr
}

// openSQLite opens the database at uri (a file: URI) read-only.
func openSQLite(uri string) (*sqliteConn, error) {
	return openSQLiteFlags(uri, lib.SQLITE_OPEN_READONLY)
}

// openSQLiteFlags opens the database at uri with flags, SQLITE_OPEN_READONLY
// or SQLITE_OPEN_READWRITE.
func openSQLiteFlags(uri string, flags int32) (*sqliteConn, error) {
	c := &sqliteConn{tls: libc.NewTLS()}
	if err := c.open(uri, flags); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *sqliteConn) open(uri string, flags int32) error {
	name, err := libc.CString(uri)
	if err != nil {
		return err
	}
	defer libc.Xfree(c.tls, name)
	p := c.tls.Alloc(ptrSize)
	defer c.tls.Free(ptrSize)
	rc := lib.Xsqlite3_open_v2(c.tls, name, p, flags|lib.SQLITE_OPEN_NOMUTEX|lib.SQLITE_OPEN_URI, 0)
	c.db = ptrAt(p) // set even when opening failed, to be closed
	if rc != lib.SQLITE_OK {
		return c.err(rc)
	}
	return nil
}

// err describes result code rc as the driver does: "message (code)".
func (c *sqliteConn) err(rc int32) error {
	msg := libc.GoString(lib.Xsqlite3_errstr(c.tls, rc))
	if c.db != 0 {
		msg = libc.GoString(lib.Xsqlite3_errmsg(c.tls, c.db))
	}
	return fmt.Errorf("%s (%d)", msg, rc)
}

func (c *sqliteConn) close() {
	if c.db != 0 {
		lib.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}
	c.tls.Close()
}

// A sqlitePool holds the idle connections to one database, so that the
// queries of one read, one after another or several at once, do not each
// open a connection and parse the schema again.
type sqlitePool struct {
	uri  string
	mu   sync.Mutex
	idle []*sqliteConn
}

// get returns an idle connection, or a new one.
func (p *sqlitePool) get() (*sqliteConn, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	return openSQLite(p.uri)
}

func (p *sqlitePool) put(c *sqliteConn) {
	p.mu.Lock()
	p.idle = append(p.idle, c)
	p.mu.Unlock()
}

// close closes the idle connections: all of them, once no query runs.
func (p *sqlitePool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.idle {
		c.close()
	}
	p.idle = nil
}

// query runs q, with args bound to its parameters, and calls row for each
// result row until it returns an error.
func (p *sqlitePool) query(q string, args []string, row func(st *sqliteStmt) error) error {
	c, err := p.get()
	if err != nil {
		return err
	}
	defer p.put(c)
	st, err := c.prepare(q, args)
	if err != nil {
		return err
	}
	defer st.close()
	for {
		more, err := st.step()
		if err != nil || !more {
			return err
		}
		if err := row(st); err != nil {
			return err
		}
	}
}

// A sqliteStmt is a prepared statement of a sqliteConn, and after step
// its current row.
type sqliteStmt struct {
	c    *sqliteConn
	p    uintptr
	vals []uintptr // the current row's columns (sqlite3_value pointers)
}

func (c *sqliteConn) prepare(q string, args []string) (*sqliteStmt, error) {
	zq, err := libc.CString(q)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(c.tls, zq)
	pp := c.tls.Alloc(ptrSize)
	defer c.tls.Free(ptrSize)
	if rc := lib.Xsqlite3_prepare_v2(c.tls, c.db, zq, -1, pp, 0); rc != lib.SQLITE_OK {
		return nil, c.err(rc)
	}
	st := &sqliteStmt{c: c, p: ptrAt(pp)}
	for i, a := range args {
		if err := st.bind(i+1, a); err != nil {
			st.close()
			return nil, err
		}
	}
	st.vals = make([]uintptr, lib.Xsqlite3_column_count(c.tls, st.p))
	return st, nil
}

// bind sets parameter i (from 1) to the text v.
func (s *sqliteStmt) bind(i int, v string) error {
	z, err := libc.CString(v)
	if err != nil {
		return err
	}
	defer libc.Xfree(s.c.tls, z)
	if rc := lib.Xsqlite3_bind_text(s.c.tls, s.p, int32(i), z, int32(len(v)), lib.SQLITE_TRANSIENT); rc != lib.SQLITE_OK {
		return s.c.err(rc)
	}
	return nil
}

// step moves to the next row, and reports whether there is one. The
// row's columns are fetched once: each sqlite3_column_* call checks the
// statement and the connection again, and a column is often read twice
// (its type, then its value). They are unprotected values, which SQLite
// allows reading from the goroutine that uses their connection.
func (s *sqliteStmt) step() (bool, error) {
	switch rc := lib.Xsqlite3_step(s.c.tls, s.p); rc {
	case lib.SQLITE_ROW:
		for i := range s.vals {
			s.vals[i] = lib.Xsqlite3_column_value(s.c.tls, s.p, int32(i))
		}
		return true, nil
	case lib.SQLITE_DONE:
		return false, nil
	default:
		return false, s.c.err(rc)
	}
}

func (s *sqliteStmt) close() { lib.Xsqlite3_finalize(s.c.tls, s.p) }

// kind returns the type of column i of the current row: lib.SQLITE_INTEGER,
// _FLOAT, _TEXT, _BLOB or _NULL.
func (s *sqliteStmt) kind(i int) int32 {
	return lib.Xsqlite3_value_type(s.c.tls, s.vals[i])
}

// int64, float64 and text return column i of the current row as that type.
func (s *sqliteStmt) int64(i int) int64 {
	return lib.Xsqlite3_value_int64(s.c.tls, s.vals[i])
}

func (s *sqliteStmt) float64(i int) float64 {
	return lib.Xsqlite3_value_double(s.c.tls, s.vals[i])
}

// bytes returns the length in bytes of column i of the current row as
// text, without copying it.
func (s *sqliteStmt) bytes(i int) int {
	return int(lib.Xsqlite3_value_bytes(s.c.tls, s.vals[i]))
}

func (s *sqliteStmt) text(i int) string {
	p := lib.Xsqlite3_value_text(s.c.tls, s.vals[i])
	n := lib.Xsqlite3_value_bytes(s.c.tls, s.vals[i])
	if p == 0 || n <= 0 {
		return ""
	}
	return string(libc.GoBytes(p, int(n)))
}

const ptrSize = int(unsafe.Sizeof(uintptr(0)))

// ptrAt returns the pointer that C code stored at p. (Read through a copy,
// as go vet wants no uintptr made an unsafe.Pointer.)
func ptrAt(p uintptr) uintptr {
	b := libc.GoBytes(p, ptrSize)
	if len(b) == 4 {
		return uintptr(binary.NativeEndian.Uint32(b))
	}
	return uintptr(binary.NativeEndian.Uint64(b))
}
