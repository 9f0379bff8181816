package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Repeat writes the Kineto trace src (JSON, object form) with its events
// repeated until at least target bytes are written, and returns how many
// copies it wrote. Each copy is shifted so that copies follow one another
// like the steps of one longer run:
//   - "ts" by the span of src plus 100 ms;
//   - the positive ids that link events, each kind by the span of its
//     values in src, so that no two copies share one and each kind stays as
//     dense as in src, as in one long trace: "correlation" with a flow's
//     "id" (its correlation), "External id", and "Python id" with "Python
//     parent id";
//   - the N of "ProfilerStep#N" by the span of src's step numbers.
//
// The rest of src is kept as it is: its metadata, and the text and order
// of its events. This gives a big trace with a real trace's layout, which
// the generator's events only imitate.
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
	// The numbers to shift, in each event in order of position.
	stamps := make([][]stamp, len(events))
	var spans [numShifts]struct{ lo, hi int64 }
	for k := range spans {
		spans[k].lo, spans[k].hi = 1<<63-1, -1<<63
	}
	for i, e := range events {
		var ss []stamp
		for _, n := range shifted {
			limit := -1 // every match; only the first "ts"
			if n.kind == shiftTime {
				limit = 1
			}
			for _, m := range n.re.FindAllSubmatchIndex(e, limit) {
				v, err := strconv.ParseInt(string(e[m[2]:m[3]]), 10, 64)
				if err != nil {
					return 0, fmt.Errorf("synth: repeat: event %d: %s: %w", i, e[m[0]:m[1]], err)
				}
				ss = append(ss, stamp{m[2], m[3], v, n.kind})
				spans[n.kind].lo, spans[n.kind].hi = min(spans[n.kind].lo, v), max(spans[n.kind].hi, v)
			}
		}
		slices.SortFunc(ss, func(a, b stamp) int { return a.at - b.at })
		stamps[i] = ss
	}
	var period [numShifts]int64
	for k, s := range spans {
		period[k] = max(s.hi-s.lo, 0) + 1
	}
	period[shiftTime] += 100_000 - 1
	cw := &countWriter{w: w}
	if _, err := cw.Write(src[:start]); err != nil {
		return 0, err
	}
	var b []byte
	for ; copies == 0 || cw.n < target; copies++ {
		for i, e := range events {
			b = append(b[:0], ",\n  "...)
			if copies == 0 && i == 0 {
				b = b[1:]
			}
			last := 0
			for _, s := range stamps[i] {
				b = append(b, e[last:s.at]...)
				b = strconv.AppendInt(b, s.v+int64(copies)*period[s.kind], 10)
				last = s.end
			}
			b = append(b, e[last:]...)
			if _, err := cw.Write(b); err != nil {
				return copies, err
			}
		}
	}
	_, err = cw.Write(src[end:])
	return copies, err
}

// A stamp is a number Repeat shifts: e[at:end] in its event, of value v.
type stamp struct {
	at, end int
	v       int64
	kind    shiftKind
}

type shiftKind int

// The kinds of numbers Repeat shifts: each kind by its own period.
const (
	shiftTime shiftKind = iota
	shiftCorrelation
	shiftExternal
	shiftPython
	shiftStep
	numShifts
)

// shifted finds the numbers Repeat shifts: the integer part of an event's
// first "ts", positive ids (0 and negative ones mean "none") and the N of
// ProfilerStep#N.
var shifted = []struct {
	re   *regexp.Regexp
	kind shiftKind
}{
	{regexp.MustCompile(`"ts"\s*:\s*(-?[0-9]+)`), shiftTime},
	{idMember("correlation", "id"), shiftCorrelation},
	{idMember("External id"), shiftExternal},
	{idMember("Python id", "Python parent id"), shiftPython},
	{regexp.MustCompile(`"ProfilerStep#([0-9]+)"`), shiftStep},
}

func idMember(keys ...string) *regexp.Regexp {
	return regexp.MustCompile(`"(?:` + strings.Join(keys, "|") + `)"\s*:\s*([1-9][0-9]*)[^0-9.eE]`)
}

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
