//go:build !linux

package pages

// adviseHuge does nothing where transparent huge pages are not Linux's.
func adviseHuge(b []byte) {}
