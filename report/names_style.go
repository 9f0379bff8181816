package report

// StyleNames is styleName of each of names, the distinct kernels of one
// table: short names that would merge two different kernels (two GEMMs
// both Kernel2<…>(…), add and GELU both vectorized_elementwise_kernel<…>(…))
// show as much more of their template arguments as tells them apart, or
// are left whole. Families merge instantiations by design and are left
// as they are.
func StyleNames(names []string, style string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = styleName(n, style)
	}
	if style != NamesShort {
		return out
	}
	for keep := 1; keep <= 3; keep++ {
		clashes := clashing(names, out)
		if len(clashes) == 0 {
			return out
		}
		for _, i := range clashes {
			if keep == 3 {
				out[i] = demangled(names[i])
				continue
			}
			out[i] = shortNameKeep(demangled(names[i]), keep)
		}
	}
	return out
}

// clashing returns the indexes whose styled name another, different name
// shares.
func clashing(names, styled []string) []int {
	by := map[string]map[string]bool{} // styled → the names it stands for
	for i, s := range styled {
		if by[s] == nil {
			by[s] = map[string]bool{}
		}
		by[s][names[i]] = true
	}
	var out []int
	for i, s := range styled {
		if len(by[s]) > 1 {
			out = append(out, i)
		}
	}
	return out
}

// styledNames lists the names of xs styled together (StyleNames).
func styledNames[T any](xs []T, name func(T) string, style string) []string {
	names := make([]string, len(xs))
	for i, x := range xs {
		names[i] = name(x)
	}
	return StyleNames(names, style)
}

// same is the identity, for shortNames over names already styled.
func same(s string) string { return s }
