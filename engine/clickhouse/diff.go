package clickhouse

import "fmt"

// text is expr as text, NULL shown as NULL, with ClickHouse's text of a
// value made like the others': a DateTime64 prints its fraction only as
// far as it is not zero, as DuckDB and PostgreSQL print timestamps
// (2026-11-28 09:30:00, not 2026-11-28 09:30:00.000000), so `idem verify`
// matches input text to table values alike on every engine.
func text(expr string) string {
	s := "toString(" + expr + ")"
	trimmed := `replaceRegexpOne(replaceRegexpOne(` + s + `, '(\\.[0-9]*?)0+$', '\\1'), '\\.$', '')`
	return fmt.Sprintf("coalesce(if(toTypeName(%s) LIKE '%%DateTime64%%', %s, %s), 'NULL')", expr, trimmed, s)
}
