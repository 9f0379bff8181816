package trace

// The record_function ranges PyTorch puts around a DataLoader's __next__
// and an optimizer's step: cpu_ops in traces before about 2022, user
// annotations since.
const (
	DataLoaderPrefix    = "enumerate(DataLoader)#"
	OptimizerStepPrefix = "Optimizer.step#"
)

// IsSyncOp reports whether a host op makes the host wait for the device:
// a scalar or a data-dependent shape read back (.item(), nonzero, a
// boolean mask). A switch, not a map: readers ask it of every aten op,
// and comparing lengths first costs less than hashing each name.
func IsSyncOp(name string) bool {
	switch name {
	case "aten::item", "aten::_local_scalar_dense", "aten::nonzero", "aten::is_nonzero", "aten::masked_select", "aten::unique",
		"aten::_unique2":
		return true
	}
	return false
}

// isFindingOp reports whether metrics' findings read a host op: one that
// synchronizes (IsSyncOp), or a DataLoader or optimizer step range. A
// lean read keeps these, as it keeps torch.compile's ops. The first byte
// turns away nearly every other op.
func isFindingOp(name string) bool {
	if name == "" {
		return false
	}
	switch name[0] {
	case 'a':
		return IsSyncOp(name)
	case 'e':
		return len(name) > len(DataLoaderPrefix) && name[:len(DataLoaderPrefix)] == DataLoaderPrefix
	case 'O':
		return len(name) > len(OptimizerStepPrefix) && name[:len(OptimizerStepPrefix)] == OptimizerStepPrefix
	}
	return false
}
