package engine

import (
	"context"
	"database/sql"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemdata/idem/input"
)

// fakeDB is a DB with no abilities of its own; swapDB adds a swap.
type fakeDB struct{}

func (fakeDB) LoadRows(context.Context, Querier, Table, []Column, *input.Reader, func(string)) (int64, error) {
	return 0, nil
}
func (fakeDB) LoadPath() string                       { return "" }
func (fakeDB) SQL() *SQL                              { return nil }
func (fakeDB) Conn() Querier                          { return nil }
func (fakeDB) Begin(context.Context) (*sql.Tx, error) { return nil, nil }
func (fakeDB) Names() Names                           { return Names{} }
func (fakeDB) Close() error                           { return nil }
func (d fakeDB) Capabilities() Capabilities           { return Declare(d, CommitTransaction) }
func (fakeDB) Lock(context.Context, *sql.Tx, LockScope, time.Duration) (func(), error) {
	return func() {}, nil
}

type swapDB struct{ fakeDB }

func (swapDB) Swap(Table, Table, bool) []string { return nil }
func (swapDB) Drop(Table) string                { return "" }
func (swapDB) Like(Table, Table) []string       { return nil }
func (d swapDB) Capabilities() Capabilities     { return Declare(d, CommitSwap) }

// wrapper embeds a DB, as verify's scratch target does.
type wrapper struct{ DB }

func TestDeclare(t *testing.T) {
	c := Declare(swapDB{}, CommitSwap)
	if c.Swap == nil || c.Exchange != nil || c.KeyIndex != nil {
		t.Errorf("Declare(swapDB) = %v", c.Declared())
	}
	// Hooks an engine lacks do nothing, and are never nil.
	if c.Memory == nil || c.Size == nil || c.Zones == nil || c.Errors == nil || c.Locks == nil {
		t.Fatalf("a hook is nil: %v", c.Declared())
	}
	errX := os.ErrNotExist
	if got := c.Errors.Interpret(errX); got != errX {
		t.Errorf("the default Interpret changed %v into %v", errX, got)
	}
	for _, bad := range []func(){
		func() { Declare(fakeDB{}, CommitSwap) },
		func() { Declare(swapDB{}, CommitExchange) },
		func() { Declare(fakeDB{}, Commit(9)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("a declaration its DB cannot honour was accepted")
				}
			}()
			bad()
		}()
	}
}

// A wrapper that embeds a DB declares what the DB declares.
func TestWrapperKeepsCapabilities(t *testing.T) {
	for _, db := range []DB{fakeDB{}, swapDB{}} {
		if got, want := (wrapper{db}).Capabilities().Declared(), db.Capabilities().Declared(); !slices.Equal(got, want) {
			t.Errorf("%T wrapped declares %v, want %v", db, got, want)
		}
	}
}

// declaresOwn lists the types outside the engines that embed a DB and
// define Capabilities of their own: a wrapper must not change what the
// engine it wraps declares. A test engine that is another engine on
// purpose (registered under its own scheme) is allowed by name.
var declaresOwn = map[string]bool{
	"engine/duckdb/swapfake.DB": true, // DuckDB declared as a swap engine, its own scheme
	"engine/duckdb.memoryUses":  true, // a test's recorder of the memory a run asks for, passed on unchanged
}

// No type in the tree embeds a DB and changes its Capabilities, but those
// allowed above.
func TestNoWrapperChangesCapabilities(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	embeds, defines := map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		collectWrappers(f, filepath.ToSlash(rel), embeds, defines)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files under %s: not the module's root", files, root)
	}
	for typ := range embeds {
		if defines[typ] && !declaresOwn[typ] {
			t.Errorf("%s embeds a DB and defines its own Capabilities: a wrapper must carry the engine's unchanged", typ)
		}
	}
	for typ := range declaresOwn {
		if !embeds[typ] || !defines[typ] {
			t.Errorf("%s is allowed to declare its own Capabilities but no longer does: remove it from declaresOwn", typ)
		}
	}
}

// collectWrappers notes, for the file f of package folder pkg, the types
// that embed a DB (engine.DB, or an engine's *x.DB) and those defining a
// Capabilities method.
func collectWrappers(f *ast.File, pkg string, embeds, defines map[string]bool) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				ts, ok := spec.(*ast.TypeSpec)
				if !ok {
					continue
				}
				if st, ok := ts.Type.(*ast.StructType); ok && embedsDB(st) {
					embeds[pkg+"."+ts.Name.Name] = true
				}
			}
		case *ast.FuncDecl:
			if d.Recv != nil && d.Name.Name == "Capabilities" {
				embeds := d.Recv.List[0].Type
				if s, ok := embeds.(*ast.StarExpr); ok {
					embeds = s.X
				}
				if id, ok := embeds.(*ast.Ident); ok {
					defines[pkg+"."+id.Name] = true
				}
			}
		}
	}
}

// embedsDB reports whether st has an embedded field named DB (engine.DB,
// *duckdb.DB, DB in package engine).
func embedsDB(st *ast.StructType) bool {
	for _, f := range st.Fields.List {
		if len(f.Names) > 0 {
			continue
		}
		typ := f.Type
		if s, ok := typ.(*ast.StarExpr); ok {
			typ = s.X
		}
		switch x := typ.(type) {
		case *ast.SelectorExpr:
			if x.Sel.Name == "DB" {
				return true
			}
		case *ast.Ident:
			if x.Name == "DB" {
				return true
			}
		}
	}
	return false
}
