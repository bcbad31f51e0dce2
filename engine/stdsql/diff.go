package stdsql

import (
	"fmt"
	"strings"

	"github.com/idemdata/idem/engine"
)

// TextDiffer is the one Differ: rows are compared as text, and an engine
// says only how a value prints (Text: NULL as the text NULL) and, where
// its text comparison is not exact, how two texts differ (Differs).
type TextDiffer struct {
	D engine.Dialect
	// Text is expr as text, NULL shown as NULL, printed alike on every
	// engine so that verify reports the same values everywhere.
	Text func(expr string) string
	// Differs is true where texts a and b differ; nil is a <> b.
	Differs func(a, b string) string
}

var _ engine.Differ = TextDiffer{}

// StandardText prints a value with CAST(… AS TEXT).
func StandardText(expr string) string {
	return fmt.Sprintf("coalesce(CAST(%s AS TEXT), 'NULL')", expr)
}

func (f TextDiffer) differs(a, b string) string {
	if f.Differs != nil {
		return f.Differs(a, b)
	}
	return a + " <> " + b
}

// RowText is cols of a row (qualified by alias) as one line: "a=1, b=x".
func (f TextDiffer) RowText(alias string, cols []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = f.D.String(c+"=") + " || " + f.Text(alias+"."+f.D.Ident(c))
	}
	return strings.Join(parts, " || ', ' || ")
}

// Distinct selects distinct values as text.
func (f TextDiffer) Distinct(t engine.Table, cols []string) string {
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = f.Text(f.D.Ident(c))
	}
	return fmt.Sprintf("SELECT DISTINCT %s FROM %s", strings.Join(sel, ", "), f.D.Table(t))
}

// ColumnDiff compares col over a and b joined on key.
func (f TextDiffer) ColumnDiff(a, b engine.Table, key []string, col string) (count, sample string) {
	on := make([]string, len(key))
	for i, k := range key {
		on[i] = fmt.Sprintf("f.%s = g.%s", f.D.Ident(k), f.D.Ident(k))
	}
	join := fmt.Sprintf("%s f JOIN %s g ON %s", f.D.Table(a), f.D.Table(b), strings.Join(on, " AND "))
	fc, gc := f.Text("f."+f.D.Ident(col)), f.Text("g."+f.D.Ident(col))
	diff := f.differs(fc, gc)
	return fmt.Sprintf("SELECT count(*) FROM %s WHERE %s", join, diff),
		fmt.Sprintf("SELECT %s, %s, %s FROM %s WHERE %s ORDER BY 1 LIMIT 1", f.RowText("f", key), fc, gc, join, diff)
}

// ValueDiff compares col's values of a and b as multisets.
func (f TextDiffer) ValueDiff(a, b engine.Table, col string) (count, first string) {
	e := f.Text(f.D.Ident(col))
	only := fmt.Sprintf("SELECT %s AS v FROM %s EXCEPT ALL SELECT %s FROM %s", e, f.D.Table(a), e, f.D.Table(b))
	return fmt.Sprintf("SELECT count(*) FROM (%s) x", only), "SELECT v FROM (" + only + ") x ORDER BY 1 LIMIT 1"
}

// RowDiff lists rows a has and b lacks, as multisets.
func (f TextDiffer) RowDiff(a, b engine.Table, key, cols []string, limit int) string {
	k := f.D.String("")
	if len(key) > 0 {
		k = f.RowText("x", key)
	}
	r := f.RowText("x", cols)
	return fmt.Sprintf("SELECT k, r FROM (SELECT %s AS k, %s AS r FROM %s x EXCEPT ALL SELECT %s, %s FROM %s x) d ORDER BY 1, 2 LIMIT %d",
		k, r, f.D.Table(a), k, r, f.D.Table(b), limit)
}
