package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// link puts the repository file src at dir/rel.
func link(t *testing.T, src, dir, rel string) {
	t.Helper()
	dst := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, dst); err != nil {
		t.Fatal(err)
	}
}

// TestDiffDirs: diff OLDDIR NEWDIR diffs the traces of the same path, a
// diff each; a trace on one side gets a line; --fail-if's exit is the
// worst pair's: 3 when one regressed (sub/b.json.gz: after → before), 1
// when a pair failed. It used to refuse: "diff needs exactly two traces".
func TestDiffDirs(t *testing.T) {
	const g = "../../testdata/gpu/"
	root := t.TempDir()
	oldDir, newDir := filepath.Join(root, "old"), filepath.Join(root, "new")
	link(t, g+"pair-item-sync_before.pt.trace.json.gz", oldDir, "a.json.gz")
	link(t, g+"pair-item-sync_after.pt.trace.json.gz", newDir, "a.json.gz")
	link(t, g+"pair-dataloader_after.pt.trace.json.gz", oldDir, "sub/b.json.gz")
	link(t, g+"pair-dataloader_before.pt.trace.json.gz", newDir, "sub/b.json.gz")
	link(t, g+"vit-small_eager_b1.pt.trace.json.gz", oldDir, "only-old.json.gz")
	if err := os.WriteFile(filepath.Join(newDir, "classes.json"), []byte(`["cat","dog"]`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := traceql("diff", oldDir, newDir, "--fail-if", "step_median>+3%")
	if code != 3 {
		t.Errorf("exit %d, want 3 (sub/b regressed): %s", code, errOut)
	}
	for _, want := range []string{
		filepath.Join(oldDir, "a.json.gz") + " (old) vs " + filepath.Join(newDir, "a.json.gz") + " (new)",
		filepath.Join(oldDir, "sub/b.json.gz") + " (old) vs " + filepath.Join(newDir, "sub/b.json.gz") + " (new)",
	} {
		if strings.Count(out, want) != 1 {
			t.Errorf("want one diff titled %q in\n%s", want, out)
		}
	}
	for _, want := range []string{"only in " + oldDir + ": only-old.json.gz", "only in " + newDir + ": classes.json",
		"--fail-if a.json.gz: step_median_ns>+3%", ": pass", "--fail-if sub/b.json.gz: step_median_ns>+3%", ": FAIL"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	// Without the regression: 0.
	if _, errOut, code := traceql("diff", oldDir, newDir, "--fail-if", "step_median>+1000%"); code != 0 {
		t.Errorf("no regression: exit %d: %s", code, errOut)
	}
	// A pair that fails to read outweighs a regression.
	if err := os.WriteFile(filepath.Join(oldDir, "c.json"), []byte(`{"traceEvents":[{"ph":"X"`), 0o644); err != nil {
		t.Fatal(err)
	}
	link(t, g+"pair-item-sync_before.pt.trace.json.gz", newDir, "c.json")
	if _, errOut, code := traceql("diff", oldDir, newDir, "--fail-if", "step_median>+3%"); code != 1 || !strings.Contains(errOut, "c.json") {
		t.Errorf("a broken pair: exit %d, want 1: %s", code, errOut)
	}
	if _, errOut, code := traceql("diff", oldDir, newDir, "-f", "csv"); code != 2 {
		t.Errorf("csv: exit %d, want 2: %s", code, errOut)
	}
}
