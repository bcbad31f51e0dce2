package clickhouse

import (
	"fmt"
	"strings"

	"github.com/idemdata/idem/engine"
)

// differ is engine.Standard's Differ with ClickHouse's text of a value:
// a DateTime64 prints its fraction only as far as it is not zero, as
// DuckDB and PostgreSQL print timestamps (2026-11-28 09:30:00, not
// 2026-11-28 09:30:00.000000), so `idem verify` matches input text to
// table values alike on every engine.
type differ struct{ d Dialect }

var _ engine.Differ = differ{}

// text is expr as text, NULL shown as NULL.
func (differ) text(expr string) string {
	s := "toString(" + expr + ")"
	trimmed := `replaceRegexpOne(replaceRegexpOne(` + s + `, '(\\.[0-9]*?)0+$', '\\1'), '\\.$', '')`
	return fmt.Sprintf("coalesce(if(toTypeName(%s) LIKE '%%DateTime64%%', %s, %s), 'NULL')", expr, trimmed, s)
}

func (f differ) rowText(alias string, cols []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = f.d.String(c+"=") + " || " + f.text(alias+"."+f.d.Ident(c))
	}
	return strings.Join(parts, " || ', ' || ")
}

// Distinct selects distinct values as text.
func (f differ) Distinct(t engine.Table, cols []string) string {
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = f.text(f.d.Ident(c))
	}
	return fmt.Sprintf("SELECT DISTINCT %s FROM %s", strings.Join(sel, ", "), f.d.Table(t))
}

// ColumnDiff compares col over f and g joined on key.
func (f differ) ColumnDiff(a, b engine.Table, key []string, col string) (count, sample string) {
	on := make([]string, len(key))
	for i, k := range key {
		on[i] = fmt.Sprintf("f.%s = g.%s", f.d.Ident(k), f.d.Ident(k))
	}
	join := fmt.Sprintf("%s f JOIN %s g ON %s", f.d.Table(a), f.d.Table(b), strings.Join(on, " AND "))
	fc, gc := f.text("f."+f.d.Ident(col)), f.text("g."+f.d.Ident(col))
	diff := fmt.Sprintf("%s <> %s", fc, gc)
	return fmt.Sprintf("SELECT count(*) FROM %s WHERE %s", join, diff),
		fmt.Sprintf("SELECT %s, %s, %s FROM %s WHERE %s ORDER BY 1 LIMIT 1", f.rowText("f", key), fc, gc, join, diff)
}

// ValueDiff compares col's values of a and b as multisets.
func (f differ) ValueDiff(a, b engine.Table, col string) (count, first string) {
	e := f.text(f.d.Ident(col))
	only := fmt.Sprintf("SELECT %s AS v FROM %s EXCEPT ALL SELECT %s FROM %s", e, f.d.Table(a), e, f.d.Table(b))
	return fmt.Sprintf("SELECT count(*) FROM (%s) x", only), "SELECT v FROM (" + only + ") x ORDER BY 1 LIMIT 1"
}

// RowDiff lists rows a has and b lacks, as multisets.
func (f differ) RowDiff(a, b engine.Table, key, cols []string, limit int) string {
	k := f.d.String("")
	if len(key) > 0 {
		k = f.rowText("x", key)
	}
	r := f.rowText("x", cols)
	return fmt.Sprintf("SELECT k, r FROM (SELECT %s AS k, %s AS r FROM %s x EXCEPT ALL SELECT %s, %s FROM %s x) d ORDER BY 1, 2 LIMIT %d",
		k, r, f.d.Table(a), k, r, f.d.Table(b), limit)
}
