package metrics

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/trace"
)

func TestIsCommKernel(t *testing.T) {
	for name, want := range map[string]bool{
		"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)":                               true,
		"ncclDevKernel_Generic(ncclDevComm*, unsigned long, ncclWork*)":                      true,
		"void NCCL_allgather(int)":                                                           true,
		"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)": true,
		"ncc":                          false,
		"nccx":                         false,
		"void at::native::nccl_like()": true,
		"sm90_xmma_gemm_f16f16_f16f32": false,
		"":                             false,
		// The other spellings: RCCL's own names, collectives by name,
		// PyTorch symmetric memory, vLLM's custom all-reduce.
		"rcclGenericKernel<1, false>(ncclDevComm*)":                                      true,
		"void c10d::symmetric_memory::multimem_all_reduce_kernel<bf16, 8>(bf16*)":        true,
		"void c10d::symmetric_memory::one_shot_all_reduce_kernel<float, 16, 8>(float**)": true,
		"void c10d::symm_mem::barrier_kernel(unsigned int**)":                            true,
		"void vllm::cross_device_reduce_1stage<half, 8>(vllm::RankData*)":                true,
		"void vllm::cross_device_reduce_2stage<float, 8>(vllm::RankData*)":               true,
		"all_gather_into_tensor_kernel":                                                  true,
		"void reduce_scatter<float>(float*)":                                             true,
		"Reduce-Scatter":                                                                 true,
		"AllToAllV_kernel":                                                               true,
		"all_to_all_single":                                                              true,
		"customAllReduceKernel<half>":                                                    true,
		"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)":                       true,
		// Reductions, gathers and scatters that are computation.
		"void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)": false,
		"void at::native::_scatter_gather_elementwise_kernel<128, 4>(int)":    false,
		"triton_per_fused__softmax_0":                                         false,
		"void cunn_SoftMaxForward<4, float>(float*)":                          false,
		"gather_kernel":      false,
		"scatter_add_kernel": false,
	} {
		if got := isCommKernel(name); got != want {
			t.Errorf("isCommKernel(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestCommStat builds communication and computation by hand: overlapping,
// nested, touching, and zero-length kernels, over two streams.
func TestCommStat(t *testing.T) {
	k := func(stream, start, end int64, name string) trace.Kernel {
		return trace.Kernel{Activity: trace.Activity{Stream: stream, Start: start, End: end}, Name: name}
	}
	tr := &trace.Trace{
		Devices: []trace.Device{{ID: 0}},
		Kernels: []trace.Kernel{
			k(7, 0, 100, "gemm"),
			k(9, 50, 150, "ncclKernel_AllReduce"),  // 50 under gemm
			k(7, 100, 120, "relu"),                 // touches gemm; 20 more under the all-reduce
			k(9, 150, 200, "ncclKernel_AllReduce"), // touches the first
			k(7, 160, 160, "empty"),                // zero-length: hides nothing
			k(7, 300, 400, "gemm"),
			k(9, 320, 330, "ncclKernel_SendRecv"), // nested: all hidden
		},
	}
	d := Summarize(tr, Options{}).Devices[0]
	want := CommStat{Kernels: 3, NS: 150 + 10, ComputeNS: 120 + 100, OverlapNS: 70 + 10, Overlap: 80.0 / 160}
	if d.Comm != want {
		t.Errorf("comm %+v, want %+v", d.Comm, want)
	}
	if d.KernelBusyNS != 200+100 {
		t.Errorf("kernel busy %d, want 300", d.KernelBusyNS)
	}
	none := Summarize(&trace.Trace{Devices: []trace.Device{{ID: 0}}, Kernels: []trace.Kernel{k(7, 0, 10, "gemm")}}, Options{}).Devices[0]
	if none.Comm != (CommStat{ComputeNS: 10}) {
		t.Errorf("without communication: %+v", none.Comm)
	}
}

// TestCommStatRealTraces checks the split on the real traces that have
// NCCL kernels against a sweep over the kernels' ends that counts running
// kernels of each kind (no union, no merge), and the kernel busy time
// against the same sweep.
func TestCommStatRealTraces(t *testing.T) {
	dir := shared.Traces(t)
	for _, file := range []string{
		"hta/negative_queue_length_values_check/rank0.json.gz",
		"hta/df_index_resolver/df_index_resolver.json.gz",
		"hta/trace_diff/test/test.json.gz",
		"hta/nccl_parser_config/nccl_data.json.gz",
		"kineto/vllm_decode_mi300x_hipgraph.json.gz", // no communication
	} {
		t.Run(file, func(t *testing.T) {
			tr, err := trace.Open(context.Background(), filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range Summarize(tr, Options{}).Devices {
				want, busy := sweepComm(tr, d.Device)
				got := d.Comm
				got.Overlap = 0
				if got != want {
					t.Errorf("device %d: %+v, sweep %+v", d.Device, got, want)
				}
				if d.KernelBusyNS != busy {
					t.Errorf("device %d: kernel busy %d, sweep %d", d.Device, d.KernelBusyNS, busy)
				}
				if strings.Contains(file, "vllm") != (d.Comm.Kernels == 0) {
					t.Errorf("device %d: %d communication kernels", d.Device, d.Comm.Kernels)
				}
			}
		})
	}
}

// sweepComm computes a CommStat (without the ratio), and the time any
// kernel ran, by walking every kernel start and end in time order with a
// count of running kernels of each kind.
func sweepComm(tr *trace.Trace, dev int) (s CommStat, busy int64) {
	type edge struct {
		at    int64
		delta int
		comm  bool
	}
	var edges []edge
	for _, k := range tr.Kernels {
		if k.Device != dev {
			continue
		}
		comm := strings.Contains(strings.ToLower(k.Name), "nccl")
		if comm {
			s.Kernels++
		}
		edges = append(edges, edge{k.Start, 1, comm}, edge{k.End, -1, comm})
	}
	slices.SortFunc(edges, func(a, b edge) int { return cmp.Compare(a.at, b.at) })
	var running [2]int // compute, comm
	for i, e := range edges {
		if i > 0 {
			dt := e.at - edges[i-1].at
			if running[1] > 0 {
				s.NS += dt
			}
			if running[0] > 0 {
				s.ComputeNS += dt
			}
			if running[0] > 0 && running[1] > 0 {
				s.OverlapNS += dt
			}
			if running[0] > 0 || running[1] > 0 {
				busy += dt
			}
		}
		if e.comm {
			running[1] += e.delta
		} else {
			running[0] += e.delta
		}
	}
	return s, busy
}
