package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/traceql/traceql/internal/nsysgen"
	"github.com/traceql/traceql/internal/synth"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks bad command-line usage (exit status 2).
var errUsage = errors.New("usage")

// run generates as args say; the summary of the truth goes to stderr, and
// stdout is unused.
func run(args []string, stdout, stderr io.Writer) int {
	_ = stdout
	err := generate(args, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "tracegen: %v\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "tracegen: %v\n", err)
	return 1
}

func generate(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("tracegen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		out        = fs.String("o", "", "output trace `file`")
		size       = fs.String("size", "0", "write at least `SIZE` bytes of JSON (e.g. 100MB)")
		seed       = fs.Int64("seed", 1, "random seed")
		devices    = fs.Int("devices", 2, "GPUs")
		streams    = fs.Int("streams", 3, "streams per GPU")
		steps      = fs.Int("steps", 4, "profiler steps (at least)")
		kernels    = fs.Int("kernels", 32, "kernels per GPU per step")
		graphs     = fs.Int("graphs", 1, "graph launches per GPU per step")
		python     = fs.Int("python", 4, "python_function frames per launch")
		era        = fs.String("era", "modern", "trace era: modern or 2021")
		container  = fs.String("container", "object", "object, object-after or array")
		rank       = fs.Int("rank", 0, "distributedInfo rank")
		worldSize  = fs.Int("world-size", 0, "distributedInfo world_size (0: the number of GPUs)")
		interleave = fs.Bool("interleave", false, "write CPU and GPU events mixed, in the order they are made, not in Kineto's order (CPU section, then GPU section)")
		gz         = fs.String("gzip", "auto", "compress: auto (by .gz suffix), true or false")
		truthPath  = fs.String("truth", "", "write the ground truth to `file` as JSON")
		nsysRows   = fs.Int("nsys-kernels", 0, "write an Nsight Systems SQLite export with `N` kernel rows (2026.1 schema) instead")
		mode       = fs.String("mode", "", "instead, write a small run of one GPU as `MODE`: eager, default or reduce-overhead (torch.compile's modes, imitated: launch-bound, compiling first steps, CUDA graphs)")
		repeat     = fs.String("repeat", "", "instead, repeat the events of the Kineto trace `file` (.json or .json.gz) until -size, with ts, linking ids and step numbers shifted a copy at a time: a big trace with a real one's layout")
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *out == "" || fs.NArg() > 0 {
		return fmt.Errorf("%w: tracegen -o FILE [flags] (see -help)", errUsage)
	}
	if *nsysRows > 0 {
		err := nsysgen.Write(*out, nsysgen.Spec{Version: "2026.1.1.204",
			GPUs: []nsysgen.GPU{{ID: 0, Name: "generated GPU", SMs: 132}}, Kernels: nsysgen.ManyKernels(*nsysRows)})
		if err == nil {
			fmt.Fprintf(stderr, "%s: Nsight export with %d kernel rows\n", *out, *nsysRows)
		}
		return err
	}
	target, err := parseSize(*size)
	if err != nil {
		return fmt.Errorf("%w: -size: %v", errUsage, err)
	}
	cfg := synth.Config{
		Seed: *seed, Devices: *devices, Streams: *streams, Steps: *steps,
		KernelsPerStep: *kernels, GraphLaunches: *graphs, PythonEvents: *python,
		TargetBytes: target, Interleave: *interleave, Rank: *rank, WorldSize: *worldSize,
	}
	if cfg.Era, err = synth.ParseEra(*era); err != nil {
		return fmt.Errorf("%w: -era: %v", errUsage, err)
	}
	if cfg.Container, err = synth.ParseContainer(*container); err != nil {
		return fmt.Errorf("%w: -container: %v", errUsage, err)
	}
	compress := strings.HasSuffix(*out, ".gz")
	switch *gz {
	case "auto":
	case "true":
		compress = true
	case "false":
		compress = false
	default:
		return fmt.Errorf("%w: -gzip %q: want auto, true or false", errUsage, *gz)
	}

	if *repeat != "" {
		return repeatFile(*out, *repeat, target, compress, stderr)
	}
	if *mode != "" {
		return writeMode(*out, *mode, compress, stderr)
	}
	t, err := synth.WriteFile(*out, cfg, compress)
	if err != nil {
		return err
	}
	if *truthPath != "" {
		data, err := json.MarshalIndent(t, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*truthPath, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprintf(stderr, "%s: %d bytes JSON (%d on disk), %d events, %d steps, %d kernels, %d memcpys, %d memsets\n",
		*out, t.Bytes, t.FileBytes, t.Events, len(t.Steps), t.Kernels, t.Memcpys, t.Memsets)
	for _, d := range t.Devices {
		fmt.Fprintf(stderr, "  GPU %d: %d kernels, busy %d ns of span %d ns, %d idle gaps\n",
			d.Device, d.Kernels, d.BusyNS, d.SpanNS, d.IdleGaps)
	}
	return nil
}

// parseSize parses a byte count with an optional KB, MB or GB suffix
// (powers of 1000) or KiB, MiB, GiB (powers of 1024).
func parseSize(s string) (int64, error) {
	u := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, m := range []struct {
		suffix string
		mult   int64
	}{
		{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1},
	} {
		if strings.HasSuffix(u, m.suffix) {
			u, mult = strings.TrimSpace(strings.TrimSuffix(u, m.suffix)), m.mult
			break
		}
	}
	n, err := strconv.ParseInt(u, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

// repeatFile writes to out the Kineto trace src repeated to target bytes.
func repeatFile(out, src string, target int64, compress bool, stderr io.Writer) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return fmt.Errorf("%s: %w", src, err)
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	var w io.Writer = bw
	var zw *gzip.Writer
	if compress {
		zw = gzip.NewWriter(bw)
		w = zw
	}
	copies, err := synth.Repeat(w, data, target)
	if err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s: %d copies of the events of %s\n", out, copies, src)
	return nil
}

// writeMode writes synth.IdleModes[mode] to path.
func writeMode(path, mode string, compress bool, stderr io.Writer) error {
	cfg, ok := synth.IdleModes[mode]
	if !ok {
		return fmt.Errorf("%w: -mode %q: want eager, default or reduce-overhead", errUsage, mode)
	}
	var buf bytes.Buffer
	tr, err := synth.WriteIdle(&buf, cfg)
	if err != nil {
		return err
	}
	data := buf.Bytes()
	if compress {
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		if _, err := zw.Write(data); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		data = z.Bytes()
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s: %s run, %d kernels, %d steps\n", path, mode, len(tr.Kernels), len(tr.Steps))
	return nil
}
