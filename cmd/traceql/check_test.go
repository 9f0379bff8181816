package main

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/traceql/traceql/internal/golden"
)

// TestCheck: check prints each run's findings and what to change, and
// exits 1 only when a finding at or above --fail-on is present.
func TestCheck(t *testing.T) {
	pairs := []string{"../../testdata/gpu/pair-pageable-copy_before.pt.trace.json.gz", "../../testdata/gpu/pair-pageable-copy_after.pt.trace.json.gz"}
	out, errOut, code := traceql(append([]string{"check"}, pairs...)...)
	if code != 1 || errOut != "traceql: 2 findings at or above high\n" { // before's pageable copies, and their exposed time
		t.Errorf("check: exit %d, stderr %q; want 1 and one line", code, errOut)
	}
	checkRun(t, "check_pageable", out, "")
	// The fix pinned the copies: after alone passes at high. Its pinned
	// input copy still runs with no kernel beside it for 5 % of the span
	// (exposed-copy, warn), so it fails at warn.
	if _, errOut, code := traceql("check", "--fail-on", "high", pairs[1]); code != 0 {
		t.Errorf("check --fail-on high after the fix: exit %d: %s", code, errOut)
	}
	if _, errOut, code := traceql("check", "--fail-on", "warn", pairs[1]); code != 1 || errOut != "traceql: 1 finding at or above warn\n" {
		t.Errorf("check --fail-on warn after the fix: exit %d: %s", code, errOut)
	}
	if _, _, code := traceql("check", "--fail-on", "info", pairs[1]); code != 1 {
		t.Errorf("check --fail-on info with an info finding: exit %d, want 1", code)
	}
	if _, errOut, code := traceql("check", "--fail-on", "severe", pairs[1]); code != 2 || !strings.Contains(errOut, "severe") {
		t.Errorf("check --fail-on severe: exit %d, %q; want a usage error", code, errOut)
	}
	if _, _, code := traceql("check"); code != 2 {
		t.Errorf("check without files: exit %d, want 2", code)
	}
	if _, errOut, code := traceql("check", filepath.Join(t.TempDir(), "missing.json")); code != 1 || strings.Count(errOut, "\n") != 1 {
		t.Errorf("check of a missing file: exit %d, %q; want 1 and one line", code, errOut)
	}
}

// TestCheckRules: --rules documents every rule, each line within 80
// columns.
func TestCheckRules(t *testing.T) {
	out, _, code := traceql("check", "--rules")
	if code != 0 {
		t.Fatalf("check --rules: exit %d", code)
	}
	for _, id := range []string{"slow-launch", "pageable-copy", "sync-copy", "sync-memset", "host-sync", "fp32-gemm", "tiny-kernels",
		"dataloader-wait", "single-tensor-optimizer", "exposed-comm", "recompile", "graph-break", "lost-activity", "clock-skew"} {
		if !strings.Contains(out, "\n"+id+"\n") && !strings.HasPrefix(out, id+"\n") {
			t.Errorf("check --rules does not document %s", id)
		}
	}
	for line := range strings.Lines(out) {
		if n := utf8.RuneCountInString(strings.TrimSuffix(line, "\n")); n > 80 {
			t.Errorf("a line of %d columns: %q", n, line)
		}
	}
	golden.Check(t, filepath.Join("testdata", "check_rules.golden"), []byte(out))
}
