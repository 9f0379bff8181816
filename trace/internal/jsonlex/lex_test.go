package jsonlex

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// FuzzMemberMemo checks that members reads the same keys, values, errors
// and ends with a memo as without one. The input is read as a run of
// objects, twice over, so that the memo has learned from objects like the
// next one, and from the same ones.
func FuzzMemberMemo(f *testing.F) {
	f.Add([]byte(`{"ph": "X", "cat": "kernel", "args": {"a": 1}}, {"ph": "X", "cat": "kernel", "args": {"a": 2}}`))
	f.Add([]byte("{\n  \"ph\": \"X\",\n  \"ts\": 1}{\n  \"ph\": \"X\",\n  \"ts\":"))
	f.Add([]byte(`{"a":1,"b":2}{"a":1,"c":3}{"a":1 ,"b":2}{"a\u0041":1}{"a":1,"b"`))
	f.Add([]byte(`{"ph": "X", "a rather long key name": 1,  "b": [2]}{"ph": "X", "a rather long key name": 1, "b": [2]}{"ph": "X", "a rather long key name!": 1}`))
	f.Add([]byte("{\"a\x01\":1}{\"a\x01\":1}{\"a\":1,,\"b\":2}{}{ }"))
	// Prefixes that differ only between their first and last 8 bytes, or
	// in a byte of a short one; one cut short before 8 bytes.
	f.Add([]byte(`{"a rather long key name": 1}{"a rather lung key name": 2}{"abcd":1}{"abce":2}{"abcd":`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if a, b := walkObjects(data, nil), walkObjects(data, &MemberMemo{}); !slices.Equal(a, b) {
			t.Fatalf("without a memo:\n%q\nwith one:\n%q", a, b)
		}
	})
}

// walkObjects reads each object of data with members, twice, and says what
// it read.
func walkObjects(data []byte, memo *MemberMemo) []string {
	var out []string
	for range 2 {
		for i := 0; i < len(data); i++ {
			if data[i] != '{' {
				continue
			}
			var lx Lexer
			end, err := lx.Members(data, i, memo, func(key string, j int) (int, error) {
				var v Value
				k, err := lx.Value(data, j, &v)
				out = append(out, fmt.Sprintf("%q at %d: %c %q, %v", key, j, v.Kind, v.Raw, err))
				return k, err
			})
			out = append(out, fmt.Sprintf("object at %d: end %d, %v, lenient %v", i, end, err, lx.Lenient))
			if err == nil {
				i = end - 1
			}
		}
	}
	return out
}

// TestValueText: a string's content unescaped, also when it holds raw
// control characters, which JSON forbids but Kineto wrote (pytorch#130622).
func TestValueText(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{
		{`plain`, "plain"},
		{`a\"b\\c\u00b5s`, `a"b\cµs`},
		{"a\\\"b\tc\x01", "a\"b\tc\x01"},
		{`\ud800x`, "\uFFFDx"}, // a lone surrogate
	} {
		v := Value{Kind: 's', Raw: []byte(tt.raw), Esc: strings.Contains(tt.raw, `\`)}
		if got := v.Text(); got != tt.want {
			t.Errorf("text of %q = %q, want %q", tt.raw, got, tt.want)
		}
	}
}
