package trace

// A Filter keeps part of a trace's device records (--kernel, --device,
// --stream). A nil func keeps everything.
type Filter struct {
	Kernel func(name string) bool  // kernels kept, by name; copies and memsets are not kernels
	Device func(dev int) bool      // devices kept: their kernels, copies, memsets and syncs
	Stream func(stream int64) bool // streams kept, on every device
	// Label says what is kept, for people: "kernels matching ^triton,
	// device 1"; it becomes the trace's Only.
	Label string
}

// Filter returns a copy of t with the device records f keeps, the rest of
// t (host records, devices, streams) shared. The tables stay sorted, so
// the copy is valid as t is. t is not modified.
func (t *Trace) Filter(f Filter) *Trace {
	c := *t
	c.Only = f.Label
	act := func(a *Activity) bool {
		return (f.Device == nil || f.Device(a.Device)) && (f.Stream == nil || f.Stream(a.Stream))
	}
	c.Kernels = keep(t.Kernels, func(k *Kernel) bool { return act(&k.Activity) && (f.Kernel == nil || f.Kernel(k.Name)) })
	c.Memcpys = keep(t.Memcpys, func(m *Memcpy) bool { return act(&m.Activity) })
	c.Memsets = keep(t.Memsets, func(m *Memset) bool { return act(&m.Activity) })
	c.Syncs = keep(t.Syncs, func(s *Sync) bool { return act(&s.Activity) })
	// Partial when --kernel or --stream left out work of a device kept: a
	// filter that keeps every stream there is does not.
	onDevices := func(a *Activity) bool { return f.Device == nil || f.Device(a.Device) }
	c.Partial = t.Partial || len(c.Kernels) < count(t.Kernels, func(k *Kernel) bool { return onDevices(&k.Activity) }) ||
		len(c.Memcpys) < count(t.Memcpys, func(m *Memcpy) bool { return onDevices(&m.Activity) }) ||
		len(c.Memsets) < count(t.Memsets, func(m *Memset) bool { return onDevices(&m.Activity) })
	return &c
}

// count returns how many records of xs ok accepts.
func count[T any](xs []T, ok func(*T) bool) int {
	n := 0
	for i := range xs {
		if ok(&xs[i]) {
			n++
		}
	}
	return n
}

// keep returns the records of xs that ok accepts, in order, in a new slice.
func keep[T any](xs []T, ok func(*T) bool) []T {
	var out []T
	for i := range xs {
		if ok(&xs[i]) {
			out = append(out, xs[i])
		}
	}
	return out
}
