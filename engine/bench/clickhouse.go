package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/idemdata/idem/engine/clickhouse"
)

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

// chCreate is the benchmark's table on ClickHouse. A load's is a MergeTree
// partitioned by day, as idem creates; a merge's bare table is what a
// ClickHouse user writes for newest-wins: a ReplacingMergeTree on the key
// with updated_at as its version, read with FINAL.
func chCreate(table string, replacing bool) string {
	defs := make([]string, len(Columns))
	for i, c := range Columns {
		typ := chType(c[1])
		if replacing && (c[0] == "order_id" || c[0] == "updated_at") {
			typ = strings.TrimSuffix(strings.TrimPrefix(typ, "Nullable("), ")")
		}
		defs[i] = ident(c[0]) + " " + typ
	}
	engine := "MergeTree PARTITION BY " + ident("order_date") + " ORDER BY tuple() SETTINGS allow_nullable_key = 1"
	if replacing {
		engine = fmt.Sprintf("ReplacingMergeTree(%s) ORDER BY %s", ident("updated_at"), ident("order_id"))
	}
	return fmt.Sprintf("CREATE TABLE %s (%s) ENGINE = %s", ident(table), strings.Join(defs, ", "), engine)
}

// chRead is ClickHouse's own reader of a file.
func chRead(format, file string) string {
	f := map[string]string{"csv": "CSVWithNames", "parquet": "Parquet", "jsonl": "JSONEachRow"}[format]
	return fmt.Sprintf("file(%s, %s)", str(file), f)
}

// runClickHouse: a load creates the table and inserts the file; a merge is
// the bare upsert, one INSERT of the file into the ReplacingMergeTree.
func runClickHouse(ctx context.Context, op Op) (int64, error) {
	var stmts []string
	switch op.Kind {
	case "load":
		stmts = []string{chCreate(op.Table, false), fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", ident(op.Table), chRead(op.Format, op.File))}
	case "merge":
		stmts = []string{fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", ident(op.Table), chRead(op.Format, op.File))}
	default:
		return 0, fmt.Errorf("unknown baseline %q", op.Kind)
	}
	if err := execClickHouse(ctx, op.Target, stmts...); err != nil {
		return 0, fmt.Errorf("%s: %w", op.Kind, err)
	}
	return countClickHouse(ctx, op.Target, op.Table)
}

// execClickHouse runs statements on a chDB folder.
func execClickHouse(ctx context.Context, path string, stmts ...string) error {
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

func countClickHouse(ctx context.Context, path, table string) (int64, error) {
	db, err := clickhouse.Open(ctx, path, time.Minute)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int64
	// idem's session reads with final = 1: a ReplacingMergeTree's rows are
	// its keys' newest versions.
	if err := db.Conn().QueryRowContext(ctx, "SELECT count() FROM "+ident(table)).Scan(&n); err != nil {
		return 0, err
	}
	return n, db.Close()
}

// fillClickHouse is Fill on ClickHouse (numbers() generates the keys).
func fillClickHouse(ctx context.Context, path, table string, from, n, perDay int64) error {
	return execClickHouse(ctx, path, fmt.Sprintf(`INSERT INTO %s (%s)
SELECT number, number %% 9973 + 1, toDate32('2024-01-01') + intDiv(number, %d),
       ['placed', 'shipped', 'completed', 'returned'][number %% 4 + 1],
       toDecimal64(number %% 100000, 2) / 100, toDateTime64('2024-01-01 00:00:00', 6) + toIntervalSecond(number %% 86400)
FROM numbers(%d, %d)`, ident(table), strings.Join(names(), ", "), perDay, from, n))
}
