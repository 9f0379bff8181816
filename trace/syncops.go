package trace

// syncOps are the PyTorch ops that make the host wait for the device: a
// scalar or a data-dependent shape read back (.item(), nonzero, a boolean
// mask). metrics' host-sync rule names them as the cause of sync time, so
// a lean read keeps them, as it keeps torch.compile's ops.
var syncOps = map[string]bool{
	"aten::item": true, "aten::_local_scalar_dense": true, "aten::nonzero": true, "aten::is_nonzero": true,
	"aten::masked_select": true, "aten::unique": true, "aten::_unique2": true,
}

// IsSyncOp reports whether a host op makes the host wait for the device
// (see syncOps). The first bytes turn away nearly every other op.
func IsSyncOp(name string) bool {
	return len(name) > 6 && name[0] == 'a' && name[4] == ':' && syncOps[name]
}
