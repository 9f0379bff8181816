package metrics_test

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/trace"
)

// bruteIdleTrace classifies every idle nanosecond of device dev of a read
// Kineto trace one at a time (see walkIdle): busy when any kernel, copy or
// memset runs; sync when a blocking call (metrics.IsSync) or a sync record
// of the device other than a stream wait is in progress; launch when the
// first activity starting at the gap's end that has a launch call (in
// kernels, copies, memsets order) was launched by a call that began after
// the gap did, or was still running when it began; else other.
func bruteIdleTrace(t *trace.Trace, dev int) idleWalk {
	var acts []*trace.Activity
	var busy, blocked [][2]int64
	t.EachGPUActivity(func(a *trace.Activity) {
		if a.Device == dev {
			acts = append(acts, a)
			busy = append(busy, [2]int64{a.Start, a.End})
		}
	})
	calls := map[int64]*trace.APICall{} // Kineto: one id space per trace; the last call of an id wins
	for i := range t.APICalls {
		c := &t.APICalls[i]
		if c.Correlation != 0 {
			calls[c.Correlation] = c
		}
		if metrics.IsSync(c.Name) {
			blocked = append(blocked, [2]int64{c.Start, c.End})
		}
	}
	for _, s := range t.Syncs {
		if s.Device == dev && !strings.HasPrefix(s.Kind, "Stream Wait") {
			blocked = append(blocked, [2]int64{s.Start, s.End})
		}
	}
	return walkIdle(busy, blocked, func(start, end int64) (late, graph bool) {
		for _, a := range acts {
			if c := calls[a.Correlation]; a.Start == end && a.Correlation != 0 && c != nil {
				return c.Start > start || c.End > start, strings.Contains(c.Name, "GraphLaunch")
			}
		}
		return false, false
	})
}

// TestIdleRealTraces checks the idle classes of real Kineto traces short
// enough to walk a nanosecond at a time, CUDA and ROCm, with host syncs,
// cuda_sync rows and blocking ROCm copies, against bruteIdleTrace.
func TestIdleRealTraces(t *testing.T) {
	dir := shared.Traces(t)
	for _, file := range []string{
		"hta/critical_path/cuda_event_sync/event_sync_trace.json.gz",
		"hta/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz",
		"hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
		"hta/with_gpu_user_annotation/step_based_trace_2543932.json.gz",
		"more/tracelens__mi300__Falconsai_nsfw_image_detection__1016002.json.gz",
		"more/tracelens__h100__Falconsai_nsfw_image_detection__1016002.json.gz",
		"more/tracelens__mi300__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
	} {
		t.Run(file, func(t *testing.T) {
			tr, err := trace.Open(context.Background(), filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range metrics.Summarize(tr, metrics.Options{}).Devices {
				w := bruteIdleTrace(tr, d.Device)
				if d.IdleSyncNS != w.sync || d.IdleLaunchNS != w.launch || d.IdleOtherNS != w.other {
					t.Errorf("GPU %d: idle sync/launch/other = %d/%d/%d, brute force %d/%d/%d", d.Device, d.IdleSyncNS, d.IdleLaunchNS,
						d.IdleOtherNS, w.sync, w.launch, w.other)
				}
				if d.ShortLaunchNS != w.shortLaunch || d.ShortGraphLaunchNS != w.shortGraph {
					t.Errorf("GPU %d: short launch time %d, before graph launches %d; brute force %d, %d", d.Device, d.ShortLaunchNS,
						d.ShortGraphLaunchNS, w.shortLaunch, w.shortGraph)
				}
			}
		})
	}
}

// TestSyncCallsRealNames: the blocking calls seen in the shared traces are
// syncs, in every spelling, and the calls that return at once are not.
func TestSyncCallsRealNames(t *testing.T) {
	for name, want := range map[string]bool{
		// Seen in ../shared/traces.
		"cudaDeviceSynchronize": true, "cudaStreamSynchronize": true, "cudaEventSynchronize": true, "cudaMemcpy": true,
		"cudaMemset": true, "hipDeviceSynchronize": true, "hipEventSynchronize": true, "hipMemcpyWithStream": true,
		"cudaMemcpyAsync": false, "cudaMemsetAsync": false, "hipMemcpyAsync": false, "cudaStreamWaitEvent": false,
		"cudaEventQuery": false, "cudaEventRecord": false, "cudaLaunchKernel": false, "cuLaunchKernelEx": false,
		"hipStreamGetCaptureInfo": false, "cudaStreamIsCapturing": false,
		// Spellings of other runtimes' and versions' exports.
		"cuMemcpyDtoH_v2": true, "cuMemcpyHtoD_v2": true, "cuStreamSynchronize": true, "cuCtxSynchronize": true,
		"cudaMemcpy2D": true, "cudaMemcpy3D": true, "cudaMemcpyToSymbol": true, "cudaMemcpyFromSymbol": true,
		"cudaMemcpyPeer": true, "cudaMemcpy_v3020": true, "cudaStreamSynchronize_ptsz": true, "hipMemcpyDtoH": true,
		"hipMemcpyHtoD": true, "hipMemcpy2D": true, "hipMemset": true, "cudaMemcpyPeerAsync": false, "cuMemcpyDtoHAsync_v2": false,
		"cudaMemcpy_": false, "cudaMemcpy_vx": false,
	} {
		if got := metrics.IsSync(name); got != want {
			t.Errorf("IsSync(%q) = %v, want %v", name, got, want)
		}
	}
	for _, name := range metrics.SyncCalls() {
		if strings.Contains(name, "Async") || !metrics.IsSync(name) {
			t.Errorf("sync list holds %q", name)
		}
	}
}

// TestIdleClaimsRealTraces checks the claims of the verdict on the shared
// traces that show them.
func TestIdleClaimsRealTraces(t *testing.T) {
	dir := shared.Traces(t)
	open := func(t *testing.T, file string) (*trace.Trace, metrics.Summary) {
		t.Helper()
		tr, err := trace.Open(context.Background(), filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		return tr, metrics.Summarize(tr, metrics.Options{})
	}
	t.Run("ROCm blocking copies are syncs", func(t *testing.T) {
		tr, s := open(t, "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz")
		copies := 0
		for _, c := range tr.APICalls {
			if c.Name == "hipMemcpyWithStream" {
				copies++
			}
		}
		if copies == 0 || s.Devices[0].IdleSyncNS == 0 {
			t.Errorf("%d hipMemcpyWithStream calls, idle in syncs %d ns: want both > 0", copies, s.Devices[0].IdleSyncNS)
		}
	})
	t.Run("a ROCm GPU is named from its lone deviceProperties entry", func(t *testing.T) {
		// The entry says id 0; the kernels say device 2.
		_, s := open(t, "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz")
		if d := s.Devices[0]; d.Device != 2 || d.Name != "AMD Radeon Graphics" {
			t.Errorf("GPU %d named %q, want GPU 2, AMD Radeon Graphics", d.Device, d.Name)
		}
	})
	t.Run("step copies that miss their work are refused", func(t *testing.T) {
		// The MI250 trace's one gpu_user_annotation step lasts 1.03 ms
		// while its CPU step launched 9.3 ms of GPU work.
		_, s := open(t, "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz")
		d := s.Devices[0]
		if len(d.Steps) == 0 || d.Steps[0].Source != "projected" {
			t.Errorf("steps %+v, want the CPU projection", d.Steps)
		}
		if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "cover 11.6 %") {
			t.Errorf("warnings %q, want one about the step copies covering 11.6 %%", s.Warnings)
		}
	})
	t.Run("graph replays", func(t *testing.T) {
		for _, c := range []struct {
			file                     string
			graphLaunches, replayed  int
			eagerLaunches            int
			kernelsPerEagerLaunchOne bool
		}{
			// One hipGraphLaunch replays 421 kernels beside 4 eager launches.
			{"kineto/vllm_decode_mi300x_hipgraph.json.gz", 1, 421, 4, true},
			// torch.compile with CUDA graphs: 70 launches replay 135 kernels.
			{"hta/negative_queue_length_values_check/rank0.json.gz", 70, 135, 5240, true},
		} {
			_, s := open(t, c.file)
			l := s.Devices[0].Launch
			if l.GraphLaunches != c.graphLaunches || l.GraphKernels != c.replayed || l.Launches != c.eagerLaunches ||
				l.KernelsPerGraphLaunch != float64(c.replayed)/float64(c.graphLaunches) || l.KernelsPerLaunch != 1 {
				t.Errorf("%s: %+v; want %d graph launches replaying %d kernels, %d eager launches of one kernel each", c.file, l,
					c.graphLaunches, c.replayed, c.eagerLaunches)
			}
		}
	})
	t.Run("a sync call that ends after the GPU drains claims only its overlap", func(t *testing.T) {
		// HTA's critical-path test: its cudaStreamSynchronize calls and
		// cuda_sync rows used to claim 0.9 s of the 12.9 s idle, whole
		// gaps; what they overlap of idle time is computed here by merging
		// intervals by hand.
		tr, s := open(t, "hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz")
		d := s.Devices[0]
		merge := func(ivs [][2]int64) [][2]int64 {
			slices.SortFunc(ivs, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
			var out [][2]int64
			for _, iv := range ivs {
				if n := len(out); n > 0 && iv[0] <= out[n-1][1] {
					out[n-1][1] = max(out[n-1][1], iv[1])
					continue
				}
				out = append(out, iv)
			}
			return out
		}
		var busy, syncs [][2]int64
		tr.EachGPUActivity(func(a *trace.Activity) { busy = append(busy, [2]int64{a.Start, a.End}) })
		for _, c := range tr.APICalls {
			if metrics.IsSync(c.Name) {
				syncs = append(syncs, [2]int64{c.Start, c.End})
			}
		}
		for _, y := range tr.Syncs {
			if !strings.HasPrefix(y.Kind, "Stream Wait") {
				syncs = append(syncs, [2]int64{y.Start, y.End})
			}
		}
		busy, syncs = merge(busy), merge(syncs)
		lo, hi := busy[0][0], busy[len(busy)-1][1]
		var want int64
		for _, y := range syncs {
			a, b := max(y[0], lo), min(y[1], hi)
			if a >= b {
				continue
			}
			want += b - a
			for _, x := range busy {
				want -= max(min(b, x[1])-max(a, x[0]), 0)
			}
		}
		if d.IdleSyncNS != want || 100*want > d.IdleNS || metrics.Verdict(&d) != metrics.HostBound {
			t.Errorf("idle in syncs %d ns of %d, bound %v; want %d (under 1 %%), host", d.IdleSyncNS, d.IdleNS, metrics.Verdict(&d), want)
		}
	})
}

// TestLaunchesWithoutKernels: a trace whose launch calls have no kernel
// events says so, instead of only "no GPU activity".
func TestLaunchesWithoutKernels(t *testing.T) {
	tr := &trace.Trace{APICalls: []trace.APICall{
		{Name: "cudaLaunchKernel", Start: 10, End: 20, Correlation: 1},
		{Name: "cudaGraphLaunch", Start: 30, End: 40, Correlation: 2},
		{Name: "cudaStreamSynchronize", Start: 50, End: 60},
	}}
	s := metrics.Summarize(tr, metrics.Options{})
	if s.Host.Launches != 2 || len(s.Warnings) != 1 || !strings.HasPrefix(s.Warnings[0], "2 kernel launches recorded, but no kernel") {
		t.Errorf("launches %d, warnings %q", s.Host.Launches, s.Warnings)
	}
}

// TestDuplicateCorrelations: two calls sharing an id are warned about, and
// a kernel that would start before its call is left out of the delays
// instead of giving a negative one.
func TestDuplicateCorrelations(t *testing.T) {
	k := func(start, corr int64) trace.Kernel {
		return trace.Kernel{Activity: trace.Activity{Start: start, End: start + 10, Correlation: corr}, Name: "k"}
	}
	tr := &trace.Trace{
		Devices: []trace.Device{{ID: 0}},
		Streams: []trace.Stream{{Device: 0, ID: 0}},
		Kernels: []trace.Kernel{k(100, 1), k(200, 2), k(300, 3)},
		APICalls: []trace.APICall{
			{Name: "cudaLaunchKernel", Start: 10, End: 20, Correlation: 1},
			{Name: "cudaLaunchKernel", Start: 150, End: 160, Correlation: 2},
			{Name: "cudaLaunchKernel", Start: 170, End: 180, Correlation: 3},
			{Name: "cudaLaunchKernel", Start: 250, End: 260, Correlation: 2}, // the same id again: kernel 2 now starts before it
		},
	}
	s := metrics.Summarize(tr, metrics.Options{})
	l := s.Devices[0].Launch
	if l.Inverted != 1 || l.StartDelayMedianNS != (90+130)/2 || l.QueueDelayMedianNS != (80+120)/2 {
		t.Errorf("launch stats %+v: want 1 inverted, start delays 90 and 130, queue delays 80 and 120", l)
	}
	if len(s.Warnings) != 2 || !strings.HasPrefix(s.Warnings[0], "API calls sharing their correlation id with an earlier call: 1;") || !strings.HasSuffix(s.Warnings[1], "left out of the queue delay: 1") {
		t.Errorf("warnings %q", s.Warnings)
	}
}
