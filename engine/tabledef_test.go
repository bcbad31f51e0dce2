package engine

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCreateTableSQL(t *testing.T) {
	t.Parallel()
	types := ColumnTypes{Text: "STR", Int64: "I8", Bool: "B", Instant: "TS"}
	def := TableDef{
		Columns: []ColumnDef{
			{Name: "k", Type: TypeText},
			{Name: "late", Type: TypeText, Nullable: true, Added: 2},
			{Name: `n"x`, Type: TypeInt64, DefaultZero: true, Added: 1},
			{Name: "ok", Type: TypeBool},
			{Name: "at", Type: TypeInstant},
		},
		Key: []string{"k"},
	}
	require.Equal(t, `CREATE TABLE IF NOT EXISTS "s"."t" (
  "k" STR NOT NULL,
  "late" STR,
  "n""x" I8 NOT NULL DEFAULT 0,
  "ok" B NOT NULL,
  "at" TS NOT NULL,
  PRIMARY KEY ("k")
)`, ANSI{}.CreateTableSQL(Table{Schema: "s", Name: "t"}, def, types))
	require.Equal(t, `"n""x" I8 DEFAULT 0`, ANSI{}.ColumnSQL(def.Columns[2], types, false), "without NOT NULL, for engines that cannot add one")
	require.Equal(t, []string{`n"x`, "late"}, TableDef{Columns: def.Added()}.Names(), "added columns in the order versions brought them")
	require.Empty(t, types.Of(LogicalType(0)))
}
