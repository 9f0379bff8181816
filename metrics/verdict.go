package metrics

// A Bound is what holds a GPU back, when its numbers show it.
type Bound uint8

// Bounds.
const (
	// Unbound: idle time is under a tenth of the span, or no cause has
	// half of it. Verdict never guesses.
	Unbound Bound = iota
	// LaunchBound: at least half the idle time waits on kernel launches
	// (GapLaunch), mostly in gaps under 1 ms, and no CUDA graph was
	// launched: the CPU cannot launch small kernels fast enough.
	LaunchBound
	// GraphLaunchBound is LaunchBound in a run that launches CUDA graphs
	// already.
	GraphLaunchBound
	// HostBound: at least half the idle time waits on launches, mostly in
	// gaps of 1 ms or more: the host is busy elsewhere between launches.
	HostBound
	// SyncBound: at least half the idle time passes in host
	// synchronizations (GapSync).
	SyncBound
	// CopyBound: copies run with no kernel beside them for at least half
	// the span (copy_exposed_ns), whatever the GPU does otherwise.
	CopyBound
	// CommBound: communication runs with no compute kernel beside it for
	// at least half the span (comm_exposed_ns).
	CommBound
)

// String names b as the bound column does: none, launch, graph-launch,
// host, sync, copy or comm.
func (b Bound) String() string {
	return [...]string{"none", "launch", "graph-launch", "host", "sync", "copy", "comm"}[b]
}

// Verdict says what holds the device back: copies or communication
// exposed for half the span or more, or else idle time a large part of
// the span with one cause holding at least half of it. A device measured in
// part has none: the time between the kernels kept may have been spent
// running the others.
func Verdict(d *DeviceSummary) Bound {
	if d.Partial {
		return Unbound
	}
	// Shares in float64: doubling or multiplying times near MaxTime
	// would overflow.
	half := func(part, whole int64) bool { return float64(part) >= 0.5*float64(whole) }
	// The busy side first: a GPU busy copying or communicating for half
	// the span is held back by that, however little it idles. Compute is
	// no bound of its own: it is the work itself.
	switch {
	case d.SpanNS == 0:
		return Unbound
	case half(d.Classes.CopyNS(), d.SpanNS):
		return CopyBound
	case half(d.Classes[ClassComm], d.SpanNS):
		return CommBound
	}
	if float64(d.IdleNS) < 0.1*float64(d.SpanNS) {
		return Unbound
	}
	launch := half(d.IdleLaunchNS, d.IdleNS)
	short := half(d.ShortLaunchNS, d.IdleLaunchNS)
	switch {
	case launch && short && d.Launch.GraphLaunches == 0:
		return LaunchBound
	case launch && short:
		return GraphLaunchBound
	case launch:
		return HostBound
	case half(d.IdleSyncNS, d.IdleNS):
		return SyncBound
	}
	return Unbound
}
