// Package baseline is idem-bench's DuckDB baseline: DuckDB's own readers
// and a hand-written MERGE, run on a database file.
package baseline

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2" // also registers the "duckdb" driver
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/idemdata/idem/engine/bench"
	idemduck "github.com/idemdata/idem/engine/duckdb"
)

func init() { bench.Register("duckdb", duck{}) }

type duck struct{}

// read is DuckDB's reader of a file, with the benchmark's types.
func read(format, file string) string {
	types := make([]string, len(bench.Columns))
	for i, c := range bench.Columns {
		types[i] = fmt.Sprintf("%s: %s", bench.Str(c[0]), bench.Str(c[1]))
	}
	switch format {
	case "parquet":
		return fmt.Sprintf("read_parquet(%s)", bench.Str(file))
	case "jsonl":
		return fmt.Sprintf("read_json(%s, format = 'newline_delimited', columns = {%s})", bench.Str(file), strings.Join(types, ", "))
	}
	return fmt.Sprintf("read_csv(%s, header = true, types = {%s})", bench.Str(file), strings.Join(types, ", "))
}

func open(path string) (*sql.DB, error) {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return nil, err
	}
	// As idem's connection does: storage order matters to no benchmark.
	if _, err := db.Exec("SET preserve_insertion_order = false"); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func exec(ctx context.Context, path string, stmts ...string) error {
	db, err := open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := bench.Exec(ctx, db, stmts...); err != nil {
		return err
	}
	return db.Close()
}

func (duck) Run(ctx context.Context, op bench.Op) (int64, error) {
	var stmts []string
	switch op.Kind {
	case "checksum":
		return checksum(ctx, op)
	case "load":
		stmts = []string{bench.Create(op.Table, bench.Same),
			fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", bench.Ident(op.Table), read(op.Format, op.File))}
	case "merge":
		stmts = []string{bench.GuardedMerge(op.Table, "(SELECT * FROM "+read(op.Format, op.File)+")")}
	case "pipe":
		return pipe(ctx, op)
	default:
		return 0, fmt.Errorf("unknown baseline %q", op.Kind)
	}
	db, err := open(op.Target)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return bench.ExecCount(ctx, db, op, stmts...)
}

func (duck) Fill(ctx context.Context, target, table string, from, n, perDay int64) error {
	return exec(ctx, target, fmt.Sprintf(`INSERT INTO %s (%s)
SELECT k, k %% 9973 + 1, DATE '2024-01-01' + CAST(k // %d AS INTEGER),
       ['placed', 'shipped', 'completed', 'returned'][k %% 4 + 1],
       CAST(k %% 100000 AS DECIMAL(12,2)) / 100, TIMESTAMP '2024-01-01 00:00:00' + to_seconds(k %% 86400)
FROM range(%d, %d) AS g(k)`, bench.Ident(table), strings.Join(bench.Names(), ", "), perDay, from, from+n))
}

func (duck) CreateTable(ctx context.Context, target, table string, _ bool) error {
	return exec(ctx, target, bench.Create(table, bench.Same))
}

func (duck) Count(ctx context.Context, target, table string) (int64, error) {
	db, err := sql.Open("duckdb", target)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return bench.ExecCount(ctx, db, bench.Op{Table: table})
}

// ToParquet writes a CSV of bench.Columns as a Parquet file, with an
// in-memory DuckDB.
func ToParquet(ctx context.Context, csv, parquet string) error {
	return exec(ctx, "", fmt.Sprintf("COPY (SELECT * FROM %s) TO %s (FORMAT parquet)", read("csv", csv), bench.Str(parquet)))
}

// pipe streams op.Query's rows from the PostgreSQL database op.Source
// into a new table through DuckDB's appender: pgx reads them in
// PostgreSQL's binary format, each row appended as it arrives.
func pipe(ctx context.Context, op bench.Op) (int64, error) {
	src, err := pgx.Connect(ctx, op.Source)
	if err != nil {
		return 0, err
	}
	defer src.Close(ctx)
	db, err := open(op.Target)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if err := bench.Exec(ctx, db, bench.Create(op.Table, bench.Same)); err != nil {
		return 0, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		app, err := duckdb.NewAppenderFromConn(dc.(driver.Conn), "", op.Table)
		if err != nil {
			return err
		}
		rows, err := src.Query(ctx, op.Query)
		if err != nil {
			app.Close()
			return err
		}
		defer rows.Close()
		var id, customer int64
		var day, at time.Time
		var status string
		var amount pgtype.Numeric
		for rows.Next() {
			if err := rows.Scan(&id, &customer, &day, &status, &amount, &at); err != nil {
				app.Close()
				return err
			}
			if err := app.AppendRow(id, customer, day, status, cents(amount), at); err != nil {
				app.Close()
				return err
			}
		}
		if err := rows.Err(); err != nil {
			app.Close()
			return err
		}
		return app.Close()
	})
	if err != nil {
		return 0, err
	}
	return bench.ExecCount(ctx, db, op)
}

// cents is a NUMERIC(12,2) as DuckDB's DECIMAL(12,2).
func cents(n pgtype.Numeric) duckdb.Decimal {
	v := new(big.Int).Set(n.Int)
	ten := big.NewInt(10)
	for e := n.Exp; e > -2; e-- {
		v.Mul(v, ten)
	}
	for e := n.Exp; e < -2; e++ {
		v.Quo(v, ten)
	}
	return duckdb.Decimal{Width: 12, Scale: 2, Value: v}
}

// checksum reads the partition's count and checksum as idem's skip does,
// with DuckDB's checksum query (which hashes by name, whatever the types).
// The engine's SQL holds no state of a DB.
func checksum(ctx context.Context, op bench.Op) (int64, error) {
	q, err := bench.PartitionChecksum((*idemduck.DB)(nil).SQL(), op.Table, op.Day, bench.Typed(bench.Same))
	if err != nil {
		return 0, err
	}
	db, err := sql.Open("duckdb", op.Target)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	n, err := bench.ReadChecksum(ctx, db, q)
	if err != nil {
		return 0, err
	}
	return n, db.Close()
}
