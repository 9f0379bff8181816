package jsonlex

import (
	"bytes"
	"strings"
	"testing"
)

// TestScannerBoundsValues: one huge value (a 2 GB name, scaled down here)
// is an error, not unbounded memory.
func TestScannerBoundsValues(t *testing.T) {
	in := `{"name":"` + strings.Repeat("x", 3<<20) + `"}`
	sc := NewScanner(bytes.NewReader([]byte(in)), 0, 1<<30)
	sc.max = 1 << 20
	if _, err := sc.Value(); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("err = %v", err)
	}
	sc = NewScanner(bytes.NewReader([]byte(in)), 0, 1<<30)
	if v, err := sc.Value(); err != nil || len(v) != len(in) {
		t.Errorf("within the limit: %d bytes, %v", len(v), err)
	}
}

func TestScannerStrings(t *testing.T) {
	for _, in := range []string{`"a\"b"`, `"a\\"`, `{"k":"}\"{"}`, `["\\\\", "]"]`, `{"a":[1,{"b":"\u0022"}]}`} {
		// A tiny buffer forces refills inside strings and escapes.
		sc := NewScanner(strings.NewReader(in+` 7`), 0, 1<<30)
		sc.buf = make([]byte, 2)
		v, err := sc.Value()
		if err != nil || string(v) != in {
			t.Errorf("value(%s) = %q, %v", in, v, err)
		}
	}
}
