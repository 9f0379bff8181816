//go:build !amd64

package trace

import "unsafe"

const haveMasks64 = false

func masks64(p *byte) (quote, bslash, open, close uint64) {
	return masks64Go((*[64]byte)(unsafe.Pointer(p)))
}
