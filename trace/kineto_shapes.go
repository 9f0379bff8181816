package trace

import (
	"encoding/binary"

	"github.com/traceql/traceql/trace/internal/jsonlex"
)

// shapeArgs are the raw shape arguments of the cpu_op being decoded, for a
// read with Needs.Shapes: the text of "Input Dims", "Input type" and
// "Concrete Inputs" (aliasing the block) and "flops". They live in the
// decoder, not in eventArgs, so that reads without Needs.Shapes zero no
// more per event than before.
type shapeArgs struct {
	dims, types, concrete []byte
	flops                 int64
	hasFlops              bool
}

func (s *shapeArgs) set(key string, raw []byte) {
	switch key {
	case "Input Dims", "Input dims": // "Input dims" in the January 2021 schema
		s.dims = raw
	case "Input type":
		s.types = raw
	case "Concrete Inputs":
		s.concrete = raw
	}
}

// wanted reports whether the op named name keeps its shapes: it has some,
// and the read asks for its name, or it carries the profiler's own FLOP
// count, which is kept whatever the op.
func (s *shapeArgs) wanted(name string, of map[string]bool) bool {
	if s.hasFlops {
		return true
	}
	return s.dims != nil && (of == nil || of[name])
}

// opArgs returns the current op's shape arguments. Ops recorded with the
// same arguments share one OpArgs: a trace repeats each layer's shapes in
// every layer and every step (1 to 36 % of a real trace's shaped ops are
// distinct), so most ops cost a lookup, not a parse and a few allocations
// that the trace keeps.
func (d *eventDecoder) opArgs(p *part) *OpArgs {
	k := d.shapeKey[:0]
	for _, raw := range [...][]byte{d.sh.dims, d.sh.types, d.sh.concrete} {
		// Length-prefixed, so no two argument sets share a key (a JSON
		// value is never empty: 0 is an absent one).
		k = binary.AppendUvarint(k, uint64(len(raw)))
		k = append(k, raw...)
	}
	k = binary.AppendVarint(k, d.sh.flops) // whether it is a count or not
	if d.sh.hasFlops {
		k = append(k, 1)
	}
	d.shapeKey = k
	s, ok := d.shapesSeen[string(k)]
	if !ok {
		s = d.parseOpArgs()
		if len(d.shapesSeen) >= maxShapesSeen {
			clear(d.shapesSeen) // a trace of ever new shapes: bounded memory, each op parsed
		}
		d.shapesSeen[string(k)] = s
	}
	if s.badUTF8 > 0 {
		p.warn.addN(badUTF8Names, s.badUTF8)
	}
	return s.args
}

// maxShapesSeen bounds a decoder's memo of argument sets (shapesSeen):
// far more than a real trace's distinct sets per worker, while its keys
// stay within a few MB.
const maxShapesSeen = 1 << 14

// seenShapes are the parsed arguments of one raw argument set, and how many
// of its strings had invalid UTF-8 (each a warning, as for a name).
type seenShapes struct {
	args    *OpArgs
	badUTF8 int
}

// parseOpArgs parses the current op's shape arguments. Malformed parts are
// left out (nil), never guessed: a FLOP model then finds no shape.
func (d *eventDecoder) parseOpArgs() seenShapes {
	s := seenShapes{args: &OpArgs{Flops: d.sh.flops, HasFlops: d.sh.hasFlops}}
	if d.sh.dims != nil {
		s.args.Dims, s.args.Lists = parseDims(d.sh.dims)
	}
	if d.sh.types != nil {
		s.args.Types = d.strings(d.sh.types, &s.badUTF8)
	}
	if d.sh.concrete != nil {
		s.args.Concrete = d.strings(d.sh.concrete, &s.badUTF8)
	}
	return s
}

// strings reads a JSON array of strings, interned (types and concrete
// values repeat from op to op); a member that is no string is "". It
// counts in *bad the members with invalid UTF-8.
func (d *eventDecoder) strings(b []byte, bad *int) []string {
	var out []string
	i := jsonlex.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil
	}
	i = jsonlex.SkipSpace(b, i+1)
	for i < len(b) && b[i] != ']' {
		var v jsonlex.Value
		j, err := d.lx.Value(b, i, &v)
		if err != nil {
			return nil
		}
		s := ""
		if v.Kind == 's' {
			var ok bool
			if s, ok = d.internValid(v.Text()); !ok {
				*bad++
			}
		}
		out = append(out, s)
		i = jsonlex.SkipSpace(b, j)
		if i < len(b) && b[i] == ',' {
			i = jsonlex.SkipSpace(b, i+1)
		}
	}
	return out
}

// parseDims reads "Input Dims": an array with, per input, [] (no tensor),
// [d0, d1, …] (a tensor's sizes) or [[…], […]] (a list of tensors). It
// returns nil, nil for text of another form. The sizes of all inputs share
// one array: an op's shapes are a few allocations, not one per input.
func parseDims(b []byte) (dims [][]int64, lists [][][]int64) {
	i := jsonlex.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil, nil
	}
	var flat []int64
	type span struct{ lo, hi int } // of flat; lo < 0: no tensor
	var spans []span
	var listAt []int // inputs that are lists, parsed on their own
	var listVals [][][]int64
	i = jsonlex.SkipSpace(b, i+1)
	for i < len(b) && b[i] != ']' {
		if b[i] != '[' {
			return nil, nil
		}
		j := jsonlex.SkipSpace(b, i+1)
		if j < len(b) && b[j] == '[' { // a list of tensors
			var list [][]int64
			i = j
			for i < len(b) && b[i] == '[' {
				var d []int64
				end, ok := parseInts(b, i, &d)
				if !ok {
					return nil, nil
				}
				if len(d) == 0 {
					d = nil
				}
				list = append(list, d)
				i = jsonlex.SkipSpace(b, end)
				if i < len(b) && b[i] == ',' {
					i = jsonlex.SkipSpace(b, i+1)
				}
			}
			if i >= len(b) || b[i] != ']' {
				return nil, nil
			}
			i++
			listAt = append(listAt, len(spans))
			listVals = append(listVals, list)
			spans = append(spans, span{-1, -1})
		} else {
			lo := len(flat)
			end, ok := parseInts(b, i, &flat)
			if !ok {
				return nil, nil
			}
			i = end
			if len(flat) == lo {
				spans = append(spans, span{-1, -1})
			} else {
				spans = append(spans, span{lo, len(flat)})
			}
		}
		i = jsonlex.SkipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = jsonlex.SkipSpace(b, i+1)
		}
	}
	if i >= len(b) {
		return nil, nil
	}
	if len(spans) == 0 {
		return nil, nil
	}
	dims = make([][]int64, len(spans))
	for k, sp := range spans {
		if sp.lo >= 0 {
			dims[k] = flat[sp.lo:sp.hi:sp.hi]
		}
	}
	if listAt != nil {
		lists = make([][][]int64, len(spans))
		for n, k := range listAt {
			lists[k] = listVals[n]
		}
	}
	return dims, lists
}

// parseInts appends the integers of the array at b[i] == '[' to *out and
// returns the index after it.
func parseInts(b []byte, i int, out *[]int64) (int, bool) {
	i = jsonlex.SkipSpace(b, i+1)
	for i < len(b) && b[i] != ']' {
		neg := false
		if b[i] == '-' {
			neg = true
			i++
		}
		start := i
		var n int64
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			if n > (1<<62)/10 {
				return i, false
			}
			n = n*10 + int64(b[i]-'0')
			i++
		}
		if i == start {
			return i, false
		}
		if neg {
			n = -n
		}
		*out = append(*out, n)
		i = jsonlex.SkipSpace(b, i)
		if i < len(b) && b[i] == ',' {
			i = jsonlex.SkipSpace(b, i+1)
		}
	}
	if i >= len(b) {
		return i, false
	}
	return i + 1, true
}
