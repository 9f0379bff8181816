package report

import (
	"encoding/json"
	"testing"
)

// FuzzAppendJSONString holds the JSON writer's strings equal to
// json.Marshal's, escapes included.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "void gemm<float, 128>(float*)", `a"b\c`, "<&>", "tab\there", "\x00\x1f\x7f",
		"é", "\u2028", "\xff\xfe", "triton_poi_fused_add_0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("%q: %s, want %s", s, got[1:], want)
		}
	})
}
