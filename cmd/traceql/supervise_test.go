//go:build unix

package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestPassStderr: the child's lines and a progress bar's unfinished ones
// pass through; from the first line of a runtime crash on, everything is
// held back, even when the runtime writes it in pieces.
func TestPassStderr(t *testing.T) {
	const crash = "fatal error: out of memory\n\ngoroutine 1 [running]:\nmain.main()\n"
	for _, tt := range []struct {
		name, in, out, held string
	}{
		{"lines", "traceql: warning: a\n\rreading [==  ] 40 %\rreading [====] 100 %\r\x1b[K", "traceql: warning: a\n\rreading [==  ] 40 %\rreading [====] 100 %\r\x1b[K", ""},
		{"crash", "traceql: warning: a\n" + crash, "traceql: warning: a\n", crash},
		{"cgo", "runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort\n", "", "runtime/cgo: pthread_create failed: Resource temporarily unavailable\nSIGABRT: abort\n"},
		{"not a crash", "runtime is 3 s\nfatal\n", "runtime is 3 s\nfatal\n", ""},
	} {
		for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
			var out bytes.Buffer
			held := passStderr(r, &out)
			if out.String() != tt.out || string(held) != tt.held {
				t.Errorf("%s: passed %q, held %q; want %q, %q", tt.name, out.String(), held, tt.out, tt.held)
			}
		}
	}
	if !outOfMemoryCrash([]byte(crash)) || outOfMemoryCrash([]byte("fatal error: concurrent map writes\n")) {
		t.Error("outOfMemoryCrash tells memory from other crashes wrongly")
	}
}
