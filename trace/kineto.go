package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"

	"github.com/tidwall/gjson"
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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	d := &kinetoDecoder{
		ctx:         ctx,
		in:          in,
		sc:          newJSONScanner(in.r, in.size),
		t:           &Trace{Source: in.path, Meta: Meta{Format: Kineto, Rank: -1}},
		truncatedAt: -1,
		batches:     make(chan *eventBatch, 4),
		free:        make(chan *eventBatch, 8),
	}
	workers := d.startWorkers(cancel)
	err := d.run()
	if err == nil {
		d.flush()
	}
	close(d.batches)
	parts, werr := workers.wait()
	if werr != nil && (err == nil || offsetOf(werr) < offsetOf(err) || errors.Is(err, context.Canceled)) {
		err = werr
	}
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) && in.gzipped {
			se.Gunzipped = true
		}
		return nil, err
	}
	d.merge(parts)
	d.t.Meta.Events = d.nEvents
	if in.opts.Strict && len(d.t.Warnings) > 0 {
		return nil, fmt.Errorf("%s: %s (--strict)", in.path, d.t.Warnings[0])
	}
	return finish(d.t, d.devices)
}

// kinetoDecoder reads the top level of a Kineto file and cuts the event
// array into batches that workers decode in parallel.
type kinetoDecoder struct {
	ctx     context.Context
	in      *input
	sc      *jsonScanner
	t       *Trace
	devices []Device
	nEvents int
	// truncatedAt is the offset where the input ended early, or -1.
	truncatedAt int64

	cur     *eventBatch
	seq     int
	batches chan *eventBatch // to the workers
	free    chan *eventBatch // recycled batches
}

// An eventBatch is a run of consecutive events copied out of the scanner's
// buffer.
type eventBatch struct {
	seq   int     // position among batches
	first int     // index of the first event
	buf   []byte  // the events' bytes, back to back
	ends  []int   // end of each event in buf
	offs  []int64 // stream offset of each event
}

const batchBytes = 512 << 10

// emit adds one event to the current batch, sending it when full.
func (d *kinetoDecoder) emit(ev []byte, off int64) {
	if d.cur == nil {
		select {
		case d.cur = <-d.free:
			d.cur.buf, d.cur.ends, d.cur.offs = d.cur.buf[:0], d.cur.ends[:0], d.cur.offs[:0]
		default:
			d.cur = &eventBatch{buf: make([]byte, 0, min(batchBytes, 2*d.in.size)+4096)}
		}
		d.cur.seq, d.cur.first = d.seq, d.nEvents
		d.seq++
	}
	b := d.cur
	b.buf = append(b.buf, ev...)
	b.ends = append(b.ends, len(b.buf))
	b.offs = append(b.offs, off)
	if len(b.buf) >= batchBytes {
		d.flush()
	}
}

func (d *kinetoDecoder) flush() {
	if d.cur != nil {
		select {
		case d.batches <- d.cur:
		case <-d.ctx.Done():
		}
		d.cur = nil
	}
}

// A workerPool decodes batches; results come back indexed by batch seq.
type workerPool struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	parts map[int]*eventDecoder
	err   error
	errAt int64
}

func (d *kinetoDecoder) startWorkers(cancel context.CancelFunc) *workerPool {
	p := &workerPool{parts: map[int]*eventDecoder{}}
	n := max(1, runtime.GOMAXPROCS(0))
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for b := range d.batches {
				ed := newEventDecoder(d.in)
				start := 0
				var err error
				for i, end := range b.ends {
					if err = ed.event(b.buf[start:end], b.offs[i], b.first+i); err != nil {
						break
					}
					start = end
				}
				p.mu.Lock()
				if err != nil {
					if p.err == nil || offsetOf(err) < p.errAt {
						p.err, p.errAt = err, offsetOf(err)
					}
					cancel()
				} else {
					p.parts[b.seq] = ed
				}
				p.mu.Unlock()
				select {
				case d.free <- b:
				default:
				}
			}
		}()
	}
	return p
}

// wait returns the decoded batches in order.
func (p *workerPool) wait() ([]*eventDecoder, error) {
	p.wg.Wait()
	if p.err != nil {
		return nil, p.err
	}
	out := make([]*eventDecoder, len(p.parts))
	for seq, ed := range p.parts {
		out[seq] = ed
	}
	return out, nil
}

// merge concatenates the workers' records in file order and their
// warnings, re-interning names so each distinct name is stored once.
func (d *kinetoDecoder) merge(parts []*eventDecoder) {
	t := d.t
	var n [6]int
	for _, p := range parts {
		n[0] += len(p.t.Kernels)
		n[1] += len(p.t.Memcpys)
		n[2] += len(p.t.Memsets)
		n[3] += len(p.t.Syncs)
		n[4] += len(p.t.APICalls)
		n[5] += len(p.t.Ops)
	}
	t.Kernels = make([]Kernel, 0, n[0])
	t.Memcpys = make([]Memcpy, 0, n[1])
	t.Memsets = make([]Memset, 0, n[2])
	t.Syncs = make([]Sync, 0, n[3])
	t.APICalls = make([]APICall, 0, n[4])
	t.Ops = make([]Op, 0, n[5])
	names := map[string]string{}
	intern := func(s string) string {
		if v, ok := names[s]; ok {
			return v
		}
		names[s] = s
		return s
	}
	var warn counter
	for _, p := range parts {
		for _, k := range p.t.Kernels {
			k.Name = intern(k.Name)
			t.Kernels = append(t.Kernels, k)
		}
		t.Memcpys = append(t.Memcpys, p.t.Memcpys...)
		t.Memsets = append(t.Memsets, p.t.Memsets...)
		t.Syncs = append(t.Syncs, p.t.Syncs...)
		for _, c := range p.t.APICalls {
			c.Name = intern(c.Name)
			t.APICalls = append(t.APICalls, c)
		}
		for _, o := range p.t.Ops {
			o.Name = intern(o.Name)
			t.Ops = append(t.Ops, o)
		}
		for _, m := range p.warn.order {
			warn.addN(m, p.warn.n[m])
		}
	}
	t.Warnings = append(t.Warnings, warn.lines()...)
}

// offsetOf is the byte offset a read error points at, or the largest
// offset when it has none.
func offsetOf(err error) int64 {
	var se *SyntaxError
	if errors.As(err, &se) && se.Offset >= 0 {
		return se.Offset
	}
	return 1<<63 - 1
}

func (d *kinetoDecoder) syntax(off int64, format string, args ...any) error {
	return &SyntaxError{File: d.in.path, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// run walks the top level: a bare array of events, or an object whose
// traceEvents member is that array and whose other members are metadata.
func (d *kinetoDecoder) run() error {
	sc := d.sc
	sc.peek() // skip whitespace (a BOM was allowed by sniff)
	if sc.pos+3 <= sc.end && bytes.Equal(sc.buf[sc.pos:sc.pos+3], []byte("\xef\xbb\xbf")) {
		sc.pos += 3
	}
	c, _, err := sc.peek()
	if err != nil {
		return d.readErr(err)
	}
	if c == '[' {
		sc.pos++
		return d.events(true)
	}
	sc.pos++ // '{'
	sawEvents := false
	for first := true; ; first = false {
		c, ok, err := sc.peek()
		if err != nil {
			return d.readErr(err)
		}
		if !ok {
			if sawEvents {
				return d.truncated()
			}
			return d.syntax(sc.offset(), "unexpected end of input in the top-level object")
		}
		if c == '}' {
			sc.pos++
			break
		}
		if !first {
			if c != ',' {
				return d.syntax(sc.offset(), "expected ',' or '}' in the top-level object, found %q", c)
			}
			sc.pos++
		}
		keyOff := sc.offset()
		kv, err := sc.value()
		if err != nil {
			return d.scanErr(err, sawEvents)
		}
		var key string
		if err := json.Unmarshal(kv, &key); err != nil {
			return d.syntax(keyOff, "expected a member name in the top-level object")
		}
		if !sc.expect(':') {
			return d.syntax(sc.offset(), "expected ':' after %q", key)
		}
		if key == "traceEvents" {
			c, _, _ := sc.peek()
			if c != '[' {
				return d.syntax(sc.offset(), "traceEvents is not an array")
			}
			sc.pos++
			sawEvents = true
			if err := d.events(false); err != nil {
				return err
			}
			if d.truncatedAt >= 0 {
				return nil
			}
			continue
		}
		valOff := sc.offset()
		v, err := sc.value()
		if err != nil {
			return d.scanErr(err, sawEvents)
		}
		if err := d.meta(key, v, valOff); err != nil {
			return err
		}
	}
	if !sawEvents {
		return d.syntax(-1, "a JSON object without a traceEvents array: not a Chrome/Kineto trace")
	}
	if c, ok, _ := sc.peek(); ok {
		return d.syntax(sc.offset(), "unexpected %q after the end of the JSON text", c)
	}
	return nil
}

func (d *kinetoDecoder) readErr(err error) error {
	return &SyntaxError{File: d.in.path, Offset: d.sc.offset(), Msg: "read", Err: err}
}

// scanErr turns a scanner error into a user-facing one. Running out of input
// after the events were read counts as truncation.
func (d *kinetoDecoder) scanErr(err error, sawEvents bool) error {
	if errors.Is(err, errTruncated) {
		if sawEvents {
			return d.truncated()
		}
		return d.syntax(d.sc.offset(), "unexpected end of input")
	}
	return d.readErr(err)
}

// truncated records that the input ended early. The events read so far are
// kept; it is a warning, or an error under --strict (checked by decode).
func (d *kinetoDecoder) truncated() error {
	if d.truncatedAt < 0 {
		d.truncatedAt = d.sc.offset()
		d.t.Warnings = append(d.t.Warnings, fmt.Sprintf("truncated at byte %d: %d events read", d.truncatedAt, d.nEvents))
	}
	return nil
}

// events reads the elements of the traceEvents array; '[' is consumed.
func (d *kinetoDecoder) events(bare bool) error {
	sc := d.sc
	if c, ok, _ := sc.peek(); ok && c == ']' {
		sc.pos++
		return nil
	}
	for {
		c, ok, err := sc.peek()
		if err != nil {
			return d.readErr(err)
		}
		if !ok {
			if bare {
				return nil // the Chrome array format may omit the closing ']'
			}
			return d.truncated()
		}
		off := sc.offset()
		if c != '{' {
			return d.syntax(off, "event #%d is not a JSON object", d.nEvents)
		}
		ev, err := sc.value()
		if err != nil {
			if errors.Is(err, errTruncated) {
				return d.truncated()
			}
			return d.readErr(err)
		}
		d.emit(ev, off)
		d.nEvents++
		if d.nEvents&0xffff == 0 {
			if err := d.ctx.Err(); err != nil {
				return err
			}
		}
		c, ok, err = sc.peek()
		if err != nil {
			return d.readErr(err)
		}
		switch {
		case !ok && bare:
			return nil
		case !ok:
			return d.truncated()
		case c == ',':
			sc.pos++
		case c == ']':
			sc.pos++
			return nil
		default:
			return d.syntax(sc.offset(), "expected ',' or ']' after event #%d, found %q", d.nEvents-1, c)
		}
	}
}

// meta reads a top-level member other than traceEvents.
func (d *kinetoDecoder) meta(key string, v []byte, off int64) error {
	switch key {
	case "schemaVersion", "deviceProperties", "computeProperties", "distributedInfo", "baseTimeNanoseconds":
	default:
		return nil
	}
	if !gjson.ValidBytes(v) {
		return d.syntax(off, "invalid JSON in top-level member %q", key)
	}
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
	return nil
}
