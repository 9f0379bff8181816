//go:build unix

package memlimit

import (
	"bytes"
	"io"
	"strings"
	"syscall"
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

// TestChildEnd: how a supervised child ended becomes one line naming the
// limit when memory ended it: the OOM killer's SIGKILL in a cgroup, or
// the runtime's fatal error under ulimit -v; other ends pass through.
func TestChildEnd(t *testing.T) {
	const gib = 1 << 30
	cgroup := Limits{cgroup: 2 * gib}
	as := Limits{as: gib, asUsed: 800 << 20}
	killed := syscall.WaitStatus(syscall.SIGKILL)
	interrupted := syscall.WaitStatus(syscall.SIGINT)
	exited := func(code int) syscall.WaitStatus { return syscall.WaitStatus(code << 8) }
	oom := []byte("fatal error: out of memory\n\ngoroutine 1 [running]:\n")
	for _, tt := range []struct {
		name   string
		st     syscall.WaitStatus
		held   []byte
		limits Limits
		code   int
		msg    string
	}{
		{"OOM killer", killed, nil, cgroup, 1, "killed for running out of memory under the cgroup memory limit of 2.0 GiB (memory.max of the job or container): read one file at a time (--jobs 1), measure a smaller part (--window, --steps), or raise the limit"},
		{"runtime out of memory", exited(2), oom, as, 1, "out of memory under the address-space limit of 1.0 GiB (ulimit -v 1048576): read one file at a time (--jobs 1), measure a smaller part (--window, --steps), or raise the limit"},
		{"killed without a cgroup limit", killed, nil, as, 128 + 9, ""},
		{"Ctrl-C", exited(130), nil, as, 130, ""},
		{"SIGINT itself", interrupted, nil, cgroup, 128 + 2, ""},
		{"another crash", exited(2), []byte("fatal error: concurrent map writes\n"), as, 2, ""},
		{"an error", exited(1), nil, cgroup, 1, ""},
	} {
		code, msg := childEnd(tt.st, tt.held, tt.limits)
		if code != tt.code || msg != tt.msg {
			t.Errorf("%s: %d, %q; want %d, %q", tt.name, code, msg, tt.code, tt.msg)
		}
	}
}
