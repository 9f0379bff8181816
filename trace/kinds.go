package trace

// CopyKind is the direction of a memcpy. The numeric values are CUPTI's
// CUpti_ActivityMemcpyKind codes, which Nsight's copyKind column stores.
type CopyKind uint8

// Copy kinds.
const (
	CopyUnknown CopyKind = 0
	HtoD        CopyKind = 1
	DtoH        CopyKind = 2
	HtoA        CopyKind = 3
	AtoH        CopyKind = 4
	AtoA        CopyKind = 5
	AtoD        CopyKind = 6
	DtoA        CopyKind = 7
	DtoD        CopyKind = 8
	HtoH        CopyKind = 9
	PtoP        CopyKind = 10
	UVMHtoD     CopyKind = 11
	UVMDtoH     CopyKind = 12
	UVMDtoD     CopyKind = 13
)

var copyKindNames = [...]string{"Unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP", "UVM HtoD", "UVM DtoH", "UVM DtoD"}

func (k CopyKind) String() string {
	if int(k) < len(copyKindNames) {
		return copyKindNames[k]
	}
	return "Other"
}

// parseCopyKind maps the token Kineto writes after "Memcpy " ("HtoD", …) to
// a CopyKind; unknown tokens give CopyUnknown.
func parseCopyKind(s string) CopyKind {
	for i, n := range copyKindNames[:11] {
		if n == s {
			return CopyKind(i)
		}
	}
	return CopyUnknown
}

// MemKind is the kind of memory on one side of a copy or memset. The numeric
// values are CUPTI's CUpti_ActivityMemoryKind codes as Nsight stores them.
type MemKind uint8

// Memory kinds.
const (
	Pageable      MemKind = 0
	Pinned        MemKind = 1
	DeviceMem     MemKind = 2
	ArrayMem      MemKind = 3
	Managed       MemKind = 4
	DeviceStatic  MemKind = 5
	ManagedStatic MemKind = 6
	MemUnknown    MemKind = 7
	HostMem       MemKind = 8 // ROCm traces say "Host" without pageable/pinned
)

var memKindNames = [...]string{"Pageable", "Pinned", "Device", "Array", "Managed", "Device Static", "Managed Static", "Unknown", "Host"}

func (k MemKind) String() string {
	if int(k) < len(memKindNames) {
		return memKindNames[k]
	}
	return "Unknown"
}

// parseMemKind maps a memory-kind word as Kineto writes it ("Pageable",
// "Device", …) to a MemKind; unknown words give MemUnknown.
func parseMemKind(s string) MemKind {
	for i, n := range memKindNames {
		if n == s {
			return MemKind(i)
		}
	}
	return MemUnknown
}
