package mysql_test

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/engine/mysql"
	"github.com/idemdata/idem/runner"
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
	require.Equal(t, runner.FingerprintRows(n, sum), r.InputFingerprint)
	require.Equal(t, runner.RunID(j.Name, "2026-11-28", j.DefinitionHash(), r.InputFingerprint), r.RunID)
	require.True(t, strings.HasPrefix(r.Checksum, "v2:"), r.Checksum)
}

// The row text hashed skips the character-set conversion for numbers and
// times (CAST AS BINARY, IFNULL): it must be byte for byte the text the
// checksums already in ledgers were taken of (CAST AS CHAR, COALESCE), for
// every type a target can have, or every stored checksum would stop
// matching. Types are read as the runner reads them (the driver's names).
func TestRowTextBytesUnchanged(t *testing.T) {
	e := enginetest.NewEnv(t, harness)
	e.Exec(`CREATE TABLE typed (
  ti TINYINT, si SMALLINT UNSIGNED, mi MEDIUMINT, i INT, bi BIGINT, ub BIGINT UNSIGNED,
  de DECIMAL(30,10), fl FLOAT, db DOUBLE, d DATE, dt DATETIME, dt6 DATETIME(6), ts TIMESTAMP(3) NULL,
  tm TIME(6), y YEAR, b BIT(8), bo BOOLEAN, l1 VARCHAR(20) CHARACTER SET latin1, u TEXT, en ENUM('a','é'),
  js JSON, bin VARBINARY(8))`)
	rnd := rand.New(rand.NewPCG(1, 2))
	var rows []string
	rows = append(rows, "("+strings.TrimSuffix(strings.Repeat("NULL, ", 22), ", ")+")",
		`(-128, 65535, -8388608, -2147483648, -9223372036854775808, 18446744073709551615, -99999999999999999999.9999999999,
  -3.4e38, -1.7976931348623157e308, '1000-01-01', '9999-12-31 23:59:59', '2026-11-28 00:00:00.000001', '2038-01-19 03:14:07.999',
  '-838:59:59.999999', 1901, b'11111111', 1, 'façade', 'naïve ☃ 𝄞', 'é', '{"a": [1, "é"]}', x'00ff')`,
		`(0, 0, 0, 0, 0, 0, 0, 0, 0, '2026-11-28', '2026-11-28 00:00:00', '2026-11-28 00:00:00', '1970-01-01 00:00:01',
  '00:00:00', 2155, b'0', 0, '', '', 'a', '[]', x'')`)
	for range 300 {
		rows = append(rows, fmt.Sprintf(`(%d, %d, %d, %d, %d, %d, %d.%010d, %g, %g, DATE '2026-01-01' + INTERVAL %d DAY,
  TIMESTAMP '2026-01-01 00:00:00' + INTERVAL %d SECOND, TIMESTAMP '2026-01-01 00:00:00' + INTERVAL %d MICROSECOND, NULL,
  SEC_TO_TIME(%d), %d, %d, %d, 'x%dé', 'v%d ☃', 'a', '{"n": %g}', x'%02x')`,
			rnd.IntN(256)-128, rnd.IntN(65536), rnd.IntN(1<<23)-1<<22, rnd.Int32(), rnd.Int64()-1<<62, rnd.Uint64()>>1,
			rnd.IntN(1e9)-5e8, rnd.IntN(1e9), rnd.Float32()*1e6, rnd.NormFloat64()*1e-5, rnd.IntN(3000),
			rnd.IntN(1e9), rnd.Int64N(1e15), rnd.IntN(3e6)-15e5, 1901+rnd.IntN(255), rnd.IntN(256), rnd.IntN(2),
			rnd.IntN(1000), rnd.IntN(1000), rnd.NormFloat64(), rnd.IntN(256)))
	}
	e.Exec(`INSERT INTO typed VALUES ` + strings.Join(rows, ",\n"))

	var cols []engine.Column
	e.DB(func(ctx context.Context, db engine.DB) {
		r, err := db.Conn().QueryContext(ctx, `SELECT * FROM typed LIMIT 0`)
		require.NoError(t, err)
		defer r.Close()
		types, err := r.ColumnTypes()
		require.NoError(t, err)
		for _, c := range types {
			cols = append(cols, engine.Column{Name: c.Name(), Type: c.DatabaseTypeName()})
		}
	})
	require.Len(t, cols, 22)
	d := mysql.Dialect{}
	for _, c := range cols {
		// Each column alone, so a failure names it.
		old := oldParts(d, []engine.Column{c})[0]
		got := e.Query(fmt.Sprintf(`SELECT count(*), count(CASE WHEN CAST(%s AS BINARY) <> CAST(concat_ws(char(31), %s) AS BINARY) THEN 1 END) FROM typed`,
			d.RowText([]engine.Column{c}), old))
		require.Equal(t, []string{"303|0"}, got, "column %s (%s)", c.Name, c.Type)
	}
	require.Equal(t, []string{"303"}, e.Query(fmt.Sprintf(`SELECT count(*) FROM typed WHERE CAST(%s AS BINARY) = CAST(concat_ws(char(31), %s) AS BINARY)`,
		d.RowText(cols), strings.Join(oldParts(d, cols), ", "))))
}

// oldParts is each column's text as the checksums in ledgers took it.
func oldParts(d mysql.Dialect, cols []engine.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		v := "CAST(" + d.Ident(c.Name) + " AS CHAR)"
		if c.Type == "BOOLEAN" { // BIT(n), as the driver wrapper names it
			v = fmt.Sprintf("CASE WHEN %s THEN 'true' WHEN NOT %s THEN 'false' END", d.Ident(c.Name), d.Ident(c.Name))
		}
		out[i] = "coalesce(" + v + ", char(30))"
	}
	return out
}

// A checksum split over connections is the one query's, count and sum,
// whatever the spread column holds: NULLs (the first share), one value
// for every row (one share holds them all), or no row in the window.
func TestChecksumSplitIsOneQuerys(t *testing.T) {
	url := testDatabase(t)
	ctx := context.Background()
	db, err := mysql.Open(ctx, url, time.Minute)
	require.NoError(t, err)
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE s (id BIGINT, same INT, d DATE, ts DATETIME(6), name TEXT, x DOUBLE)`,
		`INSERT INTO s SELECT IF(seq % 7 = 0, NULL, seq), 5, DATE '2026-11-28', TIMESTAMP '2026-11-28 00:00:00' + INTERVAL seq SECOND,
  IF(seq % 5 = 0, NULL, concat('n', seq)), seq / 3 FROM seq_1_to_5000`,
	} {
		_, err := db.Conn().ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	all := []engine.Column{{Name: "id", Type: "BIGINT"}, {Name: "same", Type: "INT"}, {Name: "d", Type: "DATE"},
		{Name: "ts", Type: "DATETIME"}, {Name: "name", Type: "TEXT"}, {Name: "x", Type: "DOUBLE"}}
	for _, tc := range []struct {
		name  string
		cols  []engine.Column
		where string
		rows  int64
	}{
		{"spread by id, NULLs among it", all, `"d" = DATE '2026-11-28'`, 5000},
		{"one value: one share holds all", all[1:3], "", 5000},
		{"text", all[4:5], `"ts" < TIMESTAMP '2026-11-28 00:10:00'`, 599},
		{"no row", all, `"d" > DATE '2026-11-28'`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n int64
			var one string
			require.NoError(t, db.Conn().QueryRowContext(ctx, db.SQL().Check.Checksum(`"s"`, tc.cols, tc.where)).Scan(&n, &one))
			require.Equal(t, tc.rows, n)
			var ran []string
			sn, split, err := db.ChecksumSplit(ctx, `"s"`, tc.cols, tc.where, func(q string) { ran = append(ran, q) })
			require.NoError(t, err)
			require.Len(t, ran, 2)
			require.Equal(t, n, sn)
			require.Equal(t, one, split)
		})
	}
}
