// Package baseline is idem-bench's ClickHouse baseline: ClickHouse's own
// readers, and a ReplacingMergeTree for newest-wins, on a chDB folder.
package baseline

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/idemdata/idem/engine/bench"
	"github.com/idemdata/idem/engine/clickhouse"
)

func init() { bench.Register("clickhouse", ch{}) }

type ch struct{}

// chType is the column type idem stages a column as on ClickHouse.
func chType(typ string) string {
	switch typ {
	case "BIGINT":
		return "Nullable(Int64)"
	case "DATE":
		return "Nullable(Date32)"
	case "VARCHAR":
		return "Nullable(String)"
	case "DECIMAL(12,2)":
		return "Nullable(Decimal(12,2))"
	case "TIMESTAMP":
		return "Nullable(DateTime64(6))"
	}
	return typ
}

// create is the benchmark's table. A load's is a MergeTree partitioned by
// day, as idem creates; a merge's bare table is what a ClickHouse user
// writes for newest-wins: a ReplacingMergeTree on the key with updated_at
// as its version, read with FINAL.
func create(table string, replacing bool) string {
	defs := make([]string, len(bench.Columns))
	for i, c := range bench.Columns {
		typ := chType(c[1])
		if replacing && (c[0] == "order_id" || c[0] == "updated_at") {
			typ = strings.TrimSuffix(strings.TrimPrefix(typ, "Nullable("), ")")
		}
		defs[i] = bench.Ident(c[0]) + " " + typ
	}
	engine := "MergeTree PARTITION BY " + bench.Ident("order_date") + " ORDER BY tuple() SETTINGS allow_nullable_key = 1"
	if replacing {
		engine = fmt.Sprintf("ReplacingMergeTree(%s) ORDER BY %s", bench.Ident("updated_at"), bench.Ident("order_id"))
	}
	return fmt.Sprintf("CREATE TABLE %s (%s) ENGINE = %s", bench.Ident(table), strings.Join(defs, ", "), engine)
}

// read is ClickHouse's own reader of a file.
func read(format, file string) string {
	f := map[string]string{"csv": "CSVWithNames", "parquet": "Parquet", "jsonl": "JSONEachRow"}[format]
	return fmt.Sprintf("file(%s, %s)", bench.Str(file), f)
}

// Run: a load creates the table and inserts the file; a merge is the bare
// upsert, one INSERT of the file into the ReplacingMergeTree.
func (ch) Run(ctx context.Context, op bench.Op) (int64, error) {
	var stmts []string
	switch op.Kind {
	case "checksum":
		return checksum(ctx, op)
	case "load":
		stmts = []string{create(op.Table, false), fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", bench.Ident(op.Table), read(op.Format, op.File))}
	case "merge":
		stmts = []string{fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", bench.Ident(op.Table), read(op.Format, op.File))}
	default:
		return 0, fmt.Errorf("unknown baseline %q", op.Kind)
	}
	if err := exec(ctx, op.Target, stmts...); err != nil {
		return 0, fmt.Errorf("%s: %w", op.Kind, err)
	}
	return ch{}.Count(ctx, op.Target, op.Table)
}

// exec runs statements on a chDB folder.
func exec(ctx context.Context, path string, stmts ...string) error {
	db, err := clickhouse.Open(ctx, path, time.Minute)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Conn().ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return db.Close()
}

// Count: idem's session reads with final = 1, so a ReplacingMergeTree's
// rows are its keys' newest versions.
func (ch) Count(ctx context.Context, path, table string) (int64, error) {
	db, err := clickhouse.Open(ctx, path, time.Minute)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int64
	if err := db.Conn().QueryRowContext(ctx, "SELECT count() FROM "+bench.Ident(table)).Scan(&n); err != nil {
		return 0, err
	}
	return n, db.Close()
}

// Fill on ClickHouse: numbers() generates the keys.
func (ch) Fill(ctx context.Context, path, table string, from, n, perDay int64) error {
	return exec(ctx, path, fmt.Sprintf(`INSERT INTO %s (%s)
SELECT number, number %% 9973 + 1, toDate32('2024-01-01') + intDiv(number, %d),
       ['placed', 'shipped', 'completed', 'returned'][number %% 4 + 1],
       toDecimal64(number %% 100000, 2) / 100, toDateTime64('2024-01-01 00:00:00', 6) + toIntervalSecond(number %% 86400)
FROM numbers(%d, %d)`, bench.Ident(table), strings.Join(bench.Names(), ", "), perDay, from, n))
}

func (ch) CreateTable(ctx context.Context, path, table string, uniqueKey bool) error {
	return exec(ctx, path, create(table, uniqueKey))
}

// checksum reads the partition's count and checksum as idem's skip does,
// with ClickHouse's checksum query, in a session opened as idem's is.
func checksum(ctx context.Context, op bench.Op) (int64, error) {
	q, err := bench.PartitionChecksum((*clickhouse.DB)(nil).SQL(), op.Table, op.Day, bench.Typed(chType))
	if err != nil {
		return 0, err
	}
	db, err := clickhouse.Open(ctx, op.Target, time.Minute)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	n, err := bench.ReadChecksum(ctx, db.Conn(), q)
	if err != nil {
		return 0, err
	}
	return n, db.Close()
}
