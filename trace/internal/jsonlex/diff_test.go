package jsonlex

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzLexer checks the lexer against encoding/json: on a text that
// encoding/json accepts, SkipValue ends exactly after the value, and an
// object's members read with Members and Value are those json.Unmarshal
// finds (the same keys, last one winning; the same strings, number texts,
// nulls); on a text that encoding/json refuses, the lexer refuses it too,
// unless it was lenient about the malformed tokens Kineto writes (raw
// control characters in strings, bare N/A, NaN, Infinity).
func FuzzLexer(f *testing.F) {
	for _, s := range []string{
		`{"ph": "X", "cat": "kernel", "name": "a\"b\u00b5", "ts": 1420179485153.755, "dur": 2, "args": {"grid": [1, 2, 3]}}`,
		`[1, -0.5e+3, "x", null, true, false, {}, []]`, `"\ud800"`, `{"a":1,"a":2}`, `{"a":N/A}`, `{"a":NaN}`,
		"{\"a\x01\":1}", `{"a":01}`, `{"a":1,}`, `{"a" 1}`, `-`, `1.`, `{"a":[1,{"b":"]"}]}`, " \t\n7 ", `"\x"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(checkLexer)
}

// checkLexer checks the lexer against encoding/json on data (FuzzLexer).
func checkLexer(t *testing.T, data []byte) {
	t.Helper()
	var lx Lexer
	// A space after the text ends a number that ends it.
	b := append(data[:len(data):len(data)], ' ')
	end, err := lx.SkipValue(b, 0)
	accepted := err == nil && SkipSpace(b, end) == len(b)
	valid := json.Valid(data)
	switch {
	case valid && !accepted:
		t.Fatalf("encoding/json accepts %q, the lexer does not: end %d, %v", data, end, err)
	case !valid && accepted && !lx.Lenient:
		t.Fatalf("encoding/json refuses %q, the lexer accepts it", data)
	}
	if !valid {
		return
	}
	i := SkipSpace(b, 0)
	if b[i] != '{' {
		return
	}
	want := map[string]any{}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&want); err != nil {
		t.Fatalf("json.Valid but Decode: %v", err)
	}
	got := map[string]string{}
	if _, err := lx.Members(b, i, nil, func(key string, j int) (int, error) {
		var v Value
		k, err := lx.Value(b, j, &v)
		got[utf8Fixed(key)] = describe(v)
		return k, err
	}); err != nil {
		t.Fatalf("Members(%q): %v", data, err)
	}
	if len(got) != len(want) {
		t.Fatalf("%q: %d members, encoding/json %d", data, len(got), len(want))
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Fatalf("%q: member %q missing", data, k)
		}
		if ws := describeJSON(w); ws != g {
			t.Fatalf("%q: member %q is %s, encoding/json %s", data, k, g, ws)
		}
	}
}

// describe writes a value as describeJSON does encoding/json's.
func describe(v Value) string {
	switch v.Kind {
	case 's':
		return "string " + utf8Fixed(v.Text())
	case 'n':
		return "number " + string(v.Raw)
	case 'z':
		return "null"
	}
	return "other"
}

func describeJSON(v any) string {
	switch v := v.(type) {
	case string:
		return "string " + v
	case json.Number:
		return "number " + string(v)
	case nil:
		return "null"
	}
	return "other"
}

// utf8Fixed replaces each byte of s that is not UTF-8 with U+FFFD, as
// encoding/json does; the reader does so for the names it keeps.
func utf8Fixed(s string) string { return string([]rune(s)) }
