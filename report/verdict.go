package report

import (
	"fmt"

	"github.com/traceql/traceql/metrics"
)

// verdict says in a sentence what holds the device back (metrics.Verdict),
// with the numbers that show it; "" when nothing does.
func verdict(d *metrics.DeviceSummary) string {
	share := func(ns int64) float64 { return 100 * float64(ns) / float64(d.IdleNS) }
	switch metrics.Verdict(d) {
	case metrics.LaunchBound:
		return fmt.Sprintf("launch-bound: %.0f %% of idle time waits on kernel launches, %.0f %% in %s gaps under 1 ms "+
			"(%s launches, median kernel %s) — CUDA graphs (torch.compile mode='reduce-overhead') remove this",
			share(d.IdleLaunchNS), share(d.ShortLaunchNS), Format(d.ShortLaunchGaps, metrics.Count),
			Format(d.Launch.Launches, metrics.Count), Format(d.KernelMedianNS, metrics.NS))
	case metrics.GraphLaunchBound:
		return fmt.Sprintf("launch-bound: %.0f %% of idle time waits on launches, %.0f %% in %s gaps under 1 ms "+
			"(%s kernel launches, %s graph launches)",
			share(d.IdleLaunchNS), share(d.ShortLaunchNS), Format(d.ShortLaunchGaps, metrics.Count),
			Format(d.Launch.Launches, metrics.Count), Format(d.Launch.GraphLaunches, metrics.Count))
	case metrics.HostBound:
		return fmt.Sprintf("host-bound: %.0f %% of idle time waits for the host to issue work, %.0f %% of it in gaps of "+
			"1 ms or more (largest %s): the host is busy elsewhere between launches (data loading, Python or other host code)",
			share(d.IdleLaunchNS), 100-100*float64(d.ShortLaunchNS)/float64(d.IdleLaunchNS), Format(d.LargestGapNS, metrics.NS))
	case metrics.SyncBound:
		return fmt.Sprintf("sync-bound: %.0f %% of idle time passes while the host waits in a synchronization "+
			"(torch.cuda.synchronize, .item(), .cpu(), blocking copies)", share(d.IdleSyncNS))
	}
	return ""
}
