package runner

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxStructFields bounds the fields a struct of the package declares
// itself (an embedded struct counts as one): a larger one groups related
// fields into named structs (issue 34).
const maxStructFields = 12

func TestRunnerStructsAreSmall(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	structs := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			structs++
			fields := 0
			for _, fl := range st.Fields.List {
				fields += max(len(fl.Names), 1) // an embedded field has no name
			}
			if fields > maxStructFields {
				t.Errorf("%s: a struct of %d fields, more than %d: group related fields into named structs", fset.Position(st.Pos()), fields, maxStructFields)
			}
			return true
		})
	}
	if structs == 0 {
		t.Fatal("no struct found: the test ran outside the package's folder")
	}
}
