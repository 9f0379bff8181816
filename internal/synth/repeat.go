package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
)

// Repeat writes the Kineto trace src (JSON, object form) with its events
// repeated until at least target bytes are written, and returns how many
// copies it wrote. Each copy's "ts" values are shifted by the span of src
// plus 100 ms, so that copies follow one another like the steps of a
// longer run. The rest of src is kept as it is: its metadata, and the
// text and order of its events. This gives a big trace with a real trace's
// layout, which the generator's events only imitate.
//
// An event's "ts" is its first "ts" member: Kineto writes args, the only
// nested object, after it.
func Repeat(w io.Writer, src []byte, target int64) (copies int, err error) {
	start, end, events, err := eventsOf(src)
	if err != nil {
		return 0, err
	}
	if len(events) == 0 {
		return 0, fmt.Errorf("synth: repeat: no events")
	}
	type stamp struct {
		at, end int   // the integer part of the ts number in the event
		us      int64 // its value
	}
	stamps := make([]stamp, len(events))
	lo, hi := int64(1<<63-1), int64(-1<<63)
	for i, e := range events {
		stamps[i].at = -1
		m := tsMember.FindSubmatchIndex(e)
		if m == nil {
			continue
		}
		us, err := strconv.ParseInt(string(e[m[2]:m[3]]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("synth: repeat: event %d: ts: %w", i, err)
		}
		stamps[i] = stamp{m[2], m[3], us}
		lo, hi = min(lo, us), max(hi, us)
	}
	period := max(hi-lo, 0) + 100_000
	cw := &countWriter{w: w}
	if _, err := cw.Write(src[:start]); err != nil {
		return 0, err
	}
	var b []byte
	for ; copies == 0 || cw.n < target; copies++ {
		shift := int64(copies) * period
		for i, e := range events {
			b = append(b[:0], ",\n  "...)
			if copies == 0 && i == 0 {
				b = b[1:]
			}
			if s := stamps[i]; s.at >= 0 {
				b = append(b, e[:s.at]...)
				b = strconv.AppendInt(b, s.us+shift, 10)
				b = append(b, e[s.end:]...)
			} else {
				b = append(b, e...)
			}
			if _, err := cw.Write(b); err != nil {
				return copies, err
			}
		}
	}
	_, err = cw.Write(src[end:])
	return copies, err
}

// tsMember finds a "ts" member and the integer part of its number.
var tsMember = regexp.MustCompile(`"ts"\s*:\s*(-?[0-9]+)`)

// eventsOf returns the traceEvents array of the JSON object src: its
// elements, the offset after its '[' and the offset after its last element.
func eventsOf(src []byte) (start, end int, events []json.RawMessage, err error) {
	d := json.NewDecoder(bytes.NewReader(src))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return 0, 0, nil, fmt.Errorf("synth: repeat: not a JSON object")
	}
	for d.More() {
		key, err := d.Token()
		if err != nil {
			return 0, 0, nil, fmt.Errorf("synth: repeat: %w", err)
		}
		if key != "traceEvents" {
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return 0, 0, nil, fmt.Errorf("synth: repeat: %w", err)
			}
			continue
		}
		if tok, err := d.Token(); err != nil || tok != json.Delim('[') {
			return 0, 0, nil, fmt.Errorf("synth: repeat: traceEvents is not an array")
		}
		start = int(d.InputOffset())
		for d.More() {
			var e json.RawMessage
			if err := d.Decode(&e); err != nil {
				return 0, 0, nil, fmt.Errorf("synth: repeat: %w", err)
			}
			events = append(events, e)
		}
		return start, int(d.InputOffset()), events, nil
	}
	return 0, 0, nil, fmt.Errorf("synth: repeat: no traceEvents")
}
