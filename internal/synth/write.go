package synth

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
)

const (
	firstStep = 2 // N of the first ProfilerStep#N, as with schedule(wait=1, warmup=1)
	bufSize   = 256 << 10
	flushAt   = 16 << 10 // flush when less than this is free, so events rarely reallocate
	modernT0  = 4_400_000_000_000_000
	base2026  = 1_767_225_600_000_000_000 // baseTimeNanoseconds: 2026-01-01T00:00:00Z
	epoch2021 = 1_623_142_623_000_000     // µs since the epoch, June 2021
)

// Write writes an uncompressed Kineto trace for cfg to w and returns its
// truth. Memory stays bounded whatever the size: events are streamed, and
// the truth keeps only counters plus 8 bytes per kernel (the durations, for
// the medians).
func Write(w io.Writer, cfg Config) (Truth, error) {
	cfg, err := cfg.normalize()
	if err != nil {
		return Truth{}, err
	}
	g := newGen(w, cfg)
	if !cfg.Interleave {
		// The GPU section is written aside and appended at the end.
		f, err := os.CreateTemp("", "synth-gpu-*.json")
		if err != nil {
			return Truth{}, fmt.Errorf("synth: %w", err)
		}
		defer os.Remove(f.Name())
		defer f.Close()
		g.gpuFile, g.gpuN = f, &countWriter{w: f}
		g.gpu = bufio.NewWriterSize(g.gpuN, bufSize)
	}
	g.run()
	if g.err == nil {
		g.err = g.w.Flush()
	}
	if g.err != nil {
		return Truth{}, fmt.Errorf("synth: write: %w", g.err)
	}
	t := g.truth()
	t.Bytes = g.cw.n
	t.Events = g.events
	return t, nil
}

// WriteFile writes the trace for cfg to path, gzip-compressed when gz is
// set, and returns its truth with FileBytes set.
func WriteFile(path string, cfg Config, gz bool) (Truth, error) {
	f, err := os.Create(path)
	if err != nil {
		return Truth{}, fmt.Errorf("synth: %w", err)
	}
	fc := &countWriter{w: f}
	var w io.Writer = fc
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(fc) // zero header: no name, no time, so the bytes are reproducible
		w = zw
	}
	t, err := Write(w, cfg)
	if err == nil && zw != nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path) // not a trace: an empty or partial file would read as one, or as a broken one
		return Truth{}, fmt.Errorf("synth: write %s: %w", path, err)
	}
	t.FileBytes = fc.n
	return t, nil
}

// countWriter counts the bytes its writer accepted.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// gen is the state of one Write.
type gen struct {
	cfg Config
	r   *rand.Rand
	cw  *countWriter
	w   *bufio.Writer
	err error // the first error of the GPU section's file

	// Kineto writes the CPU section (CPU ops, annotations, python frames,
	// [memory] events) first, then the GPU section (runtime and driver
	// calls, GPU activities, flows). Unless Config.Interleave, events of
	// the GPU section go to gpu, a temporary file appended at the end.
	gpu        *bufio.Writer
	gpuFile    *os.File
	gpuN       *countWriter
	cur        *bufio.Writer // where the event being written goes
	mainEvents int           // events in w
	gpuEvents  int           // events in gpu

	modern  bool
	u       int64 // time quantum: 1 ns (Modern), 1000 ns (Era2021, whole µs)
	prop    deviceProps
	base    int64 // baseTimeNanoseconds (Modern)
	t0      int64 // profiler start, ns on the ts clock
	pid     int64
	pidB    []byte
	traceN  string // traceName
	traceID string

	corr, ext, evIdx, pyID int64 // last ids handed out

	bigK, smallK []int // kernelSpecs indices usable in this era
	devs         []*devState
	steps        []StepTruth
	tr           Truth
	cl           cluster
	slots        []slot
	events       int
}

// devState is one device and the CPU thread that launches its work.
type devState struct {
	id         int
	pidB       []byte   // the device as a pid
	streams    []int64  // stream ids
	gpuTid     [][]byte // per stream: 7 or "stream 7"
	cpuTid     []byte   // tid of the launching thread in X and i events
	cpuTidNum  []byte   // the same, always a number (flows)
	cpuTidInt  int64
	cpu        int64 // CPU cursor: the launching thread is free from here
	allocated  int64 // for [memory] events
	streamUsed []bool

	acc         busyAcc
	kernelBusy  int64
	kernels     int
	zeroKernels int
	kernelNS    int64
	durs        [len(kernelSpecs)][]int64
	copies      [len(copyKinds)]CopyTruth
	memsets     int
	memsetBytes int64
	memsetNS    int64

	stepHas             bool
	stepFirst, stepLast int64
	stepKernels         int
}

type itemKind uint8

const (
	kernelItem itemKind = iota
	memcpyItem
	memsetItem
)

// An item is one GPU activity of a cluster; off is relative to the cluster
// start.
type item struct {
	kind      itemKind
	stream    int // index into devState.streams
	off, dur  int64
	spec      int // kernelSpecs or copyKinds index
	bytes     int64
	grid      [3]int32
	corr, ext int64
}

// A cluster is a stretch of GPU activity covered exactly by its items:
// [start, start+length] is busy throughout. A separate cluster (a graph
// replay) is instead a run of back-to-back single-item clusters.
type cluster struct {
	items    []item
	length   int64
	kernels  int
	separate bool
}

type slot struct {
	stream   int
	off, dur int64
}

func newGen(w io.Writer, cfg Config) *gen {
	g := &gen{cfg: cfg, modern: cfg.Era == Modern}
	g.r = rand.New(rand.NewPCG(uint64(cfg.Seed), 0x7472616365716c))
	g.cw = &countWriter{w: w}
	g.w = bufio.NewWriterSize(g.cw, bufSize)
	if g.modern {
		g.u, g.prop, g.base = 1, propsH100, base2026
		g.t0 = modernT0 + g.r.Int64N(100_000_000_000_000)
	} else {
		g.u, g.prop = 1000, propsV100
		g.t0 = (epoch2021 + g.r.Int64N(1_000_000_000)) * 1000
	}
	g.pid = 1000 + g.r.Int64N(4_000_000)
	g.pidB = strconv.AppendInt(nil, g.pid, 10)
	g.traceN = fmt.Sprintf("/tmp/traceql_synth_seed%d.pt.trace.json", cfg.Seed)
	g.traceID = fmt.Sprintf("%016X%016X", g.r.Uint64(), g.r.Uint64())
	g.corr = g.r.Int64N(1000)
	g.ext = g.r.Int64N(100)
	for i, s := range kernelSpecs {
		if (g.modern && s.era == oldOnly) || (!g.modern && s.era == modernOnly) {
			continue
		}
		if s.big {
			g.bigK = append(g.bigK, i)
		} else {
			g.smallK = append(g.smallK, i)
		}
	}
	for i := range cfg.Devices {
		d := &devState{id: i, streamUsed: make([]bool, cfg.Streams)}
		d.pidB = strconv.AppendInt(nil, int64(i), 10)
		for k := range cfg.Streams {
			s := int64(7)
			if k > 0 {
				s = int64(19 + k)
			}
			d.streams = append(d.streams, s)
			if g.modern {
				d.gpuTid = append(d.gpuTid, strconv.AppendInt(nil, s, 10))
			} else {
				d.gpuTid = append(d.gpuTid, fmt.Appendf(nil, `"stream %d"`, s))
			}
		}
		d.cpuTidInt = g.pid
		if i > 0 {
			d.cpuTidInt = g.pid + 40 + int64(i)*3
		}
		d.cpuTidNum = strconv.AppendInt(nil, d.cpuTidInt, 10)
		if g.modern {
			d.cpuTid = d.cpuTidNum
		} else {
			d.cpuTid = fmt.Appendf(nil, `"%d"`, d.cpuTidInt)
		}
		g.devs = append(g.devs, d)
	}
	return g
}

func (g *gen) size() int64 {
	n := g.cw.n + int64(g.w.Buffered())
	if g.gpu != nil {
		n += g.gpuN.n + int64(g.gpu.Buffered())
	}
	return n
}

func (g *gen) run() {
	g.header()
	t := g.t0 + g.qmin(g.between(100_000, 400_000))
	for k := 0; k < g.cfg.Steps || g.size() < g.cfg.TargetBytes; k++ {
		if _, err := g.w.Write(nil); err != nil {
			return // sticky write error, reported by Flush
		}
		if g.gpu != nil {
			if _, err := g.gpu.Write(nil); err != nil {
				g.err = err
				return
			}
		}
		t = g.step(k, t)
	}
	g.appendGPU()
	g.footer(t)
}

// appendGPU appends the GPU section, written aside, to the output.
func (g *gen) appendGPU() {
	if g.gpu == nil {
		return
	}
	r := io.Reader(g.gpuFile)
	g.err = g.gpu.Flush()
	if _, err := g.gpuFile.Seek(0, io.SeekStart); g.err == nil {
		g.err = err
	}
	if g.mainEvents == 0 && g.gpuEvents > 0 {
		// Its events all start with a comma, as if after the CPU section.
		r = io.NewSectionReader(g.gpuFile, 1, g.gpuN.n-1)
	}
	if _, err := io.Copy(g.w, r); g.err == nil {
		g.err = err
	}
	g.mainEvents += g.gpuEvents
	g.gpu = nil
}

// ---- random draws -------------------------------------------------------

func (g *gen) between(lo, hi int64) int64 { return lo + g.r.Int64N(hi-lo+1) }

// spread draws from [lo, hi] with a roughly log-uniform density, in integer
// arithmetic only (float results could differ between platforms).
func (g *gen) spread(lo, hi int64) int64 {
	k := 0
	for v := lo; 2*v <= hi; v *= 2 {
		k++
	}
	b := lo << g.r.IntN(k+1)
	return g.between(b, min(2*b, hi))
}

// q rounds x down to the era's time quantum; qmin also makes it at least
// one quantum.
func (g *gen) q(x int64) int64    { return x - x%g.u }
func (g *gen) qmin(x int64) int64 { return max(g.u, g.q(x)) }

func (g *gen) pick(list []int) int { return list[g.r.IntN(len(list))] }

func (g *gen) nextCorr() int64 { g.corr++; return g.corr }
func (g *gen) nextExt() int64  { g.ext++; return g.ext }
func (g *gen) nextEv() int64   { g.evIdx++; return g.evIdx }

// gap draws the idle time before a cluster: exactly 0 (the clusters touch
// and merge), a few ns, or longer.
func (g *gen) gap() int64 {
	switch p := g.r.IntN(100); {
	case p < 15:
		return 0
	case p < 40:
		return g.qmin(g.between(1, 64))
	case p < 88:
		return g.qmin(g.spread(200, 50_000))
	}
	return g.qmin(g.spread(100_000, 3_000_000))
}

// ---- steps and clusters -------------------------------------------------

func (g *gen) step(k int, start int64) int64 {
	num := firstStep + k
	st := StepTruth{Name: "ProfilerStep#" + strconv.Itoa(num), Number: num, StartNS: start, GPU: []Window{}}
	ext, ev := g.nextExt(), g.nextEv()
	for _, d := range g.devs {
		d.cpu = start + g.qmin(g.between(2_000, 20_000))
		d.stepHas, d.stepKernels = false, 0
	}
	for _, d := range g.devs {
		g.deviceStep(d, k)
	}
	end := start
	for _, d := range g.devs {
		end = max(end, d.cpu)
	}
	end += g.qmin(g.between(1_000, 10_000))
	st.EndNS = end

	main := g.devs[0]
	if g.modern {
		b := g.x("user_annotation", st.Name, g.pidB, main.cpuTid, start, end-start)
		b = g.recArgs(b, ext, ev)
		g.xEnd(b)
	} else {
		b := g.x("Operator", st.Name, g.pidB, main.cpuTid, start, end-start)
		b = append(b, `"Device": `...)
		b = append(b, g.pidB...)
		b = append(b, `, "External id": `...)
		b = strconv.AppendInt(b, ext, 10)
		b = append(b, ",\n      \"Trace name\": \"PyTorch Profiler\", \"Trace iteration\": 0 "...)
		g.xEnd(b)
	}
	for _, d := range g.devs {
		if !d.stepHas {
			continue
		}
		st.GPU = append(st.GPU, Window{Device: d.id, StartNS: d.stepFirst, EndNS: d.stepLast})
		st.Kernels += d.stepKernels
		if g.modern {
			// Kineto widens the device-side step by 1 ns each side so it nests.
			b := g.x("gpu_user_annotation", st.Name, d.pidB, d.gpuTid[0], d.stepFirst-1, d.stepLast-d.stepFirst+2)
			b = append(b, `"External id": `...)
			b = strconv.AppendInt(b, ext, 10)
			g.xEnd(b)
		}
	}
	g.steps = append(g.steps, st)
	return end
}

func (g *gen) deviceStep(d *devState, k int) {
	if k == 0 {
		// The first step shows every memcpy kind and a memset.
		g.copyCluster(d, []int{0, 1, 2, 3, 4, 5, 6, -1})
	} else if g.r.IntN(2) == 0 {
		g.copyCluster(d, []int{copyH2DPageable})
	} else {
		g.copyCluster(d, []int{copyH2DPinned, copyH2DPinned})
	}
	remaining, graphs := g.cfg.KernelsPerStep, g.cfg.GraphLaunches
	for remaining > 0 || graphs > 0 {
		if graphs > 0 && (remaining == 0 || g.r.IntN(remaining+graphs) < graphs) {
			g.graphCluster(d)
			graphs--
			continue
		}
		switch p := g.r.IntN(100); {
		case p < 10:
			var kinds [3]int
			n := 1 + g.r.IntN(3)
			for i := range n {
				kinds[i] = g.copyKind()
			}
			g.copyCluster(d, kinds[:n])
		case p < 40:
			remaining -= g.chainCluster(d, remaining)
		default:
			remaining -= g.spineCluster(d, remaining)
		}
		if g.r.IntN(100) < 3 {
			g.sync(d, "cudaDeviceSynchronize", 165)
		}
	}
	// loss.item(): a pageable copy back, then the host waits for it.
	g.copyCluster(d, []int{copyD2HPageable})
	g.sync(d, "cudaStreamSynchronize", 131)
}

// copyKind draws a memcpy kind, or -1 for a memset.
func (g *gen) copyKind() int {
	if g.r.IntN(100) < 15 {
		return -1
	}
	total := 0
	for _, w := range copyWeights {
		total += w
	}
	p := g.r.IntN(total)
	for i, w := range copyWeights {
		if p < w {
			return i
		}
		p -= w
	}
	return 0
}

func (g *gen) newCluster() *cluster {
	c := &g.cl
	c.items, c.length, c.kernels, c.separate = c.items[:0], 0, 0, false
	return c
}

func (g *gen) addKernel(c *cluster, spec, stream int, off, dur int64) {
	s := &kernelSpecs[spec]
	c.items = append(c.items, item{
		kind: kernelItem, stream: stream, off: off, dur: dur, spec: spec,
		grid: [3]int32{s.gridX * int32(1+g.r.IntN(4)), s.gridY, 1},
	})
	c.kernels++
}

// addCopy adds a memcpy of copyKinds[kind], or a memset for kind -1.
func (g *gen) addCopy(c *cluster, kind, stream int, off, dur int64) {
	it := item{kind: memcpyItem, stream: stream, off: off, dur: dur, spec: kind}
	bw := int64(memsetBW)
	if kind < 0 {
		it.kind = memsetItem
	} else {
		bw = copyKinds[kind].bw
	}
	it.bytes = max(4, (dur*bw/1000*g.between(800, 1200)/1000+g.r.Int64N(4096))&^3)
	c.items = append(c.items, it)
}

// spineCluster lays out one kernel spanning the cluster on one stream and,
// on each other stream, up to three kernels, copies or memsets inside it.
// It returns the number of kernels, at most budget.
func (g *gen) spineCluster(d *devState, budget int) int {
	c := g.newCluster()
	ns := len(d.streams)
	length := g.qmin(g.spread(16_000, 2_000_000))
	a := g.r.IntN(ns)
	g.addKernel(c, g.pick(g.bigK), a, 0, length)
	kb := budget - 1
	for s := range ns {
		if s == a {
			continue
		}
		m := g.r.IntN(4)
		pos := int64(0)
		for k := range m {
			left := int64(m - k)
			start := pos
			if k == 0 || g.r.IntN(4) > 0 { // else touch the previous item
				start += g.q(g.r.Int64N((length-pos)/left + 1))
			}
			rest := length - start // of the cluster, after start
			dur := int64(0)
			if rest >= g.u {
				dur = min(rest, g.qmin(g.r.Int64N(rest/left+1)))
			}
			p := g.r.IntN(100)
			switch {
			case kb > 0 && p < 72:
				if g.r.IntN(10) == 0 {
					dur = 0
				}
				g.addKernel(c, g.pick(g.smallK), s, start, dur)
				kb--
			case dur == 0:
				continue // copies and memsets take time
			case p < 90:
				kind := g.copyKind()
				if kind < 0 {
					kind = 4
				}
				g.addCopy(c, kind, s, start, dur)
			default:
				g.addCopy(c, -1, s, start, dur)
			}
			pos = start + dur
		}
	}
	c.length = length
	g.place(d, c)
	return c.kernels
}

// chainLayout lays out n items alternating between two streams (one when
// ns is 1): each starts inside or at the end of the previous one and ends
// after it, so the union is [0, last end]; items on the same stream never
// overlap.
func (g *gen) chainLayout(ns, n int, lo, hi int64) []slot {
	s := g.slots[:0]
	a, b := 0, 0
	if ns >= 2 {
		a = g.r.IntN(ns)
		b = (a + 1 + g.r.IntN(ns-1)) % ns
	}
	for i := range n {
		st := a
		if i%2 == 1 {
			st = b
		}
		if i == 0 {
			s = append(s, slot{st, 0, g.qmin(g.spread(lo, hi))})
			continue
		}
		p := s[i-1]
		pEnd := p.off + p.dur
		start := pEnd // touching, end to start
		if ns >= 2 && g.r.IntN(10) >= 3 {
			from := p.off
			if i >= 2 {
				from = max(from, s[i-2].off+s[i-2].dur)
			}
			start = from + g.q(g.r.Int64N(pEnd-from+1))
		}
		s = append(s, slot{st, start, pEnd - start + g.qmin(g.spread(lo, hi))})
	}
	g.slots = s
	return s
}

func (g *gen) chainCluster(d *devState, budget int) int {
	c := g.newCluster()
	n := min(2+g.r.IntN(4), budget)
	for _, sl := range g.chainLayout(len(d.streams), n, 2_000, 300_000) {
		g.addKernel(c, g.pick(g.smallK), sl.stream, sl.off, sl.dur)
		c.length = sl.off + sl.dur
	}
	g.place(d, c)
	return c.kernels
}

// copyCluster lays out a chain of copies (kinds index copyKinds, -1 is a
// memset) with no kernel.
func (g *gen) copyCluster(d *devState, kinds []int) {
	c := g.newCluster()
	for i, sl := range g.chainLayout(len(d.streams), len(kinds), 1_000, 400_000) {
		g.addCopy(c, kinds[i], sl.stream, sl.off, sl.dur)
		c.length = sl.off + sl.dur
	}
	g.place(d, c)
}

// graphCluster is one cudaGraphLaunch replaying 3–8 kernels back to back on
// one stream, a few ns apart or touching.
func (g *gen) graphCluster(d *devState) {
	c := g.newCluster()
	c.separate = true
	st := g.r.IntN(len(d.streams))
	off := int64(0)
	for i := range 3 + g.r.IntN(6) {
		if i > 0 && g.r.IntN(10) >= 4 {
			off += g.qmin(g.between(1, 999))
		}
		dur := g.qmin(g.spread(1_000, 80_000))
		g.addKernel(c, g.pick(g.smallK), st, off, dur)
		off += dur
	}
	c.length = off
	g.place(d, c)
}

// place launches a cluster's items from the device's CPU thread, puts the
// cluster on the GPU after the previous one (and after the launches), writes
// the GPU events and accumulates the truth.
func (g *gen) place(d *devState, c *cluster) {
	items := c.items
	for i := 1; i < len(items); i++ { // stable insertion sort by start: launch order
		for j := i; j > 0 && items[j].off < items[j-1].off; j-- {
			items[j], items[j-1] = items[j-1], items[j]
		}
	}
	if c.separate {
		g.launchGraph(d, items)
	} else {
		for i := range items {
			g.launchOne(d, &items[i])
		}
	}
	cs := d.cpu + g.qmin(g.between(1_000, 5_000))
	if d.acc.has {
		cs = max(d.acc.end+g.gap(), d.cpu)
	}
	for i := range items {
		g.gpuEvent(d, &items[i], cs+items[i].off)
	}
	if c.separate {
		for _, it := range items {
			d.acc.add(cs+it.off, it.dur)
			d.kernelBusy += it.dur
		}
	} else {
		d.acc.add(cs, c.length)
		if c.kernels > 0 {
			d.kernelBusy += c.length
		}
	}
	if !d.stepHas {
		d.stepHas, d.stepFirst = true, cs
	}
	d.stepLast = d.acc.end
}

// ---- CPU side -----------------------------------------------------------

// pyN is the number of python_function frames around each launch.
func (g *gen) pyN() int {
	if g.modern {
		return g.cfg.PythonEvents
	}
	return 0
}

// launchOne writes the Python frames, operators, runtime call and flow
// start that launch one kernel, memcpy or memset, and advances the CPU
// cursor.
func (g *gen) launchOne(d *devState, it *item) {
	var op, parent, inputs, api string
	var cbid int
	driver := false
	switch it.kind {
	case kernelItem:
		s := &kernelSpecs[it.spec]
		op, parent, inputs = s.op, s.parent, s.inputs
		api, cbid = "cudaLaunchKernel", 211
		if s.triton && g.modern {
			api, cbid, driver = "cuLaunchKernel", 307, true
		}
		g.tr.KernelLaunches++
	case memcpyItem:
		ck := &copyKinds[it.spec]
		op, parent, inputs = ck.op, ck.parent, dimsCopy
		api, cbid = "cudaMemcpyAsync", 41
		g.tr.MemcpyCalls++
	case memsetItem:
		op, parent, inputs = "aten::fill_", "aten::zero_", dimsOne
		api, cbid = "cudaMemsetAsync", 51
		g.tr.MemsetCalls++
	}
	n := int64(g.pyN())
	t := d.cpu
	delta := int64(0)
	if n > 0 {
		delta = g.between(40, 400)
	}
	pStart := t + n*delta
	cStart := pStart
	if parent != "" {
		cStart += g.q(g.between(300, 3_000))
	}
	rStart := cStart + g.q(g.between(1_000, 5_000))
	rDur := g.qmin(g.between(2_000, 9_000))
	cEnd := rStart + rDur + g.q(g.between(300, 2_000))
	pEnd := cEnd
	if parent != "" {
		pEnd += g.q(g.between(200, 1_500))
	}
	g.pyFrames(d, n, t, delta, pEnd)
	var pExt int64
	if parent != "" {
		pExt = g.nextExt()
	}
	cExt := g.nextExt()
	g.memEvents(d, cStart)
	if parent != "" {
		g.cpuOp(d, parent, inputs, pStart, pEnd-pStart, pExt)
	}
	g.cpuOp(d, op, inputs, cStart, cEnd-cStart, cExt)
	it.corr, it.ext = g.nextCorr(), cExt
	g.api(d, driver, api, cbid, rStart, rDur, it.corr, cExt, cStart)
	g.flow(d, 's', it.corr, rStart, -1)
	d.cpu = pEnd + n*delta + g.q(g.between(200, 3_000))
}

// launchGraph writes the single cudaGraphLaunch that replays items: they
// share its correlation id and have no External id.
func (g *gen) launchGraph(d *devState, items []item) {
	n := int64(g.pyN())
	t := d.cpu
	delta := int64(0)
	if n > 0 {
		delta = g.between(40, 400)
	}
	rStart := t + n*delta + g.qmin(g.between(500, 2_000))
	rDur := g.qmin(g.between(8_000, 40_000))
	pEnd := rStart + rDur + g.qmin(g.between(200, 1_000))
	g.pyFrames(d, n, t, delta, pEnd)
	g.memEvents(d, rStart)
	corr := g.nextCorr()
	for i := range items {
		items[i].corr, items[i].ext = corr, 0
	}
	g.api(d, false, "cudaGraphLaunch", 311, rStart, rDur, corr, 0, 0)
	g.flow(d, 's', corr, rStart, -1)
	g.tr.GraphLaunches++
	g.tr.GraphKernels += len(items)
	d.cpu = pEnd + n*delta + g.q(g.between(200, 3_000))
}

// sync writes a synchronize call that returns once the device's queued work
// is done.
func (g *gen) sync(d *devState, api string, cbid int) {
	start := d.cpu
	end := start + g.qmin(g.between(1_000, 4_000))
	if d.acc.has {
		end = max(end, d.acc.end+g.qmin(g.between(1_000, 6_000)))
	}
	g.api(d, false, api, cbid, start, end-start, g.nextCorr(), 0, 0)
	g.tr.SyncCalls++
	d.cpu = end + g.q(g.between(500, 5_000))
}

// pyFrames writes n nested python_function frames: frame k runs from
// t+k*delta to end+(n-k)*delta.
func (g *gen) pyFrames(d *devState, n, t, delta, end int64) {
	parent := int64(0)
	for k := range n {
		ts := t + k*delta
		b := g.x("python_function", pyFrames[k%int64(len(pyFrames))], g.pidB, d.cpuTid, ts, end+(n-k)*delta-ts)
		g.pyID++
		b = append(b, `"Python parent id": `...)
		b = strconv.AppendInt(b, parent, 10)
		b = append(b, `, "Python id": `...)
		b = strconv.AppendInt(b, g.pyID, 10)
		b = append(b, `, "Ev Idx": `...)
		b = strconv.AppendInt(b, g.nextEv(), 10)
		g.xEnd(b)
		parent = g.pyID
	}
	g.tr.PythonFunctions += int(n)
}

// memEvents writes the [memory] instant events of one launch.
func (g *gen) memEvents(d *devState, ts int64) {
	n := g.cfg.PythonEvents
	if g.modern {
		n = min(n, 1)
	}
	for range n {
		bytes := 512 * g.between(1, 1<<14)
		if d.allocated > bytes && g.r.IntN(2) == 0 {
			bytes = -bytes
		}
		d.allocated += bytes
		b := g.begin(false)
		if g.modern {
			b = append(b, `"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",`...)
		} else {
			b = append(b, `"ph": "i", "s": "t", "name": "[memory]",`...)
		}
		b = append(b, "\n    \"pid\": "...)
		b = append(b, g.pidB...)
		b = append(b, `, "tid": `...)
		b = append(b, d.cpuTidNum...)
		b = append(b, ",\n    \"ts\": "...)
		b = g.appendTs(b, ts)
		b = append(b, ",\n    \"args\": {\n      "...)
		if g.modern {
			b = append(b, `"Ev Idx": `...)
			b = strconv.AppendInt(b, g.nextEv(), 10)
			b = append(b, `, "Device Type": 1, "Device Id": `...)
			b = append(b, d.pidB...)
			b = append(b, `, "Addr": `...)
			b = strconv.AppendInt(b, 0x7f3a00000000+512*g.r.Int64N(1<<24), 10)
			b = append(b, `, "Bytes": `...)
			b = strconv.AppendInt(b, bytes, 10)
			b = append(b, `, "Total Allocated": `...)
			b = strconv.AppendInt(b, d.allocated, 10)
			b = append(b, `, "Total Reserved": `...)
			b = strconv.AppendInt(b, (d.allocated>>21+1)<<21, 10)
		} else {
			b = append(b, `"Device Type": 1, "Device Id": `...)
			b = append(b, d.pidB...)
			b = append(b, `, "Bytes": `...)
			b = strconv.AppendInt(b, bytes, 10)
		}
		g.xEnd(b)
	}
	g.tr.MemoryEvents += n
}

func (g *gen) cpuOp(d *devState, name, inputs string, ts, dur, ext int64) {
	g.tr.CPUOps++
	if g.modern {
		b := g.x("cpu_op", name, g.pidB, d.cpuTid, ts, dur)
		b = append(b, `"External id": `...)
		b = strconv.AppendInt(b, ext, 10)
		b = append(b, `,"Record function id": 0, `...)
		b = append(b, inputs...)
		b = append(b, `, "Ev Idx": `...)
		b = strconv.AppendInt(b, g.nextEv(), 10)
		g.xEnd(b)
		return
	}
	b := g.x("Operator", name, g.pidB, d.cpuTid, ts, dur)
	b = append(b, `"Device": `...)
	b = append(b, g.pidB...)
	b = append(b, `, "External id": `...)
	b = strconv.AppendInt(b, ext, 10)
	b = append(b, ",\n      \"Trace name\": \"PyTorch Profiler\", \"Trace iteration\": 0 ,\n      "...)
	b = append(b, inputs...)
	g.xEnd(b)
}

// api writes a CUDA runtime or driver call. ext 0 means no External id.
func (g *gen) api(d *devState, driver bool, name string, cbid int, ts, dur, corr, ext, extTs int64) {
	cat := "Runtime"
	switch {
	case g.modern && driver:
		cat = "cuda_driver"
	case g.modern:
		cat = "cuda_runtime"
	}
	b := g.x(cat, name, g.pidB, d.cpuTid, ts, dur)
	if g.modern && ext > 0 {
		b = append(b, `"External id": `...)
		b = strconv.AppendInt(b, ext, 10)
		b = append(b, `,      `...)
	}
	b = append(b, `"cbid": `...)
	b = strconv.AppendInt(b, int64(cbid), 10)
	b = append(b, `, "correlation": `...)
	b = strconv.AppendInt(b, corr, 10)
	if !g.modern && ext > 0 {
		b = append(b, ",\n      \"external id\": "...)
		b = strconv.AppendInt(b, ext, 10)
		b = append(b, `, "external ts": `...)
		b = g.appendTs(b, extTs)
	}
	g.xEnd(b)
	if driver {
		g.tr.DriverCalls++
	} else {
		g.tr.RuntimeCalls++
	}
}

// flow writes the start ('s', on the launching thread) or the end ('f', on
// the GPU stream of device d) of a launch flow.
func (g *gen) flow(d *devState, ph byte, corr, ts int64, stream int) {
	b := g.begin(true)
	b = append(b, `"ph": "`...)
	b = append(b, ph)
	b = append(b, `", "id": `...)
	b = strconv.AppendInt(b, corr, 10)
	b = append(b, `, "pid": `...)
	if ph == 's' {
		b = append(b, g.pidB...)
		b = append(b, `, "tid": `...)
		b = append(b, d.cpuTidNum...)
	} else {
		b = append(b, d.pidB...)
		b = append(b, `, "tid": `...)
		b = append(b, d.gpuTid[stream]...)
	}
	b = append(b, `, "ts": `...)
	b = g.appendTs(b, ts)
	if g.modern {
		b = append(b, ",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\""...)
	} else {
		b = append(b, ",\n    \"cat\": \"async\", \"name\": \"launch\""...)
	}
	if ph == 'f' {
		b = append(b, `, "bp": "e"`...)
	}
	g.end(b)
	g.tr.Flows++
}

// ---- GPU side -----------------------------------------------------------

// gpuEvent writes one kernel, memcpy or memset starting at ts, its flow end,
// and adds it to the truth.
func (g *gen) gpuEvent(d *devState, it *item, ts int64) {
	d.streamUsed[it.stream] = true
	tid := d.gpuTid[it.stream]
	var b []byte
	switch it.kind {
	case kernelItem:
		s := &kernelSpecs[it.spec]
		cat := "Kernel"
		if g.modern {
			cat = "kernel"
		}
		b = g.x(cat, s.name, d.pidB, tid, ts, it.dur)
		b = g.kernelArgs(b, d, it, s)
		d.kernels++
		d.stepKernels++
		d.kernelNS += it.dur
		d.durs[it.spec] = append(d.durs[it.spec], it.dur)
		if it.dur == 0 {
			d.zeroKernels++
		}
		g.tr.Kernels++
	case memcpyItem, memsetItem:
		name, cat := memsetName, "Memset"
		if it.kind == memcpyItem {
			name, cat = copyKinds[it.spec].name, "Memcpy"
		}
		if g.modern {
			cat = "gpu_memset"
			if it.kind == memcpyItem {
				cat = "gpu_memcpy"
			}
		}
		b = g.x(cat, name, d.pidB, tid, ts, it.dur)
		b = g.copyArgs(b, d, it)
		if it.kind == memcpyItem {
			c := &d.copies[it.spec]
			c.Copies++
			c.Bytes += it.bytes
			c.NS += it.dur
			g.tr.Memcpys++
		} else {
			d.memsets++
			d.memsetBytes += it.bytes
			d.memsetNS += it.dur
			g.tr.Memsets++
		}
	}
	g.xEnd(b)
	g.flow(d, 'f', it.corr, ts, it.stream)
}

// ids appends the device, stream, correlation and External id members of a
// GPU event in the era's layout.
func (g *gen) ids(b []byte, d *devState, it *item, kernel bool) []byte {
	if g.modern {
		if it.ext > 0 {
			b = append(b, `"External id": `...)
			b = strconv.AppendInt(b, it.ext, 10)
			b = append(b, `,      `...)
		}
		if kernel {
			b = append(b, `"queued": 0, `...)
		}
		b = append(b, `"device": `...)
		b = append(b, d.pidB...)
		b = append(b, `, "context": 1,      "stream": `...)
		b = strconv.AppendInt(b, d.streams[it.stream], 10)
		b = append(b, `, "correlation": `...)
		b = strconv.AppendInt(b, it.corr, 10)
		return append(b, `,      `...)
	}
	if kernel {
		b = append(b, `"queued": 0, `...)
	}
	b = append(b, `"device": `...)
	b = append(b, d.pidB...)
	b = append(b, ", \"context\": 1,\n      \"stream\": "...)
	b = strconv.AppendInt(b, d.streams[it.stream], 10)
	b = append(b, `, "correlation": `...)
	b = strconv.AppendInt(b, it.corr, 10)
	if it.ext > 0 {
		b = append(b, `, "external id": `...)
		b = strconv.AppendInt(b, it.ext, 10)
	}
	return append(b, ",\n      "...)
}

func (g *gen) kernelArgs(b []byte, d *devState, it *item, s *kernelSpec) []byte {
	b = g.ids(b, d, it, true)
	sep := ",      "
	fmtPrec := 6
	if !g.modern {
		sep, fmtPrec = ",\n      ", -1
	}
	threads := s.block[0] * s.block[1] * s.block[2]
	blocks := float64(it.grid[0]*it.grid[1]*it.grid[2]) / float64(g.prop.numSMs)
	limit := min(2048/threads, 65536/(s.regs*threads), 32)
	occ := int64((min(float64(limit), blocks)*float64(threads)*100/2048 + 0.5))
	b = append(b, `"registers per thread": `...)
	b = strconv.AppendInt(b, int64(s.regs), 10)
	b = append(b, sep...)
	b = append(b, `"shared memory": `...)
	b = strconv.AppendInt(b, int64(s.smem), 10)
	b = append(b, sep...)
	b = append(b, `"blocks per SM": `...)
	b = strconv.AppendFloat(b, blocks, 'f', fmtPrec, 64)
	b = append(b, sep...)
	b = append(b, `"warps per SM": `...)
	b = strconv.AppendFloat(b, blocks*float64(threads)/32, 'f', fmtPrec, 64)
	b = append(b, sep...)
	b = append(b, `"grid": `...)
	b = appendDim3(b, it.grid)
	b = append(b, sep...)
	b = append(b, `"block": `...)
	b = appendDim3(b, s.block)
	b = append(b, sep...)
	b = append(b, `"est. achieved occupancy %": `...)
	return strconv.AppendInt(b, occ, 10)
}

func (g *gen) copyArgs(b []byte, d *devState, it *item) []byte {
	b = g.ids(b, d, it, false)
	b = append(b, `"bytes": `...)
	b = strconv.AppendInt(b, it.bytes, 10)
	if it.dur > 0 {
		b = append(b, `, "memory bandwidth (GB/s)": `...)
		b = strconv.AppendFloat(b, float64(it.bytes)/float64(it.dur), 'f', -1, 64)
	}
	if it.kind == memcpyItem && copyKinds[it.spec].kind == "PtoP" {
		peer := strconv.AppendInt(nil, int64((d.id+1)%g.cfg.Devices), 10)
		b = append(b, `, "fromDevice": `...)
		b = append(b, d.pidB...)
		b = append(b, `, "inDevice": `...)
		b = append(b, d.pidB...)
		b = append(b, `, "toDevice": `...)
		b = append(b, peer...)
		b = append(b, `, "fromContext": 1, "inContext": 1, "toContext": 1`...)
	}
	return b
}

func appendDim3(b []byte, v [3]int32) []byte {
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendInt(b, int64(x), 10)
	}
	return append(b, ']')
}

// ---- JSON ---------------------------------------------------------------

// begin starts an event: the separator and the opening brace.
func (g *gen) begin(gpuSection bool) []byte {
	w := g.w
	if gpuSection && g.gpu != nil {
		w = g.gpu
	}
	g.cur = w
	if w.Available() < flushAt {
		w.Flush() // a write error is sticky and reported by the last Flush
	}
	b := w.AvailableBuffer()
	if w == g.gpu || g.mainEvents > 0 {
		b = append(b, ",\n  {\n    "...)
	} else {
		b = append(b, "\n  {\n    "...)
	}
	if w == g.gpu {
		g.gpuEvents++
	} else {
		g.mainEvents++
	}
	g.events++
	return b
}

func (g *gen) end(b []byte) {
	b = append(b, "\n  }"...)
	g.cur.Write(b)
}

// x starts a complete ("X") event and opens its args.
func (g *gen) x(cat, name string, pid, tid []byte, ts, dur int64) []byte {
	b := g.begin(!cpuSection(cat))
	b = append(b, `"ph": "X", "cat": "`...)
	b = append(b, cat...)
	if g.modern {
		b = append(b, `", "name": `...)
	} else {
		b = append(b, "\", \n    \"name\": "...)
	}
	b = appendString(b, name)
	b = append(b, `, "pid": `...)
	b = append(b, pid...)
	b = append(b, `, "tid": `...)
	b = append(b, tid...)
	b = append(b, ",\n    \"ts\": "...)
	b = g.appendTs(b, ts)
	b = append(b, `, "dur": `...)
	b = g.appendTs(b, dur)
	return append(b, ",\n    \"args\": {\n      "...)
}

// xEnd closes the args and the event.
func (g *gen) xEnd(b []byte) {
	b = append(b, "\n    }\n  }"...)
	g.cur.Write(b)
}

// cpuSection reports whether Kineto writes events of category cat in the
// CPU section.
func cpuSection(cat string) bool {
	switch cat {
	case "cpu_op", "user_annotation", "python_function", "Operator":
		return true
	}
	return false
}

// recArgs appends the args of a modern user_annotation.
func (g *gen) recArgs(b []byte, ext, ev int64) []byte {
	b = append(b, `"External id": `...)
	b = strconv.AppendInt(b, ext, 10)
	b = append(b, `,"Record function id": 0, "Ev Idx": `...)
	return strconv.AppendInt(b, ev, 10)
}

// appendTs appends ns as Kineto writes µs: "1234.567" (Modern, exact) or
// "1234" (Era2021, where every time is a whole µs).
func (g *gen) appendTs(b []byte, ns int64) []byte {
	b = strconv.AppendInt(b, ns/1000, 10)
	if !g.modern {
		return b
	}
	f := ns % 1000
	return append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		default:
			b = fmt.Appendf(b, `\u%04x`, c)
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// ---- header and footer --------------------------------------------------

func (g *gen) header() {
	if g.cfg.Container == Array {
		g.w.WriteString("[")
		return
	}
	b := []byte("{\n  \"schemaVersion\": 1,\n")
	if !g.modern && g.cfg.Container == Object {
		b = g.appendDistInfo(b)
	}
	b = append(b, "  \"deviceProperties\": ["...)
	p := g.prop
	for i := range g.cfg.Devices {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `
    {
      "id": %d, "name": %q, "totalGlobalMem": %d,
      "computeMajor": %d, "computeMinor": %d,
      "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
      "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32,
      "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": %d,
      "numSms": %d, "sharedMemPerBlockOptin": %d
    }`, i, p.name, p.totalGlobalMem, p.major, p.minor, p.smemPerSM, p.numSMs, p.smemPerBlkOp)
	}
	b = append(b, "\n  ],\n"...)
	if g.modern {
		b = append(b, "  \"cupti_version\": 24,\n  \"cuda_runtime_version\": 12060,\n  \"cuda_driver_version\": 12080,\n"...)
		b = append(b, "  \"record_shapes\": 1,\n"...)
		if g.cfg.PythonEvents > 0 {
			b = append(b, "  \"with_stack\": 1,\n  \"profile_memory\": 1,\n"...)
		}
		b = fmt.Appendf(b, "  \"trace_id\": %q,\n", g.traceID)
		if g.cfg.Container == Object {
			b = g.appendDistInfo(b)
			b = fmt.Appendf(b, "  \"traceName\": %q,\n", g.traceN)
			b = append(b, "  \"displayTimeUnit\": \"ms\",\n"...)
			b = fmt.Appendf(b, "  \"baseTimeNanoseconds\": %d,\n", g.base)
		}
	}
	b = append(b, "  \"traceEvents\": ["...)
	g.w.Write(b)
}

func (g *gen) appendDistInfo(b []byte) []byte {
	return fmt.Appendf(b, "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d},\n", g.cfg.Rank, g.cfg.WorldSize)
}

// footer writes the process and thread metadata, the profiler span, the
// "Record Window End" instant and the closing of the container.
func (g *gen) footer(last int64) {
	end := last + g.qmin(g.between(10_000, 200_000))
	g.tr.TraceStartNS, g.tr.TraceEndNS, g.tr.BaseTimeNS = g.t0, end, g.base
	proc := "python"
	if g.modern {
		proc = "python3.12"
	}
	meta := func(name string, pid, tid []byte, key string, val []byte) {
		b := g.begin(false)
		b = append(b, `"name": "`...)
		b = append(b, name...)
		b = append(b, `", "ph": "M", "ts": `...)
		b = g.appendTs(b, g.t0)
		b = append(b, `, "pid": `...)
		b = append(b, pid...)
		b = append(b, `, "tid": `...)
		b = append(b, tid...)
		b = append(b, ",\n    \"args\": {\n      \""...)
		b = append(b, key...)
		b = append(b, `": `...)
		b = append(b, val...)
		g.xEnd(b)
	}
	quote := func(s string) []byte { return appendString(nil, s) }
	num := func(v int64) []byte { return strconv.AppendInt(nil, v, 10) }
	zero := []byte("0")
	meta("process_name", g.pidB, zero, "name", quote(proc))
	meta("process_labels", g.pidB, zero, "labels", quote("CPU"))
	if g.modern {
		meta("process_sort_index", g.pidB, zero, "sort_index", g.pidB)
	}
	for _, d := range g.devs {
		meta("process_name", d.pidB, zero, "name", quote(proc))
		meta("process_labels", d.pidB, zero, "labels", quote("GPU "+strconv.Itoa(d.id)))
		if g.modern {
			meta("process_sort_index", d.pidB, zero, "sort_index", num(5_000_000+int64(d.id)))
			for i, s := range d.streams {
				meta("thread_name", d.pidB, d.gpuTid[i], "name", quote(fmt.Sprintf("stream %d ", s)))
				meta("thread_sort_index", d.pidB, d.gpuTid[i], "sort_index", num(s))
			}
		}
	}
	for _, d := range g.devs {
		meta("thread_name", g.pidB, d.cpuTid, "name", quote(fmt.Sprintf("thread %d (%s)", d.cpuTidInt, proc)))
		if g.modern {
			meta("thread_sort_index", g.pidB, d.cpuTid, "sort_index", d.cpuTidNum)
		}
	}
	spans := "Traces"
	if g.modern {
		spans = "Spans"
	}
	b := g.begin(false)
	b = append(b, `"ph": "X", "cat": "Trace", "ts": `...)
	b = g.appendTs(b, g.t0)
	b = append(b, `, "dur": `...)
	b = g.appendTs(b, last-g.t0)
	b = fmt.Appendf(b, ",\n    \"pid\": %q, \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch Profiler (0)\",\n    \"args\": {\n      \"Op count\": 0", spans)
	g.xEnd(b)
	if g.modern {
		b = g.begin(false)
		b = append(b, `"name": "process_sort_index", "ph": "M", "ts": `...)
		b = g.appendTs(b, g.t0)
		b = append(b, ",\n    \"pid\": \"Spans\", \"tid\": 0,\n    \"args\": {\n      \"sort_index\": 536870912"...)
		g.xEnd(b)
	}
	b = g.begin(false)
	b = append(b, "\"name\": \"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": "...)
	b = g.appendTs(b, g.t0)
	g.end(b)
	b = g.begin(false)
	b = append(b, "\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": \"\", \"tid\": \"\", \"ts\": "...)
	b = g.appendTs(b, end)
	g.end(b)

	switch g.cfg.Container {
	case Array:
		g.w.WriteString("\n]\n")
	case Object:
		g.w.WriteString("\n  ]\n}\n")
	case ObjectAfter:
		b := []byte("\n  ],\n")
		b = g.appendDistInfo(b)
		b = fmt.Appendf(b, "  \"traceName\": %q", g.traceN)
		if g.modern {
			b = fmt.Appendf(b, ",\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": %d", g.base)
		}
		b = append(b, "\n}\n"...)
		g.w.Write(b)
	}
	g.tr.APICalls = g.tr.RuntimeCalls + g.tr.DriverCalls
}
