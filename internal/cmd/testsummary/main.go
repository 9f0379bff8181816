// Command testsummary reads `go test -json` on standard input and says how
// many tests passed, failed and were skipped, and why they were skipped:
// `go test ./...` prints "ok" for a package whose real-trace tests all
// skipped because ../shared/traces is absent, which only -v would show.
// .ci/run pipes its second test run through it.
//
// It prints each failed test's output, then one line a skip reason with
// its count, then "tests: N passed, N failed, N skipped", and exits 1 when
// a test or a package failed.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	os.Exit(run(os.Stdin, os.Stdout))
}

func run(in io.Reader, out io.Writer) int {
	var passed, failed, skipped int
	pkgFailed := 0
	output := map[string]*strings.Builder{} // by package and test
	reasons := map[string]int{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			fmt.Fprintln(out, sc.Text()) // a build error, not an event
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			b := output[key]
			if b == nil {
				b = new(strings.Builder)
				output[key] = b
			}
			b.WriteString(e.Output)
		case "pass":
			if e.Test != "" {
				passed++
			}
		case "skip":
			if e.Test != "" {
				skipped++
				reasons[skipReason(output[key])]++
			}
		case "fail":
			if e.Test == "" {
				pkgFailed++
				fmt.Fprintf(out, "FAIL %s\n", e.Package)
				continue
			}
			failed++
			fmt.Fprintf(out, "--- FAIL: %s %s\n", e.Package, e.Test)
			if b := output[key]; b != nil {
				fmt.Fprint(out, b.String())
			}
		}
		if e.Action != "output" && e.Action != "run" && e.Action != "start" {
			if e.Test == "" {
				delete(output, key)
			}
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(out, "testsummary: %v\n", err)
		return 1
	}
	rs := slices.Collect(maps.Keys(reasons))
	slices.SortFunc(rs, func(a, b string) int { return cmp.Or(reasons[b]-reasons[a], strings.Compare(a, b)) })
	for _, r := range rs {
		fmt.Fprintf(out, "skipped %d: %s\n", reasons[r], r)
	}
	fmt.Fprintf(out, "tests: %d passed, %d failed, %d skipped\n", passed, failed, skipped)
	if failed > 0 || pkgFailed > 0 {
		return 1
	}
	return 0
}

// skipReason is the message a test gave t.Skip, from its output: the line
// after "--- SKIP", or its last message line.
func skipReason(b *strings.Builder) string {
	if b == nil {
		return "(no reason given)"
	}
	var last string
	for _, line := range strings.Split(b.String(), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- SKIP") {
			continue
		}
		// "file_test.go:12: message"
		if _, msg, ok := strings.Cut(line, ".go:"); ok {
			if _, m, ok := strings.Cut(msg, ": "); ok {
				line = m
			}
		}
		last = line
	}
	return cmp.Or(last, "(no reason given)")
}
