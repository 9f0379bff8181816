package main

import (
	"crypto/sha256"
	"database/sql"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/nsysgen"
)

// TestNsysWAL: an export in WAL mode whose latest changes are still in
// its -wal file is read as SQLite reads it, not as its main file alone
// says; the export and its -wal stay byte for byte as they were, and no
// -shm file appears beside them.
func TestNsysWAL(t *testing.T) {
	dir := t.TempDir()
	live := filepath.Join(dir, "live.sqlite")
	spec := nsysgen.Spec{Version: "2026.1.1.204", GPUs: []nsysgen.GPU{{ID: 0, Name: "generated GPU", SMs: 132}},
		Kernels: nsysgen.ManyKernels(328)}
	if err := nsysgen.Write(live, spec); err != nil {
		t.Fatal(err)
	}
	dsn, err := nsysgen.DSN(live, "")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0",
		"DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid > 10"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Copied while the connection is open, before closing it checkpoints
	// the log: the state of an export still being written, or of one
	// copied off a machine with its -wal.
	snap := filepath.Join(dir, "snap")
	if err := os.Mkdir(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(snap, "run.sqlite")
	sums := map[string][32]byte{}
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(live + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path+suffix, b, 0o444); err != nil {
			t.Fatal(err)
		}
		sums[suffix] = sha256.Sum256(b)
	}
	if st, _ := os.Stat(path + "-wal"); st.Size() == 0 {
		t.Fatal("the -wal file is empty: the test made no WAL state")
	}
	os.Chmod(snap, 0o555) // as a read-only share: nothing may be made beside the export
	defer os.Chmod(snap, 0o755)

	out, errOut, code := traceql("summarize", "-f", "csv", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("%d records, %v:\n%s", len(recs), err, out)
	}
	col := map[string]string{}
	for i, name := range recs[0] {
		col[name] = recs[1][i]
	}
	if col["kernels"] != "10" {
		t.Errorf("kernels = %s, want the 10 that SQLite sees with the -wal (328 without)", col["kernels"])
	}
	for suffix, want := range sums {
		if b, err := os.ReadFile(path + suffix); err != nil || sha256.Sum256(b) != want {
			t.Errorf("run.sqlite%s changed (%v)", suffix, err)
		}
	}
	ents, _ := os.ReadDir(snap)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "run.sqlite run.sqlite-wal" {
		t.Errorf("the folder holds %q, want the export and its -wal alone", names)
	}
	if errOut != "" {
		t.Errorf("stderr: %s", errOut)
	}
}
