package duckdb_test

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	duck "github.com/duckdb/duckdb-go/v2"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/duckdb"
	"github.com/idemdata/idem/input"
)

// sourceFile makes a DuckDB file with the statements run in it, and opens
// it read-only as a source is.
func sourceFile(t *testing.T, stmts ...string) *duckdb.DB {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "src.duckdb")
	w, err := duckdb.Open(ctx, path, time.Minute)
	require.NoError(t, err)
	for _, q := range stmts {
		_, err := w.Conn().ExecContext(ctx, q)
		require.NoError(t, err, q)
	}
	require.NoError(t, w.Close())
	db, err := duckdb.OpenReadOnly(ctx, path, time.Minute)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// edgeTable holds each type a source may have at its edges (and NULL),
// 1000 times over: many chunks of DuckDB's 2048 rows.
var edgeTable = []string{
	`CREATE TYPE small AS ENUM ('a', 'b', 'ü')`,
	`CREATE TYPE wide AS ENUM (SELECT 'l' || i FROM range(300) t(i))`,
	`CREATE TABLE edge AS SELECT n * 10 + k AS id, e.* EXCLUDE (k) FROM range(1000) r(n), (VALUES
	 (0, true, (-128)::TINYINT, (-32768)::SMALLINT, (-2147483648)::INTEGER, (-9223372036854775808)::BIGINT,
	  0::UTINYINT, 0::USMALLINT, 0::UINTEGER, 0::UBIGINT, (-170141183460469231731687303715884105728)::HUGEINT,
	  (-3.4e38)::FLOAT, (-1.7e308)::DOUBLE, '', DATE '5877642-06-25 (BC)', TIMESTAMP '290309-12-22 (BC) 00:00:00',
	  TIMESTAMP_S '1677-09-22 00:00:00', TIMESTAMP_MS '1677-09-22 00:00:00', TIMESTAMP_NS '1677-09-22 00:00:00.000000001',
	  TIMESTAMPTZ '0001-01-01 00:00:00+00', (-99.99)::DECIMAL(4,2), (-999999.999)::DECIMAL(9,3),
	  (-99999999999999.9999)::DECIMAL(18,4), (-9999999999999999999999999999.9999999999)::DECIMAL(38,10),
	  UUID '00000000-0000-0000-0000-000000000000', 'a'::small, 'l0'::wide),
	 (1, false, 127::TINYINT, 32767::SMALLINT, 2147483647::INTEGER, 9223372036854775807::BIGINT,
	  255::UTINYINT, 65535::USMALLINT, 4294967295::UINTEGER, 18446744073709551615::UBIGINT,
	  170141183460469231731687303715884105727::HUGEINT, 3.4e38::FLOAT, 1.7e308::DOUBLE, 'twelve bytes',
	  DATE '5881580-07-10', TIMESTAMP '294247-01-10 04:00:54.775806', TIMESTAMP_S '2262-04-11 23:47:16',
	  TIMESTAMP_MS '2262-04-11 23:47:16.854', TIMESTAMP_NS '2262-04-11 23:47:16.854775806',
	  TIMESTAMPTZ '9999-12-31 23:59:59.999999+00', 99.99::DECIMAL(4,2), 999999.999::DECIMAL(9,3),
	  99999999999999.9999::DECIMAL(18,4), 9999999999999999999999999999.9999999999::DECIMAL(38,10),
	  UUID 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'ü'::small, 'l299'::wide),
	 (2, true, 0, 0, 0, 0, 1, 1, 1, 1, 0, (-0.0)::FLOAT, 'NaN'::DOUBLE, 'thirteen byte',
	  DATE 'infinity', TIMESTAMP 'infinity', NULL, NULL, NULL, TIMESTAMPTZ '-infinity', 0, 0, 0, 0.0000000001,
	  UUID 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'b', 'l255'),
	 (3, false, 1, 1, 1, 1, 2, 2, 2, 2, 1, 1.5, 'Infinity'::DOUBLE, 'ünïcødé, long enough to be kept out of line 🦆',
	  DATE '-infinity', TIMESTAMP '-infinity', TIMESTAMP_S '1970-01-01', TIMESTAMP_MS '1970-01-01',
	  TIMESTAMP_NS '1970-01-01', TIMESTAMPTZ '2026-11-28 12:34:56.789012+00', 0.01, 0.001, 0.0001, -0.0000000001,
	  UUID '7fffffff-ffff-ffff-8000-000000000000', NULL, 'l256'),
	 (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
	  NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
	) e(k, b, i8, i16, i32, i64, u8, u16, u32, u64, h, f32, f64, s, d, ts, ts_s, ts_ms, ts_ns, tz, d4, d9, d18, d38, u, en, wen)`,
}

// driverValue is a value as the driver's rows gave it, made plain as the
// source reader did before it streamed.
func driverValue(v any) any {
	switch x := v.(type) {
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case uint8:
		return uint64(x)
	case uint16:
		return uint64(x)
	case uint32:
		return uint64(x)
	case duck.Decimal:
		return input.FormatDecimal(x.Value, int(x.Scale))
	case []byte:
		h := hex.EncodeToString(x)
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	}
	return v
}

// driverRows reads query through database/sql, as the source reader did,
// typing its columns by the names the driver gives their types.
func driverRows(t *testing.T, db *duckdb.DB, query string) ([]input.Column, [][]any) {
	t.Helper()
	rows, err := db.Conn().QueryContext(context.Background(), query)
	require.NoError(t, err)
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	require.NoError(t, err)
	var cols []input.Column
	for _, ct := range cts {
		typ, err := duckdb.SourceType(ct.Name(), ct.DatabaseTypeName())
		require.NoError(t, err)
		cols = append(cols, input.Column{Name: ct.Name(), Type: typ, Fixed: true})
	}
	var all [][]any
	for rows.Next() {
		row := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		for i, v := range row {
			row[i] = driverValue(v)
		}
		all = append(all, row)
	}
	require.NoError(t, rows.Err())
	return cols, all
}

// sourceRows reads query through ReadSource, to its end.
func sourceRows(t *testing.T, db *duckdb.DB, query string) ([]input.Column, [][]any, string) {
	t.Helper()
	src, err := db.ReadSource(context.Background(), query)
	require.NoError(t, err)
	hashed := input.HashRows(src)
	var all [][]any
	for {
		row := make([]any, len(src.Columns()))
		if !hashed.Next(row) {
			break
		}
		all = append(all, row)
	}
	require.NoError(t, hashed.Err())
	require.NoError(t, src.Close())
	return src.Columns(), all, hashed.Hash.Fingerprint()
}

func TestReadSourceReadsAsTheDriver(t *testing.T) {
	db := sourceFile(t, edgeTable...)
	const q = "SELECT * FROM edge ORDER BY id"
	wantCols, want := driverRows(t, db, q)
	cols, got, fp := sourceRows(t, db, q)
	require.Equal(t, wantCols, cols)
	require.Len(t, want, 5000)
	require.Len(t, got, len(want), "every row of every chunk")
	want0 := input.NewRowsHash(wantCols)
	for i := range want {
		for j := range want[i] {
			require.Equal(t, fmt.Sprintf("%T %v", want[i][j], want[i][j]), fmt.Sprintf("%T %v", got[i][j], got[i][j]),
				"row %d column %s", i, cols[j].Name)
		}
		want0.Add(want[i])
	}
	require.Equal(t, want0.Fingerprint(), fp, "the fingerprint of the driver's values")
	require.Equal(t, input.TextType, cols[len(cols)-1].Type, "an ENUM is its label")
	require.Equal(t, input.DecimalType(38, 10), cols[len(cols)-4].Type)
}

func TestReadSourceRefusesTypes(t *testing.T) {
	db := sourceFile(t, `CREATE TABLE t AS SELECT [1, 2] AS l, [1, 2]::INTEGER[2] AS a, INTERVAL 1 DAY AS iv, '{}'::JSON AS j, 1 AS ok`)
	_, err := db.ReadSource(context.Background(), "SELECT * FROM t")
	require.ErrorIs(t, err, engine.ErrSourceType)
	for _, s := range []string{`"l" is INTEGER[]`, `"a" is INTEGER[2]`, `"iv" is INTERVAL`, `"j" is JSON`} {
		require.ErrorContains(t, err, s)
	}
	require.NotContains(t, err.Error(), `"ok"`)
}

func TestReadSourceIsReadOnly(t *testing.T) {
	db := sourceFile(t, `CREATE TABLE t (i INTEGER)`)
	_, err := db.ReadSource(context.Background(), "INSERT INTO t VALUES (1) RETURNING i")
	require.ErrorContains(t, err, "read-only")
	w, err := duckdb.Open(context.Background(), filepath.Join(t.TempDir(), "w.duckdb"), time.Minute)
	require.NoError(t, err)
	defer w.Close()
	_, err = w.ReadSource(context.Background(), "SELECT 1")
	require.ErrorContains(t, err, "OpenReadOnly", "a database opened for writing is no source")
}

// An error past the first chunks ends the rows with that error, never as
// if the rows had ended.
func TestReadSourceErrorMidRead(t *testing.T) {
	db := sourceFile(t)
	src, err := db.ReadSource(context.Background(),
		"SELECT CASE WHEN i = 150000 THEN error('boom at 150000') ELSE i END AS i FROM range(300000) t(i)")
	rows := 0
	if err == nil {
		row := []any{nil}
		for src.Next(row) {
			rows++
		}
		err = src.Err()
		require.NoError(t, src.Close())
	}
	require.Error(t, err, "the rows end with the query's error, not as if read whole")
	require.Less(t, rows, 300000)
	// DuckDB reports the failing thread's error, or (about one run in 20
	// on a busy machine) the interruption of the threads beside it.
	if !strings.Contains(err.Error(), "boom at 150000") {
		require.ErrorContains(t, err, "Interrupted")
	}
}

// A context ended mid-read stops DuckDB's query: the rows end, with
// the context's error, long before the query could have run to its end.
func TestReadSourceCanceledMidRead(t *testing.T) {
	db := sourceFile(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, err := db.ReadSource(ctx, "SELECT i FROM range(10000000000) t(i)")
	require.NoError(t, err)
	row := []any{nil}
	for range 5000 {
		require.True(t, src.Next(row))
	}
	began := time.Now()
	cancel()
	for src.Next(row) {
	}
	require.ErrorIs(t, src.Err(), context.Canceled)
	require.Less(t, time.Since(began), 10*time.Second)
	require.NoError(t, src.Close())

	// canceled while DuckDB runs a blocking operator ahead of the first row
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel2)
	began = time.Now()
	src, err = db.ReadSource(ctx2, "SELECT i FROM range(3000000000) t(i) ORDER BY i DESC")
	if err == nil {
		for src.Next(row) {
		}
		err = src.Err()
		src.Close()
	}
	require.ErrorIs(t, err, context.Canceled)
	require.Less(t, time.Since(began), 20*time.Second)
}

// The rows read are one snapshot: the reading connection is the DB's own
// database (the same file lock), in one transaction.
func TestReadSourceSessionSettings(t *testing.T) {
	db := sourceFile(t)
	_, rows, _ := sourceRows(t, db, "SELECT current_setting('TimeZone'), current_setting('access_mode')")
	require.Equal(t, [][]any{{"UTC", "read_only"}}, rows)
	var sqlRows *sql.Rows // the DB's own connection still works after the read
	sqlRows, err := db.Conn().QueryContext(context.Background(), "SELECT 1")
	require.NoError(t, err)
	require.NoError(t, sqlRows.Close())
}
