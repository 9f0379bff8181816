package main

import (
	"bytes"
	"testing"

	"github.com/traceql/traceql/internal/golden"
	"github.com/traceql/traceql/report"
)

// TestSchemaDoc: docs/schema.md is the schema the column declarations
// give; go test -run TestSchemaDoc -update rewrites it.
func TestSchemaDoc(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteSchemaMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "../../docs/schema.md", b.Bytes())
}
