package metrics

import "fmt"

// Verdict says in one line what holds the GPU back, when the numbers
// support a statement: idle time is a large part of the span and one cause
// dominates it. It returns "" otherwise; it never guesses.
func Verdict(d *DeviceSummary) string {
	if d.SpanNS == 0 || float64(d.IdleNS) < 0.1*float64(d.SpanNS) {
		return ""
	}
	share := func(ns int64) float64 { return 100 * float64(ns) / float64(d.IdleNS) }
	switch {
	case share(d.IdleLaunchNS) >= 50 && 2*d.ShortLaunchNS >= d.IdleLaunchNS && d.Launch.GraphLaunches == 0:
		return fmt.Sprintf("launch-bound: %.0f %% of idle time waits on kernel launches, %.0f %% in %d gaps under 1 ms "+
			"(%d launches, median kernel %s) — CUDA graphs (torch.compile mode='reduce-overhead') remove this",
			share(d.IdleLaunchNS), share(d.ShortLaunchNS), d.ShortLaunchGaps, d.Launch.Launches, fmtNS(d.KernelMedianNS))
	case share(d.IdleLaunchNS) >= 50 && 2*d.ShortLaunchNS >= d.IdleLaunchNS:
		return fmt.Sprintf("launch-bound: %.0f %% of idle time waits on launches, %.0f %% in %d gaps under 1 ms "+
			"(%d kernel launches, %d graph launches)",
			share(d.IdleLaunchNS), share(d.ShortLaunchNS), d.ShortLaunchGaps, d.Launch.Launches, d.Launch.GraphLaunches)
	case share(d.IdleLaunchNS) >= 50:
		return fmt.Sprintf("host-bound: %.0f %% of idle time waits for the host to issue work, %.0f %% of it in gaps of "+
			"1 ms or more (largest %s): the host is busy elsewhere between launches (data loading, Python)",
			share(d.IdleLaunchNS), 100-100*float64(d.ShortLaunchNS)/float64(d.IdleLaunchNS), fmtNS(float64(d.LargestGapNS)))
	case share(d.IdleSyncNS) >= 50:
		return fmt.Sprintf("sync-bound: %.0f %% of idle time passes while the host waits in a synchronization "+
			"(torch.cuda.synchronize, .item(), .cpu(), blocking copies)", share(d.IdleSyncNS))
	}
	return ""
}

// fmtNS prints a duration briefly: 18 µs, 1.2 ms, 12.9 s.
func fmtNS(ns float64) string {
	for _, u := range []struct {
		size float64
		name string
	}{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}} {
		if ns >= u.size {
			v := ns / u.size
			if v >= 100 {
				return fmt.Sprintf("%.0f %s", v, u.name)
			}
			return fmt.Sprintf("%.3g %s", v, u.name)
		}
	}
	return fmt.Sprintf("%.0f ns", ns)
}
