package metrics

import (
	"math"
	"strings"
	"testing"
)

// TestPeakTable: every entry cites where its numbers come from, gives a
// bandwidth, and is dense: tensor-core generations double each step down
// in precision (TF32 → 16-bit → FP8), so a sparse figure (twice the
// dense) in one field breaks the ratios; and the dense figures of the
// GPUs people profile most are pinned, as the datasheets print them
// without sparsity.
func TestPeakTable(t *testing.T) {
	for _, p := range peaks() {
		if !strings.HasPrefix(p.Source, "https://") {
			t.Errorf("%s: source %q is no link to a datasheet", p.GPU, p.Source)
		}
		if p.GBps <= 0 || len(p.TFLOPS) == 0 {
			t.Errorf("%s: no bandwidth or no peaks", p.GPU)
		}
		ratio := func(hi, lo Precision, want float64) {
			a, b := p.TFLOPS[hi], p.TFLOPS[lo]
			if a == 0 || b == 0 {
				return
			}
			if r := a / b; math.Abs(r-want) > 0.02*want {
				t.Errorf("%s: %s/%s = %.3f, want %.0f: a sparse figure?", p.GPU, hi, lo, r, want)
			}
		}
		ratio(BF16, TF32, 2)
		ratio(FP8, BF16, 2)
		ratio(BF16, FP16, 1)
		if p.TFLOPS[FP8] > 0 && p.TFLOPS[INT8] > 0 {
			ratio(INT8, FP8, 1)
		}
	}
	dense := map[string]float64{"H100 SXM5": 989.4, "H100 PCIe": 756, "H200 SXM": 989.5, "A100 80GB SXM": 312, "Instinct MI300X": 1307.4, "L4": 121, "L40S": 362.05, "B200 (HGX, 1000 W)": 2250}
	seen := 0
	for _, p := range peaks() {
		if want, ok := dense[p.GPU]; ok {
			seen++
			if p.TFLOPS[BF16] != want {
				t.Errorf("%s: BF16 %v TFLOP/s, dense datasheet figure %v", p.GPU, p.TFLOPS[BF16], want)
			}
		}
	}
	if seen != len(dense) {
		t.Errorf("%d of %d pinned GPUs in the table", seen, len(dense))
	}
}

// TestPeakOf matches the names traces give (deviceProperties, Nsight).
func TestPeakOf(t *testing.T) {
	for _, tt := range []struct{ name, gpu string }{
		{"NVIDIA H100 80GB HBM3", "H100 SXM5"},
		{"NVIDIA H100 PCIe", "H100 PCIe"},
		{"NVIDIA H100 NVL", ""},
		{"NVIDIA H200", "H200 SXM"},
		{"NVIDIA H200 NVL", ""},
		{"NVIDIA GH200 480GB", ""},
		{"NVIDIA B200", "B200 (HGX, 1000 W)"},
		{"NVIDIA A100-SXM4-80GB", "A100 80GB SXM"},
		{"NVIDIA A100 80GB PCIe", "A100 80GB PCIe"},
		{"NVIDIA A100-SXM4-40GB", "A100 40GB SXM"},
		{"NVIDIA A100-PCIE-40GB", "A100 40GB PCIe"},
		{"NVIDIA A100-PG509-200", ""},
		{"NVIDIA L4", "L4"},
		{"NVIDIA L40S", "L40S"},
		{"NVIDIA L40", ""},
		{"NVIDIA GeForce RTX 4090", ""},
		{"Tesla V100-SXM2-32GB", "V100 SXM2"},
		{"Tesla V100-PCIE-16GB", "V100 PCIe"},
		{"Tesla V100-DGXS-32GB", ""},
		{"Tesla T4", "T4"},
		{"AMD Instinct MI300X", "Instinct MI300X"},
		{"AMD Instinct MI250X", "Instinct MI250X, one of its two dies"},
		{"AMD Instinct MI210", "Instinct MI210"},
		{"AMD Instinct MI325X", ""},
		{"", ""},
	} {
		p, why := peakOf(tt.name)
		if p.GPU != tt.gpu {
			t.Errorf("peakOf(%q) = %q, want %q", tt.name, p.GPU, tt.gpu)
		}
		if (why == "") != (tt.gpu != "") {
			t.Errorf("peakOf(%q): why %q", tt.name, why)
		}
	}
}

// TestMFU: FLOPs / (span × the dense peak of the mix's main precision),
// and no MFU, with the reason, for an unknown GPU unless given a peak.
func TestMFU(t *testing.T) {
	w := OpWork{Flops: 989_400_000_000, Bytes: 1e9, CostedCalls: 1, CostedGPUNS: 2_000_000_000}
	w.MathNS[precIndex(BF16)] = 900
	w.MathNS[precIndex(FP32)] = 100
	d := &DeviceSummary{Name: "NVIDIA H100 80GB HBM3", SpanNS: 4_000_000_000, KernelNS: 2_000_000_000,
		Ops: []ScopeStat{{Name: "aten::mm", Work: w}}}
	u := deviceUtilization(d, PeakOverride{})
	// 989.4e9 FLOP over 4 s = 0.24735 TFLOP/s; / 989.4 = 0.00025.
	if !u.HasMFU() || math.Abs(u.MFU()-0.00025) > 1e-12 || u.Precision != BF16 || u.PeakTFLOPS != 989.4 {
		t.Errorf("MFU %v (%s, peak %v, %q)", u.MFU(), u.Precision, u.PeakTFLOPS, u.NoMFU)
	}
	d.Name = "Tesla V100-DGXS-32GB"
	if u := deviceUtilization(d, PeakOverride{}); u.HasMFU() || !strings.Contains(u.NoMFU, "--peak-tflops") {
		t.Errorf("unknown GPU: MFU %v, reason %q", u.MFU(), u.NoMFU)
	}
	if u := deviceUtilization(d, PeakOverride{TFLOPS: 100}); !u.HasMFU() || math.Abs(u.MFU()-989.4/4/100/1000) > 1e-12 {
		t.Errorf("--peak-tflops 100: MFU %v (%q)", u.MFU(), u.NoMFU)
	}
	d.Ops = []ScopeStat{{Name: "aten::mm"}}
	if u := deviceUtilization(d, PeakOverride{TFLOPS: 100}); u.HasMFU() {
		t.Errorf("no FLOP count: MFU %v", u.MFU())
	}
}
