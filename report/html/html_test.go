package html

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report/plot"
	"github.com/traceql/traceql/trace"
)

// sampleReport renders a report of the sample trace twice over, named
// label and source.
func sampleReport(t *testing.T, label, source string) string {
	t.Helper()
	tr, err := trace.Open(context.Background(), "../../testdata/sample.pt.trace.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	tr.Source = source
	s := metrics.Summarize(tr, metrics.Options{TopN: 5})
	r := Report{Labels: []string{label, label + "2"}, Summaries: []metrics.Summary{s, s}}
	for dev, v := range metrics.DeviceViews(tr) {
		r.Kernels = append(r.Kernels, plot.Series{Label: label, Values: metrics.KernelDurations(v, dev)})
		r.Timeline = append(r.Timeline, plot.Line{Label: label, Points: metrics.Timeline(v, dev, 50)})
	}
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestHTMLEscapes(t *testing.T) {
	page := sampleReport(t, `<script>alert("x")</script>&`, `<img src=x onerror=alert(1)>.json`)
	for _, bad := range []string{`<script>alert`, `<img src=x`} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	for _, good := range []string{`&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;&amp;`, `&lt;img src=x onerror=alert(1)&gt;.json`} {
		if !strings.Contains(page, good) {
			t.Errorf("the page lacks %q", good)
		}
	}
	// Within the plots too, where the label is legend text.
	if n := strings.Count(page, "<svg"); n != 4 {
		t.Errorf("%d SVGs, want 4: comparison of two GPUs, timeline, kernels", n)
	}
	if strings.Contains(page, "<?xml") {
		t.Error("an SVG kept its XML declaration")
	}
}

// TestHTMLSelfContained: nothing in the page names anything to fetch;
// the only URLs are the SVG namespaces.
func TestHTMLSelfContained(t *testing.T) {
	page := sampleReport(t, "run", "sample.json")
	urls := regexp.MustCompile(`(?i)(https?:|//)[^"'\s<>]*`).FindAllString(page, -1)
	checked := 0
	for _, u := range urls {
		switch u {
		case "http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink":
			checked++
			continue
		}
		if strings.HasPrefix(u, "//") { // the script's comment
			continue
		}
		t.Errorf("the page names %q", u)
	}
	if checked == 0 {
		t.Fatal("no SVG namespace found: the test checked nothing")
	}
	for _, tag := range []string{"<link", "<img", "<iframe", "src=", "@import", "url("} {
		if strings.Contains(page, tag) {
			t.Errorf("the page holds %q", tag)
		}
	}
}
