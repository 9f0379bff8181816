package report

import (
	"fmt"
	"strings"

	"github.com/traceql/traceql/metrics"
)

type findingRow struct {
	deviceKey
	Rule      string `col:"rule" doc:"the rule's id (traceql check --rules)"`
	Severity  string `col:"severity" doc:"info, low, warn or high: time_ns as a share of the device's span (under 1 %, 1–5 %, 5–20 %, 20 % or more); warn for the trust checks"`
	Count     int    `col:"count" doc:"occurrences: copies, calls, kernels, gaps or frames, as the rule says"`
	TimeNS    int64  `col:"time_ns,ns" doc:"the time the pattern took, measured (copy time, idle time caused, kernel time, as the rule says)"`
	SavingsNS optInt `col:"savings_ns,ns" doc:"an upper bound of what the fix removes from the span, ≤ time_ns and ≤ the span; none where the numbers do not bound it"`
	Bytes     int64  `col:"bytes,bytes" doc:"bytes moved, for copy rules; else 0"`
	Evidence  string `col:"evidence" doc:"the names, calls or ops that show it"`
	Fix       string `col:"fix" doc:"what to change, in a sentence"`
	Label     string `col:"label" doc:"the run's label (see the summary table)"`
}

// findingsTable is the export table of the summary's findings.
func findingsTable() exportTable {
	return structTable("findings", "one per (file, device, rule that fired)", func(in *ExportInput, put func(findingRow) error) error {
		if in.Summary == nil {
			return nil
		}
		for _, d := range in.Summary.Devices {
			for _, f := range d.Findings {
				sav := optInt{}
				if f.HasSavings {
					sav = someInt(f.SavingsNS)
				}
				if err := put(findingRow{deviceKey: in.deviceKey(f.Device), Rule: f.Rule, Severity: f.Severity.String(), Count: f.Count,
					TimeNS: f.TimeNS, SavingsNS: sav, Bytes: f.Bytes, Evidence: f.Evidence, Fix: f.Fix, Label: in.Label}); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// findingLine says a finding in one line for the headline: the rule, its
// count and what it cost, and the saving when bounded.
func findingLine(f metrics.Finding, span int64) string {
	s := fmt.Sprintf("%s %s: %s", f.Severity, f.Rule, Format(f.Count, metrics.Count))
	if f.Bytes > 0 {
		s += ", " + Format(f.Bytes, metrics.Bytes)
	}
	// A copy rule saving all its time says the time once: with bytes,
	// both would not fit 80 columns.
	if f.TimeNS > 0 && !(f.Bytes > 0 && f.HasSavings && f.SavingsNS == f.TimeNS) {
		s += ", " + Format(f.TimeNS, metrics.NS)
	}
	if f.HasSavings {
		s += fmt.Sprintf(", saves ≤ %s (%s of span)", Format(f.SavingsNS, metrics.NS), metrics.ShareText(f.SavingsNS, span))
	} else if f.TimeNS > 0 {
		s += fmt.Sprintf(" (%s of span)", metrics.ShareText(f.TimeNS, span))
	}
	return s
}

// topFindings are the lines of a device's first n findings of severity
// low or above: info findings (under 1 % of the span) are left to check
// and export.
func topFindings(d *metrics.DeviceSummary, n int) []string {
	var out []string
	for _, f := range d.Findings {
		if len(out) == n || f.Severity == metrics.Info {
			break
		}
		out = append(out, findingLine(f, d.SpanNS))
	}
	return out
}

// FindingsTables lay out the findings of runs for people, a table a run:
// one row a finding, the most severe first within each device.
func FindingsTables(runs []metrics.Summary) []*Table {
	var out []*Table
	for _, s := range runs {
		t := &Table{Title: Printable(s.Source), Columns: []Column{
			{Name: "GPU", Unit: metrics.Count}, {Name: "severity", Unit: metrics.Text}, {Name: "rule", Unit: metrics.Text},
			{Name: "count", Unit: metrics.Count}, {Name: "bytes", Unit: metrics.Bytes}, {Name: "time", Unit: metrics.NS},
			{Name: "saves ≤", Unit: metrics.NS}}}
		for _, d := range s.Devices {
			for _, f := range d.Findings {
				var sav, bytes any
				if f.HasSavings {
					sav = f.SavingsNS
				}
				if f.Bytes > 0 {
					bytes = f.Bytes
				}
				t.Rows = append(t.Rows, []any{d.Device, f.Severity.String(), f.Rule, f.Count, bytes, f.TimeNS, sav})
			}
		}
		if len(t.Rows) == 0 {
			t.Columns = nil
			t.Notes = []string{"no findings"}
		}
		out = append(out, t)
	}
	return out
}

// RulesHelp documents every rule: what it finds, its threshold and where
// its definition comes from.
func RulesHelp() string {
	var b strings.Builder
	for _, r := range metrics.Rules() {
		fmt.Fprintf(&b, "%s\n", r.ID)
		fmt.Fprintf(&b, "%s", wrapIndent(r.Doc, "    ", 80))
		fmt.Fprintf(&b, "%s", wrapIndent("fires at: "+r.Threshold, "    ", 80))
		if r.Savings != "" {
			fmt.Fprintf(&b, "%s", wrapIndent("savings_ns: "+r.Savings, "    ", 80))
		} else {
			fmt.Fprintf(&b, "%s", wrapIndent("savings_ns: none (the numbers do not bound the fix's effect)", "    ", 80))
		}
		fmt.Fprintf(&b, "%s", wrapIndent("from: "+r.Source, "    ", 80))
	}
	fmt.Fprintf(&b, "\n%s", wrapIndent("Severity: info, low, warn, high as time_ns is under 1 %, 1–5 %, 5–20 % or 20 % or more of the device's span; "+
		"the trust checks (lost-activity, clock-skew) are warn.", "", 80))
	return b.String()
}

// wrapIndent wraps s to width columns (wrap), each line indented, ending
// in a newline.
func wrapIndent(s, indent string, width int) string {
	var b strings.Builder
	for _, line := range wrap(s, width-len(indent), width-len(indent)) {
		b.WriteString(indent + line + "\n")
	}
	return b.String()
}

// findingChanges says how the findings of device o (run from) and n (run
// to) differ: the rules that appear, vanish or change cost, of severity
// low or above in either run; none when the same.
func findingChanges(from, to string, o, n *metrics.DeviceSummary) []string {
	type pair struct{ o, n *metrics.Finding }
	by := map[string]*pair{}
	var order []string
	for _, side := range []struct {
		d   *metrics.DeviceSummary
		old bool
	}{{o, true}, {n, false}} {
		for i := range side.d.Findings {
			f := &side.d.Findings[i]
			p := by[f.Rule]
			if p == nil {
				p = &pair{}
				by[f.Rule] = p
				order = append(order, f.Rule)
			}
			if side.old {
				p.o = f
			} else {
				p.n = f
			}
		}
	}
	var out []string
	for _, r := range order {
		p := by[r]
		switch {
		case (p.o == nil || p.o.Severity == metrics.Info) && (p.n == nil || p.n.Severity == metrics.Info):
		case p.o == nil:
			out = append(out, fmt.Sprintf("finding appears in %s: %s", to, findingLine(*p.n, n.SpanNS)))
		case p.n == nil:
			out = append(out, fmt.Sprintf("finding vanishes in %s: was %s in %s", to, findingLine(*p.o, o.SpanNS), from))
		case p.o.TimeNS == 0 && p.n.TimeNS == 0 && p.o.Count != p.n.Count:
			out = append(out, fmt.Sprintf("finding %s: %s → %s", r, Format(p.o.Count, metrics.Count), Format(p.n.Count, metrics.Count)))
		case p.o.TimeNS != p.n.TimeNS || p.o.Count != p.n.Count:
			out = append(out, fmt.Sprintf("finding %s: %s, %s → %s, %s (time %s)", r, Format(p.o.Count, metrics.Count), Format(p.o.TimeNS, metrics.NS),
				Format(p.n.Count, metrics.Count), Format(p.n.TimeNS, metrics.NS), Change(float64(p.o.TimeNS), float64(p.n.TimeNS))))
		}
	}
	return out
}

// deviceFindingsTable lists a device's findings with their evidence and
// fix, for the HTML report; nil without findings.
func deviceFindingsTable(d *metrics.DeviceSummary) *Table {
	if len(d.Findings) == 0 {
		return nil
	}
	t := &Table{Title: "findings (traceql check --rules)", Columns: []Column{
		{Name: "severity", Unit: metrics.Text}, {Name: "rule", Unit: metrics.Text}, {Name: "count", Unit: metrics.Count},
		{Name: "bytes", Unit: metrics.Bytes}, {Name: "time", Unit: metrics.NS}, {Name: "saves ≤", Unit: metrics.NS},
		{Name: "evidence", Unit: metrics.Text}, {Name: "fix", Unit: metrics.Text}}}
	for _, f := range d.Findings {
		var sav, bytes any
		if f.HasSavings {
			sav = f.SavingsNS
		}
		if f.Bytes > 0 {
			bytes = f.Bytes
		}
		t.Rows = append(t.Rows, []any{f.Severity.String(), f.Rule, f.Count, bytes, f.TimeNS, sav, Printable(f.Evidence), f.Fix})
	}
	return t
}
