package blocks

import "testing"

// TestBudget: a read takes the workers free, at least least of them, and
// gets them back.
func TestBudget(t *testing.T) {
	const p = 4
	b := NewBudget(p)
	if n := b.Take(p, 1); n != p {
		t.Errorf("first read: %d workers, want %d", n, p)
	}
	if n := b.Take(p, 1); n != 1 {
		t.Errorf("with none free: %d workers, want 1", n)
	}
	if n := b.Take(p, 0); n != 0 {
		t.Errorf("with none free, more: %d workers, want 0", n)
	}
	if n := b.Busy(); n != p+1 {
		t.Errorf("%d busy, want %d", n, p+1)
	}
	b.Give(p + 1)
	if n := b.Take(2, 0); n != 2 {
		t.Errorf("after all were given back: %d workers, want 2", n)
	}
	if n := NewBudget(0).Size(); n != 1 {
		t.Errorf("a budget of 0 has %d workers, want 1", n)
	}
}
