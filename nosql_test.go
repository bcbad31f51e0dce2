package idem_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sqlText matches what only SQL spells: a statement's opening words, or
// the clauses and functions idem's statements use.
var sqlText = regexp.MustCompile(`\b(SELECT\s|INSERT\s+INTO|DELETE\s+FROM|CREATE\s+(TEMP\s+|TEMPORARY\s+)?(TABLE|SCHEMA|INDEX|UNIQUE)|DROP\s+TABLE|ALTER\s+TABLE|UPDATE\s+\S+\s+SET|MERGE\s+INTO|TRUNCATE\s|COPY\s|EXCEPT\s+ALL|GROUP\s+BY|ORDER\s+BY|IS\s+(NOT\s+)?NULL|FILTER\s*\(WHERE|coalesce\(|count\(\*\)|CAST\(|information_schema)`)

// TestNoSQLAboveEngine: every statement idem runs comes from an engine
// (engine.SQL), so one engine's SQL is in one place, and a new engine
// spells all of it. Outside engine/, no non-test Go file has SQL text in a
// string literal; lint/ reads SQL (its messages quote it) and runs none.
func TestNoSQLAboveEngine(t *testing.T) {
	fset := token.NewFileSet()
	var found []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == "engine" || path == "lint" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err == nil && sqlText.MatchString(s) {
				found = append(found, fset.Position(lit.Pos()).String()+": "+s)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("SQL text outside engine/ (move it into an engine.SQL group):\n%s", strings.Join(found, "\n"))
	}
}

// The pattern must catch what it is for, or the test above proves nothing.
func TestSQLTextPattern(t *testing.T) {
	for _, s := range []string{"SELECT count(*) FROM %s", "DELETE FROM %s WHERE %s", "%s IS NULL", "count(*) FILTER (WHERE %s)",
		"CREATE TEMP TABLE x AS", "ALTER TABLE %s", "coalesce(%s, '')", "x EXCEPT ALL SELECT"} {
		if !sqlText.MatchString(s) {
			t.Errorf("not recognised as SQL: %q", s)
		}
	}
	for _, s := range []string{"select a job file", "the input has no rows", "partition %s: %w", "--date"} {
		if sqlText.MatchString(s) {
			t.Errorf("taken for SQL: %q", s)
		}
	}
}
