package report

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// An HTMLReport is what WriteHTML lays out: the runs' summaries and what
// the plots draw, all computed by metrics beforehand.
type HTMLReport struct {
	Labels    []string          // one per run
	Summaries []metrics.Summary // one per run, with TopKernels cut to the top N
	Names     string            // kernel name style (StyleName); "" is NamesFull
	Kernels   []Series          // kernel durations, per run and device
	Gaps      []Series          // idle-gap lengths, per run and device
	Timeline  []Line            // binned utilization, per run and device
	Steps     []StepRun         // step times, per run and device
	// Breakdown are the bars of the time-by-class plot (PlotBreakdown),
	// its axis' name and title; none: no plot.
	Breakdown                     []BreakdownBar
	BreakdownAxis, BreakdownTitle string
	// DrillRows is how many rows each drill-down table (streams, host
	// API calls, ranges, GPU time by op and region, those the summaries
	// hold) shows, the largest first; 0 is 20.
	DrillRows int
}

// hostOpBars is how many ops the comparison of runs without GPU activity
// draws as bars: as many as an 8-inch plot labels legibly.
const hostOpBars = 8

// WriteHTML writes the report as one self-contained HTML page: inline CSS,
// inline SVG from the plot functions and a few lines of JavaScript that
// sort the kernel tables, nothing fetched. The tables are those of the
// text outputs (SummaryTables' parts, CompareTable), so the page and the
// terminal say the same. Its size is bounded by the tables' top N and the
// plots' bins, not by the traces' size.
func WriteHTML(w io.Writer, r HTMLReport) error {
	page := htmlPage{Title: "traceql report: " + strings.Join(r.Labels, ", ")}
	for i, s := range r.Summaries {
		page.Runs = append(page.Runs, htmlRunOf(r.Labels[i], s, r.Names, cmp.Or(r.DrillRows, 20)))
	}
	positions := 0
	for _, s := range r.Summaries {
		positions = max(positions, len(s.Devices))
	}
	if len(r.Summaries) > 1 && HostOnly(r.Summaries) {
		// Runs without GPU activity (eager and compiled on CPU or MPS):
		// their host sides, then each op's time per run, as compare.
		page.Compare = append(page.Compare, htmlCompare{Table: htmlTableOf(HostMetricTable(r.Labels, r.Summaries, nil, false), "compare", nil, nil)})
		if ops := HostOpTable(r.Labels, r.Summaries, 0); ops != nil {
			c := htmlCompare{Table: htmlTableOf(ops, "compare", nil, nil)}
			svg, err := inlineSVG(func(w io.Writer) error {
				return PlotOps(w, "svg", r.Labels, r.Summaries, hostOpBars, "host ops by total time")
			})
			if err != nil {
				return err
			}
			c.Plot = svg
			page.Compare = append(page.Compare, c)
		}
	}
	if len(r.Summaries) > 1 {
		for pos := range positions {
			t := CompareTable(r.Labels, r.Summaries, pos, CompareHeadline, false)
			c := htmlCompare{Table: htmlTableOf(t, "compare", nil, nil)}
			title := "headline metrics, ratio to " + r.Labels[0]
			if positions > 1 {
				title += fmt.Sprintf(" (each run's GPU #%d)", pos)
			}
			svg, err := inlineSVG(func(w io.Writer) error {
				return PlotCompare(w, "svg", HeadlineBars(r.Labels, r.Summaries, pos), title, [2]float64{})
			})
			if err != nil {
				return err
			}
			c.Plot = svg
			page.Compare = append(page.Compare, c)
		}
	}
	plots := []struct {
		name string
		draw func(io.Writer) error
		ok   bool
	}{
		{"GPU utilization over time", func(w io.Writer) error {
			return PlotTimeline(w, "svg", r.Timeline, "GPU utilization over time")
		}, len(r.Timeline) > 0},
		{"kernel time by kernel duration", func(w io.Writer) error {
			return PlotKernelHist(w, "svg", r.Kernels, "kernel time by kernel duration", true)
		}, hasValues(r.Kernels)},
		{"idle time by gap length", func(w io.Writer) error {
			return PlotGapHist(w, "svg", r.Gaps, "idle time by gap length", true)
		}, hasValues(r.Gaps)},
		{"step time per step", func(w io.Writer) error {
			return PlotSteps(w, "svg", r.Steps, "step time per step")
		}, hasSteps(r.Steps)},
		{"GPU time by class", func(w io.Writer) error {
			return PlotBreakdown(w, "svg", r.Breakdown, r.BreakdownAxis, r.BreakdownTitle)
		}, hasBreakdown(r.Breakdown)},
	}
	for _, p := range plots {
		if !p.ok {
			continue
		}
		svg, err := inlineSVG(p.draw)
		if err != nil {
			return fmt.Errorf("plot %s: %w", p.name, err)
		}
		page.Plots = append(page.Plots, htmlPlot{Name: p.name, SVG: svg})
	}
	page.Records = htmlTableOf(SummaryRecords(r.Summaries), "records", nil, nil)
	page.Records.raw = true
	for i := range page.Records.Rows {
		for j := range page.Records.Rows[i].Cells {
			c := &page.Records.Rows[i].Cells[j]
			c.Text = c.Raw
		}
	}
	return htmlTemplate.Execute(w, page)
}

func hasValues(s []Series) bool {
	for _, x := range s {
		if len(x.Values) > 0 {
			return true
		}
	}
	return false
}

func hasBreakdown(bars []BreakdownBar) bool {
	for _, b := range bars {
		if b.Classes.BusyNS()+b.IdleNS > 0 {
			return true
		}
	}
	return false
}

func hasSteps(runs []StepRun) bool {
	for _, r := range runs {
		if len(r.Steps) > 0 {
			return true
		}
	}
	return false
}

// svgProlog is what an SVG file has before its <svg> element and an HTML
// page must not: the XML declaration and the generator's comment.
var svgProlog = regexp.MustCompile(`(?s)\A.*?(<svg[\s>])`)

// inlineSVG renders a plot as SVG for inclusion in a page. The SVG is the
// plot package's own output, whose text it escapes, so it is trusted.
func inlineSVG(draw func(io.Writer) error) (template.HTML, error) {
	var b bytes.Buffer
	if err := draw(&b); err != nil {
		return "", err
	}
	s := svgProlog.ReplaceAllString(b.String(), "$1")
	return template.HTML(s), nil // #nosec: generated by report's plots, text escaped there
}

type htmlPage struct {
	Title   string
	Runs    []htmlRun
	Compare []htmlCompare
	Plots   []htmlPlot
	Records htmlTable
}

type htmlCompare struct {
	Table htmlTable
	Plot  template.HTML
}

type htmlPlot struct {
	Name string
	SVG  template.HTML
}

type htmlRun struct {
	Label   string
	Heading string // SummaryTables' title: file, format, GPU model, window, warm-up notes
	Devices []htmlDevice
	Host    []htmlTable // a trace without GPU activity: its host side
	Drill   []htmlTable // torch.compile, streams, API calls, ranges, ops and regions
}

type htmlDevice struct {
	Name     string // "GPU 0"
	Bound    string // metrics.Verdict's name, or why it names none
	Verdict  string
	Headline htmlTable
	Idle     htmlTable   // idle time by class
	Tables   []htmlTable // top kernels, steps, copies, idle gaps by length
}

// An htmlTable is a Table with its cells formatted, and each cell's raw
// value kept for sorting.
type htmlTable struct {
	Title   string
	Class   string
	Columns []htmlColumn
	Rows    []htmlRow
	Notes   []string
	raw     bool
}

type htmlColumn struct {
	Name string
	Num  bool
}

type htmlRow struct {
	Class string
	Cells []htmlCell
}

type htmlCell struct {
	Text  string
	Raw   string // for sorting
	Title string // the whole text, where Text is styled or cut
	Num   bool
}

// htmlTableOf formats t; rowClass and cellTitle, when not nil, give a
// row's class and a cell's hover text.
func htmlTableOf(t *Table, class string, rowClass func(i int) string, cellTitle func(i, j int) string) htmlTable {
	h := htmlTable{Title: t.Title, Class: class, Notes: t.Notes}
	for _, c := range t.Columns {
		h.Columns = append(h.Columns, htmlColumn{Name: c.Name, Num: c.Unit != metrics.Text})
	}
	for i, r := range t.Rows {
		row := htmlRow{}
		if rowClass != nil {
			row.Class = rowClass(i)
		}
		for j, c := range t.Columns {
			cl := htmlCell{Text: cell(r[j], c.Unit, true), Raw: cell(r[j], c.Unit, false), Num: c.Unit != metrics.Text}
			if cellTitle != nil {
				cl.Title = cellTitle(i, j)
			}
			row.Cells = append(row.Cells, cl)
		}
		h.Rows = append(h.Rows, row)
	}
	return h
}

// htmlRunOf lays out one run: per device the headline and its verdict,
// idle time by class, the top kernels (sortable, full names on hover),
// the steps with warm-up marked, the copies and the idle gaps by length.
func htmlRunOf(label string, s metrics.Summary, names string, drillRows int) htmlRun {
	l := Layout{Names: names}
	tables := SummaryTables(s, l)
	run := htmlRun{Label: label, Heading: tables[0].Title}
	if len(s.Devices) == 0 {
		// The first table's title is the heading; its rows, the host
		// side's metrics, are the run's first table.
		host := *tables[0]
		host.Title = ""
		if len(host.Rows) > 0 {
			run.Host = append(run.Host, htmlTableOf(&host, "", nil, nil))
		}
		for _, t := range tables[1:] {
			run.Host = append(run.Host, htmlTableOf(t, "", nil, nil))
		}
		return run
	}
	model := s.Devices[0].Name
	for _, d := range s.Devices {
		if d.Name != model {
			model = ""
		}
	}
	many := len(s.Devices) > 1
	for i := range s.Devices {
		d := &s.Devices[i]
		hd := htmlDevice{Name: fmt.Sprintf("GPU %d", d.Device)}
		if b := metrics.Verdict(d); b != metrics.Unbound {
			hd.Bound = b.String() + "-bound"
		} else {
			hd.Bound, _, _ = strings.Cut(noVerdict(d), ":")
		}
		head := headlineTable(d, model == "")
		hd.Verdict = strings.Join(head.Notes, " ")
		head.Notes = nil
		hd.Headline = htmlTableOf(head, "headline", nil, nil)
		hd.Idle = htmlTableOf(idleClassTable(d), "idle", nil, nil)
		if t := topKernelsTable(d, many, l); t != nil {
			full := func(i, j int) string {
				if j == len(t.Columns)-1 {
					return d.TopKernels[i].Name
				}
				return ""
			}
			hd.Tables = append(hd.Tables, htmlTableOf(t, "sortable kernels", nil, full))
		}
		suffix := ""
		if many {
			suffix = fmt.Sprintf(" (GPU %d)", d.Device)
		}
		if len(d.Steps) >= 2 {
			warm := metrics.WarmupSteps(d.Steps)
			t := stepStatsTable(d.Steps, suffix)
			hd.Tables = append(hd.Tables, htmlTableOf(t, "steps", func(i int) string {
				if i < warm && i < stepRows/2 {
					return "warmup"
				}
				return ""
			}, nil))
		}
		noSteps := *d
		noSteps.Steps = nil // listed above, with warm-up marked
		for _, t := range deviceTables(&noSteps, many) {
			hd.Tables = append(hd.Tables, htmlTableOf(t, "", nil, nil))
		}
		run.Devices = append(run.Devices, hd)
	}
	for _, t := range compileTables(s, l) {
		run.Drill = append(run.Drill, htmlTableOf(t, "", nil, nil))
	}
	for _, t := range drillTables(s, l) {
		// Each table is sorted by what it measures, the largest first
		// (streams by id, few): its top rows keep the page's size
		// bounded whatever the trace's.
		if n := len(t.Rows) - drillRows; n > 0 {
			t.Rows = t.Rows[:drillRows]
			t.Notes = append(t.Notes, fmt.Sprintf("%s more not shown: traceql summarize --by lists them all", Format(n, metrics.Count)))
		}
		run.Drill = append(run.Drill, htmlTableOf(t, "sortable drill", nil, nil))
	}
	return run
}

// idleClassTable splits a device's idle time by cause (metrics.ClassifyGaps).
func idleClassTable(d *metrics.DeviceSummary) *Table {
	t := &Table{Title: "idle time by class", Columns: []Column{{Name: "class", Unit: metrics.Text},
		{Name: "idle", Unit: metrics.NS}, {Name: "share of idle", Unit: metrics.Ratio}}}
	for _, c := range []struct {
		name string
		ns   int64
	}{{metrics.GapSync, d.IdleSyncNS}, {metrics.GapLaunch, d.IdleLaunchNS}, {metrics.GapOther, d.IdleOtherNS}} {
		share := 0.0
		if d.IdleNS > 0 {
			share = float64(c.ns) / float64(d.IdleNS)
		}
		t.Rows = append(t.Rows, []any{c.name, c.ns, share})
	}
	if d.ShortLaunchGaps > 0 {
		note := fmt.Sprintf("%s launch time in %s gaps under 1 ms: what CUDA graphs could remove",
			Format(d.ShortLaunchNS, metrics.NS), Format(d.ShortLaunchGaps, metrics.Count))
		if d.ShortGraphLaunchNS > 0 {
			note = fmt.Sprintf("%s launch time in %s gaps under 1 ms, %s of it before graph launches: host time between replays, "+
				"which graphs do not remove", Format(d.ShortLaunchNS, metrics.NS), Format(d.ShortLaunchGaps, metrics.Count),
				Format(d.ShortGraphLaunchNS, metrics.NS))
		}
		t.Notes = append(t.Notes, note)
	}
	return t
}

var htmlTemplate = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>{{.Title}}</title>
<style>
:root { --fg: #1b1f24; --bg: #ffffff; --muted: #57606a; --line: #d0d7de; --head: #f6f8fa; --warn: #fff4d6; --accent: #0969da; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --bg: #0d1117; --muted: #8d96a0; --line: #30363d; --head: #161b22; --warn: #3b2e00; --accent: #4493f8; }
}
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif; color: var(--fg); background: var(--bg); margin: 1.5em auto; max-width: 1100px; padding: 0 1em; }
h1 { font-size: 1.5em; margin: 0 0 .3em; }
h2 { font-size: 1.25em; border-bottom: 1px solid var(--line); padding-bottom: .2em; margin-top: 1.8em; }
h3 { font-size: 1.05em; margin: 1.2em 0 .4em; }
pre.heading { white-space: pre-wrap; color: var(--muted); margin: .3em 0; font: inherit; }
table { border-collapse: collapse; margin: .4em 0 .2em; }
caption { text-align: left; font-weight: 600; padding: .3em 0; white-space: pre-line; }
th, td { border: 1px solid var(--line); padding: .2em .55em; vertical-align: top; }
th { background: var(--head); text-align: left; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.kernels td:last-child { max-width: 46em; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-family: ui-monospace, "Liberation Mono", monospace; font-size: .92em; }
tr.warmup td { background: var(--warn); }
tr.warmup td:first-child::after { content: " warm-up"; font-size: .8em; color: var(--muted); }
p.note { color: var(--muted); margin: .2em 0; max-width: 60em; }
p.verdict { border-left: 4px solid var(--accent); padding: .3em .7em; background: var(--head); max-width: 60em; }
.bound { font-weight: 600; }
.grid { display: flex; flex-wrap: wrap; gap: 0 2em; align-items: flex-start; }
figure { margin: 1em 0; break-inside: avoid; }
figure svg { max-width: 100%; height: auto; background: #fff; border-radius: 4px; }
.records { overflow-x: auto; }
.js table.sortable th { cursor: pointer; user-select: none; }
.js table.sortable th[aria-sort=ascending]::after { content: " ▲"; }
.js table.sortable th[aria-sort=descending]::after { content: " ▼"; }
@media print {
  body { max-width: none; margin: 0; font-size: 11px; }
  section, table, figure { break-inside: avoid; }
  h2 { break-before: auto; }
  details > * { display: block; }
}
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<p class="note">Made by traceql: numbers exact, from the traces alone. Tables sort by a click on their header.</p>
</header>
<section id="runs">
<h2>Runs</h2>
<table class="runs"><thead><tr><th>run</th><th>device</th><th>verdict</th></tr></thead><tbody>
{{- range $r := .Runs}}{{range .Devices}}
<tr><td>{{$r.Label}}</td><td>{{.Name}}</td><td class="bound">{{.Bound}}</td></tr>
{{- else}}
<tr><td>{{$r.Label}}</td><td>no GPU activity</td><td></td></tr>
{{- end}}{{end}}
</tbody></table>
</section>
{{- if .Compare}}
<section id="compare">
<h2>Comparison</h2>
{{- range .Compare}}
{{template "table" .Table}}
{{- if .Plot}}
<figure>{{.Plot}}</figure>
{{- end}}
{{- end}}
</section>
{{- end}}
{{- if .Plots}}
<section id="plots">
<h2>Plots</h2>
{{- range .Plots}}
<figure class="plot" aria-label="{{.Name}}">{{.SVG}}</figure>
{{- end}}
</section>
{{- end}}
{{- range $i, $r := .Runs}}
<section class="run" id="run{{$i}}" data-label="{{.Label}}">
<h2>{{.Label}}</h2>
<pre class="heading">{{.Heading}}</pre>
{{- range .Host}}{{template "table" .}}{{end}}
{{- range .Devices}}
<section class="device" data-device="{{.Name}}">
<h3>{{.Name}}</h3>
<p class="verdict">{{.Verdict}}</p>
<div class="grid">
{{template "table" .Headline}}
{{template "table" .Idle}}
</div>
{{- range .Tables}}
{{template "table" .}}
{{- end}}
</section>
{{- end}}
{{- if .Drill}}
<section class="drill">
<h3>Drill-down</h3>
{{- range .Drill}}
{{template "table" .}}
{{- end}}
</section>
{{- end}}
</section>
{{- end}}
<section id="records">
<h2>Every metric</h2>
<details><summary>raw values, as <code>traceql summarize -f csv</code> writes them (times in ns)</summary>
<div class="records">{{template "table" .Records}}</div>
</details>
</section>
{{define "table"}}<table{{if .Class}} class="{{.Class}}"{{end}}>{{if .Title}}<caption>{{.Title}}</caption>{{end}}
<thead><tr>{{range .Columns}}<th{{if .Num}} class="num"{{end}}>{{.Name}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr{{if .Class}} class="{{.Class}}"{{end}}>{{range .Cells}}<td{{if .Num}} class="num"{{end}} data-v="{{.Raw}}"{{if .Title}} title="{{.Title}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{- end}}
</tbody></table>
{{- range .Notes}}
<p class="note">{{.}}</p>
{{- end}}
{{end}}
<script>
// Sorting only: the page reads the same without it.
document.documentElement.classList.add("js");
for (const table of document.querySelectorAll("table.sortable")) {
  const heads = table.tHead.rows[0].cells;
  for (let col = 0; col < heads.length; col++) {
    const th = heads[col];
    th.tabIndex = 0;
    const sort = () => {
      const desc = th.getAttribute("aria-sort") !== "descending";
      for (const h of heads) h.removeAttribute("aria-sort");
      th.setAttribute("aria-sort", desc ? "descending" : "ascending");
      const body = table.tBodies[0];
      const rows = Array.from(body.rows);
      const key = r => r.cells[col].dataset.v;
      const num = th.classList.contains("num");
      rows.sort((a, b) => {
        const x = key(a), y = key(b);
        const c = num ? Number(x) - Number(y) : x.localeCompare(y);
        return desc ? -c : c;
      });
      for (const r of rows) body.appendChild(r);
    };
    th.addEventListener("click", sort);
    th.addEventListener("keydown", e => { if (e.key === "Enter") sort(); });
  }
}
</script>
</body>
</html>
`))
