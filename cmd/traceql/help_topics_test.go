package main

import (
	"strconv"
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
)

// TestHelpTopics: `traceql help peaks` and `traceql help links` show every
// entry of the tables PeakOf and LinkOf look GPUs up in, with the figures
// the tables hold and their sources, so a user can tell why a GPU has no
// MFU or no link ratio (issue 62).
func TestHelpTopics(t *testing.T) {
	peaks, errOut, code := traceql("help", "peaks")
	if code != 0 || errOut != "" {
		t.Fatalf("help peaks: exit %d, stderr %q", code, errOut)
	}
	flat := strings.Join(strings.Fields(peaks), " ")
	checked := 0
	for _, r := range metrics.PeakRows() {
		if r.Refused {
			if !strings.Contains(flat, strconv.Quote(r.Needles[0])) {
				t.Errorf("help peaks: the refused %q is not named", r.Needles)
			}
			continue
		}
		p := r.Peak
		for _, want := range []string{p.GPU + ": names with", "bf16", strconv.FormatFloat(p.GBps, 'f', -1, 64) + " GB/s", p.Source} {
			if !strings.Contains(flat, strings.Join(strings.Fields(want), " ")) {
				t.Errorf("help peaks: %s: %q not shown", p.GPU, want)
			}
		}
		for prec, v := range p.TFLOPS {
			if !strings.Contains(flat, string(prec)+" "+strconv.FormatFloat(v, 'f', -1, 64)) {
				t.Errorf("help peaks: %s: %s %v not shown", p.GPU, prec, v)
			}
		}
		checked++
	}
	links, errOut, code := traceql("help", "links")
	if code != 0 || errOut != "" {
		t.Fatalf("help links: exit %d, stderr %q", code, errOut)
	}
	flat = strings.Join(strings.Fields(links), " ")
	for _, r := range metrics.LinkRows() {
		l := r.Link
		head := l.Name + ", " + strconv.FormatFloat(l.GBps, 'f', 1, 64) + " GB/s one way: names with " + strconv.Quote(r.Needles[0])
		for _, want := range []string{head, strings.Join(strings.Fields(l.Source), " ")} {
			if !strings.Contains(flat, want) {
				t.Errorf("help links: %s: %q not shown", l.Name, want)
			}
		}
		checked++
	}
	known := 0
	for _, r := range metrics.PeakRows() {
		if !r.Refused {
			known++
		}
	}
	if checked < known+len(metrics.LinkRows()) {
		t.Errorf("checked %d entries", checked)
	}
	// Where users look for the columns, the topics are named.
	sum, _, _ := traceql("summarize", "--help")
	for _, topic := range []string{"traceql help peaks", "traceql help links"} {
		if !strings.Contains(strings.Join(strings.Fields(sum), " "), topic) {
			t.Errorf("summarize --help does not point to %q", topic)
		}
	}
}

// TestCaptureHelpFLOPs: wherever --capture is documented, it says that the
// replayed kernels get their capturing ops' FLOPs too, not only their
// names (issue 70): the summarize --help paragraph, and the flag's usage
// on every command that has it.
func TestCaptureHelpFLOPs(t *testing.T) {
	root := newRootCmd(&ioStreams{})
	n := 0
	for _, c := range root.Commands() {
		f := c.Flags().Lookup("capture")
		if f == nil {
			continue
		}
		n++
		if !strings.Contains(f.Usage, "FLOPs") {
			t.Errorf("%s --capture: %q says nothing of FLOPs", c.Name(), f.Usage)
		}
	}
	if n < 4 {
		t.Errorf("--capture found on %d commands; summarize, export, diff, pprof and report have it", n)
	}
	help, _, _ := traceql("summarize", "--help")
	_, para, _ := strings.Cut(help, "CUDA graphs (--capture)")
	para, _, _ = strings.Cut(para, "\n\n")
	if !strings.Contains(strings.Join(strings.Fields(para), " "), "capturing op's FLOPs") {
		t.Errorf("summarize --help's --capture paragraph says nothing of FLOPs:\n%s", para)
	}
}
