package main

// budget is the memory the files a command reads may take: --memory's
// r.memory when a test sets it, else memoryBudget().
func (r *readOptions) budget() int64 {
	if r.memory != 0 {
		return r.memory
	}
	return memoryBudget()
}
