package idem_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// The tree stays readable in small pieces (issue 34): no function outside
// tests over maxFunc lines, and no struct of the runner over maxRunnerFields
// fields (runner/funclen_test.go holds the runner's own functions to less).
const (
	maxFunc         = 60
	maxRunnerFields = 12
)

func TestShapeOfTheTree(t *testing.T) {
	fset := token.NewFileSet()
	var found []string
	funcs := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return err
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				funcs++
				if lines := span(fset, n); n.Body != nil && lines > maxFunc {
					found = append(found, fmt.Sprintf("%s: func %s is %d lines (at most %d)", fset.Position(n.Pos()), n.Name.Name, lines, maxFunc))
				}
			case *ast.TypeSpec:
				st, ok := n.Type.(*ast.StructType)
				if ok && filepath.Dir(path) == "runner" && fields(st) > maxRunnerFields {
					found = append(found, fmt.Sprintf("%s: struct %s has %d fields (at most %d)", fset.Position(n.Pos()), n.Name.Name, fields(st), maxRunnerFields))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if funcs < 500 {
		t.Fatalf("only %d functions found: the walk missed the tree", funcs)
	}
	for _, f := range found {
		t.Error(f)
	}
}

func span(fset *token.FileSet, n ast.Node) int {
	return fset.Position(n.End()).Line - fset.Position(n.Pos()).Line + 1
}

// fields counts a struct's fields, an embedded one as one.
func fields(st *ast.StructType) int {
	n := 0
	for _, f := range st.Fields.List {
		n += max(len(f.Names), 1)
	}
	return n
}
