package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/traceql/traceql/internal/golden"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

// whatifSection is the projection's section of a report's page text.
var whatifSection = regexp.MustCompile(`(?s)\nProjection, not a measurement\n.*?\n(Plots|Every metric)\n`)

// TestReportWhatif reports the small ViT at batch 1, default, eager and
// reduce-overhead, with --whatif graphs: the page is the one without it
// plus a section apart, titled and noted as a projection, with the
// constants; its numbers are whatif -f csv's, as Chromium renders them.
func TestReportWhatif(t *testing.T) {
	t.Chdir(gpuDir)
	var runs []string
	for _, mode := range []string{"default", "eager", "reduce-overhead"} {
		runs = append(runs, filepath.Base(gpuFile("small", mode, 1)))
	}
	args := append(runs, "--label", "default,eager,reduce-overhead")
	text := func(page string) string {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		return regexp.MustCompile(`(?m)^traceql [^\n]* UTC: traceql report[^\n]*`).ReplaceAllString(pageText(string(b)), "traceql VERSION, DATE: COMMAND")
	}
	plain, _ := writeReport(t, args)
	page, errOut := writeReport(t, append(args, "--whatif", "graphs"))
	if errOut != "" {
		t.Errorf("stderr: %s", errOut)
	}
	got := text(page)
	m := whatifSection.FindStringSubmatchIndex(got)
	if m == nil {
		t.Fatalf("no projection's section in:\n%s", got)
	}
	section := got[m[0]+1 : m[2]]
	if rest := got[:m[0]+1] + got[m[2]:]; rest != text(plain) {
		t.Errorf("--whatif changed the page beyond its section:\n%s", rest)
	}
	for _, want := range []string{"(a projection, not a measurement)", "constants: graph_replay_host_ns 341 µs, graph_launch_node_ns 2.38 µs, graph_node_ns 448 ns",
		"reduce-overhead already replays CUDA graphs"} {
		if !strings.Contains(section, want) {
			t.Errorf("the section lacks %q:\n%s", want, section)
		}
	}
	golden.Check(t, filepath.Join("../../cmd/traceql/testdata", "gpu.report_whatif.txt.golden"), []byte(section))

	// As the browser renders it: each run's row holds whatif's measured
	// and projected median steps.
	out, errOut, code := traceql(append([]string{"whatif", "--graphs", "-f", "csv"}, runs...)...)
	if code != 0 {
		t.Fatalf("whatif: %s", errOut)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int {
		for j, n := range recs[0] {
			if n == name {
				return j
			}
		}
		t.Fatalf("whatif -f csv has no %s", name)
		return 0
	}
	var want []string
	labels := strings.Split(args[len(args)-1], ",")
	for i, r := range recs[1:] {
		ns := func(name string) string {
			v, err := strconv.ParseFloat(r[col(name)], 64)
			if err != nil {
				t.Fatal(err)
			}
			return report.Format(v, metrics.NS)
		}
		want = append(want, strings.Join([]string{labels[i], r[col("device")], ns("step_median_ns"), ns("projected_step_ns")}, " | "))
	}
	dom := string(chromiumDOM(t, page))
	sec := regexp.MustCompile(`(?s)<section id="whatif" class="projection">.*?</section>`).FindString(dom)
	if sec == "" {
		t.Fatal("Chromium's DOM has no projection section")
	}
	var rows []string
	for _, tr := range regexp.MustCompile(`(?s)<tr>(.*?)</tr>`).FindAllStringSubmatch(sec, -1)[1:] {
		cells := regexp.MustCompile(`<td[^>]*>([^<]*)</td>`).FindAllStringSubmatch(tr[1], -1)
		rows = append(rows, strings.Join([]string{cells[0][1], cells[1][1], cells[2][1], cells[3][1]}, " | "))
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Errorf("the projection's rows in Chromium:\n%s\nwant whatif -f csv's:\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
}
