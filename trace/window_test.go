package trace

import "testing"

func TestClip(t *testing.T) {
	k := func(s, e int64) Kernel { return Kernel{Activity: Activity{Start: s, End: e}} }
	tr := &Trace{
		Devices: []Device{{ID: 0}},
		Streams: []Stream{{0, 0}},
		Kernels: []Kernel{k(0, 10), k(5, 15), k(20, 30), k(30, 40), k(50, 60)},
		Ops:     []Op{{Name: "a", Start: 0, End: 100}},
	}
	c := tr.Clip(Window{Start: 10, End: 30})
	want := []Kernel{k(10, 15), k(20, 30)}
	if len(c.Kernels) != len(want) {
		t.Fatalf("clipped kernels %v, want %v", c.Kernels, want)
	}
	for i := range want {
		if c.Kernels[i] != want[i] {
			t.Errorf("kernel %d = %v, want %v", i, c.Kernels[i], want[i])
		}
	}
	if c.Ops[0].Start != 0 || c.Ops[0].End != 100 || c.Window == nil || c.Window.Start != 10 || c.Window.End != 30 {
		t.Errorf("op %+v, window %+v: want the op whole and the window recorded", c.Ops[0], c.Window)
	}
	if tr.Kernels[0].End != 10 || len(tr.Kernels) != 5 {
		t.Errorf("Clip modified its input")
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
}
