package report

import (
	"bytes"
	"html/template"
	"io"
	"strings"

	"github.com/traceql/traceql/metrics"
)

// An HTMLRun is one run of a report: its label, its summary, and the
// lengths of its first GPU's idle gaps (for the gap histogram).
type HTMLRun struct {
	Label   string
	Summary metrics.Summary
	Gaps    []int64
}

// WriteHTML writes one self-contained page: the comparison of the runs
// (with ratios to the first) and its plot when there are several, then per
// run and device the headline, the verdict and the top kernels, the step
// times and the idle time by gap length as inline SVG. No script, font or
// style is fetched: the page opens from disk anywhere. The tables read
// without JavaScript; a few lines sort a table by a column when its header
// is clicked. Light and dark by the reader's setting; printable.
func WriteHTML(w io.Writer, title string, runs []HTMLRun) error {
	var sections []htmlSection
	var sums []metrics.Summary
	var labels []string
	for _, r := range runs {
		sums, labels = append(sums, r.Summary), append(labels, r.Label)
	}
	if len(runs) > 1 && len(sums[0].Devices) > 0 {
		sec := htmlSection{Title: "Comparison"}
		sec.Tables = append(sec.Tables, htmlTable(CompareTable(labels, sums, 0, CompareHeadline, false)))
		if svg, err := svgOf(func(w io.Writer) error {
			return PlotCompare(w, "svg", HeadlineBars(labels, sums, 0), "headline metrics, ratio to "+labels[0], [2]float64{})
		}); err == nil {
			sec.SVGs = append(sec.SVGs, svg)
		}
		sections = append(sections, sec)
	}
	var steps []StepRun
	var gaps []Series
	for _, r := range runs {
		sec := htmlSection{Title: r.Label}
		for _, t := range SummaryTables(r.Summary, Layout{}) {
			if t.Notes != nil && len(t.Columns) == 0 && strings.HasPrefix(t.Notes[0], "every metric") {
				continue // the text output's hint at --all
			}
			sec.Tables = append(sec.Tables, htmlTable(t))
		}
		sections = append(sections, sec)
		if len(r.Summary.Devices) > 0 {
			d := r.Summary.Devices[0]
			steps = append(steps, StepRun{Label: r.Label, Steps: d.Steps, Warmup: metrics.WarmupSteps(d.Steps)})
		}
		if len(r.Gaps) > 0 {
			gaps = append(gaps, Series{Label: r.Label, Values: r.Gaps})
		}
	}
	plots := htmlSection{Title: "Plots"}
	if svg, err := svgOf(func(w io.Writer) error {
		return PlotSteps(w, "svg", steps, "step time per step (first GPU of each run)")
	}); err == nil {
		plots.SVGs = append(plots.SVGs, svg)
	}
	if len(gaps) > 0 {
		if svg, err := svgOf(func(w io.Writer) error {
			return PlotGapHist(w, "svg", gaps, "idle time by gap length (first GPU of each run)", true)
		}); err == nil {
			plots.SVGs = append(plots.SVGs, svg)
		}
	}
	if len(plots.SVGs) > 0 {
		sections = append(sections, plots)
	}
	return htmlPage.Execute(w, struct {
		Title    string
		Sections []htmlSection
	}{title, sections})
}

// svgOf draws a plot into a string; plots that have nothing to draw give
// an error, and the page leaves them out.
func svgOf(draw func(io.Writer) error) (template.HTML, error) {
	var b bytes.Buffer
	if err := draw(&b); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i >= 0 { // the XML prolog has no place in HTML
		s = s[i:]
	}
	// The plot library writes SVG, not text from traces, and labels it
	// escapes itself: it goes in as it is.
	return template.HTML(s), nil
}

type htmlSection struct {
	Title  string
	Tables []htmlTab
	SVGs   []template.HTML
}

type htmlTab struct {
	Title   []string // the title's lines
	Head    []htmlCell
	Rows    [][]htmlCell
	Notes   []string
	Numbers bool // a table of numbers: sortable
}

type htmlCell struct {
	Text  string
	Title string // the whole value, where Text is cut
	Num   bool
	Key   string // the raw value, for sorting
}

// htmlTable turns a Table into cells: values formatted as in text, raw
// values as sort keys, long names cut with the whole name on hover.
func htmlTable(t *Table) htmlTab {
	h := htmlTab{Notes: t.Notes}
	for _, line := range strings.Split(t.Title, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			h.Title = append(h.Title, line)
		}
	}
	for _, c := range t.Columns {
		h.Head = append(h.Head, htmlCell{Text: c.Name, Num: c.Unit != metrics.Text})
		h.Numbers = h.Numbers || c.Unit != metrics.Text
	}
	for _, r := range t.Rows {
		var row []htmlCell
		for j, c := range t.Columns {
			text := cell(r[j], c.Unit, true)
			hc := htmlCell{Text: text, Num: c.Unit != metrics.Text, Key: Raw(r[j])}
			if cc, ok := r[j].(Cell); ok {
				hc.Key = Raw(cc.V)
			}
			if runes := []rune(text); len(runes) > 90 {
				hc.Text, hc.Title = string(runes[:89])+"…", text
			}
			row = append(row, hc)
		}
		h.Rows = append(h.Rows, row)
	}
	return h
}

var htmlPage = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="traceql">
<title>{{.Title}}</title>
<style>
:root { color-scheme: light dark; --fg: #1b1b1b; --bg: #fff; --line: #d0d0d0; --head: #f3f3f3; --note: #555; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e6e6; --bg: #161616; --line: #444; --head: #242424; --note: #aaa; } svg { background: #fff; } }
body { font: 14px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); margin: 2em; max-width: 80em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid var(--line); }
table { border-collapse: collapse; margin: 0.6em 0 1.2em; }
th, td { padding: 0.15em 0.6em; border-bottom: 1px solid var(--line); text-align: left; white-space: nowrap; }
th { background: var(--head); cursor: pointer; } td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 0.3em 0; } caption span { display: block; font-weight: normal; color: var(--note); }
p.note { color: var(--note); margin: 0.2em 0; max-width: 60em; }
svg { max-width: 100%; height: auto; display: block; margin: 1em 0; }
@media print { th { cursor: auto; } h2 { break-before: auto; } }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Sections}}<section>
<h2>{{.Title}}</h2>
{{range .Tables}}{{if .Head}}<table{{if .Numbers}} class="sortable"{{end}}>
{{with .Title}}<caption>{{index . 0}}{{range $i, $l := .}}{{if $i}}<span>{{$l}}</span>{{end}}{{end}}</caption>{{end}}
<thead><tr>{{range .Head}}<th{{if .Num}} class="n"{{end}}>{{.Text}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range .}}<td{{if .Num}} class="n"{{end}} data-key="{{.Key}}"{{with .Title}} title="{{.}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{else}}{{range .Title}}<p class="note">{{.}}</p>{{end}}{{end}}{{range .Notes}}<p class="note">{{.}}</p>
{{end}}{{end}}{{range .SVGs}}{{.}}
{{end}}</section>
{{end}}<script>
// Click a column's header to sort its table; again to reverse.
document.querySelectorAll("table.sortable th").forEach((th, _) => th.addEventListener("click", () => {
  const table = th.closest("table"), col = [...th.parentNode.children].indexOf(th), body = table.tBodies[0];
  const num = th.classList.contains("n"), dir = th.dataset.dir === "asc" ? -1 : 1;
  th.dataset.dir = dir === 1 ? "asc" : "desc";
  const key = tr => tr.children[col].dataset.key;
  [...body.rows].sort((a, b) => num ? dir * (parseFloat(key(a)) - parseFloat(key(b))) : dir * key(a).localeCompare(key(b)))
    .forEach(tr => body.appendChild(tr));
}));
</script>
</body>
</html>
`))

// HTMLTitle names the report of runs labelled so.
func HTMLTitle(labels []string) string {
	return "traceql report: " + strings.Join(labels, " vs ")
}
