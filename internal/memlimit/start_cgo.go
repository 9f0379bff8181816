//go:build linux && cgo

package memlimit

// Under ulimit -v (RLIMIT_AS) of 768 to 1000 MiB, traceql died as the Go
// runtime started, before any Go code ran, with some 115 lines of
// "runtime/cgo: pthread_create failed" and stacks, at random. With cgo
// linked in (package net, for pflag), the runtime's threads are made by
// pthread_create, and glibc gives each thread that allocates its own
// malloc arena: 64 MiB of address space reserved, 128 MiB mapped for a
// moment to align it, beside the 8 MiB stack; the runtime reserves some
// 700 MiB more for its heap's metadata. A C constructor runs before the
// runtime starts: it keeps glibc to one arena, as MALLOC_ARENA_MAX=1
// does, and under a limit that the runtime cannot start in it says so
// in one line and exits 1, where the runtime would print its dump.

/*
#include <malloc.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/resource.h>

// TRACEQL_MIN_AS is the least address space in which traceql starts and
// reads a small trace, measured with prlimit --as: 860 MiB started and
// summarized testdata/sample.pt.trace.json.gz 15 times in 15, 850 not.
#define TRACEQL_MIN_AS (896ULL << 20)

static void __attribute__((constructor)) traceql_fit_start(void) {
#ifdef M_ARENA_MAX
	mallopt(M_ARENA_MAX, 1);
#endif
	struct rlimit r;
	if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY && (unsigned long long)r.rlim_cur < TRACEQL_MIN_AS) {
		char msg[320];
		int n = snprintf(msg, sizeof msg,
			"traceql: the address-space limit of %llu MiB (ulimit -v %llu) is less than the %llu MiB the Go runtime needs to start: raise it\n",
			(unsigned long long)r.rlim_cur >> 20, (unsigned long long)r.rlim_cur >> 10, TRACEQL_MIN_AS >> 20);
		if (n > 0 && write(2, msg, (size_t)n) < 0) {
		}
		_exit(1);
	}
}
*/
import "C"
