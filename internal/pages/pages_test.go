package pages

import (
	"runtime/debug"
	"slices"
	"sync"
	"testing"
)

// TestMake checks that Make returns what make does: the length, the
// capacity and zero values, also for empty and zero-size element types.
func TestMake(t *testing.T) {
	type rec struct {
		Name string
		N    int64
	}
	for _, c := range []struct{ n, c int }{{0, 0}, {0, 1}, {3, 1000}, {5000, 5000}} {
		s := Make[rec](c.n, c.c)
		if len(s) != c.n || cap(s) != c.c {
			t.Errorf("Make(%d, %d): len %d cap %d", c.n, c.c, len(s), cap(s))
		}
		for i, r := range s[:cap(s)] {
			if r != (rec{}) {
				t.Fatalf("Make(%d, %d): element %d is %v, not zero", c.n, c.c, i, r)
			}
		}
	}
	if s := Make[struct{}](4, 8); len(s) != 4 || cap(s) != 8 {
		t.Errorf("Make of a zero-size type: len %d cap %d", len(s), cap(s))
	}
	if s := Make[int32](1<<20, 1<<20); len(s) != 1<<20 || s[len(s)-1] != 0 {
		t.Errorf("Make[int32](1M): len %d", len(s))
	}
	// Written in parts by several goroutines, of a size no multiple of a
	// page.
	c := 2*splitBytes/8 + 3
	s := Make[int64](1, c)
	if len(s) != 1 || cap(s) != c || slices.ContainsFunc(s[:c], func(x int64) bool { return x != 0 }) {
		t.Errorf("Make[int64](1, %d): len %d cap %d, or not zero", c, len(s), cap(s))
	}
}

// TestMakeRestoresGCPercent checks that Makes big enough to hold the
// collector off, run at once, leave the collector as they found it.
func TestMakeRestoresGCPercent(t *testing.T) {
	old := debug.SetGCPercent(123)
	defer debug.SetGCPercent(old)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 4 {
				if s := Make[int64](holdBytes/8, holdBytes/8); len(s) != holdBytes/8 {
					t.Errorf("len %d", len(s))
				}
			}
		})
	}
	wg.Wait()
	if got := debug.SetGCPercent(old); got != 123 {
		t.Errorf("GC percent after Make: %d, want 123", got)
	}
}
