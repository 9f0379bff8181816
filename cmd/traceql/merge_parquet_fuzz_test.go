package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// summaryPart writes n summary records of one device each as a Parquet
// part, as export --table summary --format parquet does.
func summaryPart(t testing.TB, n int) []byte {
	t.Helper()
	var sums []metrics.Summary
	for i := range n {
		sums = append(sums, metrics.Summary{Source: fmt.Sprintf("r/rank%d.json", i), Rank: i,
			Devices: []metrics.DeviceSummary{{Device: 0, Name: "generated GPU", Kernels: 3 + i, KernelNS: 1000, SpanNS: 2000, BusyNS: 900, IdleNS: 1100, GPUUtil: 0.45}}})
	}
	rec := report.SummaryRecords(sums)
	var buf bytes.Buffer
	rw, err := newRowWriter(&buf, "parquet", "summary", rec.Columns)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rec.Rows {
		if err := rw.WriteRecord(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkSummaryRead is the property of every read of a summary part: it
// returns records of the summary's columns, of their types, or an error
// that starts with the file's name; it never panics.
func checkSummaryRead(t *testing.T, data []byte, maxBytes int64) error {
	t.Helper()
	got, err := readSummaryParquet(bytes.NewReader(data), int64(len(data)), "part.parquet", maxBytes)
	if err != nil {
		if !strings.HasPrefix(err.Error(), "part.parquet: ") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("error %q: want one line starting with the file's name", err)
		}
		return err
	}
	want := report.SummaryRecords(nil).Columns
	for i, r := range got.Rows {
		if len(r) != len(want) {
			t.Fatalf("row %d: %d values, want %d", i, len(r), len(want))
		}
		for j, v := range r {
			c := want[j]
			ok := v == nil && c.Null
			switch v.(type) {
			case string:
				ok = c.Unit == metrics.Text
			case float64:
				ok = c.Float
			case int64:
				ok = c.Unit != metrics.Text && !c.Float
			}
			if !ok {
				t.Fatalf("row %d %s: %#v is not of its column's type", i, c.Name, v)
			}
		}
	}
	return nil
}

// TestSummaryParquetDamaged: a part with any one byte of its footer and
// last pages inverted, or cut short (every 7th length), is read or refused with one line
// naming it; parquet-go's decoders panicked on 66 of 1,591 such flips.
func TestSummaryParquetDamaged(t *testing.T) {
	part := summaryPart(t, 3)
	from := max(len(part)-1600, 0)
	refused := 0
	for i := from; i < len(part); i++ {
		b := bytes.Clone(part)
		b[i] ^= 0xff
		if checkSummaryRead(t, b, 0) != nil {
			refused++
		}
	}
	for n := 0; n < len(part); n += 7 {
		if checkSummaryRead(t, part[:n], 0) == nil {
			t.Errorf("the part cut to %d of %d bytes read without an error", n, len(part))
		}
	}
	if refused == 0 {
		t.Error("no damaged part was refused")
	}
	t.Logf("%d of %d flips of the last bytes refused", refused, len(part)-from)
}

// TestSummaryParquetBound: a part of many rows is refused once its
// records would pass the memory bound, from its metadata before reading,
// and read whole under a bound it fits.
func TestSummaryParquetBound(t *testing.T) {
	part := summaryPart(t, 1000)
	cols := int64(len(report.SummaryRecords(nil).Columns))
	err := checkSummaryRead(t, part, 1000*cols*recordValueBytes/2)
	if err == nil || !strings.Contains(err.Error(), "1000 rows take more than") {
		t.Errorf("1000 rows under a bound of half their size: %v", err)
	}
	if err := checkSummaryRead(t, part, 1000*cols*recordValueBytes*4); err != nil {
		t.Errorf("1000 rows under a bound of four times their size: %v", err)
	}
}

// FuzzSummaryParquet: whatever the bytes, reading them as a summary part
// never panics, and what it returns has the summary's columns and types.
func FuzzSummaryParquet(f *testing.F) {
	f.Add(summaryPart(f, 0))
	f.Add(summaryPart(f, 3))
	f.Add([]byte("PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSummaryRead(t, data, 64<<20)
	})
}
