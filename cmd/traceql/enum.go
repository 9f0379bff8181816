package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// Enum flags take one of a fixed set of values. The set is given once, where
// the flag is added, and does two things there, as cli/cli's
// cmdutil.StringEnumFlag does: a value outside it fails when the command
// line is parsed, with a message listing the values, and shells complete
// the values (traceql plot --kind <TAB>, through cobra's __complete). A
// command's RunE then holds only valid values.

// An enumError is an enum flag's value that is not among its values. Its
// message names the flag and lists the values; flagError shows it as it
// is, a usage error.
type enumError struct {
	flag   string
	value  string
	values []string
}

func (e *enumError) Error() string {
	return fmt.Sprintf("--%s %q: want one of %s", e.flag, e.value, strings.Join(e.values, ", "))
}

// An enumValue is the pflag.Value of a string enum flag.
type enumValue struct {
	p       *string
	name    string
	values  []string
	aliases map[string]string // another name for a value: md for markdown
}

func (e *enumValue) String() string { return *e.p }

// Type is pflag's string's, so that help shows the flag as before:
// "--format string ... (default "text")".
func (e *enumValue) Type() string { return "string" }

func (e *enumValue) Set(v string) error {
	if a, ok := e.aliases[v]; ok {
		v = a
	}
	if !slices.Contains(e.values, v) {
		return &enumError{flag: e.name, value: v, values: e.values}
	}
	*e.p = v
	return nil
}

// alias lets the flag take from for the value to.
func (e *enumValue) alias(from, to string) *enumValue {
	if e.aliases == nil {
		e.aliases = map[string]string{}
	}
	e.aliases[from] = to
	return e
}

// enumFlag adds to cmd the flag --name (and -shorthand, unless ""), which
// takes one of values and starts as value (which may be "", for none
// given); the values complete.
func enumFlag(cmd *cobra.Command, p *string, name, shorthand, value string, values []string, usage string) *enumValue {
	*p = value
	v := &enumValue{p: p, name: name, values: values}
	cmd.Flags().VarP(v, name, shorthand, usage)
	completeValues(cmd, name, values)
	return v
}

// formatFlag adds --format, -f: one of values, "md" taken for "markdown"
// wherever markdown is one.
func formatFlag(cmd *cobra.Command, p *string, value string, values []string, usage string) {
	v := enumFlag(cmd, p, "format", "f", value, values, usage)
	if slices.Contains(values, "markdown") {
		v.alias("md", "markdown")
	}
}

// tableFormats are the formats of the commands that print tables.
var tableFormats = []string{"text", "csv", "json", "markdown"}

// An enumSliceValue is the pflag.Value of a comma-separated, repeatable
// enum flag (--by kernel,stream): pflag's string slice, each value
// checked.
type enumSliceValue struct {
	p       *[]string
	name    string
	values  []string
	changed bool // set once: further values are added, not replacing the default
}

// String is "" for no values, which pflag's help takes for "no default".
func (e *enumSliceValue) String() string {
	if len(*e.p) == 0 {
		return ""
	}
	return "[" + strings.Join(*e.p, ",") + "]"
}

// Type is pflag's string slice's, shown in help as "strings".
func (e *enumSliceValue) Type() string { return "stringSlice" }

func (e *enumSliceValue) Set(v string) error {
	vs := strings.Split(v, ",")
	for _, x := range vs {
		if !slices.Contains(e.values, x) {
			return &enumError{flag: e.name, value: x, values: e.values}
		}
	}
	if e.changed {
		vs = append(*e.p, vs...)
	}
	*e.p, e.changed = vs, true
	return nil
}

// enumSliceFlag adds to cmd the flag --name, whose values, comma-separated
// or the flag repeated, are each one of values; they complete.
func enumSliceFlag(cmd *cobra.Command, p *[]string, name string, values []string, usage string) {
	cmd.Flags().Var(&enumSliceValue{p: p, name: name, values: values}, name, usage)
	completeValues(cmd, name, values)
}

// completeValues offers values when a shell completes the flag name, and
// no file names.
func completeValues(cmd *cobra.Command, name string, values []string) {
	// It fails only for a flag not defined or already given a completion:
	// a mistake in this file, which TestFlagCompletion finds.
	_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}
