package pages

import "testing"

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
}
