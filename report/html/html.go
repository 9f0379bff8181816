package html

import (
	"bytes"
	"cmp"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
	"github.com/traceql/traceql/report/plot"
)

// An Report is what Write lays out: the runs' summaries and what
// the plots draw, all computed by metrics beforehand.
type Report struct {
	Labels    []string          // one per run
	Summaries []metrics.Summary // one per run, with TopKernels cut to the top N
	Names     string            // kernel name style (--names); "" is NamesFull
	Kernels   []plot.Series     // kernel durations, per run and device
	Gaps      []plot.Series     // idle-gap lengths, per run and device
	Timeline  []plot.Line       // binned utilization, per run and device
	Steps     []plot.StepRun    // step times, per run and device
	// Breakdown are the bars of the time-by-class plot (plot.Breakdown),
	// its axis' name and title; none: no plot.
	Breakdown                     []plot.BreakdownBar
	BreakdownAxis, BreakdownTitle string
	// Projections are each run's, as metrics.ReplayDevices gives them,
	// with the edits WhatifEdits names (metrics.Edits.String); none: no
	// projection on the page.
	Projections [][]metrics.Projection
	WhatifEdits string
	// DrillRows is how many rows each drill-down table (streams, host
	// API calls, ranges, GPU time by op and region, those the summaries
	// hold) shows, the largest first; 0 is 20.
	DrillRows int
	// Made says how the page was made: the version, the date and the
	// command, paths as the command shows them; "" leaves it out.
	Made string
}

// hostOpBars is how many ops the comparison of runs without GPU activity
// draws as bars: as many as an 8-inch plot labels legibly.
const hostOpBars = 8

// Write writes the report as one self-contained HTML page: inline CSS,
// inline SVG from the plot functions and a few lines of JavaScript that
// sort the kernel tables, nothing fetched. The tables are those of the
// text outputs (SummaryTables' parts, report.CompareTable), so the page and the
// terminal say the same. Its size is bounded by the tables' top N and the
// plots' bins, not by the traces' size.
func Write(w io.Writer, r Report) error {
	page := htmlPage{Title: "traceql report: " + strings.Join(r.Labels, ", "), Made: r.Made}
	for i, s := range r.Summaries {
		page.Runs = append(page.Runs, htmlRunOf(r.Labels[i], s, r.Names, cmp.Or(r.DrillRows, 20)))
	}
	positions := 0
	for _, s := range r.Summaries {
		positions = max(positions, len(s.Devices))
	}
	if len(r.Summaries) > 1 && report.HostOnly(r.Summaries) {
		// Runs without GPU activity (eager and compiled on CPU or MPS):
		// their host sides, then each op's time per run, as compare.
		page.Compare = append(page.Compare, htmlCompare{Table: htmlTableOf(report.HostMetricTable(r.Labels, r.Summaries, nil, false), "compare", nil, nil)})
		if ops := report.HostOpTable(r.Labels, r.Summaries, 0); ops != nil {
			c := htmlCompare{Table: htmlTableOf(ops, "compare", nil, nil)}
			svg, err := inlineSVG(func(w io.Writer) error {
				return plot.Ops(w, "svg", r.Labels, r.Summaries, hostOpBars, "host ops by self time")
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
			t := report.CompareTable(r.Labels, r.Summaries, pos, report.CompareHeadline, false)
			c := htmlCompare{Table: htmlTableOf(t, "compare", nil, nil)}
			title := "headline metrics, ratio to " + r.Labels[0]
			if positions > 1 {
				title += fmt.Sprintf(" (each run's GPU #%d)", pos)
			}
			svg, err := inlineSVG(func(w io.Writer) error {
				return plot.Compare(w, "svg", plot.HeadlineBars(r.Labels, r.Summaries, pos), title, [2]float64{})
			})
			if err != nil {
				return err
			}
			c.Plot = svg
			page.Compare = append(page.Compare, c)
		}
	}
	if r.WhatifEdits != "" {
		if t := report.WhatifCompareTable(r.Labels, r.Summaries, r.Projections, r.WhatifEdits); t != nil {
			h := htmlTableOf(t, "projection", nil, nil)
			page.Whatif = &h
		}
	}
	plots := []struct {
		name string
		draw func(io.Writer) error
		ok   bool
	}{
		{"GPU utilization over time", func(w io.Writer) error {
			return plot.Timeline(w, "svg", r.Timeline, "GPU utilization over time")
		}, len(r.Timeline) > 0},
		{"kernel time by kernel duration", func(w io.Writer) error {
			return plot.KernelHist(w, "svg", r.Kernels, "kernel time by kernel duration", true)
		}, hasValues(r.Kernels)},
		{"idle time by gap length", func(w io.Writer) error {
			return plot.GapHist(w, "svg", r.Gaps, "idle time by gap length", true)
		}, hasValues(r.Gaps)},
		{"step time per step", func(w io.Writer) error {
			return plot.Steps(w, "svg", r.Steps, "step time per step")
		}, hasSteps(r.Steps)},
		{"GPU time by class", func(w io.Writer) error {
			return plot.Breakdown(w, "svg", r.Breakdown, r.BreakdownAxis, r.BreakdownTitle)
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
	page.Records = htmlTableOf(report.SummaryRecords(r.Summaries), "records", nil, nil)
	page.Records.raw = true
	for i := range page.Records.Rows {
		for j := range page.Records.Rows[i].Cells {
			c := &page.Records.Rows[i].Cells[j]
			c.Text = c.Raw
		}
	}
	return htmlTemplate.Execute(w, page)
}

func hasValues(s []plot.Series) bool {
	for _, x := range s {
		if len(x.Values) > 0 {
			return true
		}
	}
	return false
}

func hasBreakdown(bars []plot.BreakdownBar) bool {
	for _, b := range bars {
		if b.Classes.BusyNS()+b.IdleNS > 0 {
			return true
		}
	}
	return false
}

func hasSteps(runs []plot.StepRun) bool {
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
	Made    string
	Title   string
	Runs    []htmlRun
	Compare []htmlCompare
	Whatif  *htmlTable // the projection, apart from what was measured
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

// An htmlTable is a report.Table with its cells formatted, and each cell's raw
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
func htmlTableOf(t *report.Table, class string, rowClass func(i int) string, cellTitle func(i, j int) string) htmlTable {
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
			cl := htmlCell{Text: report.FormatCell(r[j], c.Unit, true), Raw: report.FormatCell(r[j], c.Unit, false), Num: c.Unit != metrics.Text}
			if cellTitle != nil {
				cl.Title = cellTitle(i, j)
			}
			row.Cells = append(row.Cells, cl)
		}
		h.Rows = append(h.Rows, row)
	}
	return h
}

// htmlRunOf formats one run's tables as report.RunPageOf lays them out:
// the kernel and drill-down tables sortable, full kernel names on hover,
// warm-up steps marked.
func htmlRunOf(label string, s metrics.Summary, names string, drillRows int) htmlRun {
	p := report.RunPageOf(s, names, drillRows)
	run := htmlRun{Label: label, Heading: p.Heading}
	for _, t := range p.Host {
		run.Host = append(run.Host, htmlTableOf(t, "", nil, nil))
	}
	for _, d := range p.Devices {
		hd := htmlDevice{Name: d.Name, Bound: d.Bound, Verdict: d.Verdict,
			Headline: htmlTableOf(d.Headline, "headline", nil, nil), Idle: htmlTableOf(d.Idle, "idle", nil, nil)}
		if d.Findings != nil {
			hd.Tables = append(hd.Tables, htmlTableOf(d.Findings, "findings", nil, nil))
		}
		if t := d.TopKernels; t != nil {
			full := func(i, j int) string {
				if j == len(t.Columns)-1 {
					return d.KernelNames[i]
				}
				return ""
			}
			hd.Tables = append(hd.Tables, htmlTableOf(t, "sortable kernels", nil, full))
		}
		if d.Steps != nil {
			hd.Tables = append(hd.Tables, htmlTableOf(d.Steps, "steps", func(i int) string {
				if i < d.WarmupRows {
					return "warmup"
				}
				return ""
			}, nil))
		}
		for _, t := range d.Tables {
			hd.Tables = append(hd.Tables, htmlTableOf(t, "", nil, nil))
		}
		run.Devices = append(run.Devices, hd)
	}
	for _, t := range p.Compile {
		run.Drill = append(run.Drill, htmlTableOf(t, "", nil, nil))
	}
	for _, t := range p.Drill {
		run.Drill = append(run.Drill, htmlTableOf(t, "sortable drill", nil, nil))
	}
	return run
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
section.projection { border-left: 4px dashed var(--muted); padding-left: .9em; }
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
{{if .Made}}<p class="note made">{{.Made}}</p>{{end}}
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
{{- with .Whatif}}
<section id="whatif" class="projection">
<h2>Projection, not a measurement</h2>
<p class="note">What the model of <code>traceql whatif</code> projects from each run's trace: no run was recorded this way.</p>
{{template "table" .}}
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
