package metrics

import "testing"

// TestPlural: one noun rule for every count in words.
func TestPlural(t *testing.T) {
	for _, tt := range []struct {
		n          int
		noun, want string
	}{
		{1, "kernels", "1 kernel"}, {0, "kernels", "0 kernels"}, {2, "kernels", "2 kernels"},
		{1, "copies", "1 copy"}, {1, "launches", "1 launch"}, {1, "syncs", "1 sync"},
		{1, "graph breaks", "1 graph break"}, {1, "steps", "1 step"}, {1, "graphs", "1 graph"},
		{1, "processes", "1 process"}, {1, "boxes", "1 box"}, {1, "pushes", "1 push"},
		{1, "DataLoader ranges", "1 DataLoader range"}, {1, "op calls", "1 op call"}, {-1, "kernels", "-1 kernels"},
	} {
		if got := Plural(tt.n, tt.noun); got != tt.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tt.n, tt.noun, got, tt.want)
		}
	}
}
