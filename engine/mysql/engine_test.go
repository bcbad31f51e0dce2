package mysql_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/engine/mysql"
	"github.com/idemdata/idem/job"
)

const keyedMerge = `job: orders_merge
source:
  files: in/{{ date }}.csv
strategy: merge
key: [order_id, region]
latest_by: updated_at
`

const mergeInput = "order_id,region,status,updated_at\n1,eu,placed,2026-11-28 08:00:00\n2,us,placed,2026-11-28 08:00:00\n"

// A merge creates the unique index on the key with the table, and gives
// it back to a table idem made that lost it; into a table idem did not make
// and that has none, it is refused before anything changes, and the error
// names the index to add. With the index added, it runs, and its counts
// are exact.
func TestMergeNeedsTheKeyIndex(t *testing.T) {
	keys := func(e *enginetest.Env) []string {
		return e.Query(`SELECT index_name, column_name FROM information_schema.statistics WHERE table_schema = `+e.P(1)+` AND table_name = 'orders' AND non_unique = 0 ORDER BY 1, 2`, e.Schema)
	}
	e := enginetest.NewEnv(t, harness)
	e.Write("in/2026-11-28.csv", mergeInput)
	j := e.Job(keyedMerge)
	e.MustRun(j, "2026-11-28")
	require.Equal(t, []string{"idem_key|order_id", "idem_key|region"}, keys(e))
	e.Exec(`ALTER TABLE ` + e.Sales("orders") + ` DROP INDEX idem_key`)
	e.Write("in/2026-11-29.csv", "order_id,region,status,updated_at\n1,eu,shipped,2026-11-29 08:00:00\n3,eu,placed,2026-11-29 08:00:00\n")
	e.MustRun(j, "2026-11-29")
	require.Equal(t, []string{"idem_key|order_id", "idem_key|region"}, keys(e))

	e = enginetest.NewEnv(t, harness)
	e.Exec(`DROP DATABASE `+e.Schema, `CREATE DATABASE `+e.Schema, `CREATE TABLE `+e.Sales("orders")+` (order_id BIGINT, region VARCHAR(10), status TEXT, updated_at DATETIME)`,
		`INSERT INTO `+e.Sales("orders")+` VALUES (1, 'eu', 'placed', TIMESTAMP '2026-11-28 08:00:00'), (2, 'us', 'placed', TIMESTAMP '2026-11-28 08:00:00')`)
	e.Write("in/2026-11-29.csv", "order_id,region,status,updated_at\n1,eu,shipped,2026-11-29 08:00:00\n3,eu,placed,2026-11-29 08:00:00\n")
	j = e.Job(keyedMerge)
	before := e.Checksum("")
	_, err := e.Run(j, "2026-11-29")
	var je *job.Error
	require.ErrorAs(t, err, &je)
	require.Contains(t, err.Error(), `needs a unique index on its key [order_id region]`)
	addKey := `ALTER TABLE "` + e.Schema + `"."orders" ADD UNIQUE KEY "idem_key" ("order_id", "region")`
	require.Contains(t, err.Error(), addKey)
	require.Equal(t, before, e.Checksum(""), "nothing changed")
	require.Empty(t, keys(e))

	e.Exec(addKey)
	r := e.MustRun(j, "2026-11-29")
	require.Equal(t, int64(1), r.Inserted)
	require.Equal(t, int64(1), r.Updated)
	require.Equal(t, []string{"1|eu|shipped", "2|us|placed", "3|eu|placed"}, e.Rows("", "order_id", "region", "status"))
}

// The driver's DSN form inside a URL is a bad target, refused without
// connecting and without the password.
func TestURLWithDriverDSNIsRefused(t *testing.T) {
	_, err := mysql.Open(t.Context(), "mysql://root:S3cr3t@tcp(h:3306)/w", time.Second)
	require.ErrorIs(t, err, job.ErrURL)
	require.NotContains(t, err.Error(), "S3cr3t")
	require.Contains(t, err.Error(), "mysql://user@host:3306/database")
}

// A key column of a table idem did not make keeps its collation. One that
// ignores case (the server's default) makes abc and ABC one key to the
// table's unique index: `lint --target` names the column, what its
// collation ignores and the ALTER that fixes it; a run that writes both
// fails with a message that says why, and changes nothing. After the
// ALTER, lint finds nothing and the run keeps the two keys apart.
func TestLooseKeyCollation(t *testing.T) {
	const job = `job: orders_merge
source:
  files: in/{{ date }}.csv
strategy: merge
key: [order_code]
latest_by: updated_at
`
	e := enginetest.NewEnv(t, harness)
	e.Exec(`CREATE DATABASE IF NOT EXISTS `+e.Schema,
		`CREATE TABLE `+e.Sales("orders")+` (order_code VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NOT NULL,
  status TEXT, updated_at DATETIME(6), UNIQUE KEY uk (order_code))`)
	e.Write("in/2026-11-28.csv", "order_code,status,updated_at\nabc,placed,2026-11-28 08:00:00\n")
	e.Write("in/2026-11-29.csv", "order_code,status,updated_at\nABC,shipped,2026-11-29 08:00:00\n")
	j := e.Job(job)

	loose, err := idem.LooseKeys(context.Background(), j, time.Minute)
	require.NoError(t, err)
	alter := "ALTER TABLE `" + e.Schema + "`.`orders` MODIFY `order_code` varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL"
	require.Equal(t, []idem.LooseKey{{Table: e.Sales("orders"), Column: "order_code", Collation: "utf8mb4_general_ci",
		Ignores: "case, accents and trailing spaces", Alter: alter}}, loose)

	e.MustRun(j, "2026-11-28")
	before := e.Checksum("")
	_, err = e.Run(j, "2026-11-29")
	require.ErrorContains(t, err, "Duplicate entry 'ABC'")
	require.ErrorContains(t, err, "whose collation ignores case, accents or trailing spaces (idem lint --target names it")
	require.Equal(t, before, e.Checksum(""), "nothing changed")

	e.Exec(alter)
	loose, err = idem.LooseKeys(context.Background(), j, time.Minute)
	require.NoError(t, err)
	require.Empty(t, loose)
	r := e.MustRun(j, "2026-11-29")
	require.Equal(t, int64(1), r.Inserted)
	require.Equal(t, []string{"ABC|shipped", "abc|placed"}, e.Rows("", "order_code", "status"))
}

// partition.timezone converts with CONVERT_TZ, which returns NULL for a
// zone the server's time zone tables do not hold (all of them until the
// tables are loaded): the run is refused as a job-file error naming the
// zone and how to load the tables, before anything is read or written.
// "Factory" is in the system's zoneinfo (Go knows it) and not in the
// tables mysql_tzinfo_to_sql loads.
func TestZoneTheServerDoesNotKnow(t *testing.T) {
	e := enginetest.NewEnv(t, harness)
	e.Write("in/e.csv", "id,ts\n1,2026-11-28T10:00:00Z\n")
	j := e.Job(enginetest.ZonedJob("Factory"))
	tr := e.Trace()
	_, err := e.Run(j, "2026-11-28")
	var je *job.Error
	require.ErrorAs(t, err, &je)
	require.ErrorContains(t, err, `partition.timezone: "Factory" is not a zone the target database knows: the server's time zone tables do not hold it`)
	require.ErrorContains(t, err, "mysql_tzinfo_to_sql /usr/share/zoneinfo | mysql -u root mysql")
	require.Equal(t, tr, e.Trace(), "nothing written")
}
