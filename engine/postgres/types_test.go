package postgres_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/postgres"
	"github.com/idemdata/idem/input"
)

func execAll(t *testing.T, q engine.Querier, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		_, err := q.ExecContext(t.Context(), s)
		require.NoError(t, err, s)
	}
}

// ColumnType's type, created, read from the catalog (ColumnTypes) and
// given to ReaderType, is the type it was made for, or one holding the
// same values; the types idem cannot write exactly are refused.
func TestReaderType(t *testing.T) {
	t.Parallel()
	db := open(t, freshDatabase(t))
	d := postgres.Dialect{}
	types := []input.Type{
		input.TextType, {Kind: input.Text, MaxChars: 10}, input.BoolType,
		{Kind: input.Int, Bits: 8}, {Kind: input.Int, Bits: 16}, {Kind: input.Int, Bits: 32}, input.BigIntType,
		input.DecimalType(18, 2), input.DecimalType(38, 0), input.DecimalType(38, 38), input.DecimalType(1, 0), {Kind: input.Decimal},
		{Kind: input.Float, Bits: 32}, input.DoubleType, input.DateType,
		input.TimestampType, {Kind: input.Timestamp, Precision: 0}, {Kind: input.Timestamp, Precision: 3},
		input.TimestampTZType, {Kind: input.TimestampTZ, Precision: 0}, {Kind: input.TimestampTZ, Precision: 5},
		input.JSONType,
	}
	var defs []string
	for i, typ := range types {
		defs = append(defs, fmt.Sprintf("c%d %s", i, d.ColumnType(typ)))
	}
	refused := []string{"character(5)", "character", `"char"`, "uuid", "inet", "integer[]", "text[]", "time without time zone",
		"time with time zone", "interval", "bytea", "numeric(5,-2)", "numeric(3,5)", "mood", "money", "xml", "bit(3)", "point", "oid", "dom"}
	for i, typ := range refused {
		defs = append(defs, fmt.Sprintf("r%d %s", i, typ))
	}
	execAll(t, db.Conn(), `CREATE TYPE mood AS ENUM ('sad', 'happy')`, `CREATE DOMAIN dom AS bigint`,
		`CREATE TABLE "the types" (`+strings.Join(defs, ", ")+`)`)
	query, args := d.ColumnTypes(engine.Table{Schema: "public", Name: "the types"})
	rows, err := db.Conn().QueryContext(t.Context(), query, args...)
	require.NoError(t, err)
	defer rows.Close()
	var got []string
	for rows.Next() {
		var name, typ string
		require.NoError(t, rows.Scan(&name, &typ))
		got = append(got, typ)
	}
	require.NoError(t, rows.Err())
	require.Len(t, got, len(types)+len(refused))
	for i, want := range types {
		rt, ok := d.ReaderType(got[i])
		require.True(t, ok, got[i])
		if want.Kind == input.Int && want.Bits == 8 {
			want.Bits = 16 // SMALLINT holds every TINYINT
		}
		require.Equal(t, want, rt, "%s (%s)", want, got[i])
		require.Equal(t, d.ColumnType(want), d.ColumnType(rt))
	}
	for i, typ := range got[len(types):] {
		_, ok := d.ReaderType(typ)
		require.False(t, ok, "%s (created as %s)", typ, refused[i])
	}
	// ColumnType's own spellings read back as the catalog's do.
	for _, typ := range types {
		rt, ok := d.ReaderType(d.ColumnType(typ))
		require.True(t, ok, d.ColumnType(typ))
		require.Equal(t, d.ColumnType(typ), d.ColumnType(rt))
	}
	require.Nil(t, d.Limits())
}

// An unqualified table's columns are the current schema's table's, not a
// temporary table's of the same name.
func TestColumnTypesCurrentSchema(t *testing.T) {
	t.Parallel()
	db := open(t, freshDatabase(t))
	execAll(t, db.Conn(), `CREATE TABLE t (a numeric(12,2), b character varying(7))`, `CREATE TEMP TABLE t (z int)`)
	query, args := postgres.Dialect{}.ColumnTypes(engine.Table{Name: "t"})
	rows, err := db.Conn().QueryContext(t.Context(), query, args...)
	require.NoError(t, err)
	defer rows.Close()
	var got []string
	for rows.Next() {
		var name, typ string
		require.NoError(t, rows.Scan(&name, &typ))
		got = append(got, name+" "+typ)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"a numeric(12,2)", "b character varying(7)"}, got)
}
