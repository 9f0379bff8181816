package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// displayNames sets each function's Name, what pprof shows, from its
// SystemName, the full name.
//
// pprof shortens a name for display only when Name equals SystemName: it
// then takes a name with "::", "<", ">", "[" or "]" in it for demangled
// C++ and cuts out every "(…)" and then every "<…>" (internal/symbolizer's
// demangleSingleFunction, which -symbolize=demangle=… redoes from
// SystemName). Nodes of -top and frames of the flame graph are keyed by
// the shortened name, so kernels that differ only in template arguments,
// the three "void cutlass::Kernel2<cutlass_80_tensorop_…>" GEMMs of a ViT
// or the dozens of "at::native::vectorized_elementwise_kernel<4, Functor,
// …>" of any PyTorch run, became one node.
//
// So Name is set here and differs from SystemName, which pprof takes for
// a name already shortened and keeps. It is pprof's own short name where
// that is one function's; where several share it, their template
// arguments come back to the smallest depth of nesting that tells them
// apart ("Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_tn_align4>",
// "vectorized_elementwise_kernel<4, at::native::BUnaryFunctor,
// at::detail::Array>"), still without the parameters; failing that, a
// " #2" suffix. -symbolize=demangle=none shows the full names.
func displayNames(fns []*profile.Function) {
	// Names are first grouped by short name and file, as pprof keys its
	// nodes; a slice is made only for groups of more than one, the rare
	// case among up to a million kernel names.
	type key struct{ short, file string }
	first := make(map[key]int, len(fns))
	var shared map[key][]*profile.Function
	var order []key // of the shared keys, as first met: deterministic
	for i, f := range fns {
		f.Name = pprofShort(f.SystemName)
		k := key{f.Name, f.Filename}
		j, ok := first[k]
		if !ok {
			first[k] = i
			continue
		}
		if shared == nil {
			shared = map[key][]*profile.Function{}
		}
		if shared[k] == nil {
			order = append(order, k)
			shared[k] = []*profile.Function{fns[j]}
		}
		shared[k] = append(shared[k], f)
	}
	for _, k := range order {
		g := shared[k]
		slices.SortFunc(g, func(a, b *profile.Function) int { return cmp.Compare(a.SystemName, b.SystemName) })
		if !withTemplates(g) {
			for i, f := range g {
				f.Name = fmt.Sprintf("%s #%d", k.short, i+1)
			}
		}
		delete(first, k)
	}
	// A name made above may still be another function's (a kernel called
	// "f #2" in the trace): it then gets a further suffix.
	for _, k := range order {
		for _, f := range shared[k] {
			name := f.Name
			for i := 2; ; i++ {
				if _, ok := first[key{name, f.Filename}]; !ok {
					break
				}
				name = fmt.Sprintf("%s #%d", f.Name, i)
			}
			f.Name = name
			first[key{name, f.Filename}] = -1
		}
	}
}

// withTemplates names the functions of g, which share a short name, by
// their template arguments to the least depth that tells all apart, and
// reports whether one did. A name equal to its SystemName will not do:
// pprof would shorten it again.
func withTemplates(g []*profile.Function) bool {
	names := make([]string, len(g))
	seen := make(map[string]bool, len(g))
	for depth := 1; ; depth++ {
		clear(seen)
		deeper, ok := false, true
		for i, f := range g {
			var cut bool
			names[i], cut = templatesTo(f.SystemName, depth)
			deeper = deeper || cut
			if seen[names[i]] || names[i] == f.SystemName {
				ok = false
			}
			seen[names[i]] = true
		}
		if ok {
			for i, f := range g {
				f.Name = names[i]
			}
			return true
		}
		if !deeper {
			return false
		}
	}
}

// pprofShort is the name pprof shows for a function whose Name is its
// SystemName s, by the rule described at displayNames.
func pprofShort(s string) string {
	if !looksLikeCpp(s) {
		return s
	}
	return cutNested(cutNested(s, '(', ')', 0), '<', '>', 0)
}

// looksLikeCpp is pprof's test for a demangled C++ name: brackets or
// "::", but not a Java "Class.<init>" or a Go "pkg.(*T[…]).Method".
func looksLikeCpp(s string) bool {
	if strings.Contains(s, ".<") || strings.Contains(s, "]).") {
		return false
	}
	return strings.ContainsAny(s, "<>[]") || strings.Contains(s, "::")
}

// templatesTo is s without its parameter lists and without template
// arguments nested deeper than depth, and whether any were cut.
func templatesTo(s string, depth int) (string, bool) {
	if !looksLikeCpp(s) {
		return s, false
	}
	p := cutNested(s, '(', ')', 0)
	t := cutNested(p, '<', '>', depth)
	return t, t != p
}

// cutNested removes what lies between open and close nested deeper than
// keep, the brackets too: keep 0 removes every outermost group. It stops
// at a close with no open, keeping what it removed so far, as pprof does;
// an open never closed stays.
func cutNested(s string, open, close byte, keep int) string {
	if strings.IndexByte(s, open) < 0 && strings.IndexByte(s, close) < 0 {
		return s // most names: no copy
	}
	var b strings.Builder
	depth, from, copied := 0, 0, 0 // s[:copied] is written or cut
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
			if depth == keep+1 {
				from = i
			}
		case close:
			if depth == 0 {
				b.WriteString(s[copied:])
				return b.String()
			}
			depth--
			if depth == keep {
				b.WriteString(s[copied:from])
				copied = i + 1
			}
		}
	}
	b.WriteString(s[copied:])
	return b.String()
}
