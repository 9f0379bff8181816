package metrics

import (
	"fmt"
	"strings"

	"github.com/traceql/traceql/trace/torchlog"
)

// ApplyCompileLog replaces the recompile and graph-break findings of s,
// guessed from the trace's frame numbering, with what its joined compile
// log (s.CompileLog) says: the recompiles Dynamo logged (compiles of a
// frame after its first) and the graph breaks it logged, counted exactly.
// graph-break keeps the trace's eager kernel time. Without a log it does
// nothing.
func ApplyCompileLog(s *Summary) {
	if s.CompileLog == nil || s.CompileLog.Log == nil {
		return
	}
	recompiles, breaks := 0, 0
	reasons, where := map[string]int{}, map[string]int{}
	var compileNS int64
	for i := range s.CompileLog.Log.Compiles {
		c := &s.CompileLog.Log.Compiles[i]
		if c.ID.Autograd >= 0 { // compiled autograd's graphs: no frame of the user's code
			continue
		}
		if c.ID.Compile > 0 {
			recompiles++
			compileNS += c.CompileNS
			for _, r := range c.Recompile {
				reasons[r]++
			}
		}
		n := len(c.Breaks)
		if n == 0 {
			n = max(c.GraphBreaks, 0)
		}
		breaks += n
		for _, b := range c.Breaks {
			where[breakText(b)]++
		}
	}
	for i := range s.Devices {
		d := &s.Devices[i]
		kept := d.Findings[:0]
		var eager int64
		for _, f := range d.Findings {
			switch f.Rule {
			case "graph-break":
				eager = f.TimeNS
			case "recompile":
			default:
				kept = append(kept, f)
			}
		}
		if eager == 0 && d.Compile.Regions+d.Compile.CompiledFunctions > 0 && d.Compile.KernelNS < d.KernelNS {
			eager = d.KernelNS - d.Compile.KernelNS
		}
		if recompiles > 0 {
			ev := fmt.Sprintf("from the compile log: %s taking %s to compile", Plural(recompiles, "recompiles"), fmtDur(compileNS))
			if len(reasons) > 0 {
				ev += "; guards " + topCounts(reasons, 2)
			}
			kept = append(kept, Finding{Rule: "recompile", Severity: Info, Device: d.Device, Count: recompiles, Evidence: ev,
				Fix: "mark the sizes that change dynamic (torch._dynamo.mark_dynamic) or keep them fixed; the failing guards are above"})
		}
		if breaks > 0 {
			ev := "from the compile log: " + Plural(breaks, "graph breaks")
			if len(where) > 0 {
				ev += "; " + topCounts(where, 2)
			}
			if eager > 0 {
				ev += fmt.Sprintf("; %s of kernel time eager", ShareText(eager, d.KernelNS))
			}
			kept = append(kept, Finding{Rule: "graph-break", Severity: severityOf(eager, d.SpanNS), Device: d.Device, Count: breaks,
				TimeNS: eager, Evidence: ev, Fix: "remove the breaks the log names (torch._dynamo.explain lists them); fullgraph=True makes one an error"})
		}
		sortFindings(kept)
		d.Findings = kept
	}
}

// breakText is a graph break as evidence: where, then why, on one line.
func breakText(b torchlog.Break) string {
	r := strings.TrimSpace(b.Reason)
	if rs := []rune(r); len(rs) > 80 {
		r = string(rs[:79]) + "…"
	}
	if b.Where == "" {
		return r
	}
	return b.Where + " " + r
}
