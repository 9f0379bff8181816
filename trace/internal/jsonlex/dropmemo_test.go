package jsonlex

import "testing"

// TestDropMemo: a prefix learned is matched, with its tag, by input that
// begins with it and goes on; one of four gives way to a fifth;
// prefixes too short or too long, and a nil memo, remember nothing.
func TestDropMemo(t *testing.T) {
	var m DropMemo[int]
	prefixes := []string{`{"ph": "f", `, `{"ph": "s", `, `{"cat": "python_function", `, `{"ph": "X", "cat": "cuda_runtime", "name": "cudaEventQuery"`}
	for k, p := range prefixes {
		m.Learn([]byte(p), k)
	}
	m.Learn([]byte(prefixes[0]), 99) // known: kept as it was
	for k, p := range prefixes {
		n, tag, ok := m.Match([]byte(p + `"x": 1}`))
		if !ok || n != len(p) || tag != k {
			t.Errorf("Match(%q…) = %d, %d, %v; want %d, %d, true", p, n, tag, ok, len(p), k)
		}
	}
	if _, _, ok := m.Match([]byte(prefixes[1])); ok {
		t.Error("matched input that ends with the prefix: the object's rest is not there")
	}
	fifth := `{"ph": "t", `
	m.Learn([]byte(fifth), 5) // one of the four gives way
	kept := 0
	for _, p := range prefixes {
		if _, _, ok := m.Match([]byte(p + "}")); ok {
			kept++
		}
	}
	if _, tag, ok := m.Match([]byte(fifth + "}")); !ok || tag != 5 || kept != 3 {
		t.Errorf("after a fifth prefix: it matched %v (tag %d), and %d of the four, want 3", ok, tag, kept)
	}
	if m.Len() != 4 {
		t.Errorf("Len %d, want 4", m.Len())
	}
	var short DropMemo[int]
	short.Learn([]byte(`{"a":1`), 1)
	short.Learn(make([]byte, 257), 1)
	if short.Len() != 0 {
		t.Errorf("remembered %d prefixes shorter than 8 or longer than 256 bytes", short.Len())
	}
	var none *DropMemo[int]
	none.Learn([]byte(prefixes[0]), 1)
	if _, _, ok := none.Match([]byte(prefixes[0] + "}")); ok {
		t.Error("a nil memo matched")
	}
}
