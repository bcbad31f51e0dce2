package engine

import (
	"cmp"
	"slices"
)

// LogicalType is the type of a column of a table idem owns (its ledger),
// named apart from any engine; each dialect spells it (ColumnTypes).
type LogicalType int

// Logical types.
const (
	TypeText    LogicalType = iota + 1 // text of any length
	TypeInt64                          // a 64-bit integer
	TypeBool                           // true or false
	TypeInstant                        // a point in time, with its zone
)

// ColumnTypes is how one engine spells each logical type.
type ColumnTypes struct {
	Text, Int64, Bool, Instant string
}

// Of spells t; "" for a value that is no LogicalType.
func (c ColumnTypes) Of(t LogicalType) string {
	switch t {
	case TypeText:
		return c.Text
	case TypeInt64:
		return c.Int64
	case TypeBool:
		return c.Bool
	case TypeInstant:
		return c.Instant
	}
	return ""
}

// ColumnDef is one column of a table idem owns.
type ColumnDef struct {
	Name     string
	Type     LogicalType
	Nullable bool
	// DefaultZero: an integer column defaults to 0, which is what rows
	// written before the column existed hold.
	DefaultZero bool
	// Added is the version of the table that brought the column (0: it was
	// there from the start). A table an older version created gets it by
	// ALTER TABLE, in Added order; such a column is nullable or has
	// DefaultZero, so the table's rows can have it.
	Added int
	// Note says what old rows hold in an added column; DDL that takes
	// comments shows it.
	Note string
}

// TableDef is the shape of a table idem owns: its columns in order and
// its primary key.
type TableDef struct {
	Columns []ColumnDef
	Key     []string
}

// Names are the column names, in order.
func (t TableDef) Names() []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Name
	}
	return out
}

// Added lists the columns later versions brought, in the order they came.
func (t TableDef) Added() []ColumnDef {
	var out []ColumnDef
	for _, c := range t.Columns {
		if c.Added > 0 {
			out = append(out, c)
		}
	}
	slices.SortStableFunc(out, func(a, b ColumnDef) int { return cmp.Compare(a.Added, b.Added) })
	return out
}
