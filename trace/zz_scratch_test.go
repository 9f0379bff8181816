package trace

import (
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"
)

func scanAll(b *testing.B, db *sql.DB, q string) int {
	rows, err := db.Query(q)
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	vals := make([]any, 3)
	ptrs := []any{&vals[0], &vals[1], &vals[2]}
	n := 0
	for rows.Next() {
		rows.Scan(ptrs...)
		n++
	}
	return n
}

func TestZZScratch(t *testing.T) {
	b := &testing.B{}
	_ = b
	path := "/tmp/gt/k1m.sqlite"
	dsn, _ := sqliteDSN(path)
	db1, _ := sql.Open("sqlite", dsn)
	db2, _ := sql.Open("sqlite", dsn)
	q := "SELECT start, end, deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL"
	for i := 0; i < 2; i++ {
		t0 := time.Now()
		scanAll(b, db1, q+" WHERE rowid <= 500000")
		scanAll(b, db1, q+" WHERE rowid > 500000")
		seq := time.Since(t0)
		t0 = time.Now()
		var wg sync.WaitGroup
		wg.Go(func() { scanAll(b, db1, q+" WHERE rowid <= 500000") })
		wg.Go(func() { scanAll(b, db2, q+" WHERE rowid > 500000") })
		wg.Wait()
		fmt.Println("seq", seq, "par", time.Since(t0))
	}
}
