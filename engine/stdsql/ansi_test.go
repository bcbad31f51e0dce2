package stdsql

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
)

func TestCreateTableSQL(t *testing.T) {
	t.Parallel()
	types := engine.ColumnTypes{Text: "STR", Int64: "I8", Bool: "B", Instant: "TS"}
	def := engine.TableDef{
		Columns: []engine.ColumnDef{
			{Name: "k", Type: engine.TypeText},
			{Name: "late", Type: engine.TypeText, Nullable: true, Added: 2},
			{Name: `n"x`, Type: engine.TypeInt64, DefaultZero: true, Added: 1},
			{Name: "ok", Type: engine.TypeBool},
			{Name: "at", Type: engine.TypeInstant},
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
)`, ANSI{}.CreateTableSQL(engine.Table{Schema: "s", Name: "t"}, def, types))
	require.Equal(t, `"n""x" I8 DEFAULT 0`, ANSI{}.ColumnSQL(def.Columns[2], types, false), "without NOT NULL, for engines that cannot add one")
	require.Equal(t, []string{`n"x`, "late"}, engine.TableDef{Columns: def.Added()}.Names(), "added columns in the order versions brought them")
	require.Empty(t, types.Of(engine.LogicalType(0)))
}

func TestPartitionStart(t *testing.T) {
	t.Parallel()
	a := ANSI{}
	require.Equal(t, `"d"`, a.PartitionStart(`"d"`, engine.KindDate, "day", ""))
	require.Equal(t, `CAST(date_trunc('month', "d") AS DATE)`, a.PartitionStart(`"d"`, engine.KindDate, "month", ""))
	require.Equal(t, `date_trunc('hour', "ts")`, a.PartitionStart(`"ts"`, engine.KindTimestamp, "hour", ""))
	require.Equal(t, `date_trunc('day', "ts" AT TIME ZONE 'UTC')`, a.PartitionStart(`"ts"`, engine.KindTimestampTZ, "day", ""))
	require.Equal(t, `date_trunc('day', "ts" AT TIME ZONE 'Europe/Berlin')`, a.PartitionStart(`"ts"`, engine.KindTimestampTZ, "day", "Europe/Berlin"))
}
