package report

import (
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
)

// TestTitleWidth: the per-step and window lines of compare's and diff's
// titles fit 80 columns whatever the labels' length (issue 65: "per step
// (…)" ran to 200 columns with long labels), keep each run's count, and
// keep the labels apart where only their ends differ.
func TestTitleWidth(t *testing.T) {
	long := strings.Repeat("vit-small_reduce-overhead_batch-32_", 3)
	for _, tt := range []struct {
		name   string
		labels []string
		steps  []int
		want   []string
	}{
		{"short", []string{"eager", "graphs"}, []int{4, 10}, []string{"  per step (eager 4 steps, graphs 10 steps)"}},
		{"same count", []string{long + "a", long + "b"}, []int{10, 10}, []string{"  per step (10 steps)"}},
		{"long labels", []string{long + "eager", long + "graphs", "c"}, []int{4, 10, 1}, []string{"  per step:", "eager: 4 steps", "graphs: 10 steps", "    c: 1 step"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var devs []*metrics.DeviceSummary
			var sums []metrics.Summary
			for i, n := range tt.steps {
				devs = append(devs, &metrics.DeviceSummary{PerStep: n})
				sums = append(sums, metrics.Summary{Window: "steps 1–" + strings.Repeat("9", i+1)})
			}
			title := "GPU 0" + "\n  measured:" + runWindows(tt.labels, sums) + perStepTitle(tt.labels, devs)
			for line := range strings.Lines(title) {
				if n := columns(strings.TrimSuffix(line, "\n")); n > 80 {
					t.Errorf("a line of %d columns: %q", n, line)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(title, w) {
					t.Errorf("want %q in\n%s", w, title)
				}
			}
		})
	}
}
