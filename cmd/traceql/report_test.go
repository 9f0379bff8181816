package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReportHTML: the report of the sample and of a three-run comparison
// is one file that names nothing on the network, holds the tables and the
// plots, and shows the headline numbers the CSV has; headless Chromium,
// when installed, loads it from disk and finds them in its DOM.
func TestReportHTML(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	if _, errOut, code := traceql("report", sample, "-o", page); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	// Nothing fetched: no URL but the SVG and XLink namespaces', which
	// are names.
	names := regexp.MustCompile(`xmlns(:\w+)?="http://www\.w3\.org/[^"]*"`)
	urls := regexp.MustCompile(`(?i)(src|href)\s*=|url\(|@import|https?://`).FindAllString(names.ReplaceAllString(html, ""), -1)
	if len(urls) > 0 {
		t.Errorf("the page refers to %q: it must open with no network", urls)
	}
	if n := strings.Count(html, "<table"); n < 4 {
		t.Errorf("%d tables, want the headline and top kernels of both GPUs", n)
	}
	if n := strings.Count(html, "<svg"); n < 2 {
		t.Errorf("%d plots, want the steps and the gaps", n)
	}
	out, _, _ := traceql("summarize", sample, "-f", "csv")
	recs := csvRecords(t, out)
	kernels := slices.Index(recs[0], "kernels")
	for _, r := range recs[1:] {
		// 106 kernels → "106, mean 99.1 µs, …" in the headline.
		if want := ">" + r[kernels] + ", mean "; !strings.Contains(html, want) {
			t.Errorf("the page has no headline %q", want)
		}
	}

	cmp := filepath.Join(dir, "modes.html")
	if _, errOut, code := traceql("report", sample, sample, sample, "--label", "a,b,c", "-o", cmp); code != 0 {
		t.Fatalf("three runs: exit %d: %s", code, errOut)
	}
	c, _ := os.ReadFile(cmp)
	if !strings.Contains(string(c), "<h2>Comparison</h2>") || strings.Count(string(c), "<svg") < 3 {
		t.Errorf("the comparison of three runs lacks its table or plot")
	}

	dom := chromiumDOM(t, page)
	for _, want := range []string{"<h1>traceql report: sample</h1>", "GPU 0", "top kernels by total time", "<svg"} {
		if !strings.Contains(string(dom), want) {
			t.Errorf("Chromium's DOM of the page lacks %q", want)
		}
	}
}
