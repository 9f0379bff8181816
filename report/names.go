package report

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ianlancetaylor/demangle"

	"github.com/traceql/traceql/metrics"
)

// shortNames fits the name of each of xs, the rows of one table or the
// bars of one plot, to n runes, and blanks control characters so that a
// name cannot garble a terminal.
//
// A longer name is cut at its end: the start of a templated C++ name says
// most ("void at::native::vectorized_elementwise_kernel<4, at::native::
// FillFunctor<float…"), its argument list least. Names that the cut makes
// alike, as templated kernels often are, show their start and then a window
// from just before where they first differ ("void at::native::vec…::
// CUDAFunctor_add<float>, at::…").
//
// n ≤ 0 cuts nothing: names go whole to files, pipes and Markdown.
func shortNames[T any](xs []T, name func(T) string, n int) []string {
	out := make([]string, len(xs))
	if n <= 0 {
		for i, x := range xs {
			out[i] = blankControls(name(x))
		}
		return out
	}
	rs := make([][]rune, len(xs)) // the runes of the names cut, nil for the others
	groups := map[string][]int{}  // the names cut, by what they show
	for i, x := range xs {
		out[i] = blankControls(name(x))
		if len(out[i]) <= n { // bytes: no more runes
			continue
		}
		if r := []rune(out[i]); len(r) > n {
			rs[i] = r
			out[i] = string(r[:n-1]) + "…"
			groups[out[i]] = append(groups[out[i]], i)
		}
	}
	// Names alike after one window may differ in another: a few rounds.
	for range 4 {
		alike := false
		for _, g := range groups {
			if len(g) < 2 {
				continue
			}
			alike = true
			at := len(rs[g[0]]) // where the names first differ
			for _, i := range g[1:] {
				at = min(at, commonPrefix(rs[g[0]], rs[i]))
			}
			for _, i := range g {
				out[i] = window(rs[i], n, at)
			}
		}
		if !alike {
			break
		}
		clear(groups)
		for i, o := range out {
			if rs[i] != nil {
				groups[o] = append(groups[o], i)
			}
		}
	}
	return out
}

// window cuts r to n runes: its start, an ellipsis, and runes from a
// little before position at, with an ellipsis unless they reach r's end.
func window(r []rune, n, at int) string {
	head := min(20, n/3)
	from := max(head, at-12) // the difference reads as part of a word
	w := n - 2 - head
	if from+w >= len(r) {
		w++ // no ellipsis at the end
		from = max(head, len(r)-w)
		return string(r[:head]) + "…" + string(r[from:])
	}
	return string(r[:head]) + "…" + string(r[from:from+w]) + "…"
}

func commonPrefix(a, b []rune) int {
	k := 0
	for k < len(a) && k < len(b) && a[k] == b[k] {
		k++
	}
	return k
}

// blankControls replaces control characters, C0, DEL and C1, and the
// bidirectional formatting characters by spaces.
func blankControls(s string) string {
	return strings.Map(func(r rune) rune {
		if unsafeRune(r) {
			return ' '
		}
		return r
	}, s)
}

// unsafeRune reports whether r, written to a terminal, could do more than
// show a glyph: a C0 or C1 control character (ESC and CSI start escape
// sequences; CR and BS rewrite a line), DEL, or a bidirectional formatting
// character (U+202E shows the text after it reversed).
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, 0x7f <= r && r < 0xa0:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

// Printable returns s with control characters and bidirectional
// formatting characters written as Go escapes (\x1b, \u202e) and invalid
// UTF-8 replaced by U+FFFD, so that a device name or a file name from a
// trace cannot clear the reader's screen, rewrite or reorder lines.
func Printable(s string) string {
	clean := utf8.ValidString(s)
	for _, r := range s {
		if unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if !unsafeRune(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRuneToASCII(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// The name styles of --names.
const (
	NamesFull   = "full"   // as the trace gives it
	NamesShort  = "short"  // demangled, templates, arguments and namespaces folded
	NamesFamily = "family" // metrics.Family: the base name, across instantiations
)

// styleName writes a kernel name in a --names style. Short demangles an
// Itanium-mangled name (_Z…, as Triton and some libraries leave them),
// drops a leading "void ", folds every template argument list and the
// parameter list to <…> and (…), and keeps the last part of a qualified
// name: void at::native::vectorized_elementwise_kernel<4, at::native::
// FillFunctor<float>, …>(int, …) is vectorized_elementwise_kernel<…>(…).
func styleName(name, style string) string {
	switch style {
	case NamesShort:
		return shortName(demangled(name))
	case NamesFamily:
		return metrics.Family(demangled(name))
	}
	return name
}

// demangled is name demangled when it is an Itanium-mangled C++ name.
func demangled(name string) string {
	if !strings.HasPrefix(name, "_Z") {
		return name
	}
	if d, err := demangle.ToString(name); err == nil {
		return d
	}
	return name
}

// shortName folds what is inside <> and () at the outer level, and the
// namespaces and classes that qualify the name.
func shortName(name string) string { return shortNameKeep(name, 0) }

// shortNameKeep is shortName with the brackets nested up to keep deep
// shown rather than folded: at 1, the template arguments of the name
// itself (Kernel2<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>(…)),
// what tells two instantiations apart.
func shortNameKeep(name string, keep int) string {
	s := metrics.Declarator(name)
	var b strings.Builder
	depth := 0
	fold := -1 // the depth of the bracket being folded; -1: none
	for _, r := range s {
		switch r {
		case '<', '(':
			// The parameter list is folded whatever keep says: the
			// template arguments tell instantiations apart.
			if fold < 0 && (depth == keep || depth == 0 && r == '(') {
				fold = depth
				b.WriteRune(r)
				b.WriteString("…")
			} else if fold < 0 {
				b.WriteRune(r)
			}
			depth++
			continue
		case '>', ')':
			if depth > 0 {
				depth--
				if fold < 0 || depth == fold {
					b.WriteRune(r)
				}
				if depth == fold {
					fold = -1
				}
				continue
			}
		}
		if fold < 0 {
			b.WriteRune(r)
		}
	}
	out := b.String()
	// The qualifiers: up to the last "::" outside the brackets
	// ("(anonymous namespace)::" folded to "(…)::" by now).
	if i := lastOutside(out, "::"); i >= 0 {
		out = out[i+2:]
	}
	return strings.TrimSpace(out)
}

// lastOutside is the index of the last sep in s outside <> and (), or -1.
func lastOutside(s, sep string) int {
	depth, at := 0, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<', '(':
			depth++
		case '>', ')':
			if depth > 0 {
				depth--
			}
		default:
			if depth == 0 && strings.HasPrefix(s[i:], sep) {
				at = i
			}
		}
	}
	return at
}
