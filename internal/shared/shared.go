// Package shared locates the real traces kept beside the project in
// ../shared/traces, for tests. They are never copied into the project.
package shared

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Traces returns the absolute path of ../shared/traces relative to the
// module root, or skips the test, saying why, when it is absent.
func Traces(tb testing.TB) string {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	dir := filepath.Join(root, "..", "shared", "traces")
	if _, err := os.Stat(filepath.Join(dir, "reference.csv")); err != nil {
		tb.Skipf("real traces not available (%s absent): they live beside the project, not in it", dir)
	}
	return dir
}
