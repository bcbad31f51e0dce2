package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/postgres"
	"github.com/idemdata/idem/input"
)

// sourceEdges are values at the edges of each type a source reads, one
// column per type, three rows: the first and the least values, the last
// and the greatest, and NULLs (beside empty text in the first row).
const sourceEdges = `SELECT * FROM (VALUES
 ('-9223372036854775808'::int8, '-2147483648'::int4, '-32768'::int2, 0.1::float4, 1e-300::float8, true,
  ''::text, 'ab'::varchar(5), 'a'::char(3), 'x'::name, '1234567890123456789012345678.1234567890'::numeric(38,10),
  '123456789012345678901234567890123456789012345678901234567890.5'::numeric, '0001-01-01'::date,
  '0001-01-01 00:00:00'::timestamp, '0001-01-01 00:00:00+00'::timestamptz,
  'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, '{"a": [1, 2.50]}'::json, '{"b": 1, "a": "é"}'::jsonb),
 (9223372036854775807, 2147483647, 32767, 3.4028235e38, -0.0, false,
  'héllo ☃ 𝄞 "q" \ tab	end', 'ü', 'é', 'n', '-9999999999999999999999999999.9999999999',
  '0.000', '9999-12-31', '9999-12-31 23:59:59.999999', '9999-12-31 23:59:59.999999+00',
  '00000000-0000-0000-0000-000000000000', '[]', '[null, "x", 1e2]'),
 (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)
) AS v(i8, i4, i2, f4, f8, b, t, vc, bp, nm, n38, n, d, ts, tz, u, j, jb)`

// readBothWays reads q typed and boxed, requires the same rows and
// fingerprint, and returns the rows.
func readBothWays(t *testing.T, url, q string) [][]string {
	t.Helper()
	got, gotFP, err := readSourceTyped(t, url, q)
	require.NoError(t, err)
	want, wantFP, err := readSourceBoxed(t, url, q)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, wantFP, gotFP)
	return got
}

// TestSourceValuesAsDatabaseSQL reads values through ReadSource (pgconn,
// each value decoded typed) and through database/sql's pgx driver (each
// value boxed, as sources were read before): the reader's values, its
// refusals and the fingerprint are the same.
func TestSourceValuesAsDatabaseSQL(t *testing.T) {
	url := freshDatabase(t)
	got := readBothWays(t, url, sourceEdges)
	require.Equal(t, []string{"-9223372036854775808", "-2147483648", "-32768", "0.1", "1e-300", "true",
		"", "ab", "a  ", "x", "1234567890123456789012345678.1234567890",
		"123456789012345678901234567890123456789012345678901234567890.5", "0001-01-01",
		"0001-01-01 00:00:00", "0001-01-01 00:00:00",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", `{"a":[1,2.50]}`, `{"a":"é","b":1}`}, got[0])
	require.Equal(t, "9223372036854775807", got[1][0])
	require.Equal(t, "héllo ☃ 𝄞 \"q\" \\ tab\tend", got[1][6])
	require.Equal(t, "9999-12-31 23:59:59.999999", got[1][14])
	for _, v := range got[2] {
		require.Equal(t, "NULL", v)
	}

	// Many batches: each value's text kept, not the driver's buffer.
	many := `SELECT i, 'row ' || i || repeat('é', i % 7) AS t, i % 3 = 0 AS b FROM generate_series(1, 2 * 65536 + 5) AS i`
	got = readBothWays(t, url, many)
	require.Equal(t, []string{"131077", "row 131077" + strings.Repeat("é", 131077%7), "false"}, got[131076])

	// Times before 1970 and 2000 with a fraction of a second: the wire's
	// count from 2000-01-01 is negative.
	before := `SELECT * FROM (VALUES ('1969-12-31 23:59:59.000001'::timestamp, '1969-12-31 23:59:59.999999+00'::timestamptz, '1999-12-31'::date),
	  ('1999-12-31 23:59:59.5', '0001-01-01 00:00:00.000001+00', '1970-01-01')) AS v(ts, tz, d)`
	got = readBothWays(t, url, before)
	require.Equal(t, []string{"1969-12-31 23:59:59.000001", "1969-12-31 23:59:59.999999", "1999-12-31"}, got[0])

	for _, q := range []string{
		`SELECT * FROM (VALUES ('2026-01-01'::date), ('infinity')) AS v(d)`,
		`SELECT * FROM (VALUES ('2026-01-01'::timestamptz), ('-infinity')) AS v(tz)`,
		`SELECT * FROM (VALUES ('294276-12-31 23:59:59.999999'::timestamp)) AS v(ts)`,
		`SELECT * FROM (VALUES ('4713-01-01 BC'::date)) AS v(d)`,
		`SELECT * FROM (VALUES ('1'::numeric), ('NaN')) AS v(n)`,
		`SELECT * FROM (VALUES ('1'::float8), ('NaN')) AS v(f)`,
	} {
		_, _, gotErr := readSourceTyped(t, url, q)
		_, _, wantErr := readSourceBoxed(t, url, q)
		require.Error(t, gotErr, q)
		require.Equal(t, wantErr, gotErr, q)
	}
}

// readSourceTyped reads query through ReadSource.
func readSourceTyped(t *testing.T, url, query string) ([][]string, string, error) {
	ctx := context.Background()
	db, err := postgres.OpenReadOnly(ctx, url, time.Minute)
	require.NoError(t, err)
	defer db.Close()
	rows, err := db.ReadSource(ctx, query)
	require.NoError(t, err)
	defer rows.Close()
	require.True(t, input.IsTyped(rows))
	return readSource(t, rows)
}

// readSourceBoxed reads query through database/sql, each value boxed.
func readSourceBoxed(t *testing.T, url, query string) ([][]string, string, error) {
	ctx := context.Background()
	db, err := sql.Open("pgx", url)
	require.NoError(t, err)
	defer db.Close()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	require.NoError(t, err)
	rows, err := engine.ReadInTx(ctx, tx, query, func(ct *sql.ColumnType) (input.Type, error) {
		p, s, _ := ct.DecimalSize()
		return postgres.SourceType(ct.Name(), ct.DatabaseTypeName(), int32(p<<16|s)+4)
	}, func(v any) any { return v })
	require.NoError(t, err)
	defer rows.Close()
	return readSource(t, rows)
}

// readSource reads rows with their own types: each row's values as text
// ("NULL" for NULL), the fingerprint, and the reader's error.
func readSource(t *testing.T, rows input.Rows) ([][]string, string, error) {
	hashed := input.HashRows(rows)
	var types []input.Type
	for _, c := range rows.Columns() {
		types = append(types, c.Type)
	}
	r := input.ReadRows(context.Background(), hashed, types, nil)
	defer r.Close()
	var out [][]string
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, hashed.Hash.Fingerprint(), nil
		}
		if err != nil {
			return out, "", err
		}
		for i := 0; i < b.Len; i++ {
			var row []string
			for _, v := range b.Cols {
				s, ok := v.Text(i)
				if !ok {
					s = "NULL"
				}
				row = append(row, s)
			}
			out = append(out, row)
		}
	}
}
