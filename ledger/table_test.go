package ledger

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
)

// goType is the Go type a write binds for each logical type.
var goType = map[engine.LogicalType]reflect.Type{
	engine.TypeText:    reflect.TypeFor[string](),
	engine.TypeInt64:   reflect.TypeFor[int64](),
	engine.TypeBool:    reflect.TypeFor[bool](),
	engine.TypeInstant: reflect.TypeFor[time.Time](),
}

// checkTable checks what the DDL and the statements rely on: unique names,
// a key of non-null columns, added columns an old table's rows can have,
// and a bound value of the declared type for every column.
func checkTable[R any](t *testing.T, tab table[R], row *R) {
	t.Helper()
	def := tab.def()
	names := def.Names()
	require.Equal(t, names, tab.names())
	require.Len(t, slices.Compact(slices.Sorted(slices.Values(names))), len(names), "column names are unique")
	for _, k := range def.Key {
		i := slices.Index(names, k)
		require.GreaterOrEqual(t, i, 0, "key column %s is a column", k)
		require.False(t, def.Columns[i].Nullable, "key column %s is NOT NULL", k)
		require.Zero(t, def.Columns[i].Added, "key column %s was there from the start", k)
	}
	vals, dest := tab.values(row), tab.dest(row)
	require.Len(t, vals, len(names))
	require.Len(t, dest, len(names))
	for i, c := range def.Columns {
		require.Equal(t, goType[c.Type], reflect.TypeOf(vals[i]), "column %s binds its declared type", c.Name)
		require.Equal(t, reflect.PointerTo(goType[c.Type]), reflect.TypeOf(dest[i]), "column %s scans into its declared type", c.Name)
		if c.Nullable {
			require.Equal(t, engine.TypeText, c.Type, "nullable column %s is text (it reads as '')", c.Name)
		}
		if c.DefaultZero {
			require.Equal(t, engine.TypeInt64, c.Type, "column %s with DEFAULT 0 is an integer", c.Name)
		}
		if c.Added > 0 {
			require.True(t, c.Nullable || c.DefaultZero, "added column %s can be added to a table with rows", c.Name)
		}
	}
}

func TestRunsTable(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 28, 13, 0, 0, 0, time.FixedZone("CET", 3600))
	e := &Entry{Job: "orders", Seq: 3, PartitionClosed: true, StartedAt: at, FinishedAt: at, TargetTable: "main.orders"}
	checkTable(t, runs, e)
	vals := runs.values(e)
	names := runs.names()
	require.Equal(t, "orders", vals[slices.Index(names, "job")])
	require.Equal(t, int64(3), vals[slices.Index(names, "seq")])
	require.Equal(t, true, vals[slices.Index(names, "partition_closed")])
	require.Equal(t, "main.orders", vals[slices.Index(names, "target_table")])
	started := vals[slices.Index(names, "started_at")].(time.Time)
	require.Equal(t, time.UTC, started.Location(), "instants are written in UTC")
	require.True(t, started.Equal(at))

	// Scanning stores into the entry's own fields.
	*(runs.dest(e)[slices.Index(names, "run_id")].(*string)) = "r1"
	require.Equal(t, "r1", e.RunID)

	added := Runs().Added()
	require.Equal(t, []string{"target_table", "deleted_absent", "table_rows", "kept_on_tie", "input_objects", "job_seq"}, engine.TableDef{Columns: added}.Names(), "in the order versions brought them")
}

func TestFailuresTable(t *testing.T) {
	t.Parallel()
	f := &Failure{Job: "orders", Error: "boom", FailedAt: time.Unix(0, 0)}
	checkTable(t, failures, f)
	require.Equal(t, []any{"orders", "", "", int64(0), int64(0), "boom", time.Unix(0, 0).UTC(), ""}, failures.values(f))
	require.Empty(t, Failures().Added())
}
