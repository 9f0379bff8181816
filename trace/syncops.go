package trace

// The record_function ranges PyTorch puts around a DataLoader's __next__
// and an optimizer's step: cpu_ops in traces before about 2022, user
// annotations since.
const (
	DataLoaderPrefix    = "enumerate(DataLoader)#"
	OptimizerStepPrefix = "Optimizer.step#"
)

// syncOps are the PyTorch ops that make the host wait for the device: a
// scalar or a data-dependent shape read back (.item(), nonzero, a boolean
// mask).
var syncOps = map[string]bool{
	"aten::item": true, "aten::_local_scalar_dense": true, "aten::nonzero": true, "aten::is_nonzero": true,
	"aten::masked_select": true, "aten::unique": true, "aten::_unique2": true,
}

// IsSyncOp reports whether a host op makes the host wait for the device
// (see syncOps). The first bytes turn away nearly every other op.
func IsSyncOp(name string) bool {
	return len(name) > 6 && name[0] == 'a' && name[4] == ':' && syncOps[name]
}

// IsFindingOp reports whether metrics' findings read a host op: one that
// synchronizes (IsSyncOp), or a DataLoader or optimizer step range. A
// lean read keeps these, as it keeps torch.compile's ops. The first byte
// turns away nearly every other op.
func IsFindingOp(name string) bool {
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
