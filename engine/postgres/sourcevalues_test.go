package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine/postgres"
)

// TestNumericAsPostgreSQLSpellsIt: a source's numeric is read in binary
// and spelled as the server's numeric_out spells it (every digit, the
// display scale's zeros, NaN and the infinities by name), for edge values
// and a sweep of weights, scales and signs.
func TestNumericAsPostgreSQLSpellsIt(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, freshDatabase(t))
	require.NoError(t, err)
	defer conn.Close(ctx)
	q := `SELECT n, CAST(n AS TEXT) FROM (
	  SELECT CAST(v AS NUMERIC) AS n FROM unnest(ARRAY['0', '0.0', '0.000', '-0.5', '1', '-1', '9999', '10000', '10001',
	    '12345678', '0.0001', '0.00001', '-0.00009', '123.4500', '1e20', '1e-20', '-1e-20', '1e-1000', '1e1000',
	    '99999999.99', '123456789012345678901234567890123456789012345678901234567890.5',
	    '1234567890123456789012345678.1234567890', '-9999999999999999999999999999.9999999999',
	    'NaN', 'Infinity', '-Infinity']) AS v
	  UNION ALL SELECT CAST(1.5 AS NUMERIC(12,2))
	  UNION ALL SELECT round((i * 7919 % 1000003) / power(10::numeric, i % 17), i % 11) * (1 - 2 * (i % 2))
	    FROM generate_series(1, 20000) AS i
	  UNION ALL SELECT i * power(10::numeric, i % 40) FROM generate_series(1, 2000) AS i
	) AS s`
	rr := conn.PgConn().ExecParams(ctx, q, nil, nil, nil, []int16{1, 0})
	n := 0
	for rr.NextRow() {
		v := rr.Values()
		got, err := postgres.AppendNumeric(nil, v[0])
		require.NoError(t, err)
		require.Equal(t, string(v[1]), string(got))
		n++
	}
	_, err = rr.Close()
	require.NoError(t, err)
	require.Equal(t, 26+1+20000+2000, n)

	for _, raw := range [][]byte{{0, 0}, {0, 1, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0x12, 0x34, 0, 0}} {
		_, err := postgres.AppendNumeric(nil, raw)
		require.Error(t, err, "%x", raw)
	}
}
