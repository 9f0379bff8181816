package trace

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoMutableGlobals: no package-level variable of the library packages
// is assigned outside its declaration, by their code or by tests, and none
// is of a type from sync or sync/atomic, whose methods change it (a pool of
// buffers belongs to the Workers that reads share): what varies from one
// read to the next comes in through options. Without type checking, a name
// that a function declares itself counts as that function's own wherever
// it is assigned in it.
func TestNoMutableGlobals(t *testing.T) {
	dirs := map[string]string{ // package name: directory
		"trace": ".", "jsonlex": "internal/jsonlex", "blocks": "internal/blocks",
		"metrics": "../metrics", "report": "../report", "pages": "../internal/pages",
	}
	fset := token.NewFileSet()
	vars := map[string]map[string]bool{} // by package: its package-level vars
	files := map[string][]*ast.File{}
	for pkg, dir := range dirs {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(names) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		vars[pkg] = map[string]bool{}
		for _, name := range names {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(fset, name, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			files[pkg] = append(files[pkg], f)
			if strings.HasSuffix(name, "_test.go") && f.Name.Name != pkg {
				continue // an external test package's vars are its own
			}
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
					for _, s := range g.Specs {
						vs := s.(*ast.ValueSpec)
						for _, id := range vs.Names {
							vars[pkg][id.Name] = true
						}
						if x, ok := vs.Type.(*ast.SelectorExpr); ok {
							if q, ok := x.X.(*ast.Ident); ok && (q.Name == "sync" || q.Name == "atomic") {
								t.Errorf("%s: package variable of type %s.%s, changed by its methods", fset.Position(vs.Pos()), q.Name, x.Sel.Name)
							}
						}
					}
				}
			}
		}
	}
	checked := 0
	for pkg, fs := range files {
		for _, f := range fs {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				local := declared(fn)
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					var lhs []ast.Expr
					switch s := n.(type) {
					case *ast.AssignStmt:
						if s.Tok != token.DEFINE {
							lhs = s.Lhs
						}
					case *ast.IncDecStmt:
						lhs = []ast.Expr{s.X}
					}
					for _, e := range lhs {
						checked++
						if name, owner := globalWritten(e, pkg, f, vars, local); name != "" {
							t.Errorf("%s: %s assigns %s's package variable %s", fset.Position(e.Pos()), fn.Name.Name, owner, name)
						}
					}
					return true
				})
			}
		}
	}
	if checked == 0 {
		t.Fatal("no assignments checked")
	}
}

// declared returns the names fn declares: its receiver, parameters and
// results, and every name declared in its body.
func declared(fn *ast.FuncDecl) map[string]bool {
	names := map[string]bool{}
	addFields := func(l *ast.FieldList) {
		if l == nil {
			return
		}
		for _, f := range l.List {
			for _, id := range f.Names {
				names[id.Name] = true
			}
		}
	}
	addFields(fn.Recv)
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncType:
			addFields(n.Params)
			addFields(n.Results)
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, e := range n.Lhs {
					if id, ok := e.(*ast.Ident); ok {
						names[id.Name] = true
					}
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, e := range []ast.Expr{n.Key, n.Value} {
					if id, ok := e.(*ast.Ident); ok {
						names[id.Name] = true
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				names[id.Name] = true
			}
		}
		return true
	})
	return names
}

// globalWritten returns the package variable that assigning to e writes,
// and its package, or "" when e is something else: e's root is a name,
// through indexes, fields and dereferences, or a package-qualified name.
func globalWritten(e ast.Expr, pkg string, f *ast.File, vars map[string]map[string]bool, local map[string]bool) (string, string) {
	for {
		switch x := e.(type) {
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && !local[id.Name] && !vars[pkg][id.Name] && imports(f, id.Name) && vars[id.Name][x.Sel.Name] {
				return x.Sel.Name, id.Name
			}
			e = x.X
		case *ast.Ident:
			if vars[pkg][x.Name] && !local[x.Name] {
				return x.Name, pkg
			}
			return "", ""
		default:
			return "", ""
		}
	}
}

// imports reports whether f imports a package of ours named name.
func imports(f *ast.File, name string) bool {
	for _, im := range f.Imports {
		if strings.HasPrefix(im.Path.Value, `"github.com/traceql/traceql/`) && strings.HasSuffix(strings.Trim(im.Path.Value, `"`), "/"+name) {
			return true
		}
	}
	return false
}
