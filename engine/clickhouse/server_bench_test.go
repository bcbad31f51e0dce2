package clickhouse_test

import (
	"context"
	"testing"
	"time"

	"github.com/ClickHouse/ch-go/proto"
	"github.com/ClickHouse/clickhouse-go/v2/lib/column"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/clickhouse"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/source/filereader"
)

// BenchmarkServerBlocks1M is the client's side of staging 1M CSV rows on
// a server, without the network: the embedded DuckDB reads the file, the
// values are converted (ServerValues) and appended to clickhouse-go's
// columns of the staged types, and each block of filereader.BatchRows
// rows is encoded as the native protocol sends it.
//
//	go test ./engine/clickhouse -run '^$' -bench ServerBlocks1M -benchtime 3x
func BenchmarkServerBlocks1M(b *testing.B) {
	ctx := context.Background()
	path := enginetest.OrdersCSV(b, 1_000_000)
	b.ReportAllocs()
	for b.Loop() {
		rd, err := filereader.Open(ctx)
		require.NoError(b, err)
		src, err := rd.Describe(ctx, engine.FileInput{Paths: []string{path}, Format: "csv", Delim: ","}, clickhouse.ChTypes)
		require.NoError(b, err)
		rows, err := src.Rows(ctx)
		require.NoError(b, err)
		cols := make([]column.Interface, len(src.Columns))
		newBlock := func() {
			for i, c := range src.Columns {
				typ := c.Type
				if c.Text {
					typ = "Nullable(String)"
				}
				cols[i], err = column.Type(typ).Column(c.Name, &column.ServerContext{Timezone: time.UTC})
				require.NoError(b, err)
			}
		}
		newBlock()
		var buf proto.Buffer
		n, bytes := 0, 0
		for rows.Next() {
			vals, err := rows.Values()
			require.NoError(b, err)
			for i, v := range clickhouse.ServerValues(vals, src.Columns) {
				require.NoError(b, cols[i].AppendRow(v))
			}
			if n++; n%filereader.BatchRows == 0 {
				buf.Reset()
				for _, c := range cols {
					c.Encode(&buf)
				}
				bytes += len(buf.Buf)
				newBlock()
			}
		}
		require.NoError(b, rows.Err())
		require.Equal(b, 1_000_000, n)
		b.ReportMetric(float64(bytes)/1e6, "MB_encoded/op")
		rows.Close()
		rd.Close()
	}
}
