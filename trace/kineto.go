package trace

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/traceql/traceql/trace/internal/jsonlex"
)

// kinetoFormat reads PyTorch-profiler (Kineto) and plain Chrome trace JSON:
// {"traceEvents": [...], ...} with metadata before or after the array, or a
// bare [...] array. See ../shared/formats/kineto.md.
type kinetoFormat struct{}

func (kinetoFormat) sniff(head []byte) bool {
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")) // UTF-8 BOM
	head = bytes.TrimLeft(head, " \t\r\n")
	return len(head) > 0 && (head[0] == '{' || head[0] == '[')
}

func (kinetoFormat) decode(ctx context.Context, in *input) (*Trace, error) {
	d := &kinetoDecoder{
		ctx:         ctx,
		in:          in,
		sc:          jsonlex.NewScanner(in.r, min(in.size, 64<<10, in.opts.blockBytes()), cmp.Or(in.opts.MaxEventBytes, defaultMaxEventBytes)),
		t:           &Trace{Source: in.path, Meta: Meta{Format: Kineto, Rank: -1, VersionIsSchema: true}},
		truncatedAt: -1,
	}
	d.sc.SetBase(in.leadingSpace)
	if err := d.run(); err != nil {
		var se *SyntaxError
		if errors.As(err, &se) && in.gzipped {
			se.Gunzipped = true
		}
		return nil, err
	}
	if d.leanSkipped > 0 && !d.t.HasGPUActivity() {
		return nil, errNotLean
	}
	d.t.Warnings = append(d.t.Warnings, d.warn.lines()...)
	if in.gz != nil && in.gz.cut && d.truncatedAt < 0 {
		d.t.Warnings = append(d.t.Warnings, "the gzip stream is cut short after the JSON text: its checksum was not verified")
	}
	if in.opts.Strict && len(d.t.Warnings) > 0 {
		return nil, fmt.Errorf("%s: %s (--strict)", in.path, d.t.Warnings[0])
	}
	return finish(d.t, d.devices, in.opts.Strict)
}

// kinetoDecoder reads the top level of a Kineto file with a jsonlex.Scanner and
// the events array, most of the file, in parallel blocks (kineto_blocks.go).
type kinetoDecoder struct {
	ctx     context.Context
	in      *input
	sc      *jsonlex.Scanner
	t       *Trace
	devices []Device
	warn    warningCounts // the events' warnings
	// leanSkipped counts the events skipped for the read's needs.
	leanSkipped int
	// truncatedAt is the offset where the input ended early, or -1.
	truncatedAt int64
}

func (d *kinetoDecoder) syntax(off int64, format string, args ...any) error {
	return &SyntaxError{File: d.in.path, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// run walks the top level: a bare array of events, or an object whose
// traceEvents member is that array and whose other members are metadata.
func (d *kinetoDecoder) run() error {
	sc := d.sc
	sc.Peek() // skip whitespace (a BOM was allowed by sniff)
	if bytes.HasPrefix(sc.Buffered(), []byte("\xef\xbb\xbf")) {
		sc.Skip(3)
	}
	c, _, err := sc.Peek()
	if err != nil {
		return d.readErr(err)
	}
	if c == '[' {
		sc.Skip(1)
		// An array of anything but objects (a dataset's classes.json,
		// ["cat","dog"]) is some other JSON file, not a broken trace: a
		// folder's walk skips it.
		if c, ok, _ := sc.Peek(); ok && c != '{' && c != ']' {
			return &SyntaxError{File: d.in.path, Offset: sc.Offset(), Err: ErrUnknownFormat,
				Msg: "a JSON array whose first element is not an object: not a Chrome/Kineto trace"}
		}
		if err := d.events(true); err != nil || d.truncatedAt >= 0 {
			return err
		}
		if d.t.Meta.Events > 0 && records(d.t) == 0 &&
			len(d.devices) == 0 && d.leanSkipped == 0 {
			// A harness's list of results ([{"name": …, "time": …}, …])
			// is JSON in the Array Format's shape, but no trace.
			return &SyntaxError{File: d.in.path, Offset: -1, Err: ErrUnknownFormat,
				Msg: fmt.Sprintf("a JSON array of %d elements, none of them a trace event: not a Chrome/Kineto trace", d.t.Meta.Events)}
		}
		return d.end()
	}
	sc.Skip(1) // '{'
	sawEvents := false
	for first := true; ; first = false {
		c, ok, err := sc.Peek()
		if err != nil {
			return d.readErr(err)
		}
		if !ok {
			if sawEvents {
				return d.truncated(d.sc.Offset())
			}
			return d.syntax(sc.Offset(), "unexpected end of input in the top-level object")
		}
		if c == '}' {
			sc.Skip(1)
			break
		}
		if !first {
			if c != ',' {
				return d.syntax(sc.Offset(), "expected ',' or '}' in the top-level object, found %q", c)
			}
			sc.Skip(1)
		}
		keyOff := sc.Offset()
		kv, err := sc.Value()
		if err != nil {
			return d.scanErr(err, sawEvents)
		}
		var key string
		if err := json.Unmarshal(kv, &key); err != nil {
			return d.syntax(keyOff, "expected a member name in the top-level object")
		}
		if !sc.Expect(':') {
			return d.syntax(sc.Offset(), "expected ':' after %q", key)
		}
		if key == "traceEvents" {
			c, _, _ := sc.Peek()
			if c != '[' {
				return d.syntax(sc.Offset(), "traceEvents is not an array")
			}
			sc.Skip(1)
			sawEvents = true
			if err := d.events(false); err != nil {
				return err
			}
			if d.truncatedAt >= 0 {
				return nil
			}
			continue
		}
		valOff := sc.Offset()
		v, err := sc.Value()
		if err != nil {
			return d.scanErr(err, sawEvents)
		}
		// The scanner cut the value out without checking it. A space
		// after it ends a number, which could go on at the end of v.
		var lx jsonlex.Lexer
		if end, err := lx.SkipValue(append(v[:len(v):len(v)], ' '), 0); err != nil || end != len(v) {
			return d.syntax(valOff+int64(end), "invalid JSON in top-level member %q", key)
		}
		d.meta(key, v)
	}
	if !sawEvents {
		return &SyntaxError{File: d.in.path, Offset: -1, Msg: "a JSON object without a traceEvents array: not a Chrome/Kineto trace",
			Err: ErrUnknownFormat}
	}
	return d.end()
}

// end checks that only whitespace follows the JSON text. It reads the
// input to its end, where a gzip stream's checksum is verified: a corrupt
// stream can decompress to valid JSON with wrong numbers.
func (d *kinetoDecoder) end() error {
	c, ok, err := d.sc.Peek()
	if err != nil {
		return d.readErr(err)
	}
	if ok {
		return d.syntax(d.sc.Offset(), "unexpected %q after the end of the JSON text", c)
	}
	return nil
}

func (d *kinetoDecoder) readErr(err error) error {
	return &SyntaxError{File: d.in.path, Offset: d.sc.Offset(), Msg: "read", Err: err}
}

// scanErr turns a scanner error into a user-facing one. Running out of input
// after the events were read counts as truncation.
func (d *kinetoDecoder) scanErr(err error, sawEvents bool) error {
	if errors.Is(err, jsonlex.ErrTruncated) {
		if sawEvents {
			return d.truncated(d.sc.Offset())
		}
		return d.syntax(d.sc.Offset(), "unexpected end of input")
	}
	return d.readErr(err)
}

// truncated records that the input ended early, at byte off. The events read so far are kept; it is a warning, or an error
// under --strict (checked by decode).
func (d *kinetoDecoder) truncated(off int64) error {
	if d.truncatedAt < 0 {
		d.truncatedAt = off
		d.t.Warnings = append(d.t.Warnings, fmt.Sprintf("truncated at byte %d: %d events read", off, d.t.Meta.Events))
	}
	return nil
}

// meta reads a top-level member other than traceEvents, whose value v is
// valid JSON.
func (d *kinetoDecoder) meta(key string, v []byte) {
	r := gjson.ParseBytes(v)
	switch key {
	case "schemaVersion":
		d.t.Meta.Version = r.String()
	case "deviceProperties", "computeProperties":
		r.ForEach(func(_, p gjson.Result) bool {
			dev := Device{
				ID:            int(p.Get("id").Int()),
				Name:          p.Get("name").String(),
				ComputeMajor:  int(p.Get("computeMajor").Int()),
				ComputeMinor:  int(p.Get("computeMinor").Int()),
				TotalMemBytes: p.Get("totalGlobalMem").Int(),
				SMs:           int(p.Get("numSms").Int()),
			}
			if key == "computeProperties" {
				dev.ComputeMajor = int(p.Get("major").Int())
				dev.ComputeMinor = int(p.Get("minor").Int())
				dev.SMs = int(p.Get("multiProcessorCount").Int())
			}
			d.devices = append(d.devices, dev)
			return true
		})
	case "distributedInfo":
		if rk := r.Get("rank"); rk.Exists() {
			d.t.Meta.Rank = int(rk.Int())
		}
		d.t.Meta.WorldSize = int(r.Get("world_size").Int())
	case "baseTimeNanoseconds":
		if n, err := strconv.ParseInt(r.Raw, 10, 64); err == nil {
			d.t.Meta.BaseTimeNS = n
		}
	}
}
