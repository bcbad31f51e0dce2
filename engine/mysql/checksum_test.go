package mysql_test

import (
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/engine/mysql"
	"github.com/idemdata/idem/source"
)

const checksumJob = `job: orders_daily
source:
  files: in/{{ date }}.csv
strategy: partition
partition:
  column: order_date
columns:
  amount: DECIMAL(12,2)
`

const checksumInput = "order_date,order_id,status,amount,updated_at\n" +
	"2026-11-28,1,placed,10.50,2026-11-28 08:00:00\n" +
	"2026-11-28,2,,20.00,2026-11-28 09:00:00\n" +
	"2026-11-28,3,shipped,,2026-11-28 10:00:00\n"

// legacyChecksum is the partition's checksum as idem stored it before the
// CRC checksum (MD5's, reduced modulo 2^64 to 16 hex digits, untagged).
func legacyChecksum(t *testing.T, e *enginetest.Env, from string, cols []engine.Column, where string) (int64, string) {
	t.Helper()
	row := e.Query(mysql.Dialect{}.Checksum(from, cols, where))
	require.Len(t, row, 1)
	n, sum, _ := strings.Cut(row[0], "|")
	v, ok := new(big.Int).SetString(sum, 10)
	require.True(t, ok, sum)
	v.Mod(v, new(big.Int).Lsh(big.NewInt(1), 64))
	var count int64
	_, err := fmt.Sscan(n, &count)
	require.NoError(t, err)
	return count, fmt.Sprintf("%016x", v)
}

// A ledger written before the checksum changed (MD5's, untagged) still
// matches an unchanged partition: a rerun of the same input is skipped,
// not reloaded as if the partition had been changed; a changed partition
// is still found and reloaded, and the new ledger row carries the new
// function's tag.
func TestChecksumUpgradeKeepsLedgers(t *testing.T) {
	e := enginetest.NewEnv(t, harness)
	e.Write("in/2026-11-28.csv", checksumInput)
	j := e.Job(checksumJob)
	first := e.MustRun(j, "2026-11-28")
	require.True(t, strings.HasPrefix(first.Checksum, "v2:"), first.Checksum)
	require.Equal(t, "v2:", first.Checksum[:3])

	// The ledger row as the previous version wrote it.
	cols := []engine.Column{{Name: "order_date", Type: "DATE"}, {Name: "order_id", Type: "BIGINT"}, {Name: "status", Type: "TEXT"},
		{Name: "amount", Type: "DECIMAL"}, {Name: "updated_at", Type: "DATETIME"}}
	where := `"order_date" >= DATE '2026-11-28' AND "order_date" < DATE '2026-11-29'`
	n, old := legacyChecksum(t, e, `"`+e.Schema+`"."orders"`, cols, where)
	require.Equal(t, int64(3), n)
	require.NotEqual(t, first.Checksum, old)
	e.Exec(fmt.Sprintf(`UPDATE idem_runs SET checksum = '%s' WHERE run_id = '%s'`, old, first.RunID))

	again := e.MustRun(j, "2026-11-28")
	require.Equal(t, "skipped", string(again.Action), again.Reloaded)
	require.Equal(t, old, again.Checksum)

	// Someone changes a row: the old checksum no longer matches, and the
	// run loads the partition again.
	e.Exec(`UPDATE ` + e.Sales("orders") + ` SET status = 'lost' WHERE order_id = 2`)
	reload := e.MustRun(j, "2026-11-28")
	require.Equal(t, "loaded", string(reload.Action))
	require.Contains(t, reload.Reloaded, "the partition changed since run")
	require.Equal(t, first.Checksum, reload.Checksum, "the same rows as the first load")
	require.Equal(t, []string{first.Checksum}, e.Query(`SELECT checksum FROM idem_runs WHERE run_id = ?`, first.RunID))
	require.Equal(t, "skipped", string(e.MustRun(j, "2026-11-28").Action))
}

// A query's rows are fingerprinted with the legacy checksum: the run id
// (job, partition, definition, fingerprint) does not change with idem's
// version, so a rerun after an upgrade is still the same run.
func TestQueryRunIDKeepsLegacyFingerprint(t *testing.T) {
	e := enginetest.NewEnv(t, harness)
	e.Exec(`CREATE TABLE raw_orders (order_date DATE, order_id BIGINT, status TEXT)`,
		`INSERT INTO raw_orders VALUES (DATE '2026-11-28', 1, 'placed'), (DATE '2026-11-28', 2, NULL)`)
	j := e.Job(`job: orders_q
source:
  query: SELECT order_date, order_id, status FROM raw_orders WHERE order_date >= {{ start }} AND order_date < {{ end }}
strategy: partition
partition:
  column: order_date
`)
	r := e.MustRun(j, "2026-11-28")
	n, sum := legacyChecksum(t, e, `(SELECT order_date, order_id, status FROM raw_orders) AS x`,
		[]engine.Column{{Name: "order_date", Type: "DATE"}, {Name: "order_id", Type: "BIGINT"}, {Name: "status", Type: "TEXT"}}, "")
	require.Equal(t, int64(2), n)
	require.Equal(t, source.FingerprintRows(n, sum), r.InputFingerprint)
	require.Equal(t, source.RunID(j.Name, "2026-11-28", j.DefinitionHash(), r.InputFingerprint), r.RunID)
	require.True(t, strings.HasPrefix(r.Checksum, "v2:"), r.Checksum)
}
