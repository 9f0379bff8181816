// Package memlimit fits traceql to the memory it may use: the limits it
// runs under (ulimit -v, a cgroup's memory.max), the Go runtime fitted to
// them, the budget the files read at once share, and the supervisor that
// runs the command in a child whose death by a limit becomes one line
// (Supervise), with the child's end when its supervisor dies
// (WatchSupervisor). On Linux with cgo, a C constructor fits malloc and
// checks ulimit -v before the Go runtime starts (start_cgo.go).
package memlimit
