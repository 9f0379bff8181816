package synth

import (
	"fmt"
)

// Era selects which generation of the Kineto writer is imitated.
type Era int

// The eras.
const (
	// Modern is Kineto from 2024 on: lower-case categories, "ts"/"dur" in
	// µs with a three-digit ns fraction, relative to baseTimeNanoseconds,
	// user_annotation and gpu_user_annotation ProfilerStep#N, ac2g flows,
	// cuda_driver cuLaunchKernel for Triton kernels, python_function frames.
	Modern Era = iota
	// Era2021 is PyTorch 1.8–1.9: categories Kernel, Memcpy, Memset,
	// Runtime and Operator, tid "stream 7" on the GPU, integer epoch µs,
	// "external id" in lower case, flows cat "async" name "launch", and a
	// CPU-only Operator ProfilerStep#N.
	Era2021
)

// String returns the name ParseEra accepts.
func (e Era) String() string {
	switch e {
	case Modern:
		return "modern"
	case Era2021:
		return "2021"
	}
	return fmt.Sprintf("Era(%d)", int(e))
}

// ParseEra parses "modern" or "2021".
func ParseEra(s string) (Era, error) {
	switch s {
	case "modern":
		return Modern, nil
	case "2021":
		return Era2021, nil
	}
	return 0, fmt.Errorf("unknown era %q (want modern or 2021)", s)
}

// Container selects the JSON shape around the event array.
type Container int

// The containers.
const (
	// Object is {"schemaVersion":…, …metadata…, "traceEvents":[…]}: every
	// top-level key comes before the event array.
	Object Container = iota
	// ObjectAfter is an object with distributedInfo, traceName,
	// displayTimeUnit and baseTimeNanoseconds written after the event array,
	// as Kineto does.
	ObjectAfter
	// Array is the bare JSON Array Format [{…}, …]; all top-level metadata,
	// baseTimeNanoseconds included, is lost.
	Array
)

// String returns the name ParseContainer accepts.
func (c Container) String() string {
	switch c {
	case Object:
		return "object"
	case ObjectAfter:
		return "object-after"
	case Array:
		return "array"
	}
	return fmt.Sprintf("Container(%d)", int(c))
}

// ParseContainer parses "object", "object-after" or "array".
func ParseContainer(s string) (Container, error) {
	switch s {
	case "object":
		return Object, nil
	case "object-after":
		return ObjectAfter, nil
	case "array":
		return Array, nil
	}
	return 0, fmt.Errorf("unknown container %q (want object, object-after or array)", s)
}

// A Config describes the trace to write. The zero value is usable: zero
// counts take the defaults noted on each field.
type Config struct {
	Seed    int64 // seeds math/rand/v2; the same Config gives the same bytes
	Devices int   // GPUs, ids 0..Devices-1 (default 1, at most 64)
	Streams int   // streams per device, ids 7, 20, 21, … (default 1, at most 32)
	Steps   int   // ProfilerStep#N ranges (default 1)
	// KernelsPerStep is the number of kernels each device runs per step,
	// not counting the kernels replayed by graph launches (default 16).
	KernelsPerStep int
	// GraphLaunches is the number of cudaGraphLaunch calls per device per
	// step. Each replays 3–8 kernels on one stream that share the launch's
	// correlation id and carry no External id.
	GraphLaunches int
	Era           Era
	Container     Container
	// PythonEvents is the number of nested python_function frames written
	// around each launching operator, plus one [memory] instant event per
	// launch when it is positive (Modern). In Era2021, which has no
	// python_function events, it is the number of [memory] instant events
	// per launch. They are padding, as in real traces, where they dominate.
	PythonEvents int
	// TargetBytes, when positive, keeps adding steps after Steps until at
	// least this many bytes of JSON have been written.
	TargetBytes int64
	// Interleave writes all events in the order they are made, CPU and GPU
	// mixed. By default they are in Kineto's order: the CPU section (CPU
	// ops, annotations, python frames, [memory] events), then the GPU
	// section (runtime and driver calls, GPU activities, flows), then the
	// metadata.
	Interleave bool
	// Rank and WorldSize are written in distributedInfo (default 0 and
	// Devices), so that a set of files reads as one job's ranks.
	Rank, WorldSize int
}

// normalize applies the defaults and checks the ranges.
func (c Config) normalize() (Config, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.Devices, 1)
	def(&c.Streams, 1)
	def(&c.Steps, 1)
	def(&c.KernelsPerStep, 16)
	def(&c.WorldSize, c.Devices)
	switch {
	case c.Devices < 1 || c.Devices > 64:
		return c, fmt.Errorf("synth: Devices = %d, want 1..64", c.Devices)
	case c.Streams < 1 || c.Streams > 32:
		return c, fmt.Errorf("synth: Streams = %d, want 1..32", c.Streams)
	case c.Steps < 1:
		return c, fmt.Errorf("synth: Steps = %d, want ≥ 1", c.Steps)
	case c.KernelsPerStep < 1:
		return c, fmt.Errorf("synth: KernelsPerStep = %d, want ≥ 1", c.KernelsPerStep)
	case c.Rank < 0 || c.Rank >= c.WorldSize:
		return c, fmt.Errorf("synth: Rank = %d, want 0..WorldSize-1 (%d)", c.Rank, c.WorldSize-1)
	case c.GraphLaunches < 0:
		return c, fmt.Errorf("synth: GraphLaunches = %d, want ≥ 0", c.GraphLaunches)
	case c.PythonEvents < 0 || c.PythonEvents > 1000:
		return c, fmt.Errorf("synth: PythonEvents = %d, want 0..1000", c.PythonEvents)
	case c.TargetBytes < 0:
		return c, fmt.Errorf("synth: TargetBytes = %d, want ≥ 0", c.TargetBytes)
	case c.Era != Modern && c.Era != Era2021:
		return c, fmt.Errorf("synth: unknown %v", c.Era)
	case c.Container != Object && c.Container != ObjectAfter && c.Container != Array:
		return c, fmt.Errorf("synth: unknown %v", c.Container)
	}
	return c, nil
}
