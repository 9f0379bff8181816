package report

import (
	"fmt"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// CaptureNote says how many of a trace's graph-replayed kernels a
// --capture trace named by the ops that captured them.
func CaptureNote(s *metrics.CaptureStats) string {
	return fmt.Sprintf("--capture %s named %s of %s (%s of their time; %s of %s) "+
		"by the ops that captured them", s.Capture, Format(s.Named, metrics.Count), plural(s.Kernels, "graph-replayed kernels"),
		metrics.ShareText(s.NamedNS, s.KernelNS), Format(s.Matched, metrics.Count), plural(s.GraphLaunches, "graph launches"))
}

// replayNote says, of a table by op or region without --capture, which
// rows hold kernels replayed by graph launches and how to name their ops;
// "" when none does.
func replayNote(stats []metrics.ScopeStat, noun string) string {
	var names []string
	n := 0
	for _, o := range stats {
		if o.Replayed > 0 {
			n += o.Replayed
			names = append(names, o.Name)
		}
	}
	if n == 0 {
		return ""
	}
	rows := strings.Join(names, ", ")
	if len(names) > 2 {
		rows = strings.Join(names[:2], ", ") + fmt.Sprintf(" and %d more", len(names)-2)
	}
	are := "are CUDA/HIP graph replays"
	if n == 1 {
		are = "is a CUDA/HIP graph replay"
	}
	return fmt.Sprintf("%s under %s %s, not launched one by one; "+
		"--capture TRACE (a trace profiled while the graphs were captured) names the %ss that captured them", plural(n, "kernels"), rows, are, noun)
}

// captureNotes are the notes of a table by op or region: how the graph
// kernels were named, or that they could be.
func captureNotes(s *metrics.CaptureStats, stats []metrics.ScopeStat, noun string) []string {
	if s != nil {
		return []string{CaptureNote(s) + "; calls and CPU time are this trace's own"}
	}
	if n := replayNote(stats, noun); n != "" {
		return []string{n}
	}
	return nil
}
