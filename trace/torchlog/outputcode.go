package torchlog

import (
	"slices"
	"strconv"
	"strings"
)

// addOutputCode reads the kernels of Inductor's output code (the
// inductor_output_code record's payload): each Triton kernel is defined
// by a line "NAME = async_compile.triton('NAME', ...", after comments
// that name its nodes:
//
//	# Topologically Sorted Source Nodes: [x, x_1], Original ATen: [aten.relu]
//	# Source node to ATen node mapping:
//	#   x => mm_default, add_tensor
//	#   x_1 => relu
//
// The source nodes are the pre-grad (user-level) FX nodes, the ATen nodes
// the post-grad ones.
func (c *Compile) addOutputCode(code string) {
	var pre, post []string
	mapping := false
	for _, line := range strings.Split(code, "\n") {
		t := strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(t, "#"); ok {
			rest = strings.TrimSpace(rest)
			switch {
			case strings.HasPrefix(rest, "Topologically Sorted Source Nodes: ["):
				list, _, _ := strings.Cut(strings.TrimPrefix(rest, "Topologically Sorted Source Nodes: ["), "]")
				pre = splitList(list)
				mapping = false
			case rest == "Source node to ATen node mapping:":
				mapping = true
			case mapping && strings.Contains(rest, " => "):
				_, nodes, _ := strings.Cut(rest, " => ")
				post = append(post, splitList(nodes)...)
			default:
				mapping = false
			}
			continue
		}
		name, rest, ok := strings.Cut(t, " = async_compile.triton(")
		if ok && strings.HasPrefix(rest, "'"+name+"'") && (len(pre) > 0 || len(post) > 0) {
			k := c.kernel(name)
			if !k.artifact { // the provenance artifacts say more when there
				k.PreGrad, k.PostGrad = slices.Clone(pre), dedupe(post)
			}
		}
		if t != "" {
			pre, post, mapping = nil, nil, false
		}
	}
}

// addPostGradGraph reads the user line of each node of the post-grad
// graph, printed as Python with a "# File: PATH:LINE in FUNC, code: CODE"
// comment above the nodes that came from that line ("# No stacktrace
// found for following nodes" above those from none).
func (c *Compile) addPostGradGraph(g string) {
	var cur *SourceLine
	for _, line := range strings.Split(g, "\n") {
		t := strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(t, "# File: "); ok {
			cur = nil
			loc, code, _ := strings.Cut(rest, ", code: ")
			loc, fn, _ := strings.Cut(loc, " in ")
			if i := strings.LastIndexByte(loc, ':'); i > 0 {
				if n, err := strconv.Atoi(loc[i+1:]); err == nil {
					cur = &SourceLine{File: baseName(loc[:i]), Line: n, Func: fn, Code: strings.TrimSpace(code)}
				}
			}
			continue
		}
		if strings.HasPrefix(t, "#") {
			cur = nil
			continue
		}
		if cur == nil {
			continue
		}
		// "name: \"f32[8, 16]...\" = torch.ops..." or "name = ..."
		name, _, ok := strings.Cut(t, " = ")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, ":")
		if name = strings.TrimSpace(name); name != "" && !strings.ContainsAny(name, " ()[],") {
			if c.nodeSource == nil {
				c.nodeSource = map[string]SourceLine{}
			}
			if _, seen := c.nodeSource[name]; !seen {
				c.nodeSource[name] = *cur
			}
		}
	}
}

// sourceFromGraph gives the kernels without source lines those of their
// post-grad nodes, in the nodes' order, once the whole log is read.
func (c *Compile) sourceFromGraph() {
	if len(c.nodeSource) == 0 {
		return
	}
	for _, k := range c.Kernels {
		if len(k.Source) > 0 {
			continue
		}
		for _, n := range k.PostGrad {
			if s, ok := c.nodeSource[n]; ok && !slices.Contains(k.Source, s) {
				k.Source = append(k.Source, s)
			}
		}
	}
	c.nodeSource = nil
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func dedupe(xs []string) []string {
	var out []string
	return appendNew(out, xs...)
}
