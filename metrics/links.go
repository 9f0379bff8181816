package metrics

import (
	"fmt"
	"strings"
)

// A Link is the host link of a GPU, over which its H2D and D2H copies
// run: its interface as the card's datasheet gives it, and the peak one
// way. A slot may run a narrower or older link than the card's: the trace
// does not say, so the peak is the card's, which the copies can only stay
// under.
type Link struct {
	Name string // "PCIe 4.0 x8", "NVLink-C2C"
	// GBps is the peak one way, GB/s (1e9 B/s): for PCIe the lanes'
	// transfer rate less its 128b/130b encoding, for NVLink-C2C half its
	// two-way figure.
	GBps   float64
	Source string // where the card's interface is stated
}

// pcie is PCIe generation gen (3 to 5, 128b/130b encoding) with lanes
// lanes: 8, 16 or 32 GT/s a lane, 128 data bits of every 130, one way.
func pcie(gen, lanes int, source string) Link {
	gts := map[int]float64{3: 8, 4: 16, 5: 32}[gen]
	return Link{Name: fmt.Sprintf("PCIe %d.0 x%d", gen, lanes), GBps: gts * float64(lanes) * 128 / 130 / 8, Source: source}
}

// linkTable are the host links traceql knows, matched against the device
// name as peakTable is (the first entry whose every needle occurs in it).
// Only cards whose interface the cited page states; the GPUs left out of
// it get no ratio.
var linkTable = []struct {
	needles []string
	link    Link
}{
	{[]string{"gh200"}, Link{Name: "NVLink-C2C", GBps: 450,
		Source: "https://www.nvidia.com/en-us/data-center/grace-hopper-superchip/ (NVLink-C2C 900 GB/s, both ways together)"}},
	{[]string{"h100"}, pcie(5, 16, "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet (H100 SXM and PCIe: PCIe Gen5 128 GB/s, both ways together)")},
	{[]string{"h200"}, pcie(5, 16, "https://www.nvidia.com/en-us/data-center/h200/ (PCIe Gen5 128 GB/s, both ways together)")},
	{[]string{"a100"}, pcie(4, 16, "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf (PCIe Gen4 64 GB/s, both ways together)")},
	{[]string{"l40s"}, pcie(4, 16, "https://resources.nvidia.com/en-us-l40s/l40s-datasheet-28413 (PCIe Gen4 x16)")},
	{[]string{"l4"}, pcie(4, 16, "https://resources.nvidia.com/en-us-data-center-overview/l4-gpu-datasheet (PCIe Gen4 x16)")},
	{[]string{"t4"}, pcie(3, 16, "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf (PCIe Gen3 x16)")},
	{[]string{"mi300x"}, pcie(5, 16, "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf (PCIe Gen5 x16)")},
	{[]string{"rtx", "4060", "ti"}, pcie(4, 8, "https://www.techpowerup.com/gpu-specs/geforce-rtx-4060-ti-8-gb.c3890 (bus interface PCIe 4.0 x8)")},
}

// A LinkRow is an entry of the host-link table as LinkOf matches it:
// every word of Needles occurs in the device name.
type LinkRow struct {
	Needles []string
	Link    Link
}

// LinkRows lists the host-link table in the order LinkOf tries it, for
// `traceql help links`.
func LinkRows() []LinkRow {
	out := make([]LinkRow, len(linkTable))
	for i, e := range linkTable {
		out[i] = LinkRow{Needles: e.needles, Link: e.link}
	}
	return out
}

// linkOf finds the host link of the GPU named name; why says why there
// is none ("" when found).
func linkOf(name string) (l Link, why string) {
	n := strings.ToLower(name)
	if strings.TrimSpace(n) == "" {
		return Link{}, "the trace does not name the GPU"
	}
	for _, e := range linkTable {
		all := true
		for _, s := range e.needles {
			all = all && containsWord(n, s)
		}
		if all {
			return e.link, ""
		}
	}
	return Link{}, fmt.Sprintf("%q is not in traceql's table of host links", name)
}

// LinkText says how fast d's H2D and D2H copies ran against the host
// link of its GPU (copy time, not wall time: the copies' bytes over their
// summed durations); "" without such copies or with only tiny ones
// (CopyStat.Tiny), whose rate measures latency, and the reason when the
// link is unknown.
func LinkText(d *DeviceSummary) string {
	var parts []string
	l, why := linkOf(d.Name)
	for _, c := range []CopyStat{d.H2D, d.D2H} {
		if c.Copies == 0 || c.NS == 0 || c.Tiny() {
			continue
		}
		name := map[string]string{"HtoD": "H2D", "DtoH": "D2H"}[c.Kind]
		s := fmt.Sprintf("%s %.1f GB/s", name, c.GBps)
		if why == "" {
			s += fmt.Sprintf(" (%.0f %%)", 100*c.GBps/l.GBps)
		}
		parts = append(parts, s)
	}
	switch {
	case len(parts) == 0:
		return ""
	case why != "":
		return strings.Join(parts, ", ") + "; no link peak: " + why
	}
	return fmt.Sprintf("%s of %s's %.1f GB/s one way", strings.Join(parts, ", "), l.Name, l.GBps)
}
