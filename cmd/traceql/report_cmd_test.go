package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/traceql/traceql/internal/golden"
	"github.com/traceql/traceql/internal/synth"
	"github.com/traceql/traceql/metrics"
	"github.com/traceql/traceql/report"
)

var screenshots = flag.String("screenshots", "", "write the browser test's screenshots (PNG) to this directory")

// modeRuns writes the three runs of synth.IdleModes (tracegen -mode) to
// dir and returns their paths: eager, default, reduce-overhead.
func modeRuns(t *testing.T, dir string) []string {
	t.Helper()
	var paths []string
	for _, m := range []string{"eager", "default", "reduce-overhead"} {
		p := filepath.Join(dir, m+".json")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := synth.WriteIdle(f, synth.IdleModes[m]); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// reportCases are the reports the tests open: the shipped sample, a
// three-run comparison, and a pair with FLOPs (--flops).
func reportCases(t *testing.T) []struct {
	name string
	args []string
} {
	runs := modeRuns(t, t.TempDir())
	return []struct {
		name string
		args []string
	}{
		{"sample", []string{sample}},
		{"modes", append(runs, "--label", "eager,default,reduce-overhead")},
		{"flops", []string{filepath.Join(gpuDir, flopsPair[0]), filepath.Join(gpuDir, flopsPair[1]), "--flops"}},
	}
}

// writeReport runs traceql report and returns the HTML file's path and
// what it wrote to stderr.
func writeReport(t *testing.T, args []string) (page, stderr string) {
	t.Helper()
	page = filepath.Join(t.TempDir(), "report.html")
	out, errOut, code := traceql(append([]string{"report", "-o", page}, args...)...)
	if code != 0 || out != "" {
		t.Fatalf("report: exit %d, stdout %q: %s", code, out, errOut)
	}
	return page, errOut
}

// files leaves the flags out of a report's arguments.
func files(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if strings.HasPrefix(args[i], "-") {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// chromium finds a Chromium or Chrome binary, or skips the test.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on PATH (Debian: apt-get install chromium): the report's browser test needs one")
	return ""
}

// chromiumDOM loads page from disk in headless Chromium and returns the
// DOM it built, or skips the test when there is no Chromium. Headless
// Chromium now and then dies of a signal as it starts (seen: SIGSEGV on a
// loaded machine and on a CI machine), so a death by signal is tried three
// times; if it goes on, an empty page decides whose fault it is: a
// browser that dies on that too is broken on this machine (skip, saying
// so), one that renders it died of our page (fail).
func chromiumDOM(t *testing.T, page string) []byte {
	t.Helper()
	exe := chromium(t)
	var exit *exec.ExitError
	killed := func(err error) bool { return errors.As(err, &exit) && !exit.Exited() }
	var dom []byte
	var err error
	for try := 1; try <= 3; try++ {
		if dom, err = dumpDOM(exe, "file://"+page); !killed(err) {
			break
		}
		t.Logf("chromium, try %d: %v", try, err)
	}
	if killed(err) {
		skipBrokenChromium(t, exe)
	}
	if err != nil {
		t.Fatalf("chromium on %s: %v", page, err)
	}
	return dom
}

// skipBrokenChromium skips the test when Chromium cannot render an empty
// page either: then the machine's browser is broken, not our page.
func skipBrokenChromium(t *testing.T, exe string) {
	t.Helper()
	if _, err := dumpDOM(exe, "data:text/html,<p>blank</p>"); err != nil {
		t.Skipf("chromium fails on an empty page too (%v): it is broken on this machine; the page was checked as text only", err)
	}
}

// dumpDOM runs headless Chromium on url and returns the DOM it built.
func dumpDOM(exe, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// A small /dev/shm (containers) is a known cause of Chromium's
	// crashes; this flag moves its shared memory to /tmp.
	return exec.CommandContext(ctx, exe, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-dev-shm-usage", "--dump-dom", url).Output()
}

// domView is what the browser test reads back from the page.
type domView struct {
	Headlines []struct {
		Run, Device string
		Rows        map[string]string
	}
	Records   [][]string
	SVGs      int
	Tables    int
	Sortable  int
	Titles    []string   // the hover text of the first kernel table's names
	Warmup    int        // step rows marked warm-up
	SortedBy  []string   // the first kernel table's total column after a click on its header
	Compare   int        // comparison tables
	Scheme    string     // the background colour in use
	ExtSheets int        // <link>, <img>, <iframe> and scripts with src: none may be
	Drill     []string   // the captions of the drill-down tables
	Streams   [][]string // the streams tables' rows: device, stream, kernels, copies
}

const domScript = `(() => {
  const v = {Headlines: [], Records: [], SVGs: document.querySelectorAll("svg").length,
    Tables: document.querySelectorAll("table").length, Sortable: document.querySelectorAll("table.sortable.kernels").length,
    Titles: [], Warmup: document.querySelectorAll("tr.warmup").length, SortedBy: [],
    Compare: document.querySelectorAll("#compare table").length,
    Scheme: getComputedStyle(document.body).backgroundColor,
    ExtSheets: document.querySelectorAll("link, img, iframe, script[src], object, embed").length,
    Drill: [], Streams: []};
  for (const t of document.querySelectorAll("section.drill table.drill")) {
    const title = t.caption ? t.caption.textContent : "";
    v.Drill.push(title);
    const m = title.match(/^streams \(GPU (\d+)\)$/);
    if (m) for (const tr of t.tBodies[0].rows) v.Streams.push([m[1], tr.cells[0].textContent, tr.cells[1].textContent, tr.cells[2].textContent]);
  }
  for (const dev of document.querySelectorAll("section.device")) {
    const rows = {};
    for (const tr of dev.querySelector("table.headline").tBodies[0].rows) rows[tr.cells[0].textContent] = tr.cells[1].textContent;
    v.Headlines.push({Run: dev.closest("section.run").dataset.label, Device: dev.dataset.device, Rows: rows});
  }
  const rec = document.querySelector("#records table");
  v.Records.push(Array.from(rec.tHead.rows[0].cells, c => c.textContent));
  for (const tr of rec.tBodies[0].rows) v.Records.push(Array.from(tr.cells, c => c.textContent));
  const k = document.querySelector("table.kernels");
  if (k) {
    for (const tr of k.tBodies[0].rows) v.Titles.push(tr.cells[tr.cells.length - 1].title);
    const total = Array.from(k.tHead.rows[0].cells).findIndex(c => c.textContent === "count");
    k.tHead.rows[0].cells[total].click();
    k.tHead.rows[0].cells[total].click(); // descending, then ascending
    for (const tr of k.tBodies[0].rows) v.SortedBy.push(tr.cells[total].dataset.v);
  }
  return v;
})()`

// TestReportInBrowser opens reports from disk in headless Chromium and
// checks what a reader sees: the headline values are the CSV's, every
// table and plot is there, kernel tables sort, and the page logs no error
// and requests nothing from the network.
func TestReportInBrowser(t *testing.T) {
	exe := chromium(t)
	for _, tc := range reportCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			page, _ := writeReport(t, tc.args)
			sum := []string{"summarize", "-f", "csv"}
			if slices.Contains(tc.args, "--flops") {
				sum = append(sum, "--by", "op") // the FLOP columns
			}
			csvOut, errOut, code := traceql(append(sum, files(tc.args)...)...)
			if code != 0 {
				t.Fatalf("summarize: %s", errOut)
			}
			records := csvRecords(t, csvOut)

			opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
				chromedp.WindowSize(1200, 900))
			// Chromium sometimes dies as it starts when two start at once
			// (seen here: "chrome failed to start", crashpad's warnings and
			// nothing else, 1 start in 6): a start is tried three times.
			var ctx context.Context
			for try := 1; ; try++ {
				actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
				c, cancelCtx := chromedp.NewContext(actx)
				err := chromedp.Do(c) // starts the browser, with no timeout
				if err == nil {
					ctx = c
					defer cancelAlloc()
					defer cancelCtx()
					break
				}
				cancelCtx()
				cancelAlloc()
				if try == 3 {
					skipBrokenChromium(t, exe)
					t.Fatal(err)
				}
				t.Logf("start %d: %v", try, err)
			}
			ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			defer cancel()
			var mu sync.Mutex
			var problems, requests []string
			err := chromedp.Listen(ctx, func(ev any) {
				mu.Lock()
				defer mu.Unlock()
				switch e := ev.(type) {
				case *runtime.EventConsoleAPICalled:
					if e.Type == "error" || e.Type == "warning" || e.Type == "assert" {
						problems = append(problems, fmt.Sprintf("console.%s: %d args", e.Type, len(e.Args)))
					}
				case *runtime.EventExceptionThrown:
					problems = append(problems, "exception: "+(&chromedp.ExceptionError{ExceptionDetails: e.ExceptionDetails}).Error())
				case *cdplog.EventEntryAdded:
					if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
						problems = append(problems, fmt.Sprintf("log %s: %s (%s)", e.Entry.Level, e.Entry.Text, e.Entry.URL))
					}
				case *network.EventRequestWillBeSent:
					requests = append(requests, e.Request.URL)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
				t.Fatal(err)
			}
			v, err := chromedp.Run(ctx, chromedp.Evaluate[domView](domScript))
			if err != nil {
				t.Fatal(err)
			}
			png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			// The same page for a reader who prefers dark: another background.
			dark, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (string, error) {
				_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
					Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
				if err != nil {
					return "", err
				}
				return chromedp.Evaluate[string]("getComputedStyle(document.body).backgroundColor")(ctx, tg)
			})
			if err != nil {
				t.Fatal(err)
			}
			if dark == v.Scheme {
				t.Errorf("background %s in the dark scheme as in the light one", dark)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(problems) > 0 {
				t.Errorf("the page logged problems:\n%s", strings.Join(problems, "\n"))
			}
			if len(requests) != 1 || requests[0] != "file://"+page {
				t.Errorf("requests: %q, want the page alone", requests)
			}
			if v.ExtSheets != 0 {
				t.Errorf("%d elements load something from elsewhere", v.ExtSheets)
			}

			// Every metric, raw: the CSV's header and rows; the page names
			// a file given by an absolute path by its base name alone.
			shown := slices.Clone(records)
			for i, row := range records[1:] {
				if f := slices.Index(records[0], "file"); f >= 0 && filepath.IsAbs(row[f]) {
					shown[i+1] = slices.Clone(row)
					shown[i+1][f] = filepath.Base(row[f])
				}
			}
			if !slices.EqualFunc(v.Records, shown, slices.Equal) {
				t.Errorf("every-metric table differs from summarize -f csv:\n got %q\nwant %q", v.Records, shown)
			}
			// The headline values, formatted: from the CSV's.
			col := map[string]int{}
			for j, name := range records[0] {
				col[name] = j
			}
			get := func(row []string, name string) string { return row[col[name]] }
			num := func(s string) int64 {
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			flt := func(s string) float64 {
				f, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
			if len(v.Headlines) != len(records)-1 {
				t.Fatalf("%d headline tables for %d CSV rows", len(v.Headlines), len(records)-1)
			}
			checked := 0
			for i, h := range v.Headlines {
				row := records[i+1]
				if h.Device != "GPU "+get(row, "device") {
					t.Errorf("headline %d is of %s, CSV row of device %s", i, h.Device, get(row, "device"))
				}
				want := map[string]string{"span": report.Format(num(get(row, "span_ns")), metrics.NS)}
				// The busy row is "U (busy): classes…", or "U: classes…"
				// when the busy time gives way to the terminal's width.
				util := report.Format(flt(get(row, "gpu_util")), metrics.Ratio)
				busy, _, _ := strings.Cut(h.Rows["GPU busy"], ":")
				if w := util + " (" + report.Format(num(get(row, "busy_ns")), metrics.NS) + ")"; busy != util && busy != w {
					t.Errorf("%s %s: headline GPU busy = %q, CSV says %q", h.Run, h.Device, h.Rows["GPU busy"], w)
				}
				checked++
				idle := report.Format(num(get(row, "idle_ns")), metrics.NS) + " in " + get(row, "idle_gaps") + " gaps"
				kernels := report.Format(num(get(row, "kernels")), metrics.Count) + ", mean " +
					report.Format(flt(get(row, "kernel_mean_ns")), metrics.NS)
				if steps := get(row, "steps"); steps != "0" {
					want["step time"] = report.Format(flt(get(row, "step_median_ns")), metrics.NS) + " median of " + steps + " steps"
				}
				if mfu := get(row, "mfu"); mfu != "" {
					want["MFU"] = report.Format(flt(mfu), metrics.Ratio) + " of " + report.Format(flt(get(row, "peak_tflops")), metrics.TFLOPS) +
						" (fp32 dense, H200 SXM)"
				}
				for k, w := range want {
					if h.Rows[k] != w {
						t.Errorf("%s %s: headline %s = %q, CSV says %q", h.Run, h.Device, k, h.Rows[k], w)
					}
					checked++
				}
				if !strings.HasPrefix(h.Rows["idle"], idle) {
					t.Errorf("%s %s: headline idle = %q, CSV says %q…", h.Run, h.Device, h.Rows["idle"], idle)
				}
				if !strings.HasPrefix(h.Rows["kernels"], kernels) {
					t.Errorf("%s %s: headline kernels = %q, CSV says %q…", h.Run, h.Device, h.Rows["kernels"], kernels)
				}
				checked += 2
			}
			if checked == 0 {
				t.Fatal("no headline value checked")
			}

			devices := len(records) - 1
			wantSVGs := 5 // timeline, kernels, gaps, steps, time by class
			if len(files(tc.args)) > 1 {
				wantSVGs++ // the comparison's bars
				if v.Compare != 1 {
					t.Errorf("%d comparison tables, want 1", v.Compare)
				}
			}
			if v.SVGs != wantSVGs {
				t.Errorf("%d SVGs, want %d", v.SVGs, wantSVGs)
			}
			if v.Sortable != devices {
				t.Errorf("%d sortable kernel tables, want one per device: %d", v.Sortable, devices)
			}
			if len(v.Titles) == 0 || slices.Contains(v.Titles, "") {
				t.Errorf("kernel names without hover text: %q", v.Titles)
			}
			// The drill-down tables: each run's streams (export --table
			// streams, row for row), API calls and ranges.
			var streams [][]string
			for _, f := range files(tc.args) {
				rows, err := csv.NewReader(strings.NewReader(mustRun(t, "export", "--table", "streams", f))).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rows[1:] {
					streams = append(streams, []string{r[1], report.Format(num(r[2]), metrics.Count), report.Format(num(r[3]), metrics.Count), report.Format(num(r[4]), metrics.Count)})
				}
			}
			if len(streams) == 0 || !slices.EqualFunc(v.Streams, streams, slices.Equal) {
				t.Errorf("streams tables %q, want export --table streams' %q", v.Streams, streams)
			}
			for _, title := range []string{"host API calls by total time", "ranges (record_function, NVTX) by total time"} {
				if n := len(slices.DeleteFunc(slices.Clone(v.Drill), func(s string) bool { return s != title })); n != len(files(tc.args)) {
					t.Errorf("%d tables %q, want one a run", n, title)
				}
			}
			if !slices.IsSortedFunc(v.SortedBy, func(a, b string) int { return int(num(a) - num(b)) }) {
				t.Errorf("after two clicks on count, the counts are %v, not ascending", v.SortedBy)
			}
			if tc.name == "modes" && v.Warmup != 4 {
				t.Errorf("%d step rows marked warm-up, want 2 in default and 2 in reduce-overhead", v.Warmup)
			}
			t.Logf("%d tables, %d SVGs, %d headline values checked, background %s (dark: %s)", v.Tables, v.SVGs, checked, v.Scheme, dark)
			if *screenshots != "" {
				p := filepath.Join(*screenshots, "report-"+tc.name+".png")
				if err := os.WriteFile(p, png, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("screenshot: %s", p)
			}
		})
	}
}

// TestReportText pins what a reader of the report reads: its text, tags,
// styles, scripts and plots left out (the plots have goldens of their own).
func TestReportText(t *testing.T) {
	for _, tc := range reportCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			page, errOut := writeReport(t, tc.args)
			b, err := os.ReadFile(page)
			if err != nil {
				t.Fatal(err)
			}
			text := pageText(string(b))
			// The version and the date change; the command stays.
			text = regexp.MustCompile(`(?m)^traceql [^\n]* UTC: traceql report`).ReplaceAllString(text, "traceql VERSION, DATE: traceql report")
			// The runs' paths are temporary.
			for _, f := range files(tc.args) {
				text = strings.ReplaceAll(text, f, filepath.Base(f))
				errOut = strings.ReplaceAll(errOut, f, filepath.Base(f))
			}
			golden.Check(t, filepath.Join("testdata", "report_"+tc.name+".txt.golden"), []byte(text))
			golden.CheckOptional(t, filepath.Join("testdata", "report_"+tc.name+".stderr.golden"), []byte(errOut))
		})
	}
}

var (
	hidden = regexp.MustCompile(`(?s)<(style|script|svg)\b.*?</(style|script|svg)>`)
	block  = regexp.MustCompile(`(?i)</?(p|h[1-6]|tr|table|caption|section|pre|details|summary|header|figure)\b[^>]*>`)
	tag    = regexp.MustCompile(`<[^>]*>`)
	blank  = regexp.MustCompile(`[ \t]+`)
)

// pageText is the text of an HTML page, a line per block or table row,
// cells apart by " | ".
func pageText(page string) string {
	s := hidden.ReplaceAllString(page, "")
	s = regexp.MustCompile(`</t[dh]>\s*<t[dh]`).ReplaceAllString(s, "</td> | <td")
	s = block.ReplaceAllString(s, "\n")
	s = html.UnescapeString(tag.ReplaceAllString(s, ""))
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(blank.ReplaceAllString(l, " ")); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestReportSize checks that the report does not grow with its trace: a
// trace of many thousand kernels and steps makes a page under 2 MB.
func TestReportSize(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a large trace")
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synth.WriteIdle(f, synth.IdleConfig{Seed: 5, Launches: 200000, Steps: 400, Scale: 1000}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(big)
	page, _ := writeReport(t, []string{big})
	ps, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("trace %d MB, report %d KB", st.Size()>>20, ps.Size()>>10)
	if ps.Size() > 2<<20 {
		t.Errorf("report of a %d MB trace is %d KB, over 2 MB", st.Size()>>20, ps.Size()>>10)
	}
}
