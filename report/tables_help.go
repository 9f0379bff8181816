package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// PeaksHelp is `traceql help peaks`: the peak table that peak_tflops,
// mfu and the roofline divide by, written from metrics.PeakRows in the
// order a device name is matched against it, each entry with its source.
func PeaksHelp() string {
	var b strings.Builder
	b.WriteString(wrapIndent("The GPUs whose peaks traceql knows, from their datasheets: dense math "+
		"(never 2:4 sparse) in TFLOP/s (TOP/s for int8) and memory bandwidth in GB/s. peak_tflops, "+
		"mfu and the roofline columns divide by them. A trace's device name takes the first entry "+
		"whose every word occurs in it (case-insensitive, not inside a longer model number); a GPU "+
		"that takes none, or takes a refused entry, has no MFU unless --peak-tflops is given "+
		"(and no roofline without --peak-gbps).", "", 80))
	var refused []string
	for _, r := range metrics.PeakRows() {
		if r.Refused {
			refused = append(refused, quoteAll(r.Needles))
			continue
		}
		p := r.Peak
		b.WriteString("\n" + p.GPU + ": names with " + quoteAll(r.Needles) + "\n")
		var rates []string
		for _, prec := range metrics.Precisions() {
			if v, ok := p.TFLOPS[prec]; ok {
				rates = append(rates, string(prec)+" "+num(v))
			}
		}
		b.WriteString(wrapIndent(strings.Join(rates, ", ")+" TFLOP/s; memory "+num(p.GBps)+" GB/s", "    ", 80))
		if p.Note != "" {
			b.WriteString(wrapIndent(p.Note, "    ", 80))
		}
		b.WriteString(wrapIndent("source: "+p.Source, "    ", 80))
	}
	if len(refused) > 0 {
		b.WriteString("\n" + wrapIndent("No peak, tried before the entries above, for variants whose figures "+
			"could not be confirmed: names with "+strings.Join(refused, "; ")+".", "", 80))
	}
	return b.String()
}

// LinksHelp is `traceql help links`: the host-link table that copy rates
// are set against (the copy breakdown, the exposed-copy finding),
// written from metrics.LinkRows as PeaksHelp writes the peaks.
func LinksHelp() string {
	var b strings.Builder
	b.WriteString(wrapIndent("The host links traceql knows, over which a GPU's H2D and D2H copies run: "+
		"the interface the card's datasheet states (PCIe generation and lanes, NVLink-C2C) and its peak "+
		"one way in GB/s (1e9 B/s; PCIe less its 128b/130b encoding, NVLink-C2C half its two-way "+
		"figure). A slot may run a narrower or older link than the card's, which the trace does not "+
		"say: the copies can only stay under the card's peak. A device name takes the first entry whose "+
		"every word occurs in it; a GPU that takes none gets no ratio.", "", 80))
	for _, r := range metrics.LinkRows() {
		l := r.Link
		fmt.Fprintf(&b, "\n%s, %s GB/s one way: names with %s\n", l.Name, strconv.FormatFloat(l.GBps, 'f', 1, 64), quoteAll(r.Needles))
		b.WriteString(wrapIndent("source: "+l.Source, "    ", 80))
	}
	return b.String()
}

// num writes a table's figure as the table holds it.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// quoteAll writes the words a name must hold: "h100" and "pcie".
func quoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}
