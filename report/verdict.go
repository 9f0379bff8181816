package report

import (
	"fmt"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// verdict says in a sentence what holds the device back (metrics.Verdict),
// with the numbers that show it; "" when nothing does (see noVerdict).
func verdict(d *metrics.DeviceSummary) string {
	share := func(ns int64) string { return metrics.ShareText(ns, d.IdleNS) }
	// What CUDA graphs, or less host work between launches, could remove
	// at most: the launch time of the gaps under 1 ms, where the CPU was
	// late by a launch's cost or so. Longer waits are the host busy
	// elsewhere, which neither shortens.
	upTo := func() string {
		return fmt.Sprintf("up to %s of the %s span (%s)", Format(d.ShortLaunchNS, metrics.NS), Format(d.SpanNS, metrics.NS),
			metrics.ShareText(d.ShortLaunchNS, d.SpanNS))
	}
	// whatif --graphs' projection, where the device has steps to replay.
	projected := func() string {
		if d.GraphsStepNS == 0 {
			return ""
		}
		if d.GraphsStepNS >= d.StepMedianNS {
			return fmt.Sprintf("; but the projected step, %s, is no shorter than the %s measured (traceql whatif --graphs)",
				Format(d.GraphsStepNS, metrics.NS), Format(d.StepMedianNS, metrics.NS))
		}
		return fmt.Sprintf("; projected step %s, from %s (traceql whatif --graphs)", Format(d.GraphsStepNS, metrics.NS), Format(d.StepMedianNS, metrics.NS))
	}
	switch metrics.Verdict(d) {
	case metrics.CopyBound:
		return copyVerdict(d)
	case metrics.CommBound:
		return commVerdict(d)
	case metrics.LaunchBound:
		return fmt.Sprintf("launch-bound: %s of idle time waits on kernel launches, %s in %s under 1 ms "+
			"(%s, median kernel %s) — CUDA graphs (torch.compile mode='reduce-overhead') could remove %s",
			share(d.IdleLaunchNS), share(d.ShortLaunchNS), plural(d.ShortLaunchGaps, "gaps"),
			plural(d.Launch.Launches, "launches"), Format(d.KernelMedianNS, metrics.NS), upTo()+projected())
	case metrics.GraphLaunchBound:
		// Graphs already cut the launches: what the GPU waits on is host
		// time between replays, before graph launches or eager ones.
		return fmt.Sprintf("graph-launch-bound: %s of idle time waits on launches, %s in %s under 1 ms, "+
			"although %s replay %s — the GPU waits on the host between replays: %s before graph "+
			"launches, which graphs do not shorten, and %s before the %s beside them; less host work "+
			"per step (Python, input copies, eager ops left out of the graphs) could remove %s",
			share(d.IdleLaunchNS), share(d.ShortLaunchNS), plural(d.ShortLaunchGaps, "gaps"),
			plural(d.Launch.GraphLaunches, "graph launches"), plural(d.Launch.GraphKernels, "kernels"),
			Format(d.ShortGraphLaunchNS, metrics.NS), Format(d.ShortLaunchNS-d.ShortGraphLaunchNS, metrics.NS),
			plural(d.Launch.Launches, "eager kernel launches"), upTo())
	case metrics.HostBound:
		if v := hostCallVerdict(d); v != "" {
			return v
		}
		return fmt.Sprintf("host-bound: %s of idle time waits for the host to issue work, %s of it in gaps of "+
			"1 ms or more (largest %s): the host is busy elsewhere between launches (data loading, Python or other host code)",
			share(d.IdleLaunchNS), metrics.ShareText(d.IdleLaunchNS-d.ShortLaunchNS, d.IdleLaunchNS), Format(d.LargestGapNS, metrics.NS))
	case metrics.SyncBound:
		if 2*d.IdleStreamWaitNS >= d.IdleSyncNS {
			// The host waits on work queued behind an event: syncing less
			// leaves the GPU waiting on the event all the same.
			return fmt.Sprintf("sync-bound: %s of idle time passes while the host waits in a synchronization, and %s of it "+
				"while the GPU's work is queued behind a stream waiting on an event (cudaStreamWaitEvent/hipStreamWaitEvent): "+
				"it waits for what signals that event (another stream, process or GPU), which removing syncs does not change",
				share(d.IdleSyncNS), share(d.IdleStreamWaitNS))
		}
		return fmt.Sprintf("sync-bound: %s of idle time passes while the host waits in a synchronization "+
			"(torch.cuda.synchronize, .item(), .cpu(), blocking copies)", share(d.IdleSyncNS))
	}
	return ""
}

// noVerdict says why metrics.Verdict names no cause: which of its
// conditions holds, and what the largest share of idle time is.
func noVerdict(d *metrics.DeviceSummary) string {
	if d.Partial {
		return "no verdict: only some of the GPU's kernels or streams are measured (--kernel, --stream), and the " +
			"time between them may have been spent running the others"
	}
	if d.SpanNS == 0 {
		return "no verdict: all GPU activity at one instant"
	}
	idle := pct(d.IdleNS, d.SpanNS)
	if float64(d.IdleNS) < 0.1*float64(d.SpanNS) {
		return fmt.Sprintf("not idle-bound: the GPU idles %.1f %% of the span (under 10 %%)", idle) + computeNote(d)
	}
	s := fmt.Sprintf("no single cause: the GPU idles %s of the span, of which sync %s, launch %s, other %s",
		metrics.ShareText(d.IdleNS, d.SpanNS), metrics.ShareText(d.IdleSyncNS, d.IdleNS), metrics.ShareText(d.IdleLaunchNS, d.IdleNS), metrics.ShareText(d.IdleOtherNS, d.IdleNS))
	if d.IdleOtherNS > d.IdleSyncNS && d.IdleOtherNS > d.IdleLaunchNS {
		s += "; " + otherIdle(d)
	}
	return s + computeNote(d)
}

// otherIdle says what idle time classed other is, with the parts the
// summary measures.
func otherIdle(d *metrics.DeviceSummary) string {
	const queued = "the next work had been launched already: the GPU waited on another stream or an event"
	var parts []string
	if d.IdleOtherUnlinkedNS > 0 {
		parts = append(parts, Format(d.IdleOtherUnlinkedNS, metrics.NS)+" precede work whose launch call is not in the trace, "+
			"so when it was launched is unknown")
	}
	if d.IdleOtherOutsideStepsNS > 0 {
		parts = append(parts, Format(d.IdleOtherOutsideStepsNS, metrics.NS)+" lie between profiled steps")
	}
	switch {
	case len(parts) == 0:
		return "other is idle time whose " + queued
	case d.IdleOtherUnlinkedNS >= d.IdleOtherNS-d.IdleOtherNS/100: // nothing left to say "otherwise" of
		return fmt.Sprintf("other is idle time with no late launch: of its %s, %s", Format(d.IdleOtherNS, metrics.NS), strings.Join(parts, "; "))
	}
	return fmt.Sprintf("other is idle time with no late launch: of its %s, %s; otherwise %s", Format(d.IdleOtherNS, metrics.NS),
		strings.Join(parts, "; "), queued)
}

// pct is part / whole in percent, 0 for an empty whole; in float64, as
// doubling times near trace.MaxTime would overflow.
func pct(part, whole int64) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

// hostCallVerdict names the call the host sat inside while the GPU waited
// for work, when such calls of 1 ms or more hold at least half the idle
// time waiting on launches; "" otherwise.
func hostCallVerdict(d *metrics.DeviceSummary) string {
	if d.HostCall == "" || 2*d.HostCallIdleNS < d.IdleLaunchNS {
		return ""
	}
	name := Printable(d.HostCall)
	what := fmt.Sprintf("%s of idle time passes while the host sits inside %s calls of 1 ms or more (longest %s)",
		metrics.ShareText(d.HostCallIdleNS, d.IdleNS), name, Format(d.HostCallMaxNS, metrics.NS))
	switch base := strings.TrimPrefix(strings.TrimPrefix(d.HostCall, "cuda"), "hip"); {
	case metrics.IsKernelLaunch(d.HostCall) || metrics.IsGraphLaunch(d.HostCall):
		return "host-bound: " + what + ": module loading on a kernel's first use (CUDA lazy loading), not data loading or " +
			"Python — warm up before measuring, or load modules at start with CUDA_MODULE_LOADING=EAGER"
	case strings.HasPrefix(base, "Free") || strings.HasPrefix(base, "Malloc") || strings.HasPrefix(d.HostCall, "cuMem"):
		return "host-bound: " + what + ": the host allocates or frees device memory (a caching allocator emptying its " +
			"cache or fragmented, torch.cuda.empty_cache), not data loading or Python — keep memory cached and reuse it"
	case strings.Contains(d.HostCall, "StreamWaitEvent"):
		return "host-bound: " + what + ": the host waits for an event another stream, process or GPU signals"
	}
	return "host-bound: " + what
}

// VerdictNote is the headline's verdict note on a device: the cause of its
// idle time, or why none is named.
func VerdictNote(d *metrics.DeviceSummary) string {
	if v := verdict(d); v != "" {
		return v
	}
	return noVerdict(d)
}
