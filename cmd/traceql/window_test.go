package main

import (
	"strings"
	"testing"

	"github.com/traceql/traceql/trace"
)

// TestParseStepSpec: --steps takes N, A:B, A: and :B; -1 is an open bound.
func TestParseStepSpec(t *testing.T) {
	for _, tt := range []struct {
		in       string
		from, to int
		err      string
	}{
		{"", -1, -1, ""},
		{"4", 4, 4, ""},
		{"3:", 3, -1, ""},
		{":5", -1, 5, ""},
		{"3:5", 3, 5, ""},
		{"0:0", 0, 0, ""},
		{":", -1, -1, ""},
		{"5:3", 0, 0, "the last step is before the first"},
		{"x", 0, 0, "want N, A:B, A: or :B"},
		{"-1:", 0, 0, "want N, A:B, A: or :B"},
		{"1:2:3", 0, 0, "want N, A:B, A: or :B"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			from, to, err := parseStepSpec(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "--steps ") {
					t.Errorf("parseStepSpec(%q) = %d, %d, %v; want an error saying %q", tt.in, from, to, err, tt.err)
				}
				return
			}
			if err != nil || from != tt.from || to != tt.to {
				t.Errorf("parseStepSpec(%q) = %d, %d, %v; want %d, %d", tt.in, from, to, err, tt.from, tt.to)
			}
		})
	}
}

// TestParseWindow: --window takes START:END with units, either side
// empty; an empty START is 0, an empty END -1 (to the end).
func TestParseWindow(t *testing.T) {
	for _, tt := range []struct {
		in   string
		a, b int64
		err  string
	}{
		{"", 0, -1, ""},
		{"100ms:500ms", 100e6, 500e6, ""},
		{":500ms", 0, 500e6, ""},
		{"100ms:", 100e6, -1, ""},
		{":", 0, -1, ""},
		{"1.5s:2s", 1.5e9, 2e9, ""},
		{"20us:20µs", 0, 0, "want an end after the start"},
		{"20us:21µs", 20e3, 21e3, ""},
		{"100ns:0.5us", 100, 500, ""},
		{"500ms:100ms", 0, 0, "want an end after the start"},
		{"100ms", 0, 0, "want START:END"},
		{"100:200ms", 0, 0, `time "100" needs a unit`},
		{"1m:2m", 0, 0, `time "1m" needs a unit`},
		{"-1ms:", 0, 0, `bad time "-1ms"`},
		{"xs:", 0, 0, `bad time "xs"`},
		{"99999999999s:", 0, 0, `time "99999999999s" too large`},
	} {
		t.Run(tt.in, func(t *testing.T) {
			a, b, err := parseWindow(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "--window ") {
					t.Errorf("parseWindow(%q) = %d, %d, %v; want an error saying %q", tt.in, a, b, err, tt.err)
				}
				return
			}
			if err != nil || a != tt.a || b != tt.b {
				t.Errorf("parseWindow(%q) = %d, %d, %v; want %d, %d", tt.in, a, b, err, tt.a, tt.b)
			}
		})
	}
}

// TestWindowErrors: the messages of a selection that finds nothing name
// the flags as the user wrote them.
func TestWindowErrors(t *testing.T) {
	steps := &trace.Trace{Source: "s.json", Devices: []trace.Device{{ID: 0}}, Streams: []trace.Stream{{Device: 0, ID: 7}},
		Ops: []trace.Op{{Name: "ProfilerStep#2", Kind: trace.UserAnnotation, PID: 1, TID: 1, Start: 0, End: 100},
			{Name: "ProfilerStep#3", Kind: trace.UserAnnotation, PID: 1, TID: 1, Start: 100, End: 200}},
		Kernels: []trace.Kernel{{Activity: trace.Activity{Stream: 7, Start: 10, End: 1510}, Name: "k"}}}
	host := &trace.Trace{Source: "h.json"}
	for _, tt := range []struct {
		name string
		r    readOptions
		t    *trace.Trace
		want string // the error; "" for none
		warn string // the warning added
	}{
		{"steps past the last", readOptions{Steps: "5:"}, steps, "s.json: --steps 5: selects none of steps 2..3", ""},
		{"skip every step", readOptions{Steps: "3", SkipSteps: 1}, steps, "s.json: --steps 3 --skip-steps 1 selects none of steps 2..3", ""},
		{"skip-steps alone", readOptions{SkipSteps: 9}, steps, "s.json: --skip-steps 9 selects none of steps 2..3", ""},
		{"steps without steps", readOptions{Steps: "1"}, host,
			"h.json: --steps: the trace has no ProfilerStep#N (profile with a schedule and call prof.step())", ""},
		{"window after the activity", readOptions{Window: "2us:"}, steps, "s.json: --window 2us: starts after the GPU activity, which lasts 1.50 µs", ""},
		{"window without activity", readOptions{Window: "0ns:1ns"}, host, "h.json: --window: no GPU activity to measure from", ""},
		{"range missing", readOptions{Range: "fwd"}, steps, `s.json: --range: no range, annotation or op named "fwd"`, ""},
		{"steady without steps", readOptions{Steady: true}, host, "",
			"--steady: no ProfilerStep#N (profile with a schedule and call prof.step()): the whole trace is measured"},
		{"steady", readOptions{Steady: true}, steps, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.r.check(); err != nil {
				t.Fatal(err)
			}
			got, err := tt.r.apply(tt.t)
			if tt.want != "" {
				if err == nil || err.Error() != tt.want {
					t.Errorf("error %v, want %s", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var warn string
			if n := len(got.Warnings); n > 0 {
				warn = got.Warnings[n-1]
			}
			if warn != tt.warn {
				t.Errorf("warning %q, want %q", warn, tt.warn)
			}
		})
	}
}
