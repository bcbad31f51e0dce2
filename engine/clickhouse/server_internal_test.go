package clickhouse

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/column"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/source/filereader"
)

// The server's session settings are chDB's, each one, with its value.
func TestServerSettingsAreChDBs(t *testing.T) {
	got := SessionSettings()
	require.Len(t, got, len(settings))
	for name, want := range map[string]any{
		"session_timezone": "UTC", "join_use_nulls": 1, "cast_keep_nullable": 1,
		"insert_null_as_default": 0, "final": 1, "mutations_sync": 2, "lightweight_deletes_sync": 2,
	} {
		require.Equal(t, want, got[name], name)
	}
	for _, q := range settings {
		name, _, _ := strings.Cut(strings.TrimPrefix(q, "SET "), " = ")
		require.Contains(t, got, name)
	}
}

// Values clickhouse-go reads come out as chDB's driver gives them.
func TestNormalize(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	at := time.Date(2026, 11, 28, 1, 30, 0, 0, berlin)
	s := "x"
	huge, _ := new(big.Int).SetString("170141183460469231731687303715884105727", 10)
	for _, c := range []struct {
		in   any
		typ  string
		want any
	}{
		{nil, "Nullable(Int64)", nil},
		{(*string)(nil), "Nullable(String)", nil},
		{&s, "Nullable(String)", "x"},
		{int8(-3), "Int8", int64(-3)},
		{uint32(7), "UInt32", int64(7)},
		{uint64(math.MaxUint64), "UInt64", "18446744073709551615"},
		{big.NewInt(42), "Int128", int64(42)},
		{huge, "Int128", "170141183460469231731687303715884105727"},
		{*big.NewInt(-5), "Int256", int64(-5)},
		{float32(0.1), "Float32", 0.1},
		{1.5, "Float64", 1.5},
		{true, "Bool", true},
		{[]byte("b"), "String", "b"},
		{decimal.New(150, -2), "Decimal(10, 2)", "1.5"},
		{uuid.MustParse("6f1c1d7a-0000-4000-8000-000000000001"), "UUID", "6f1c1d7a-0000-4000-8000-000000000001"},
		// A DateTime without a zone is the sessions' UTC wall clock; a
		// date is its calendar day; a DateTime with a zone keeps it.
		{at, "DateTime64(6)", at.UTC()},
		{time.Date(2026, 11, 28, 0, 0, 0, 0, berlin), "Nullable(Date32)", time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)},
		{at, "DateTime64(6, 'Europe/Berlin')", at},
	} {
		got := Normalize(c.in, c.typ)
		if want, ok := c.want.(time.Time); ok {
			require.True(t, want.Equal(got.(time.Time)) && want.Location().String() == got.(time.Time).Location().String(), "%v %s: %v", c.in, c.typ, got)
			continue
		}
		require.Equal(t, c.want, got, "%v (%T) %s", c.in, c.in, c.typ)
	}
}

// serverStage stages text-travelling columns as String and converts them
// once loaded; the others as they are, all Nullable.
func TestServerStage(t *testing.T) {
	create, alters := serverStage("idem_stage", []filereader.Column{
		{Name: "id", Type: "Nullable(Int64)"},
		{Name: "big", Type: "Nullable(Int128)", Text: true},
		{Name: "tags", Type: "Nullable(String)", Text: true},
		{Name: "ip", Type: "IPv4", Text: true, Unknown: true},
	})
	require.Equal(t, []string{
		`DROP TABLE IF EXISTS "idem_stage"`,
		`CREATE TEMPORARY TABLE "idem_stage" ("id" Nullable(Int64), "big" Nullable(String), "tags" Nullable(String), "ip" Nullable(String)) ENGINE = Memory`,
	}, create)
	require.Equal(t, []string{
		`ALTER TABLE "idem_stage" MODIFY COLUMN "big" Nullable(Int128)`,
		`ALTER TABLE "idem_stage" MODIFY COLUMN "ip" Nullable(IPv4)`,
	}, alters)
}

type fakeRows struct {
	rows [][]any
	i    int
	err  error
}

func (r *fakeRows) Next() bool {
	if r.i >= len(r.rows) {
		return false
	}
	r.i++
	return true
}
func (r *fakeRows) Values() ([]any, error) { return append([]any{}, r.rows[r.i-1]...), nil }
func (r *fakeRows) Err() error             { return r.err }

type fakeBatch struct {
	sent *[][][]any
	rows [][]any
	live *int
}

func (b *fakeBatch) Append(v []any) error { b.rows = append(b.rows, v); return nil }
func (b *fakeBatch) Send() error {
	*b.sent = append(*b.sent, b.rows)
	*b.live--
	return nil
}

// Rows go in batches of at most per rows, each sent before the next is
// opened (one in memory at once); no rows open no batch; a reader error
// stops the load.
func TestSendRowsInBatches(t *testing.T) {
	for _, n := range []int{0, 1, 3, 4, 7} {
		src := &fakeRows{}
		for i := range n {
			src.rows = append(src.rows, []any{int64(i), filereader.Decimal{Value: big.NewInt(int64(i) * 125), Scale: 2}})
		}
		var sent [][][]any
		live := 0
		cols := []filereader.Column{{Name: "id", Type: "Nullable(Int64)"}, {Name: "d", Type: "Nullable(Decimal(18, 2))"}}
		err := sendRows(src, cols, func() (batchSink, error) {
			live++
			require.Equal(t, 1, live, "a batch is sent before the next opens")
			return &fakeBatch{sent: &sent, live: &live}, nil
		}, 3)
		require.NoError(t, err)
		require.Len(t, sent, (n+2)/3, "%d rows", n)
		total := 0
		for _, b := range sent {
			require.LessOrEqual(t, len(b), 3)
			for _, row := range b {
				require.Equal(t, int64(total), row[0])
				require.Equal(t, decimal.New(int64(total)*125, -2).String(), row[1].(decimal.Decimal).String())
				total++
			}
		}
		require.Equal(t, n, total)
	}
	boom := errors.New("bad line 3")
	err := sendRows(&fakeRows{rows: [][]any{{1}}, err: boom}, []filereader.Column{{Name: "x", Type: "Int64"}}, func() (batchSink, error) {
		var sent [][][]any
		live := 1
		return &fakeBatch{sent: &sent, live: &live}, nil
	}, 10)
	require.ErrorIs(t, err, boom)
}

// Every type the reader stages reaches clickhouse-go's columns of the
// staged type and reads back as the value: the native block the server
// receives holds the input's values. (No server is needed: these are
// clickhouse-go's own encoders.)
func TestServerValuesAppendToStagedColumns(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "in.csv")
	require.NoError(t, os.WriteFile(path, []byte(
		"b,i8,i16,i32,i64,u8,u16,u32,u64,f32,f64,s,d,ts,tstz,dec,decw,uid,h\n"+
			"true,-8,-16,-32,-9223372036854775808,255,65535,4294967295,18446744073709551615,0.5,2.25,\"a,\"\"b\",2026-11-28,2026-11-28 13:45:01.123456,2026-11-28 13:45:01+02,123.456,12345678901234567890.1234567891,6f1c1d7a-0000-4000-8000-000000000001,-170141183460469231731687303715884105728\n"+
			",,,,,,,,,,,,,,,,,,\n"), 0o644))
	types := map[string]string{"b": "BOOLEAN", "i8": "TINYINT", "i16": "SMALLINT", "i32": "INTEGER", "i64": "BIGINT",
		"u8": "UTINYINT", "u16": "USMALLINT", "u32": "UINTEGER", "u64": "UBIGINT", "f32": "FLOAT", "f64": "DOUBLE",
		"s": "VARCHAR", "d": "DATE", "ts": "TIMESTAMP", "tstz": "TIMESTAMPTZ", "dec": "DECIMAL(10,3)",
		"decw": "DECIMAL(38,10)", "uid": "UUID", "h": "HUGEINT"}
	rd, err := filereader.Open(ctx)
	require.NoError(t, err)
	defer rd.Close()
	src, err := rd.Describe(ctx, engine.FileInput{Paths: []string{path}, Format: "csv", Delim: ",", Types: types}, chTypes{})
	require.NoError(t, err)
	rows, err := src.Rows(ctx)
	require.NoError(t, err)
	defer rows.Close()
	cols := make([]column.Interface, len(src.Columns))
	for i, c := range src.Columns {
		typ := c.Type
		if c.Text {
			typ = "Nullable(String)" // as serverStage stages it
		}
		cols[i], err = column.Type(typ).Column(c.Name, &column.ServerContext{Timezone: time.UTC})
		require.NoError(t, err, typ)
	}
	for rows.Next() {
		vals, err := rows.Values()
		require.NoError(t, err)
		for i, v := range ServerValues(vals, src.Columns) {
			require.NoError(t, cols[i].AppendRow(v), "%s %T", src.Columns[i].Name, v)
		}
	}
	require.NoError(t, rows.Err())
	want := []string{"true", "-8", "-16", "-32", "-9223372036854775808", "255", "65535", "4294967295",
		"18446744073709551615", "0.5", "2.25", `a,"b`, "2026-11-28 00:00:00 +0000 UTC",
		"2026-11-28 13:45:01.123456 +0000 UTC", "2026-11-28 11:45:01 +0000 UTC", "123.456",
		"12345678901234567890.1234567891", "6f1c1d7a-0000-4000-8000-000000000001",
		"-170141183460469231731687303715884105728"}
	for i, c := range cols {
		require.Equal(t, 2, c.Rows(), c.Name())
		got := Normalize(c.Row(0, true), string(c.Type()))
		if tm, ok := got.(time.Time); ok {
			got = tm.UTC().String()
		}
		require.Equal(t, want[i], toText(got), "%s (%s)", c.Name(), c.Type())
		require.Nil(t, Normalize(c.Row(1, true), string(c.Type())), "%s: NULL stays NULL", c.Name())
	}
}

func toText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return "NULL"
	}
	return strings.TrimSpace(strings.ReplaceAll(strings.Trim(strings.ReplaceAll(fmtAny(v), "\n", " "), " "), "  ", " "))
}

func fmtAny(v any) string { return fmt.Sprint(v) }
