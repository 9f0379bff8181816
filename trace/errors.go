package trace

import (
	"errors"
	"fmt"
)

// ErrUnknownFormat is returned (wrapped) when a file is none of the
// supported formats.
var ErrUnknownFormat = errors.New("unknown trace format")

// A SyntaxError reports malformed input at a known place in a file.
type SyntaxError struct {
	File   string
	Offset int64  // byte offset in the (decompressed) input; -1 when unknown
	Table  string // Nsight table, when the problem is in one
	// Gunzipped says Offset counts bytes of the decompressed content.
	Gunzipped bool
	Msg       string
	Err       error
}

func (e *SyntaxError) Error() string {
	var where string
	switch {
	case e.Table != "":
		where = fmt.Sprintf(": table %s", e.Table)
	case e.Offset >= 0 && e.Gunzipped:
		where = fmt.Sprintf(": byte %d of the gunzipped content", e.Offset)
	case e.Offset >= 0:
		where = fmt.Sprintf(": byte %d", e.Offset)
	}
	msg := e.Msg
	if e.Err != nil {
		if msg != "" {
			msg += ": "
		}
		msg += e.Err.Error()
	}
	return fmt.Sprintf("%s%s: %s", e.File, where, msg)
}

func (e *SyntaxError) Unwrap() error { return e.Err }
