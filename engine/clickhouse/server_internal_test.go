package clickhouse

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/ch-go/proto"
	"github.com/ClickHouse/clickhouse-go/v2/lib/column"
	chproto "github.com/ClickHouse/clickhouse-go/v2/lib/proto"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
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

type fakeBatch struct {
	sent *[][][]any
	rows [][]any
	live *int
}

func (b *fakeBatch) Append(v []any) error { b.rows = append(b.rows, append([]any{}, v...)); return nil }
func (b *fakeBatch) Send() error {
	*b.sent = append(*b.sent, b.rows)
	*b.live--
	return nil
}
func (b *fakeBatch) Abort(error) { *b.live-- }

// Rows go in one block per batch of the reader's, each sent before the
// next is opened (one in memory at once); no rows open no block; a NULL
// for a column that is not Nullable stops the load before its batch's
// block opens.
func TestSendRowsInBlocks(t *testing.T) {
	for _, n := range []int{0, 1, input.BatchRows, 2*input.BatchRows + 7} {
		var b strings.Builder
		b.WriteString("id,d\n")
		for i := range n {
			fmt.Fprintf(&b, "%d,%d.25\n", i, i)
		}
		in := scan(t, b.String(), map[string]input.Type{"id": input.BigIntType, "d": input.DecimalType(18, 2)}, nil)
		cols := []engine.Column{{Name: "id", Type: "Int64"}, {Name: "d", Type: "Nullable(Decimal(18, 2))"}}
		var sent [][][]any
		live := 0
		rd := in.Read(t.Context())
		got, err := sendRows(rd, cols, func() (batchSink, error) {
			live++
			require.Equal(t, 1, live, "a block is sent before the next opens")
			return &fakeBatch{sent: &sent, live: &live}, nil
		})
		rd.Close()
		require.NoError(t, err)
		require.Equal(t, int64(n), got)
		require.Len(t, sent, (n+input.BatchRows-1)/input.BatchRows, "%d rows", n)
		total := 0
		for _, blk := range sent {
			for _, row := range blk {
				require.Equal(t, int64(total), row[0])
				require.Equal(t, fmt.Sprintf("%d.25", total), row[1].(decimal.Decimal).StringFixed(2))
				total++
			}
		}
		require.Equal(t, n, total)
	}
	in := scan(t, "id,d\n1,2\n,3\n", map[string]input.Type{"id": input.BigIntType, "d": input.DecimalType(18, 2)}, nil)
	rd := in.Read(t.Context())
	defer rd.Close()
	_, err := sendRows(rd, []engine.Column{{Name: "id", Type: "Int64"}, {Name: "d", Type: "Decimal(18, 2)"}}, func() (batchSink, error) {
		t.Fatal("no block opens for a batch that cannot be sent whole")
		return nil, nil
	})
	require.ErrorContains(t, err, `column "id": the input has an empty value (NULL), which the table's Int64 cannot hold`)
}

// serverBlock appends the reader's rows to a native block of the table's
// columns, as the server path's batches do (clickhouse-go's own columns).
func serverBlock(t *testing.T, in *input.Input, cols []engine.Column) *chproto.Block {
	t.Helper()
	blk := chproto.NewBlock()
	blk.ServerContext = &column.ServerContext{Timezone: time.UTC}
	for _, c := range cols {
		require.NoError(t, blk.AddColumn(c.Name, column.Type(c.Type)), c.Type)
	}
	rd := in.Read(t.Context())
	defer rd.Close()
	_, err := sendRows(rd, cols, func() (batchSink, error) { return blockSink{blk}, nil })
	require.NoError(t, err)
	return blk
}

type blockSink struct{ b *chproto.Block }

func (s blockSink) Append(v []any) error { return s.b.Append(v...) }
func (blockSink) Send() error            { return nil }
func (blockSink) Abort(error)            {}

// Every reader type's values, at the edges the server path holds, go
// into clickhouse-go's columns of the column types and read back as the
// reader's text: what a native block carries. (No server is needed:
// these are clickhouse-go's own encoders.)
func TestServerValuesAppendToColumns(t *testing.T) {
	lim := serverTypes{}.Limits()
	in := scan(t, edgeCSV("2262-04-11 23:47:16.854775", "2262-04-11 23:47:16.854775Z"), edgeTypes, lim)
	cols := newColumns(in)
	blk := serverBlock(t, in, cols)
	w := want(t, in)
	require.Equal(t, len(w), blk.Rows())
	for j, c := range blk.Columns {
		typ := in.Columns[j].Type
		for i := range w {
			got := blockText(c.Row(i, false), typ)
			if w[i][j] == nil {
				require.Nil(t, got, "row %d %s", i+1, c.Name())
				continue
			}
			require.NotNil(t, got, "row %d %s", i+1, c.Name())
			require.Equal(t, *w[i][j], *got, "row %d %s (%s)", i+1, c.Name(), c.Type())
		}
	}
}

// blockText is a value read from a clickhouse-go column as the reader's
// canonical text (nil for NULL).
func blockText(v any, typ input.Type) *string {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return nil
		}
		v = rv.Elem().Interface()
	}
	var s string
	switch x := v.(type) {
	case nil:
		return nil
	case decimal.Decimal:
		s = x.StringFixed(int32(typ.Scale))
	case time.Time:
		if typ.Kind == input.Date {
			s = x.Format("2006-01-02")
		} else {
			s = string(input.AppendTimestamp(nil, x.UnixMicro()))
		}
	case float32:
		s = input.FormatFloat(float64(x), 32)
	case float64:
		s = input.FormatFloat(x, 64)
	default:
		s = fmt.Sprint(x)
	}
	return &s
}

// The server path's limits are real: clickhouse-go writes a DateTime64
// from a time's nanoseconds in an int64, and a time after 2262-04-11
// comes out another time.
func TestServerTimesEndIn2262(t *testing.T) {
	col, err := column.Type("DateTime64(6)").Column("t", &column.ServerContext{Timezone: time.UTC})
	require.NoError(t, err)
	last := input.TimeOf(maxNanoTime)
	past := time.Date(2299, 12, 31, 0, 0, 0, 0, time.UTC)
	require.NoError(t, col.AppendRow(last))
	require.NoError(t, col.AppendRow(past))
	require.True(t, last.Equal(col.Row(0, false).(time.Time)))
	require.False(t, past.Equal(col.Row(1, false).(time.Time)), "clickhouse-go cannot write it")
}

// The block the server path sends, written in ClickHouse's Native format
// and read by ClickHouse itself (chDB), holds the reader's values: the
// server stores what the reader read.
func TestServerBlocksReadByClickHouse(t *testing.T) {
	db := openChDB(t)
	d := Dialect{}
	in := scan(t, edgeCSV("2262-04-11 23:47:16.854775", "2262-04-11 23:47:16.854775Z"), edgeTypes, serverTypes{}.Limits())
	cols := newColumns(in)
	// The existing targets' types too (Decimal32, Decimal256, a zone, 8
	// digits of a second, not Nullable, LowCardinality).
	in2 := scan(t, "id,s,w,paris,ns,d9,f\n1,a,-9999999999999999999999999999.9999999999,2026-03-29 02:30:00.125+01:00,2262-04-11 23:47:16.854775,-9999999.99,0.1\n2,,1,,1900-01-01 00:00:00,0.01,\n",
		map[string]input.Type{"id": {Kind: input.Int, Bits: 32}, "s": input.TextType, "w": input.DecimalType(38, 10),
			"paris": {Kind: input.TimestampTZ, Precision: 3}, "ns": input.TimestampType, "d9": input.DecimalType(9, 2), "f": {Kind: input.Float, Bits: 32}},
		serverTypes{}.Limits())
	cols2 := []engine.Column{{Name: "id", Type: "Int32"}, {Name: "s", Type: "LowCardinality(Nullable(String))"}, {Name: "w", Type: "Nullable(Decimal(76, 10))"},
		{Name: "paris", Type: "Nullable(DateTime64(3, 'Europe/Paris'))"}, {Name: "ns", Type: "DateTime64(8)"}, {Name: "d9", Type: "Decimal(9, 2)"}, {Name: "f", Type: "Nullable(Float32)"}}
	for i, c := range []struct {
		in   *input.Input
		cols []engine.Column
	}{{in, cols}, {in2, cols2}} {
		blk := serverBlock(t, c.in, c.cols)
		var buf proto.Buffer
		require.NoError(t, blk.Encode(&buf, 0))
		path := filepath.Join(t.TempDir(), "block.native")
		require.NoError(t, os.WriteFile(path, buf.Buf, 0o644))
		tbl := engine.Table{Name: fmt.Sprintf("t_native%d", i)}
		defs := make([]string, len(c.cols))
		for j, col := range c.cols {
			defs[j] = d.Ident(col.Name) + " " + col.Type
		}
		exec(t, db.Conn(), "CREATE TABLE "+d.Table(tbl)+" ("+strings.Join(defs, ", ")+") ENGINE = Memory",
			"INSERT INTO "+d.Table(tbl)+" SELECT * FROM file("+d.String(path)+", 'Native')")
		compare(t, c.in, want(t, c.in), readBack(t, db.Conn(), tbl, c.cols))
		exec(t, db.Conn(), "DROP TABLE "+d.Table(tbl))
	}
}
