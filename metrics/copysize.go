package metrics

// tinyCopyBytes is the mean copy size under which a bandwidth says
// nothing: a copy of a few bytes (a loss read back, an index) takes the
// DMA setup's microseconds whatever its size, so 8 B in 1.6 µs reads as
// 0.005 GB/s on a link that moves 40. 64 KiB is where a PCIe copy's time
// starts to grow with its size.
const tinyCopyBytes = 64 << 10

// Tiny reports whether c's copies are, on average, under tinyCopyBytes:
// their bandwidth measures latency, not the link.
func (c CopyStat) Tiny() bool {
	return c.Copies > 0 && c.Bytes < int64(c.Copies)*tinyCopyBytes
}
