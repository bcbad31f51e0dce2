package engine

import (
	"strconv"
	"strings"
	"time"
)

// ANSI is the lexical SQL that DuckDB and PostgreSQL share: double-quoted
// identifiers, $n parameters and typed time literals. Their dialects embed
// it; an engine that spells these differently (MySQL) does not.
type ANSI struct{}

// Ident quotes an identifier, doubling embedded quotes.
func (ANSI) Ident(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// Table quotes a possibly qualified table name.
func (a ANSI) Table(t Table) string {
	if t.Schema == "" {
		return a.Ident(t.Name)
	}
	return a.Ident(t.Schema) + "." + a.Ident(t.Name)
}

// Placeholder is the n-th positional parameter.
func (ANSI) Placeholder(n int) string { return "$" + strconv.Itoa(n) }

// TimeLiteral renders a typed literal: DATE, TIMESTAMP or TIMESTAMPTZ.
func (ANSI) TimeLiteral(t time.Time, k TimeKind) string {
	switch k {
	case KindDate:
		return "DATE '" + t.Format("2006-01-02") + "'"
	case KindTimestamp:
		return "TIMESTAMP '" + t.Format("2006-01-02 15:04:05") + "'"
	}
	return "TIMESTAMPTZ '" + t.Format("2006-01-02 15:04:05-07:00") + "'"
}
