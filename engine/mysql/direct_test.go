package mysql_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/enginetest"
)

// A first load of a partition job without key loads the file straight into
// the table it builds (a direct first load): no staged copy, no INSERT …
// SELECT. The rows of other partitions and those without a partition value
// (on_null: skip) are deleted from it before it is swapped in, and the
// table, counts and checksum are those a reload through staging gives.
// Where the target's schema does not exist yet, the input is staged as
// before (creating the schema first would change the database for an
// input that may be refused), and the table is the same.
func TestFirstLoadWritesRowsOnce(t *testing.T) {
	e := enginetest.NewEnv(t, harness)
	e.Exec("CREATE DATABASE " + e.Schema)
	e.Write("in/2026-11-28.csv", "order_date,order_id,status\n"+
		"2026-11-28,1,placed\n2026-11-29,2,placed\n2026-11-28,3,\n,4,placed\n2026-11-27,5,shipped\n2026-11-28,6,shipped\n")
	j := e.Job(`job: orders_daily
source:
  files: in/{{ date }}.csv
strategy: partition
partition:
  column: order_date
  on_null: skip
`)
	var stmts []string
	record := func(o *idem.Options) { o.Record = func(q string) { stmts = append(stmts, q) } }
	first := e.MustRun(j, "2026-11-28", record)
	all := strings.Join(stmts, "\n")
	require.Contains(t, all, `LOAD DATA LOCAL INFILE 'Reader::idem_1' INTO TABLE "`+e.Schema+`"."orders__idem_build"`)
	require.NotContains(t, all, `INSERT INTO "`+e.Schema+`"."orders__idem_build"`)
	require.Contains(t, all, `RENAME TABLE "`+e.Schema+`"."orders__idem_build" TO "`+e.Schema+`"."orders"`)
	require.Equal(t, int64(6), first.RowsIn)
	require.Equal(t, int64(3), first.RowsOutOfWindow)
	require.Equal(t, int64(3), first.Inserted)
	require.Equal(t, int64(0), first.Deleted)
	require.Equal(t, int64(3), first.RowCount)
	require.Equal(t, []string{"1|placed", "3|NULL", "6|shipped"}, e.Rows("", "order_id", "status"))
	require.Empty(t, e.Query(`SELECT table_name FROM information_schema.tables WHERE table_schema = '`+e.Schema+`' AND table_name <> 'orders'`))

	stmts = nil
	again := e.MustRun(j, "2026-11-28", record, enginetest.Force)
	require.Contains(t, strings.Join(stmts, "\n"), `INSERT INTO "`+e.Schema+`"."orders"`, "a reload goes through staging")
	require.Equal(t, first.Checksum, again.Checksum)
	require.Equal(t, int64(3), again.Deleted)
	require.Equal(t, int64(3), again.Inserted)
	require.Equal(t, []string{"1|placed", "3|NULL", "6|shipped"}, e.Rows("", "order_id", "status"))

	e.Exec("DROP DATABASE " + e.Schema)
	stmts = nil
	staged := e.MustRun(j, "2026-11-28", record, enginetest.Force)
	all = strings.Join(stmts, "\n")
	require.Contains(t, all, `LOAD DATA LOCAL INFILE 'Reader::idem_1' INTO TABLE "idem_stage"`)
	require.Contains(t, all, `INSERT INTO "`+e.Schema+`"."orders__idem_build"`)
	require.Equal(t, first.Checksum, staged.Checksum)
	require.Equal(t, int64(3), staged.Inserted)
	require.Equal(t, []string{"1|placed", "3|NULL", "6|shipped"}, e.Rows("", "order_id", "status"))
}

// A bad value in a first load straight into the built table is refused
// with its file and line, as through staging, and leaves no table behind.
func TestFirstLoadBadValueLeavesNothing(t *testing.T) {
	e := enginetest.NewEnv(t, harness)
	e.Exec("CREATE DATABASE " + e.Schema)
	p := e.Write("in/2026-11-28.csv", "order_date,order_id,status\n2026-11-28,1,placed\n2026-11-28,x2,placed\n")
	j := e.Job(`job: orders_daily
source:
  files: in/{{ date }}.csv
strategy: partition
partition:
  column: order_date
columns:
  order_id: BIGINT
`)
	_, err := e.Run(j, "2026-11-28")
	require.ErrorContains(t, err, p+" line 3")
	require.Empty(t, e.Query(`SELECT table_name FROM information_schema.tables WHERE table_schema = '`+e.Schema+`'`))
}

// The split checksum is a shortcut: where the server gives the run no
// second connection (max_user_connections 1), the first load takes the
// checksum in one query instead, and reports the same.
func TestFirstLoadOneConnection(t *testing.T) {
	e := enginetest.NewEnv(t, harness)
	e.Exec("CREATE DATABASE " + e.Schema)
	e.Write("in/2026-11-28.csv", "order_date,order_id,status\n2026-11-28,1,placed\n2026-11-28,2,shipped\n2026-11-28,3,placed\n")
	body := `job: orders_daily
source:
  files: in/{{ date }}.csv
strategy: partition
partition:
  column: order_date
`
	var stmts []string
	record := func(o *idem.Options) { o.Record = func(q string) { stmts = append(stmts, q) } }
	split := e.MustRun(e.Job(body), "2026-11-28", record)
	require.Contains(t, strings.Join(stmts, "\n"), "-- partition checksum: 2 queries")
	want := e.Checksum("")
	require.Equal(t, enginetest.Sum{Rows: split.RowCount, Checksum: split.Checksum}, want)

	user := "idem_one_" + e.Schema[len(e.Schema)-8:]
	e.Exec("DROP USER IF EXISTS "+user, "CREATE USER "+user+" WITH MAX_USER_CONNECTIONS 1", "GRANT ALL ON *.* TO "+user)
	root := e.URL
	t.Cleanup(func() { e.URL = root; e.Exec("DROP USER IF EXISTS " + user) })
	e.Exec("DROP DATABASE "+e.Schema, "DELETE FROM idem_runs", "CREATE DATABASE "+e.Schema)
	limited := strings.Replace(root, "root@", user+"@", 1)
	require.Contains(t, limited, user+"@")

	// An account at its limit (other jobs of the user hold its
	// connections) is a target to try again later, as a full server is.
	ctx := context.Background()
	held, err := idem.Open(ctx, limited, e.Dir, time.Minute)
	require.NoError(t, err)
	_, err = idem.Open(ctx, limited, e.Dir, time.Minute)
	require.ErrorIs(t, err, engine.ErrUnavailable)
	require.ErrorContains(t, err, "max_user_connections")
	require.NoError(t, held.Close())
	// The server counts a closed connection until its thread has ended.
	gone := func() bool {
		return e.Query("SELECT count(*) FROM information_schema.processlist WHERE user = ?", user)[0] == "0"
	}
	require.Eventually(t, gone, 10*time.Second, 10*time.Millisecond)

	e.URL = limited
	one := e.MustRun(e.Job(body), "2026-11-28")
	require.Equal(t, "loaded", string(one.Action))
	require.Equal(t, want, enginetest.Sum{Rows: one.RowCount, Checksum: one.Checksum})
}
