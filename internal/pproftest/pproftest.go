// Package pproftest runs pprof's own report code on a profile in tests:
// what `go tool pprof -top` shows is decided by pprof's symbolizer and
// graph, whose rules are internal, so a test of what a user sees asks
// pprof itself rather than a copy of its rules.
package pproftest

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/driver"
)

// Report returns the report pprof writes for the profile data with the
// options args, e.g. "-top", "-nodecount=0"; as `go tool pprof ARGS FILE`.
func Report(t testing.TB, data []byte, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "p.pb.gz")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	w := &writer{}
	fs := &flags{FlagSet: flag.NewFlagSet("pprof", flag.ContinueOnError)}
	fs.SetOutput(io.Discard)
	fs.args = append(append(args[:len(args):len(args)], "-output="+filepath.Join(dir, "out")), in)
	ui := &ui{}
	if err := driver.PProf(&driver.Options{Flagset: fs, Writer: w, UI: ui}); err != nil {
		t.Fatalf("pprof %s: %v\n%s", strings.Join(args, " "), err, &ui.err)
	}
	return w.String()
}

// flags is driver.FlagSet over the standard library's.
type flags struct {
	*flag.FlagSet
	args  []string
	usage string
}

func (f *flags) StringList(name, def, usage string) *[]*string {
	var l []*string
	f.Func(name, usage, func(s string) error { l = append(l, &s); return nil })
	return &l
}

func (f *flags) ExtraUsage() string      { return f.usage }
func (f *flags) AddExtraUsage(eu string) { f.usage += eu }
func (f *flags) Parse(usage func()) []string {
	if err := f.FlagSet.Parse(f.args); err != nil {
		usage()
	}
	return f.Args()
}

// writer keeps what pprof writes to its -output file.
type writer struct{ bytes.Buffer }

func (w *writer) Open(string) (io.WriteCloser, error) { return nopCloser{&w.Buffer}, nil }

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// ui is a driver.UI that is no terminal and keeps the messages.
type ui struct{ err bytes.Buffer }

func (u *ui) ReadLine(string) (string, error)     { return "", io.EOF }
func (u *ui) Print(a ...any)                      { fmt.Fprintln(&u.err, a...) }
func (u *ui) PrintErr(a ...any)                   { fmt.Fprintln(&u.err, a...) }
func (u *ui) IsTerminal() bool                    { return false }
func (u *ui) WantBrowser() bool                   { return false }
func (u *ui) SetAutoComplete(func(string) string) {}
