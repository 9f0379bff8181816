package report

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps: report links neither gonum (report/plot's) nor parquet-go
// (report/parquet's), so a program that renders tables does not carry
// them.
func TestDeps(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "gonum.org/") || strings.HasPrefix(dep, "github.com/parquet-go/") {
			t.Errorf("report links %s", dep)
		}
	}
}
