package metrics

import (
	"fmt"
	"strings"
)

// A Peak is a GPU's dense peak math throughput per precision and its
// memory bandwidth, from its vendor's datasheet: what MFU and the roofline
// divide by. Dense, never with 2:4 structured sparsity, which datasheets
// print beside (or instead of, with a footnote) and which doubles them.
type Peak struct {
	GPU string // the product, as its datasheet names it
	// TFLOPS is the dense peak per precision, in TFLOP/s (TOP/s for
	// int8): tensor/matrix cores where the precision has them, FP32 the
	// non-tensor rate. A precision the datasheet does not give is absent.
	TFLOPS map[Precision]float64
	GBps   float64 // memory bandwidth, GB/s (1e9 B/s)
	Source string  // the datasheet or whitepaper the numbers come from
	// Note says what to know beyond the numbers (a per-die split).
	Note string
}

// peakTable are the GPUs whose peaks traceql knows, matched against the
// device name a trace gives (Kineto deviceProperties.name, Nsight's GPU
// name) by the first entry whose every needle occurs in it. Left out, for
// want of a datasheet number confirmed when this table was written: H100
// NVL, H200 NVL, GH200 (two memory configurations the name may not tell),
// B300, MI325X, MI355X, GeForce RTX 4090, V100 in DGX Station (V100-DGXS), and the A100
// variants made for one customer (A100-PG509-200); and B200's TF32 and
// FP32, which the sources consulted disagreed on. Those get no MFU unless
// --peak-tflops is given.
var peakTable = []struct {
	needles []string // all must occur in the device name (case-insensitive)
	refuse  bool     // a variant whose numbers differ and are not in the table
	peak    Peak
}{
	{needles: []string{"h100", "nvl"}, refuse: true},
	{needles: []string{"h200", "nvl"}, refuse: true},
	{needles: []string{"gh200"}, refuse: true},
	{needles: []string{"h100", "pcie"}, peak: Peak{GPU: "H100 PCIe",
		TFLOPS: map[Precision]float64{FP64: 51, FP32: 51, TF32: 378, BF16: 756, FP16: 756, FP8: 1513, INT8: 1513},
		GBps:   2000, Source: "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet (H100 datasheet: sparse figures halved, as its footnote says)"}},
	{needles: []string{"h100"}, peak: Peak{GPU: "H100 SXM5",
		TFLOPS: map[Precision]float64{FP64: 66.9, FP32: 66.9, TF32: 494.7, BF16: 989.4, FP16: 989.4, FP8: 1978.9, INT8: 1978.9},
		GBps:   3350, Source: "https://resources.nvidia.com/en-us-tensor-core/gtc22-whitepaper-hopper (NVIDIA H100 Tensor Core GPU Architecture, table 1, dense); bandwidth: H100 datasheet"}},
	{needles: []string{"h200"}, peak: Peak{GPU: "H200 SXM",
		TFLOPS: map[Precision]float64{FP64: 67, FP32: 67, TF32: 494.5, BF16: 989.5, FP16: 989.5, FP8: 1979, INT8: 1979},
		GBps:   4800, Source: "https://www.nvidia.com/en-us/data-center/h200/ (H200 SXM: sparse figures halved, as its footnote says)"}},
	{needles: []string{"b200"}, peak: Peak{GPU: "B200 (HGX, 1000 W)",
		TFLOPS: map[Precision]float64{BF16: 2250, FP16: 2250, FP8: 4500, INT8: 4500},
		GBps:   8000, Source: "https://www.nvidia.com/en-us/data-center/hgx/ (HGX B200 datasheet, per GPU, sparse figures halved)"}},
	{needles: []string{"a100", "80gb", "pcie"}, peak: a100("A100 80GB PCIe", 1935)},
	{needles: []string{"a100", "80gb"}, peak: a100("A100 80GB SXM", 2039)},
	{needles: []string{"a100", "sxm4", "40gb"}, peak: a100("A100 40GB SXM", 1555)},
	{needles: []string{"a100", "pcie", "40gb"}, peak: a100("A100 40GB PCIe", 1555)},
	{needles: []string{"l40s"}, peak: Peak{GPU: "L40S",
		TFLOPS: map[Precision]float64{FP32: 91.6, TF32: 183, BF16: 362.05, FP16: 362.05, FP8: 733, INT8: 733},
		GBps:   864, Source: "https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413 (dense column)"}},
	{needles: []string{"l4"}, peak: Peak{GPU: "L4",
		TFLOPS: map[Precision]float64{FP32: 30.3, TF32: 60, BF16: 121, FP16: 121, FP8: 242.5, INT8: 242.5},
		GBps:   300, Source: "https://resources.nvidia.com/en-us-data-center-overview/l4-gpu-datasheet (sparse figures halved, as its footnote says)"}},
	{needles: []string{"v100", "sxm2"}, peak: Peak{GPU: "V100 SXM2",
		TFLOPS: map[Precision]float64{FP64: 7.8, FP32: 15.7, FP16: 125},
		GBps:   900, Source: "https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf"}},
	{needles: []string{"v100", "pcie"}, peak: Peak{GPU: "V100 PCIe",
		TFLOPS: map[Precision]float64{FP64: 7, FP32: 14, FP16: 112},
		GBps:   900, Source: "https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf"}},
	{needles: []string{"t4"}, peak: Peak{GPU: "T4",
		TFLOPS: map[Precision]float64{FP32: 8.1, FP16: 65, INT8: 130},
		GBps:   320, Source: "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf"}},
	{needles: []string{"mi300x"}, peak: Peak{GPU: "Instinct MI300X",
		TFLOPS: map[Precision]float64{FP64: 163.4, FP32: 163.4, TF32: 653.7, BF16: 1307.4, FP16: 1307.4, FP8: 2614.9, INT8: 2614.9},
		GBps:   5300, Source: "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf (without sparsity)"}},
	{needles: []string{"mi250x"}, peak: Peak{GPU: "Instinct MI250X, one of its two dies",
		TFLOPS: map[Precision]float64{FP64: 47.85, FP32: 47.85, BF16: 191.5, FP16: 191.5, INT8: 191.5},
		GBps:   1638.4, Source: "https://www.amd.com/content/dam/amd/en/documents/instinct-business-docs/product-briefs/instinct-mi250x-brochure.pdf (card figures halved)",
		Note: "ROCm shows each of the card's two dies (GCDs) as a device: each has half the card's peak and bandwidth"}},
	{needles: []string{"mi210"}, peak: Peak{GPU: "Instinct MI210",
		TFLOPS: map[Precision]float64{FP64: 45.3, FP32: 45.3, BF16: 181, FP16: 181, INT8: 181},
		GBps:   1638.4, Source: "https://www.amd.com/content/dam/amd/en/documents/instinct-business-docs/product-briefs/instinct-mi210-brochure.pdf"}},
}

func a100(name string, gbps float64) Peak {
	return Peak{GPU: name,
		TFLOPS: map[Precision]float64{FP64: 19.5, FP32: 19.5, TF32: 156, BF16: 312, FP16: 312, INT8: 624},
		GBps:   gbps, Source: "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf (dense column)"}
}

// peakOf finds the peaks of the GPU named name; why says why there are
// none ("" when found).
func peakOf(name string) (p Peak, why string) {
	n := strings.ToLower(name)
	if strings.TrimSpace(n) == "" {
		return Peak{}, "the trace does not name the GPU"
	}
	for _, e := range peakTable {
		all := true
		for _, s := range e.needles {
			if !containsWord(n, s) {
				all = false
				break
			}
		}
		if all {
			if e.refuse {
				return Peak{}, fmt.Sprintf("no confirmed datasheet peak for %q in traceql's table", name)
			}
			return e.peak, ""
		}
	}
	return Peak{}, fmt.Sprintf("%q is not in traceql's table of peaks", name)
}

// containsWord reports whether s occurs in n not inside a longer model
// number: "l4" in "nvidia l4" but not in "l40s", "t4" not in "rtx 4090".
func containsWord(n, s string) bool {
	for i := 0; ; {
		j := strings.Index(n[i:], s)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(s)
		before := j == 0 || !isAlnum(n[j-1])
		after := end == len(n) || !isAlnum(n[end]) || isAlnum(s[len(s)-1]) && isDigit(s[len(s)-1]) != isDigit(n[end])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isAlnum(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// peaks lists the table's peaks, for tests.
func peaks() []Peak {
	var out []Peak
	for _, e := range PeakRows() {
		if !e.Refused {
			out = append(out, e.Peak)
		}
	}
	return out
}

// A PeakRow is an entry of the peak table as PeakOf matches it: every
// word of Needles occurs in the device name; Refused names a variant
// that gets no peak.
type PeakRow struct {
	Needles []string
	Refused bool
	Peak    Peak
}

// PeakRows lists the peak table in the order PeakOf tries it, for
// `traceql help peaks`.
func PeakRows() []PeakRow {
	out := make([]PeakRow, len(peakTable))
	for i, e := range peakTable {
		out[i] = PeakRow{Needles: e.needles, Refused: e.refuse, Peak: e.peak}
	}
	return out
}
