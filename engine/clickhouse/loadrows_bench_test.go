package clickhouse

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ClickHouse/ch-go/proto"
	"github.com/ClickHouse/clickhouse-go/v2/lib/column"
	chproto "github.com/ClickHouse/clickhouse-go/v2/lib/proto"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

// The loaders on IDEM_BENCH_CSV (the benchmarks' 1M-row orders CSV):
//
//	IDEM_BENCH_CSV=…/orders-1000000.csv go test ./engine/clickhouse -run '^$' -bench 'LoadRows1M|ServerBlocks1M' -benchtime 3x
//
// LoadRows1M: the reader's two passes and LoadRows into a Memory table
// and a MergeTree one, against a bare INSERT INTO t SELECT * FROM
// file(…, CSVWithNames) into a table of the same types (ClickHouse
// parsing the file itself). ServerBlocks1M: the client's side of the
// server path, without the network: the reader, the values appended to
// clickhouse-go's columns, each block encoded as the native protocol
// sends it.

func benchCSV(b *testing.B) string {
	path := os.Getenv("IDEM_BENCH_CSV")
	if path == "" {
		b.Skip("IDEM_BENCH_CSV names a CSV file to read")
	}
	return path
}

func benchOpen(b *testing.B) *DB {
	db, err := Open(context.Background(), filepath.Join(b.TempDir(), "b.chdb"), time.Minute)
	if err != nil {
		b.Skip(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

func BenchmarkLoadRows1M(b *testing.B) {
	path := benchCSV(b)
	db := benchOpen(b)
	ctx := context.Background()
	d := Dialect{}
	q := db.Conn()
	run := func(b *testing.B, stmts ...string) {
		for _, s := range stmts {
			_, err := q.ExecContext(ctx, s)
			require.NoError(b, err, s)
		}
	}
	tbl := engine.Table{Name: "bench"}
	for _, engineClause := range []string{"Memory", "MergeTree ORDER BY tuple()"} {
		b.Run("reader+LoadRows/"+engineClause, func(b *testing.B) {
			var rows int64
			for b.Loop() {
				in, err := input.Scan(ctx, input.Spec{Paths: []string{path}, Format: "csv", Limits: d.Limits()})
				require.NoError(b, err)
				cols := make([]engine.Column, len(in.Columns))
				for i, c := range in.Columns {
					cols[i] = engine.Column{Name: c.Name, Type: d.ColumnType(c.Type)}
				}
				b.StopTimer()
				run(b, "DROP TABLE IF EXISTS "+d.Table(tbl), createTable(tbl, cols, engineClause))
				b.StartTimer()
				rd := in.Read(ctx)
				n, err := db.LoadRows(ctx, q, tbl, cols, rd, nil)
				rd.Close()
				require.NoError(b, err)
				require.Equal(b, in.Rows, n)
				rows += n
			}
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
		})
		b.Run("bare file() CSV/"+engineClause, func(b *testing.B) {
			in, err := input.Scan(ctx, input.Spec{Paths: []string{path}, Format: "csv", Limits: d.Limits()})
			require.NoError(b, err)
			cols := make([]engine.Column, len(in.Columns))
			for i, c := range in.Columns {
				cols[i] = engine.Column{Name: c.Name, Type: d.ColumnType(c.Type)}
			}
			for b.Loop() {
				b.StopTimer()
				run(b, "DROP TABLE IF EXISTS "+d.Table(tbl), createTable(tbl, cols, engineClause))
				b.StartTimer()
				run(b, "INSERT INTO "+d.Table(tbl)+" SELECT * FROM file("+d.String(path)+", CSVWithNames)")
			}
			b.ReportMetric(float64(in.Rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
	run(b, "DROP TABLE IF EXISTS "+d.Table(tbl))
}

func createTable(t engine.Table, cols []engine.Column, engineClause string) string {
	s := Dialect{}.CreateStage(t.Name, cols)[1]
	s = "CREATE TABLE " + s[len("CREATE TEMPORARY TABLE "):]
	return s[:len(s)-len("Memory")] + engineClause
}

func BenchmarkServerBlocks1M(b *testing.B) {
	path := benchCSV(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		in, err := input.Scan(ctx, input.Spec{Paths: []string{path}, Format: "csv", Limits: serverTypes{}.Limits()})
		require.NoError(b, err)
		cols := make([]engine.Column, len(in.Columns))
		for i, c := range in.Columns {
			cols[i] = engine.Column{Name: c.Name, Type: Dialect{}.ColumnType(c.Type)}
		}
		rd := in.Read(ctx)
		var buf proto.Buffer
		bytes := 0
		n, err := sendRows(rd, cols, func() (batchSink, error) {
			blk := chproto.NewBlock()
			blk.ServerContext = &column.ServerContext{Timezone: time.UTC}
			for _, c := range cols {
				if err := blk.AddColumn(c.Name, column.Type(c.Type)); err != nil {
					return nil, err
				}
			}
			return encodeSink{blockSink{blk}, &buf, &bytes}, nil
		})
		rd.Close()
		require.NoError(b, err)
		require.Equal(b, in.Rows, n)
		b.ReportMetric(float64(bytes)/1e6, "MB_encoded/op")
	}
}

// encodeSink encodes its block when sent, as the native protocol would.
type encodeSink struct {
	blockSink
	buf   *proto.Buffer
	bytes *int
}

func (s encodeSink) Send() error {
	s.buf.Reset()
	if err := s.b.Encode(s.buf, 0); err != nil {
		return err
	}
	*s.bytes += len(s.buf.Buf)
	return nil
}
