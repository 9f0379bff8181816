package synth

// Read-only lookup tables: kernel names and their launching operators,
// memcpy kinds, Python frames and device properties.

// eraMask says in which eras a kernel name occurs.
type eraMask uint8

const (
	bothEras eraMask = iota
	modernOnly
	oldOnly
)

// A kernelSpec is one kernel name with its launching operator and the launch
// resources written in its args.
type kernelSpec struct {
	name   string
	op     string // cpu_op that launches it (the kernel name itself for Triton)
	parent string // enclosing cpu_op, "" if none
	big    bool   // long-running: may span a cluster
	triton bool   // Triton: cuLaunchKernel (cuda_driver); Modern only
	era    eraMask
	block  [3]int32
	gridX  int32 // base grid x, multiplied by 1..4 per launch
	gridY  int32
	regs   int32
	smem   int32
	inputs string // JSON members for the operator's args (record_shapes)
}

const (
	dimsGemm  = `"Input Dims": [[4096, 1024], [1024, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"]`
	dimsEw    = `"Input Dims": [[64, 1024, 1024], [64, 1024, 1024], []], "Input type": ["float", "float", "Scalar"]`
	dimsConv  = `"Input Dims": [[32, 64, 56, 56], [64, 64, 3, 3], [], [], [], [], [], [], []], "Input type": ["float", "float", "", "ScalarList", "ScalarList", "ScalarList", "Scalar", "ScalarList", "Scalar"]`
	dimsOne   = `"Input Dims": [[64, 1024, 1024]], "Input type": ["float"]`
	dimsNone  = `"Input Dims": [], "Input type": []`
	dimsCopy  = `"Input Dims": [[32, 3, 224, 224], [32, 3, 224, 224], []], "Input type": ["float", "float", "Scalar"]`
	dimsFused = `"Input Dims": [[8, 2048, 4096], [8, 2048, 4096]], "Input type": ["c10::BFloat16", "c10::BFloat16"]`
)

var kernelSpecs = [...]kernelSpec{
	{name: "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
		op: "aten::mm", parent: "aten::matmul", big: true, era: modernOnly,
		block: [3]int32{384, 1, 1}, gridX: 132, gridY: 1, regs: 168, smem: 213248, inputs: dimsGemm},
	{name: "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
		op: "aten::addmm", parent: "aten::linear", big: true, era: modernOnly,
		block: [3]int32{128, 1, 1}, gridX: 256, gridY: 2, regs: 128, smem: 33280, inputs: dimsGemm},
	{name: "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, false, true, false, false, true, true, false, false>(pytorch_flash::Flash_fwd_params)",
		op: "aten::_flash_attention_forward", parent: "aten::scaled_dot_product_attention", big: true, era: modernOnly,
		block: [3]int32{128, 1, 1}, gridX: 16, gridY: 32, regs: 255, smem: 49152, inputs: dimsFused},
	{name: "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
		op: "record_param_comms", parent: "c10d::allreduce_", big: true, era: modernOnly,
		block: [3]int32{640, 1, 1}, gridX: 24, gridY: 1, regs: 96, smem: 0, inputs: dimsOne},
	{name: "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>(cudnnTensorStruct, float const*, cudnnTensorStruct, float*, float const*, float const*, float, float, float*, float*, float*, float*, float, float)",
		op: "aten::cudnn_batch_norm", parent: "aten::batch_norm", big: true, era: bothEras,
		block: [3]int32{512, 1, 1}, gridX: 64, gridY: 1, regs: 48, smem: 4096, inputs: dimsOne},
	{name: "void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false, false, true>(int, int, int, float const*, int, float*, float const*, kernel_conv_params, unsigned long long, int, float, float, int, float const*, float const*, bool, int, int)",
		op: "aten::cudnn_convolution", parent: "aten::convolution", big: true, era: bothEras,
		block: [3]int32{128, 1, 1}, gridX: 98, gridY: 2, regs: 64, smem: 16384, inputs: dimsConv},
	{name: "volta_sgemm_128x64_nn",
		op: "aten::mm", parent: "aten::matmul", big: true, era: oldOnly,
		block: [3]int32{256, 1, 1}, gridX: 16, gridY: 16, regs: 126, smem: 12544, inputs: dimsGemm},
	{name: "volta_scudnn_128x64_relu_medium_nn_v1",
		op: "aten::cudnn_convolution", parent: "aten::convolution", big: true, era: oldOnly,
		block: [3]int32{256, 1, 1}, gridX: 98, gridY: 1, regs: 128, smem: 16384, inputs: dimsConv},
	{name: "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)",
		op: "nccl:all_reduce", parent: "c10d::allreduce_", big: true, era: oldOnly,
		block: [3]int32{256, 1, 1}, gridX: 2, gridY: 1, regs: 64, smem: 0, inputs: dimsOne},

	{name: "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
		op: "aten::add_", era: bothEras,
		block: [3]int32{128, 1, 1}, gridX: 1024, gridY: 1, regs: 28, smem: 0, inputs: dimsEw},
	{name: "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
		op: "aten::fill_", parent: "aten::zero_", era: bothEras,
		block: [3]int32{128, 1, 1}, gridX: 512, gridY: 1, regs: 20, smem: 0, inputs: dimsOne},
	{name: "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)",
		op: "aten::mean", era: bothEras,
		block: [3]int32{32, 16, 1}, gridX: 160, gridY: 1, regs: 32, smem: 16, inputs: dimsOne},
	{name: "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
		op: "aten::_softmax", parent: "aten::softmax", era: bothEras,
		block: [3]int32{1024, 1, 1}, gridX: 4096, gridY: 1, regs: 40, smem: 128, inputs: dimsOne},
	{name: "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1})",
		op: "aten::copy_", parent: "aten::contiguous", era: modernOnly,
		block: [3]int32{128, 1, 1}, gridX: 2048, gridY: 1, regs: 24, smem: 0, inputs: dimsCopy},
	{name: "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, float*, float*>(at::native::(anonymous namespace)::TensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<float, 4, (at::native::ADAM_MODE)1, false>, double*, double, double, double, double, double, bool, float*, float*)",
		op: "aten::_fused_adamw_", era: modernOnly,
		block: [3]int32{512, 1, 1}, gridX: 320, gridY: 1, regs: 72, smem: 0, inputs: dimsNone},
	{name: "cask_cudnn::computeOffsetsKernel(cask_cudnn::ComputeOffsetsParams)",
		op: "aten::cudnn_convolution", parent: "aten::convolution", era: oldOnly,
		block: [3]int32{256, 1, 1}, gridX: 50, gridY: 1, regs: 38, smem: 0, inputs: dimsConv},
	{name: "void at::native::vectorized_elementwise_kernel<4, at::native::BUnaryFunctor<at::native::AddFunctor<long> >, at::detail::Array<char*, 2> >(int, at::native::BUnaryFunctor<at::native::AddFunctor<long> >, at::detail::Array<char*, 2>)",
		op: "aten::add_", era: oldOnly,
		block: [3]int32{128, 1, 1}, gridX: 1, gridY: 1, regs: 24, smem: 0, inputs: dimsEw},

	{name: "triton_poi_fused_add_0", op: "triton_poi_fused_add_0", triton: true, era: modernOnly,
		block: [3]int32{256, 1, 1}, gridX: 8192, gridY: 1, regs: 20, smem: 0, inputs: dimsEw},
	{name: "triton_red_fused__softmax_1", op: "triton_red_fused__softmax_1", triton: true, era: modernOnly,
		block: [3]int32{64, 1, 1}, gridX: 16384, gridY: 1, regs: 40, smem: 0, inputs: dimsOne},
	{name: "triton_per_fused_native_layer_norm_2", op: "triton_per_fused_native_layer_norm_2", triton: true, era: modernOnly,
		block: [3]int32{512, 1, 1}, gridX: 16384, gridY: 1, regs: 30, smem: 2048, inputs: dimsFused},
	{name: "triton_poi_fused_mul_silu_3", op: "triton_poi_fused_mul_silu_3", triton: true, era: modernOnly,
		block: [3]int32{128, 1, 1}, gridX: 65536, gridY: 1, regs: 26, smem: 0, inputs: dimsFused},
}

// A copyKind is one Kineto memcpy name.
type copyKind struct {
	name, kind, src, dst string
	bw                   int64  // bandwidth, MB/s (= bytes per µs)
	op, parent           string // launching operators
}

// The memcpy kinds, in the order the first step of every device shows them.
var copyKinds = [...]copyKind{
	{"Memcpy HtoD (Pageable -> Device)", "HtoD", "Pageable", "Device", 10_000, "aten::copy_", "aten::to"},
	{"Memcpy HtoD (Pinned -> Device)", "HtoD", "Pinned", "Device", 24_000, "aten::copy_", "aten::to"},
	{"Memcpy DtoH (Device -> Pageable)", "DtoH", "Device", "Pageable", 8_000, "aten::_local_scalar_dense", "aten::item"},
	{"Memcpy DtoH (Device -> Pinned)", "DtoH", "Device", "Pinned", 24_000, "aten::copy_", "aten::to"},
	{"Memcpy DtoD (Device -> Device)", "DtoD", "Device", "Device", 900_000, "aten::copy_", "aten::clone"},
	{"Memcpy HtoH (Pinned -> Pinned)", "HtoH", "Pinned", "Pinned", 6_000, "aten::copy_", ""},
	{"Memcpy PtoP (Device -> Device)", "PtoP", "Device", "Device", 150_000, "aten::copy_", "aten::to"},
}

const (
	copyH2DPageable = 0
	copyH2DPinned   = 1
	copyD2HPageable = 2
	memsetName      = "Memset (Device)"
	memsetBW        = 1_500_000 // MB/s
)

// copyWeights picks the kind of a copy in the middle of a step.
var copyWeights = [len(copyKinds)]int{25, 20, 10, 10, 25, 3, 7}

// pyFrames are python_function names, outermost first.
var pyFrames = [...]string{
	"train.py(212): <module>",
	"train.py(148): train_step",
	"torch/nn/modules/module.py(1747): _call_impl",
	"torch/nn/modules/module.py(1736): _wrapped_call_impl",
	"nn.Module: TransformerBlock_3",
	"model.py(87): forward",
	"torch/nn/modules/linear.py(125): forward",
	"<built-in method linear of PyCapsule object at 0x7f3a2c1e5b30>",
	"torch/_tensor.py(626): backward",
	"torch/autograd/__init__.py(347): backward",
	"torch/optim/optimizer.py(493): wrapper",
	"torch/optim/adamw.py(209): step",
	"torch/utils/_contextlib.py(116): decorate_context",
	"torch/_dynamo/eval_frame.py(632): _fn",
}

// A deviceProps is one deviceProperties entry, less its id.
type deviceProps struct {
	name                    string
	totalGlobalMem          int64
	major, minor            int
	numSMs                  int
	smemPerSM, smemPerBlkOp int
}

var (
	propsH100 = deviceProps{"NVIDIA H100 80GB HBM3", 85028569088, 9, 0, 132, 233472, 232448}
	propsV100 = deviceProps{"Tesla V100-SXM2-32GB", 34089730048, 7, 0, 80, 98304, 98304}
)
