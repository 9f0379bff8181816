package main

import "github.com/traceql/traceql/internal/memlimit"

// budget is the memory the files a command reads may take: --memory's
// r.memory when a test sets it, else memlimit.Budget().
func (r *readOptions) budget() int64 {
	if r.memory != 0 {
		return r.memory
	}
	return memlimit.Budget()
}
