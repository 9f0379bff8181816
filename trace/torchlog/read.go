package torchlog

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// maxLine bounds one line of a log: compilation_metrics lines carry the
// whole Dynamo and Inductor configs (tens of KB) and payload lines whole
// graphs, but a line past this is not a log.
const maxLine = 64 << 20

// Open reads the structured compile log at path, plain or gzipped (told
// by its first bytes, not its name).
func Open(path string) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	var r io.Reader = br
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	return Parse(r, path)
}

// Parse reads a structured compile log from r; name is the file, for
// messages. A record whose envelope or payload is not what its kind
// needs becomes a warning and is left out; a file without a single
// record is an error (not a TORCH_TRACE log).
func Parse(r io.Reader, name string) (*Log, error) {
	p := parser{log: &Log{Source: name, Rank: -1}, compiles: map[ID]*Compile{}}
	br := bufio.NewReaderSize(r, 1<<16)
	var line []byte
	for n := 1; ; n++ {
		var err error
		line, err = readLine(br, line[:0])
		if len(line) > 0 || err == nil {
			if err := p.line(line, n); err != nil {
				return nil, fmt.Errorf("%s: line %d: %w", name, n, err)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", name, n, err)
		}
	}
	p.flush()
	if p.log.Lines == 0 {
		return nil, fmt.Errorf("%s: not a TORCH_TRACE structured compile log (no line of the form 'V1127 16:00:00.000000 123 file.py:1] {json}')", name)
	}
	for _, c := range p.compiles {
		c.sourceFromGraph()
		if c.ID.Frame >= 0 {
			p.log.Compiles = append(p.log.Compiles, *c)
		}
	}
	slices.SortFunc(p.log.Compiles, func(a, b Compile) int {
		return cmp.Or(cmp.Compare(a.ID.Autograd, b.ID.Autograd), cmp.Compare(a.ID.Frame, b.ID.Frame), cmp.Compare(a.ID.Compile, b.ID.Compile))
	})
	return p.log, nil
}

// readLine appends the next line of br to buf, without its newline.
func readLine(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			return nil, fmt.Errorf("a line longer than %d MiB", maxLine>>20)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		return buf, err
	}
}

// parser holds the record being read, whose payload lines may follow.
type parser struct {
	log      *Log
	compiles map[ID]*Compile
	// The pending record: its envelope, line and payload lines.
	env     *envelope
	envLine int
	payload []byte
}

// envelope is the part of a record's JSON this package reads; the
// record kinds it does not use are left as raw JSON.
type envelope struct {
	Rank               *int            `json:"rank"`
	CompiledAutogradID *int            `json:"compiled_autograd_id"`
	FrameID            *int            `json:"frame_id"`
	FrameCompileID     *int            `json:"frame_compile_id"`
	HasPayload         json.RawMessage `json:"has_payload"`
	CompilationMetrics json.RawMessage `json:"compilation_metrics"`
	OutputCode         json.RawMessage `json:"inductor_output_code"`
	PostGradGraph      json.RawMessage `json:"inductor_post_grad_graph"`
	Artifact           *struct {
		Name     string `json:"name"`
		Encoding string `json:"encoding"`
	} `json:"artifact"`
}

// line reads line n: a record's envelope, a payload line of the pending
// record, or anything else (glog lines of other loggers), skipped.
func (p *parser) line(b []byte, n int) error {
	if len(b) > 0 && b[0] == '\t' {
		if p.env != nil {
			if p.payload != nil {
				p.payload = append(p.payload, '\n')
			}
			p.payload = append(p.payload, b[1:]...)
		}
		return nil
	}
	js, ok := envelopeJSON(b)
	if !ok {
		return nil
	}
	p.flush()
	var e envelope
	if err := json.Unmarshal(js, &e); err != nil {
		p.warn(n, "not a JSON envelope: "+err.Error())
		return nil
	}
	p.log.Lines++
	if e.Rank != nil && p.log.Rank < 0 {
		p.log.Rank = *e.Rank
	}
	p.env, p.envLine, p.payload = &e, n, nil
	if len(e.HasPayload) > 0 {
		p.payload = []byte{} // payload lines follow, if any
	}
	return nil
}

// envelopeJSON returns the JSON after a glog prefix ("V1127 16:00:00.000000
// 123 file.py:1] "), or false when b is not such a line.
func envelopeJSON(b []byte) ([]byte, bool) {
	if len(b) < 6 || !strings.ContainsRune("VIWEC", rune(b[0])) || b[1] < '0' || b[1] > '9' {
		return nil, false
	}
	i := bytes.Index(b, []byte("] {"))
	if i < 0 {
		return nil, false
	}
	return b[i+2:], true
}

func (p *parser) warn(n int, msg string) {
	p.log.Warnings = append(p.log.Warnings, fmt.Sprintf("%s: line %d: %s", p.log.Source, n, msg))
}

// flush interprets the pending record, now that its payload is whole.
func (p *parser) flush() {
	e := p.env
	if e == nil {
		return
	}
	p.env = nil
	if e.FrameID == nil || e.FrameCompileID == nil {
		return // not of a frame's compile (AOT, or the log's strings table)
	}
	id := ID{Autograd: -1, Frame: *e.FrameID, Compile: *e.FrameCompileID}
	if e.CompiledAutogradID != nil {
		id.Autograd = *e.CompiledAutogradID
	}
	c := p.compiles[id]
	if c == nil {
		c = &Compile{ID: id, GraphBreaks: -1}
		p.compiles[id] = c
	}
	var err error
	switch {
	case len(e.CompilationMetrics) > 0 && string(e.CompilationMetrics) != "null":
		err = c.addMetrics(e.CompilationMetrics)
	case e.Artifact != nil:
		err = c.addArtifact(e.Artifact.Name, p.payload)
	case len(e.OutputCode) > 0:
		c.addOutputCode(string(p.payload))
	case len(e.PostGradGraph) > 0:
		c.addPostGradGraph(string(p.payload))
	}
	if err != nil {
		p.warn(p.envLine, err.Error())
	}
}

// metricsRecord is the part of compilation_metrics read here. Times are
// json.Number: their decimal text is converted to ns without float64.
type metricsRecord struct {
	CoName          *string     `json:"co_name"`
	CoFilename      *string     `json:"co_filename"`
	CoFirstLineno   *int        `json:"co_firstlineno"`
	DurationUS      json.Number `json:"duration_us"`
	EntireFrameS    json.Number `json:"entire_frame_compile_time_s"`
	IsRuntime       bool        `json:"is_runtime"`
	NumGraphBreaks  *int        `json:"num_graph_breaks"`
	RecompileReason *string     `json:"recompile_reason"`
	RestartReasons  []string    `json:"restart_reasons"`
	FailType        *string     `json:"fail_type"`
	FailReason      *string     `json:"fail_reason"`
	CudagraphSkip   *string     `json:"cudagraph_skip_reason"`
	CudagraphifyUS  json.Number `json:"runtime_cudagraphify_time_us"`
}

func (c *Compile) addMetrics(raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m metricsRecord
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("compilation_metrics of %s: %w", c.ID, err)
	}
	if m.CoName != nil && c.Code == "" {
		c.Code = *m.CoName
	}
	if m.CoFilename != nil && c.File == "" {
		c.File = baseName(*m.CoFilename)
	}
	if m.CoFirstLineno != nil && c.Line == 0 {
		c.Line = *m.CoFirstLineno
	}
	// A runtime record (is_runtime) times work done when the code ran,
	// such as cudagraph recording, not the compile.
	if !m.IsRuntime {
		var ns int64
		var ok bool
		var err error
		switch {
		case m.DurationUS != "":
			ns, err = decimalNanos(string(m.DurationUS), 3)
			ok = err == nil
		case m.EntireFrameS != "":
			ns, err = decimalNanos(string(m.EntireFrameS), 9)
			ok = err == nil
		}
		if err != nil {
			return fmt.Errorf("compilation_metrics of %s: compile time: %w", c.ID, err)
		}
		if ok && ns > math.MaxInt64-c.CompileNS {
			return fmt.Errorf("compilation_metrics of %s: compile times past 292 years", c.ID)
		}
		if ok {
			c.CompileNS += ns
			c.HasCompileTime = true
		}
	}
	if m.CudagraphifyUS != "" {
		ns, err := decimalNanos(string(m.CudagraphifyUS), 3)
		if err != nil {
			return fmt.Errorf("compilation_metrics of %s: runtime_cudagraphify_time_us: %w", c.ID, err)
		}
		if ns > math.MaxInt64-c.CudagraphifyNS {
			return fmt.Errorf("compilation_metrics of %s: runtime_cudagraphify_time_us past 292 years", c.ID)
		}
		c.CudagraphifyNS += ns
		c.HasCudagraphify = true
	}
	if m.NumGraphBreaks != nil {
		c.GraphBreaks = max(c.GraphBreaks, *m.NumGraphBreaks)
	}
	if m.RecompileReason != nil && *m.RecompileReason != "" && len(c.Recompile) == 0 {
		c.Recompile = splitReasons(*m.RecompileReason)
	}
	for _, r := range m.RestartReasons {
		c.addBreak(Break{Reason: firstLine(r)})
	}
	if m.FailType != nil && *m.FailType != "" {
		c.FailType = *m.FailType
		if m.FailReason != nil {
			c.FailReason = firstLine(*m.FailReason)
		}
	}
	if m.CudagraphSkip != nil && *m.CudagraphSkip != "" {
		c.CudagraphSkip = firstLine(*m.CudagraphSkip)
	}
	return nil
}

// splitReasons splits compilation_metrics' recompile_reason, the guard
// failures joined by newlines.
func splitReasons(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, scrubPaths(l))
		}
	}
	return out
}

func (c *Compile) addBreak(b Break) {
	if b.Reason == "" || slices.Contains(c.Breaks, b) {
		return
	}
	c.Breaks = append(c.Breaks, b)
}

// addArtifact reads the artifacts this package uses.
func (c *Compile) addArtifact(name string, payload []byte) error {
	switch {
	case name == "recompile_reasons":
		var rs []string
		if err := json.Unmarshal(payload, &rs); err != nil {
			return fmt.Errorf("recompile_reasons of %s: %w", c.ID, err)
		}
		c.Recompile = nil
		for _, r := range rs {
			c.Recompile = append(c.Recompile, scrubPaths(strings.TrimSpace(r)))
		}
	case name == "dynamo_graph_break_reason":
		c.addBreak(graphBreak(string(payload)))
	case name == "inductor_provenance_tracking_node_mappings":
		var m struct {
			CodeToPost map[string][]string `json:"cppCodeToPost"`
			PostToPre  map[string][]string `json:"postToPre"`
		}
		if err := json.Unmarshal(payload, &m); err != nil {
			return fmt.Errorf("%s of %s: %w", name, c.ID, err)
		}
		for k, post := range m.CodeToPost {
			ks := c.kernel(k)
			ks.fromArtifact()
			ks.PostGrad = appendNew(ks.PostGrad, post...)
			for _, n := range post {
				ks.PreGrad = appendNew(ks.PreGrad, m.PostToPre[n]...)
			}
		}
	case name == "inductor_triton_kernel_to_post_grad_nodes":
		var m map[string][]string
		if err := json.Unmarshal(payload, &m); err != nil {
			return fmt.Errorf("%s of %s: %w", name, c.ID, err)
		}
		for k, post := range m {
			ks := c.kernel(k)
			ks.fromArtifact()
			ks.PostGrad = appendNew(ks.PostGrad, post...)
		}
	case name == "after_post_grad_graph":
		c.addPostGradGraph(string(payload))
	case strings.HasPrefix(name, "inductor_provenance_tracking_kernel_stack_traces"):
		var m map[string][]string
		if err := json.Unmarshal(payload, &m); err != nil {
			return fmt.Errorf("%s of %s: %w", name, c.ID, err)
		}
		for k, stacks := range m {
			ks := c.kernel(k)
			for _, s := range stacks {
				if l, ok := innermost(s); ok && !slices.Contains(ks.Source, l) {
					ks.Source = append(ks.Source, l)
				}
			}
		}
	}
	return nil
}

// kernel returns the provenance entry of the kernel named k, made when
// new. Inductor names a kernel "name:N" with a debug handle N when it
// tracks provenance by handle, and "extern_kernels.mm" for library
// calls; the profiler shows the name alone.
func (c *Compile) kernel(k string) *KernelSource {
	if i := strings.LastIndexByte(k, ':'); i > 0 {
		if _, err := strconv.Atoi(k[i+1:]); err == nil {
			k = k[:i]
		}
	}
	if c.Kernels == nil {
		c.Kernels = map[string]*KernelSource{}
	}
	ks := c.Kernels[k]
	if ks == nil {
		ks = &KernelSource{}
		c.Kernels[k] = ks
	}
	return ks
}

func appendNew(dst []string, xs ...string) []string {
	for _, x := range xs {
		if !slices.Contains(dst, x) {
			dst = append(dst, x)
		}
	}
	return dst
}

// graphBreak reads a dynamo_graph_break_reason payload: "Graph break in
// user code at FILE:LINE", "Graph Break Reason: WHY", then the user's
// traceback; older logs have the reason on the first line.
func graphBreak(s string) Break {
	var b Break
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "Graph break in user code at "):
			b.Where = baseName(strings.TrimPrefix(t, "Graph break in user code at "))
		case strings.HasPrefix(t, "Graph Break Reason: "):
			b.Reason = scrubPaths(strings.TrimPrefix(t, "Graph Break Reason: "))
		}
	}
	if b.Reason == "" {
		b.Reason = firstLine(s)
	}
	return b
}

// innermost reads the last frame of a Python stack trace as
// traceback.format_list writes it: `  File "PATH", line N, in FUNC` and
// the line's code below it.
func innermost(s string) (SourceLine, bool) {
	lines := strings.Split(strings.ReplaceAll(s, `\n`, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		t := strings.TrimSpace(lines[i])
		rest, ok := strings.CutPrefix(t, `File "`)
		if !ok {
			continue
		}
		path, rest, ok := strings.Cut(rest, `", line `)
		if !ok {
			continue
		}
		num, fn, _ := strings.Cut(rest, ", in ")
		n, err := strconv.Atoi(strings.TrimSpace(num))
		if err != nil {
			continue
		}
		l := SourceLine{File: baseName(path), Line: n, Func: strings.TrimSpace(fn)}
		if i+1 < len(lines) {
			l.Code = strings.TrimSpace(lines[i+1])
		}
		return l, true
	}
	return SourceLine{}, false
}

// firstLine returns the first non-empty line of s, paths scrubbed.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return scrubPaths(l)
		}
	}
	return ""
}

// decimalNanos converts a non-negative JSON number, in a unit of 10^-exp
// seconds (3 for µs, 9 for s), to integer ns from its decimal text,
// without float64: digits past the ns are dropped.
func decimalNanos(s string, exp int) (int64, error) {
	bad := errors.New("not a non-negative decimal: " + strconv.Quote(s))
	mant, e, _ := strings.Cut(strings.ToLower(s), "e")
	shift := exp
	if e != "" {
		n, err := strconv.Atoi(e)
		if err != nil || n < -30 || n > 30 {
			return 0, bad
		}
		shift += n
	}
	ip, fp, _ := strings.Cut(mant, ".")
	digits := ip + fp
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, bad
	}
	point := len(ip) + shift // the decimal point's place in digits, in ns
	switch {
	case point <= 0:
		return 0, nil
	case point < len(digits):
		digits = digits[:point]
	default:
		digits += strings.Repeat("0", point-len(digits))
	}
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, bad
	}
	return n, nil
}
