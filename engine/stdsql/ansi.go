package stdsql

import (
	"strconv"
	"strings"
	"time"

	"github.com/idemdata/idem/engine"
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
func (a ANSI) Table(t engine.Table) string {
	if t.Schema == "" {
		return a.Ident(t.Name)
	}
	return a.Ident(t.Schema) + "." + a.Ident(t.Name)
}

// Placeholder is the n-th positional parameter.
func (ANSI) Placeholder(n int) string { return "$" + strconv.Itoa(n) }

// TimeLiteral renders a typed literal: DATE, TIMESTAMP or TIMESTAMPTZ.
func (ANSI) TimeLiteral(t time.Time, k engine.TimeKind) string {
	switch k {
	case engine.KindDate:
		return "DATE '" + t.Format("2006-01-02") + "'"
	case engine.KindTimestamp:
		return "TIMESTAMP '" + t.Format("2006-01-02 15:04:05") + "'"
	}
	return "TIMESTAMPTZ '" + t.Format("2006-01-02 15:04:05-07:00") + "'"
}

// PartitionStart is the start of the partition (of unit hour, day or month)
// that col's value falls in, as a date or a wall-clock timestamp: instants
// are read in zone (UTC when ""). The unit and zone come from a validated
// job, never from input data.
func (ANSI) PartitionStart(col string, k engine.TimeKind, unit, zone string) string {
	if zone == "" {
		zone = "UTC"
	}
	switch k {
	case engine.KindDate:
		if unit == "day" {
			return col
		}
		return "CAST(date_trunc('" + unit + "', " + col + ") AS DATE)"
	case engine.KindTimestampTZ:
		col += " AT TIME ZONE '" + strings.ReplaceAll(zone, "'", "''") + "'"
	}
	return "date_trunc('" + unit + "', " + col + ")"
}

// CastNull selects a NULL of type typ: it fails when the database does not
// know the type. typ is a validated job value (job's typeRE).
func (ANSI) CastNull(typ string) string { return "SELECT CAST(NULL AS " + typ + ")" }

// Idents quotes a list of identifiers, comma-separated.
func (a ANSI) Idents(names []string) string { return identList(a.Ident, names) }

// Upsert writes one row of cols (bound in order), replacing the row with
// the same key: INSERT … ON CONFLICT … DO UPDATE.
func (a ANSI) Upsert(t engine.Table, cols, key []string) string {
	isKey := map[string]bool{}
	for _, k := range key {
		isKey[k] = true
	}
	ph := make([]string, len(cols))
	var set []string
	for i, c := range cols {
		ph[i] = a.Placeholder(i + 1)
		if !isKey[c] {
			set = append(set, a.Ident(c)+" = EXCLUDED."+a.Ident(c))
		}
	}
	return "INSERT INTO " + a.Table(t) + " (" + a.Idents(cols) + ") VALUES (" + strings.Join(ph, ", ") +
		") ON CONFLICT (" + a.Idents(key) + ") DO UPDATE SET " + strings.Join(set, ", ")
}

// ColumnSQL renders one column definition: quoted name, type, NOT NULL
// (when notNull and the column is not nullable) and its default.
func (a ANSI) ColumnSQL(c engine.ColumnDef, types engine.ColumnTypes, notNull bool) string {
	s := a.Ident(c.Name) + " " + types.Of(c.Type)
	if notNull && !c.Nullable {
		s += " NOT NULL"
	}
	if c.DefaultZero {
		s += " DEFAULT 0"
	}
	return s
}

// CreateTableSQL is CREATE TABLE IF NOT EXISTS t with def's columns and
// primary key, one per line.
func (a ANSI) CreateTableSQL(t engine.Table, def engine.TableDef, types engine.ColumnTypes) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS " + a.Table(t) + " (\n")
	for _, c := range def.Columns {
		b.WriteString("  " + a.ColumnSQL(c, types, true) + ",\n")
	}
	b.WriteString("  PRIMARY KEY (" + a.Idents(def.Key) + ")\n)")
	return b.String()
}

// SelectWindow is the query that reads table t's rows whose column col
// is in [lo, hi) (literals), or every row when col is "": a job's
// source.table.
func SelectWindow(d engine.Dialect, t engine.Table, col, lo, hi string) string {
	q := "SELECT * FROM " + d.Table(t)
	if col != "" {
		c := d.Ident(col)
		q += " WHERE " + c + " >= " + lo + " AND " + c + " < " + hi
	}
	return q
}
