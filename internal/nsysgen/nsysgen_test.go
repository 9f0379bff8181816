package nsysgen

import (
	"database/sql"
	"path/filepath"
	"slices"
	"testing"
)

func tables(t *testing.T, path string) []string {
	t.Helper()
	dsn, err := DSN(path, "mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	return names
}

func TestNsysgenShapes(t *testing.T) {
	spec := func(shape Shape) Spec {
		return Spec{
			Shape:   shape,
			Version: "2026.1.1.204",
			GPUs:    []GPU{{ID: 0, Name: "G"}},
			Kernels: ManyKernels(3),
			Runtime: []API{{Start: 1, End: 2, PID: 1, TID: 2, Name: "cudaLaunchKernel_v7000"}},
		}
	}
	tests := []struct {
		shape Shape
		want  []string
	}{
		{Shape2026, []string{"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND", "ENUM_CUPTI_SYNC_TYPE", "META_DATA_EXPORT", "PROCESSES", "StringIds", "TARGET_INFO_GPU"}},
		{Shape2021, []string{"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "StringIds", "TARGET_INFO_GPU"}},
	}
	for _, tt := range tests {
		t.Run(tt.shape.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.sqlite")
			if err := Write(path, spec(tt.shape)); err != nil {
				t.Fatal(err)
			}
			if got := tables(t, path); !slices.Equal(got, tt.want) {
				t.Errorf("tables %q, want %q", got, tt.want)
			}
			// Writing again replaces the file.
			if err := Write(path, Spec{Shape: tt.shape}); err != nil {
				t.Fatal(err)
			}
			if got := tables(t, path); slices.Contains(got, "CUPTI_ACTIVITY_KIND_KERNEL") || !slices.Contains(got, "StringIds") {
				t.Errorf("after rewrite: tables %q", got)
			}
		})
	}
}

func TestNsysgenRefusals(t *testing.T) {
	dir := t.TempDir()
	for name, spec := range map[string]Spec{
		"nvtx in 2021":        {Shape: Shape2021, NVTX: []NVTX{{Start: 1, End: 2, Type: 59}}},
		"cuda device in 2021": {Shape: Shape2021, CUDADevices: []CUDADevice{{}}},
		"bad sql":             {SQL: []string{"NOT SQL"}},
	} {
		if err := Write(filepath.Join(dir, "x.sqlite"), spec); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestNsysgenShortName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"void at::native::vectorized_elementwise_kernel<4, float>(int, float*)", "vectorized_elementwise_kernel"},
		{"volta_sgemm_128x64_nn", "volta_sgemm_128x64_nn"},
		{"void cutlass::Kernel<cutlass_80_tensorop>(Params)", "Kernel"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := ShortName(tt.in); got != tt.want {
			t.Errorf("ShortName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNsysgenGlobalIDs(t *testing.T) {
	if got := GlobalPID(17068); got != 281761330233344 {
		t.Errorf("GlobalPID(17068) = %d, want 281761330233344 (as in a real export)", got)
	}
	if g := GlobalTID(17068, 17070); (g>>24)&0xFFFFFF != 17068 || g&0xFFFFFF != 17070 {
		t.Errorf("GlobalTID = %#x", g)
	}
}
