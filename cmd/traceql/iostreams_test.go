package main

import (
	"bytes"
	"context"
	"github.com/traceql/traceql/internal/shared"
	"github.com/traceql/traceql/report"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// testStreams returns streams as a pipe gives them, stdout and stderr
// not terminals, with the buffers their output lands in and an empty stdin;
// a test sets a terminal with SetStdoutTTY, SetTerminalWidth and
// SetStderrTTY (cli/cli's iostreams.Test).
func testStreams() (ios *ioStreams, stdout, stderr *bytes.Buffer) {
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	return newIOStreams(strings.NewReader(""), stdout, stderr), stdout, stderr
}

// TestIOStreamsOfFiles: a file that is not a terminal is not taken for
// one, and a width set on a stdout that is not a terminal is none.
func TestIOStreamsOfFiles(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ios := newIOStreams(f, f, f)
	if ios.IsStdoutTTY() || ios.IsStderrTTY() || ios.TerminalWidth() != 0 {
		t.Errorf("a regular file: stdout tty %v, stderr tty %v, width %d; want none a terminal",
			ios.IsStdoutTTY(), ios.IsStderrTTY(), ios.TerminalWidth())
	}
	ios.SetTerminalWidth(80)
	if ios.TerminalWidth() != 0 {
		t.Errorf("width %d of a stdout that is no terminal; want 0", ios.TerminalWidth())
	}
}

// TestTerminalWidth: on an 80-column terminal the kernel tables of text
// output fit in 80 columns, names cut; in a pipe, or on a terminal of
// unknown width, names are whole.
func TestTerminalWidth(t *testing.T) {
	const whole = "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t"
	summarize := func(tty bool, width int) string {
		t.Helper()
		ios, out, errOut := testStreams()
		ios.SetStdoutTTY(tty)
		ios.SetTerminalWidth(width)
		if code := run(context.Background(), []string{"summarize", sample}, ios); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return out.String()
	}
	narrow := summarize(true, 80)
	if strings.Contains(narrow, whole) || !strings.Contains(narrow, "void pytorch_flash::flash_fwd_kernel<…") {
		t.Errorf("80 columns: want the flash kernel's name cut:\n%s", narrow)
	}
	rows := 0
	inTable := false
	for line := range strings.Lines(narrow) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "top kernels"):
			inTable = true
		case line == "":
			inTable = false
		case inTable:
			rows++
			if n := utf8.RuneCountInString(line); n > 80 {
				t.Errorf("80 columns: a kernel row of %d: %q", n, line)
			}
		}
	}
	if rows < 10 {
		t.Errorf("80 columns: %d kernel rows checked; want the top kernels of each GPU", rows)
	}
	pipe := summarize(false, 80)
	if !strings.Contains(pipe, whole) {
		t.Errorf("a pipe: want names whole:\n%s", pipe)
	}
	if unknown := summarize(true, 0); unknown != pipe {
		t.Errorf("a terminal of unknown width: want the pipe's output")
	}
	if wide := summarize(true, 300); wide == narrow || !strings.Contains(wide, "…") {
		t.Errorf("300 columns: want names cut later than at 80")
	}
}

// TestNotesFitTerminal: compare's table of four runs is wider than 80
// columns, and on an 80-column terminal its verdicts wrap within 80
// rather than at the table's width, for the terminal to break mid-word;
// in a pipe they wrap at the table's width as before.
func TestNotesFitTerminal(t *testing.T) {
	var files []string
	for _, m := range gpuModes {
		files = append(files, gpuFile("small", m, 1))
	}
	compare := func(tty bool) string {
		t.Helper()
		ios, out, errOut := testStreams()
		ios.SetStdoutTTY(tty)
		ios.SetTerminalWidth(80)
		// The headline with D2H's bandwidth of 8-byte copies, which
		// compare leaves out by default: its 0.00519 GB/s make the table
		// wider than 80 columns.
		args := []string{"compare", "--label", strings.Join(gpuModes, ","), "--metrics", strings.Join(report.CompareHeadline, ",")}
		if code := run(context.Background(), append(args, files...), ios); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		return out.String()
	}
	notes, wide := 0, false
	for line := range strings.Lines(compare(true)) {
		line = strings.TrimSuffix(line, "\n")
		n := utf8.RuneCountInString(line)
		wide = wide || n > 80
		if strings.HasPrefix(line, "    ") || strings.Contains(line, "-bound: ") {
			notes++
			if n > 80 {
				t.Errorf("80 columns: a note line of %d: %q", n, line)
			}
		}
	}
	if !wide || notes < 8 {
		t.Errorf("want a table wider than 80 columns and the four verdicts (%d note lines)", notes)
	}
	if pipe := compare(false); !strings.Contains(pipe, "graph-launch-bound: 94 % of idle time waits on launches, 94 % in 39 gaps under 1 ms,\n") {
		t.Errorf("a pipe: want the verdicts wrapped at the table's width:\n%s", pipe)
	}
}

// TestBinaryToTerminal: a binary format is refused on a terminal's stdout
// (a usage error, before any trace is read) and written to a pipe.
func TestBinaryToTerminal(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"export", sample, "-f", "parquet"}, "traceql: --format parquet is binary: give -o FILE or redirect the output\n"},
		{[]string{"pprof", sample, "-o", "-"}, "traceql: a profile is binary: give -o FILE or redirect the output\n"},
	} {
		ios, out, errOut := testStreams()
		ios.SetStdoutTTY(true)
		if code := run(context.Background(), tt.args, ios); code != 2 || errOut.String() != tt.want || out.Len() != 0 {
			t.Errorf("%v on a terminal: exit %d, %d bytes out, stderr %q; want 2, none and %q", tt.args, code, out.Len(), errOut, tt.want)
		}
		ios, out, errOut = testStreams()
		if code := run(context.Background(), tt.args, ios); code != 0 || out.Len() == 0 || errOut.Len() != 0 {
			t.Errorf("%v to a pipe: exit %d, %d bytes out, stderr %q; want 0 and the output", tt.args, code, out.Len(), errOut)
		}
	}
}

// TestProgressShown: reading large inputs draws a progress bar on a
// terminal's stderr, cleared at the end, and never on a pipe or with
// --quiet. The input is a sparse file of zeros: large, taking no disk,
// and refused as soon as it is sniffed, after the bar has started; the
// bar, drawn every 200 ms, may not be, but its line is cleared.
func TestProgressShown(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 * progressMin); err != nil {
		t.Fatal(err)
	}
	f.Close()
	const clear = "\r\033[K"
	for _, tt := range []struct {
		name  string
		tty   bool
		quiet bool
		bar   bool
	}{
		{"terminal", true, false, true},
		{"pipe", false, false, false},
		{"terminal, --quiet", true, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, errOut := testStreams()
			ios.SetStderrTTY(tt.tty)
			args := []string{"summarize", big}
			if tt.quiet {
				args = append(args, "--quiet")
			}
			code := run(context.Background(), args, ios)
			e := errOut.String()
			if code != 1 || !strings.Contains(e, "big.json: unknown trace format") {
				t.Errorf("exit %d, stderr %q; want 1 and the format refused", code, e)
			}
			if got := strings.Contains(e, clear); got != tt.bar {
				t.Errorf("progress bar drawn: %v, want %v; stderr %q", got, tt.bar, e)
			}
			if !tt.bar && strings.Contains(e, "\r") {
				t.Errorf("stderr %q: want no carriage return off a terminal", e)
			}
		})
	}
}

// TestTerminalWidthFallback: $COLUMNS first, then the terminal's answer,
// then 80 when it answers 0 (script, some CI runners).
func TestTerminalWidthFallback(t *testing.T) {
	for _, tt := range []struct {
		columns string
		ioctl   int
		want    int
	}{
		{"", 120, 120}, {"100", 120, 100}, {"", 0, 80}, {"abc", 0, 80}, {"-5", 90, 90}, {"0", 0, 80}, {"60", 0, 60},
	} {
		if got := terminalWidth(tt.columns, tt.ioctl); got != tt.want {
			t.Errorf("COLUMNS=%q, terminal %d: width %d, want %d", tt.columns, tt.ioctl, got, tt.want)
		}
	}
}

// TestSummaryFits80: on an 80-column terminal every line of the summary of
// a real H100 trace fits, the title and torch.compile's line wrapped, and
// the distribution tables of --by without min, max and stddev, which would
// leave their names a few letters.
func TestSummaryFits80(t *testing.T) {
	for _, args := range [][]string{
		{"summarize", gpuFile("small", "default", 1)},
		{"summarize", "--all", gpuFile("small", "default", 1)},
		{"summarize", "--by", "kernel,api,range", gpuFile("small", "default", 1)},
		// Every busy class in a step: the step-class table ran to 81.
		{"summarize", "--all", sample},
	} {
		ios, out, errOut := testStreams()
		ios.SetStdoutTTY(true)
		ios.SetTerminalWidth(80)
		if code := run(context.Background(), args, ios); code != 0 {
			t.Fatalf("%q: exit %d: %s", args, code, errOut)
		}
		for line := range strings.Lines(out.String()) {
			if n := utf8.RuneCountInString(strings.TrimSuffix(line, "\n")); n > 80 {
				t.Errorf("%q: a line of %d columns: %q", args, n, line)
			}
		}
		if args[1] == "--by" && strings.Count(out.String(), "min, max and stddev: in a terminal of 124 columns or more, or export --table") != 3 {
			t.Errorf("%q: want the three tables to say where min, max and stddev went:\n%s", args, out)
		}
	}
}

// TestSlowLaunchesFit80: launch calls of 1 ms or more get a headline row
// of their own; beside the launch cost's medians the line ran to 104
// columns on a real Nsight export.
func TestSlowLaunchesFit80(t *testing.T) {
	ios, out, errOut := testStreams()
	ios.SetStdoutTTY(true)
	ios.SetTerminalWidth(80)
	if code := run(context.Background(), []string{"summarize", filepath.Join(shared.Traces(t), "nsys", "nsys2024.2.1_mmagic_pytorch.sqlite")}, ios); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for line := range strings.Lines(out.String()) {
		if n := utf8.RuneCountInString(strings.TrimSuffix(line, "\n")); n > 80 {
			t.Errorf("a line of %d columns: %q", n, line)
		}
	}
	if !strings.Contains(out.String(), "  slow launches  11 calls of 1 ms or more, 960 ms in all") {
		t.Errorf("no row of slow launches:\n%s", out)
	}
}

// TestDiffNarrow: on an 80-column terminal diff fits: delta, counts,
// means, launches and calls given way, each table saying where they went; the op table says where graph replays count
// when a run has them.
func TestDiffNarrow(t *testing.T) {
	ios, out, errOut := testStreams()
	ios.SetStdoutTTY(true)
	ios.SetTerminalWidth(80)
	args := []string{"diff", "--by", "op", gpuFile("small", "default", 1), gpuFile("small", "reduce-overhead", 1)}
	if code := run(context.Background(), args, ios); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for line := range strings.Lines(out.String()) {
		if n := utf8.RuneCountInString(strings.TrimSuffix(line, "\n")); n > 80 {
			t.Errorf("a line of %d columns: %q", n, line)
		}
	}
	checked := 0
	for _, table := range strings.Split(out.String(), "\n\n") {
		var note string
		switch {
		case strings.Contains(table, "measured: the whole trace of each run"):
			note = "delta (new − old) left out to fit: in a wider terminal, or --format csv"
		case strings.HasPrefix(table, "kernels by"), strings.HasPrefix(table, "GPU time by host op"):
			note = "in a terminal of 124 columns or more, or export --table"
		default:
			continue
		}
		checked++
		if !strings.Contains(table, note) {
			t.Errorf("no note of the columns left out (%q):\n%s", note, table)
		}
	}
	if checked != 3 {
		t.Errorf("%d tables checked, want the metrics', the kernels' and the ops':\n%s", checked, out)
	}
	// reduce-overhead replays graphs: the ops table says where their kernels count.
	const graphNote = "kernels that CUDA or HIP graphs replay count under the op that launched the graph"
	if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), graphNote) {
		t.Errorf("no note on graph replays:\n%s", out)
	}
	eager, stderr, code := traceql("diff", "--by", "op", gpuFile("small", "eager", 1), gpuFile("small", "default", 1))
	if code != 0 || strings.Contains(eager, "CUDA graphs replay") {
		t.Errorf("eager against default, no graphs: exit %d, %s; want no note on graph replays:\n%s", code, stderr, eager)
	}
}

// TestCompareNarrow: compare of two runs on an 80-column terminal leaves
// out the ratio columns, which made it 87 wide, and says so; a pipe keeps
// them.
func TestCompareNarrow(t *testing.T) {
	args := []string{"compare", gpuFile("small", "default", 1), gpuFile("small", "reduce-overhead", 1)}
	const note = "× (the ratio to the first run) left out to fit: in a wider terminal, or piped"
	ios, out, errOut := testStreams()
	ios.SetStdoutTTY(true)
	ios.SetTerminalWidth(80)
	if code := run(context.Background(), args, ios); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for line := range strings.Lines(out.String()) {
		if n := utf8.RuneCountInString(strings.TrimSuffix(line, "\n")); n > 80 {
			t.Errorf("a line of %d columns: %q", n, line)
		}
	}
	if !strings.Contains(out.String(), note) || strings.Contains(out.String(), "×1.02") {
		t.Errorf("want the ratios left out, and a note saying so:\n%s", out)
	}
	piped, _, code := traceql(args...)
	if code != 0 || strings.Contains(piped, note) || !strings.Contains(piped, "×1.02") {
		t.Errorf("piped: exit %d; want the ratios and no note:\n%s", code, piped)
	}
}
