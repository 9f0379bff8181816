package main

import (
	"cmp"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/traceql/traceql/report"
)

func newRootCmd(ios *ioStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "traceql",
		Short: "Exact numbers from GPU traces: PyTorch profiler (Kineto) JSON and Nsight Systems SQLite",
		Long: `traceql reads GPU traces — PyTorch profiler / Kineto Chrome-trace JSON
(plain or gzipped) and Nsight Systems exports (nsys export --type sqlite) —
and reports exact per-device numbers: kernels, their durations, idle time
between them, utilization, copy bandwidth.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetFlagErrorFunc(flagError)
	// Flags' help wraps at 80 columns, their descriptions aligned: cobra's
	// own template writes each on one line, some over 400 columns.
	root.SetUsageTemplate(strings.ReplaceAll(root.UsageTemplate(), ".FlagUsages ", ".FlagUsagesWrapped 80 "))
	root.AddCommand(
		newSummarizeCmd(ios, nil),
		newCheckCmd(ios, nil),
		newDiffCmd(ios, nil),
		newCompareCmd(ios, nil),
		newExportCmd(ios, nil),
		newPlotCmd(ios, nil),
		newPprofCmd(ios, nil),
		newReportCmd(ios, nil),
		newAnnotateCmd(ios, nil),
		newWhatifCmd(ios, nil),
		newVersionCmd(),
		helpTopic("peaks", "GPU peaks (TFLOP/s, GB/s) behind MFU and the roofline", report.PeaksHelp()),
		helpTopic("links", "Host links (PCIe, NVLink-C2C) behind copy rates", report.LinksHelp()),
	)
	root.Version = versionString()
	root.SetVersionTemplate("traceql {{.Version}}\n")
	// An unknown command is one line naming the nearest commands, not
	// cobra's several, which complain would print with their newlines
	// escaped.
	root.DisableSuggestions = true
	root.SuggestionsMinimumDistance = 2
	root.Args = cobra.ArbitraryArgs
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q", args[0])
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return usageError{fmt.Errorf("%s (see traceql --help)", msg)}
	}
	// Cobra's completion command prints its help and exits 0 for a shell
	// it does not know ("completion tcsh"): a script would take the help
	// for a completion script.
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c.Name() == "completion" {
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return usageError{fmt.Errorf("completion: no shell %q; want bash, fish, powershell or zsh", args[0])}
		}
	}
	usageArgs(root)
	return root
}

// flagError makes a flag that cobra cannot parse (an unknown flag, a
// value missing or of the wrong type, an enum flag's value not among its
// values) a usageError, exit 2. An enum flag's error is its own message,
// which names the flag and lists its values, without pflag's "invalid
// argument ... for ... flag:" before it.
func flagError(_ *cobra.Command, err error) error {
	var bad *enumError
	if errors.As(err, &bad) {
		return usageError{bad}
	}
	return usageError{err}
}

// usageArgs makes the argument check of cmd and of every command under it
// fail with a usageError, exit 2: traceql's own checks return one, but
// cobra's validators (cobra.NoArgs of the completion scripts' commands)
// return plain errors, which run must not tell apart by their words.
// Standard input (-) named twice is refused too: the second read found
// it empty.
func usageArgs(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(cmd *cobra.Command, args []string) error {
			err := check(cmd, args)
			if err != nil && !errors.As(err, new(usageError)) {
				return usageError{err}
			}
			if err == nil && stdinTwice(args) {
				return usageError{fmt.Errorf("standard input can be read once: give %s once", stdinName)}
			}
			return err
		}
	}
	for _, sub := range cmd.Commands() {
		usageArgs(sub)
	}
}

// stdinTwice reports whether args name standard input more than once.
func stdinTwice(args []string) bool {
	n := 0
	for _, a := range args {
		if a == stdinName {
			n++
		}
	}
	return n > 1
}

// helpTopic is a `traceql help NAME` topic: a table traceql looks things
// up in, written from the table itself (report.PeaksHelp,
// report.LinksHelp).
func helpTopic(name, short, long string) *cobra.Command {
	return &cobra.Command{Use: name, Short: short, Long: strings.TrimSuffix(long, "\n")}
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print traceql's version",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "traceql %s\n", versionString())
			return err
		},
	}
}

// versionString says which build this is: the module version (a tag, or
// "(devel)" for a build from a checkout), the commit and its time, and the
// Go release, from the build information Go records.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown build)"
	}
	v := cmp.Or(bi.Main.Version, "(devel)")
	var rev, at, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" {
		v += fmt.Sprintf(" (commit %.12s, %s%s)", rev, cmp.Or(at, "time unknown"), dirty)
	}
	return v + ", " + bi.GoVersion
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("%s takes no arguments", cmd.CommandPath())}
	}
	return nil
}

// positive refuses a count flag below 1, such as --top 0.
func positive(flag string, v int) error {
	if v < 1 {
		return usageError{fmt.Errorf("--%s %d: want at least 1", flag, v)}
	}
	return nil
}

// minArgs wants at least n arguments, named what ("FILE or DIR").
func minArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageError{fmt.Errorf("%s needs at least %d %s; see %s --help", cmd.Name(), n, what, cmd.CommandPath())}
		}
		return nil
	}
}
