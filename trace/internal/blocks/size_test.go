package blocks

import (
	"testing"

	"github.com/traceql/traceql/internal/pages"
)

// TestGrow reads 1 GB in 1 MB parts into a table, with records in all of
// it or only in its first 30 % (Kineto's layout for CPU ops), and with the
// file's size known or guessed ten times too low (gzip): few allocations,
// and little room to spare at the end.
func TestGrow(t *testing.T) {
	const part, parts, perPart = 1 << 20, 1024, 1000
	for _, c := range []struct {
		name        string
		upTo        int   // parts that hold records
		size        int64 // the size grow is told
		projected   bool  // the projection is to be believed (Grow)
		allocs      int   // at most
		spare       float64
		copiedTimes float64 // records copied by growing, per record kept
	}{
		// Growing fourfold copies a record 1/4 + 1/16 + ... = 1/3 times
		// on average; by a quarter, 0.8 + 0.64 + ... = 4 times.
		{"evenly mixed", parts, parts * part, true, 1, 0.25, 0},
		{"evenly mixed, projection not believed", parts, parts * part, false, 6, 0.3, 0.5},
		{"first 30 %", parts * 3 / 10, parts * part, false, 5, 3, 0.5},
		{"size guessed low", parts, parts * part / 10, true, 35, 0.25, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			var tab []int64
			allocs, copied := 0, 0
			for k := range parts {
				n := 0
				if k < c.upTo {
					n = perPart
				}
				before := cap(tab)
				tab = Grow(pages.Options{}, tab, n, 0, int64(k+1)*part, c.size, c.projected)
				if cap(tab) != before {
					allocs++
					copied += len(tab)
				}
				if cap(tab)-len(tab) < n {
					t.Fatalf("part %d: no room for %d records: len %d cap %d", k, n, len(tab), cap(tab))
				}
				for range n {
					tab = append(tab, int64(k))
				}
			}
			if allocs > c.allocs {
				t.Errorf("%d allocations, want at most %d", allocs, c.allocs)
			}
			if spare := float64(cap(tab)-len(tab)) / float64(len(tab)); spare > c.spare {
				t.Errorf("%.2f of the table to spare, want at most %.2f", spare, c.spare)
			}
			if f := float64(copied) / float64(len(tab)); f > c.copiedTimes {
				t.Errorf("each record copied %.2f times, want at most %.2f", f, c.copiedTimes)
			}
		})
	}
}
