package pages

import (
	"slices"
	"sync/atomic"
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
		s := Make[rec](Options{}, c.n, c.c)
		if len(s) != c.n || cap(s) != c.c {
			t.Errorf("Make(%d, %d): len %d cap %d", c.n, c.c, len(s), cap(s))
		}
		for i, r := range s[:cap(s)] {
			if r != (rec{}) {
				t.Fatalf("Make(%d, %d): element %d is %v, not zero", c.n, c.c, i, r)
			}
		}
	}
	if s := Make[struct{}](Options{}, 4, 8); len(s) != 4 || cap(s) != 8 {
		t.Errorf("Make of a zero-size type: len %d cap %d", len(s), cap(s))
	}
	if s := Make[int32](Options{}, 1<<20, 1<<20); len(s) != 1<<20 || s[len(s)-1] != 0 {
		t.Errorf("Make[int32](Options{}, 1M): len %d", len(s))
	}
	// Written in parts by several goroutines, of a size no multiple of a
	// page.
	c := 2*splitBytes/8 + 3
	s := Make[int64](Options{Workers: 4}, 1, c)
	if len(s) != 1 || cap(s) != c || slices.ContainsFunc(s[:c], func(x int64) bool { return x != 0 }) {
		t.Errorf("Make[int64](Options{Workers: 4}, 1, %d): len %d cap %d, or not zero", c, len(s), cap(s))
	}
}

// TestMakeHolds checks that Make calls its hook around the slices of
// HoldBytes or more only, and releases what it held.
func TestMakeHolds(t *testing.T) {
	var held, released atomic.Int32
	hold := func() func() {
		held.Add(1)
		return func() { released.Add(1) }
	}
	if s := Make[int64](Options{Hold: hold}, 1, HoldBytes/8-1); cap(s) != HoldBytes/8-1 || held.Load() != 0 {
		t.Errorf("a slice under HoldBytes: cap %d, held %d times", cap(s), held.Load())
	}
	if s := Make[int64](Options{Hold: hold}, 1, HoldBytes/8); cap(s) != HoldBytes/8 || held.Load() != 1 || released.Load() != 1 {
		t.Errorf("a slice of HoldBytes: cap %d, held %d times, released %d", cap(s), held.Load(), released.Load())
	}
}
