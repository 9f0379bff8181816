// Command tracegen writes a synthetic Kineto (PyTorch profiler) trace with
// known ground truth, for tests, samples and benchmarks.
//
// Usage:
//
//	go run ./internal/cmd/tracegen -o FILE [flags]
//
// Flags:
//
//	-o FILE          output trace; gzip-compressed when FILE ends in .gz (see -gzip)
//	-size SIZE       keep adding steps until at least SIZE bytes of JSON (100MB, 1GB, 512KB, 0 = off)
//	-seed N          random seed (1); the same flags give the same bytes
//	-devices N       GPUs (2)
//	-streams N       streams per GPU (3)
//	-steps N         ProfilerStep#N ranges, at least (4)
//	-kernels N       kernels per GPU per step, graph replays not counted (32)
//	-graphs N        cudaGraphLaunch calls per GPU per step (1)
//	-python N        python_function frames per launch (4; in era 2021: [memory] events)
//	-era E           modern or 2021 (modern)
//	-container C     object, object-after or array (object)
//	-interleave      CPU and GPU events mixed in time order, not Kineto's order
//	                 (the CPU section, then the GPU section, then metadata)
//	-gzip MODE       auto (by the .gz suffix), true or false (auto)
//	-truth FILE      also write the ground truth as indented JSON
//	-nsys-kernels N  instead, an Nsight Systems SQLite export with N kernel rows
//	-repeat FILE     instead, the events of the real Kineto trace FILE repeated
//	                 until -size, ts, linking ids (correlation, External id,
//	                 Python id) and ProfilerStep numbers shifted a copy at a
//	                 time, as in one long run (no truth)
//
// A summary of the truth goes to stderr.
package main
