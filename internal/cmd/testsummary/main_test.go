package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:9: real traces not available (../shared/traces absent)\n"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"--- SKIP: TestA (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestA"}`,
		`{"Action":"run","Package":"p","Test":"TestB"}`,
		`{"Action":"pass","Package":"p","Test":"TestB"}`,
		`{"Action":"run","Package":"p","Test":"TestC"}`,
		`{"Action":"output","Package":"p","Test":"TestC","Output":"    c_test.go:3: got 1, want 2\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestC"}`,
		`{"Action":"fail","Package":"p"}`,
	}, "\n")
	var out bytes.Buffer
	if code := run(strings.NewReader(in), &out); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	want := "--- FAIL: p TestC\n    c_test.go:3: got 1, want 2\nFAIL p\nskipped 1: real traces not available (../shared/traces absent)\ntests: 1 passed, 1 failed, 1 skipped\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
