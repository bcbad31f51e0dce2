// Package baseline is idem-bench's PostgreSQL baseline: the file's bytes
// through COPY, and a hand-written MERGE.
package baseline

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/idemdata/idem/engine/bench"
	"github.com/idemdata/idem/engine/postgres"
)

func init() { bench.Register("postgres", pg{}) }

type pg struct{}

func pgType(typ string) string {
	if typ == "VARCHAR" {
		return "TEXT"
	}
	return typ
}

func (pg) Run(ctx context.Context, op bench.Op) (int64, error) {
	if op.Kind == "checksum" {
		return checksum(ctx, op)
	}
	conn, err := pgx.Connect(ctx, op.Target)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	file := op.File
	if op.Format != "csv" {
		file = op.CSV
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	dest := op.Table
	switch op.Kind {
	case "load":
		if _, err := tx.Exec(ctx, bench.Create(op.Table, pgType)); err != nil {
			return 0, err
		}
	case "pipe":
		return pipeLoad(ctx, conn, tx, op)
	case "merge":
		dest = "bench_stage"
		if _, err := tx.Exec(ctx, fmt.Sprintf("CREATE TEMP TABLE %s (LIKE %s) ON COMMIT DROP", bench.Ident(dest), bench.Ident(op.Table))); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("unknown baseline %q", op.Kind)
	}
	if err := copyCSV(ctx, tx.Conn(), dest, file); err != nil {
		return 0, err
	}
	if op.Kind == "merge" {
		if _, err := tx.Exec(ctx, bench.GuardedMerge(op.Table, bench.Ident(dest))); err != nil {
			return 0, err
		}
	}
	if op.Kind == "load" && op.UniqueKey {
		if _, err := tx.Exec(ctx, fmt.Sprintf("CREATE UNIQUE INDEX ON %s (order_id)", bench.Ident(op.Table))); err != nil {
			return 0, err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, err
	}
	return count(ctx, conn, op.Table)
}

// pipeLoad creates the table and pipes op.Query's rows into it, in tx.
func pipeLoad(ctx context.Context, conn *pgx.Conn, tx pgx.Tx, op bench.Op) (int64, error) {
	if _, err := tx.Exec(ctx, bench.Create(op.Table, pgType)); err != nil {
		return 0, err
	}
	if err := pipe(ctx, tx.Conn(), op); err != nil {
		return 0, err
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, err
	}
	return count(ctx, conn, op.Table)
}

func count(ctx context.Context, conn *pgx.Conn, table string) (int64, error) {
	var n int64
	err := conn.QueryRow(ctx, "SELECT count(*) FROM "+bench.Ident(table)).Scan(&n)
	return n, err
}

// pipe streams op.Query's rows from op.Source into op.Table through
// conn: COPY (query) TO STDOUT (FORMAT binary) on a connection to the
// source, piped into COPY … FROM STDIN (FORMAT binary), as
// psql -c "COPY (…) TO STDOUT" | psql -c "COPY … FROM STDIN" does.
func pipe(ctx context.Context, conn *pgx.Conn, op bench.Op) error {
	src, err := pgx.Connect(ctx, op.Source)
	if err != nil {
		return err
	}
	defer src.Close(ctx)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		// CopyTo writes each row's message on its own: unbuffered, every
		// row was a handoff between goroutines (2.1 s for 1M rows, psql's
		// pipe 0.55 s).
		bw := bufio.NewWriterSize(pw, 1<<20)
		_, err := src.PgConn().CopyTo(ctx, bw, fmt.Sprintf("COPY (%s) TO STDOUT (FORMAT binary)", op.Query))
		if err == nil {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
		done <- err
	}()
	_, err = conn.PgConn().CopyFrom(ctx, pr, fmt.Sprintf("COPY %s FROM STDIN (FORMAT binary)", bench.Ident(op.Table)))
	pr.CloseWithError(err)
	if serr := <-done; err == nil {
		err = serr
	}
	return err
}

// SourceQuery is the query idem writes for a partition job's source.table
// (the day's window of order_date), for a pipe of the same rows.
func SourceQuery(table, day, next string) string {
	return fmt.Sprintf(`SELECT * FROM %s WHERE "order_date" >= DATE %s AND "order_date" < DATE %s`, bench.Ident(table), bench.Str(day), bench.Str(next))
}

// CreateSource makes table in the PostgreSQL database at url hold n
// generated orders, all on day, unless it holds them already: the source
// database of idem-bench's database-source scenarios.
func CreateSource(ctx context.Context, url, table string, n int64, day string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if got, err := count(ctx, conn, table); err == nil && got == n {
		return nil
	}
	return exec(ctx, url, "DROP TABLE IF EXISTS "+bench.Ident(table), bench.Create(table, pgType),
		fmt.Sprintf(`INSERT INTO %s (%s)
SELECT k, k %% 9973 + 1, DATE %s,
       (ARRAY['placed', 'shipped', 'completed', 'returned'])[k %% 4 + 1],
       (k %% 100000) / 100.0, DATE %s + (k %% 86400) * INTERVAL '1 second'
FROM generate_series(CAST(1 AS BIGINT), %d) AS g(k)`, bench.Ident(table), strings.Join(bench.Names(), ", "), bench.Str(day), bench.Str(day), n),
		"VACUUM ANALYZE "+bench.Ident(table))
}

// copyCSV streams a CSV file's bytes into COPY … FROM STDIN: what psql's
// \copy does, without psql.
func copyCSV(ctx context.Context, conn *pgx.Conn, table, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = conn.PgConn().CopyFrom(ctx, f, fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT csv, HEADER true)", bench.Ident(table), strings.Join(bench.Names(), ", ")))
	return err
}

func exec(ctx context.Context, url string, stmts ...string) error {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// Fill, then the state autovacuum brings a table to after a bulk insert:
// statistics, and BRIN ranges summarized (an unsummarized range is read by
// every query that uses the index).
func (pg) Fill(ctx context.Context, target, table string, from, n, perDay int64) error {
	return exec(ctx, target, fmt.Sprintf(`INSERT INTO %s (%s)
SELECT k, k %% 9973 + 1, DATE '2024-01-01' + CAST(k / %d AS INTEGER),
       (ARRAY['placed', 'shipped', 'completed', 'returned'])[k %% 4 + 1],
       (k %% 100000) / 100.0, TIMESTAMP '2024-01-01 00:00:00' + (k %% 86400) * INTERVAL '1 second'
FROM generate_series(CAST(%d AS BIGINT), %d) AS g(k)`, bench.Ident(table), strings.Join(bench.Names(), ", "), perDay, from, from+n-1),
		"VACUUM ANALYZE "+bench.Ident(table))
}

func (pg) CreateTable(ctx context.Context, target, table string, uniqueKey bool) error {
	stmts := []string{bench.Create(table, pgType)}
	if uniqueKey {
		stmts = append(stmts, fmt.Sprintf("CREATE UNIQUE INDEX ON %s (order_id)", bench.Ident(table)))
	}
	return exec(ctx, target, stmts...)
}

func (pg) Count(ctx context.Context, target, table string) (int64, error) {
	conn, err := pgx.Connect(ctx, target)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int64
	return n, conn.QueryRow(ctx, "SELECT count(*) FROM "+bench.Ident(table)).Scan(&n)
}

// ResetSchema drops a schema with everything in it and creates it again,
// empty.
func ResetSchema(ctx context.Context, url, schema string) error {
	return exec(ctx, url, "DROP SCHEMA IF EXISTS "+bench.Ident(schema)+" CASCADE", "CREATE SCHEMA "+bench.Ident(schema))
}

// EnsureSchema creates a schema unless it exists.
func EnsureSchema(ctx context.Context, url, schema string) error {
	return exec(ctx, url, "CREATE SCHEMA IF NOT EXISTS "+bench.Ident(schema))
}

// DropSchema drops a schema and everything in it, if it exists.
func DropSchema(ctx context.Context, url, schema string) error {
	return exec(ctx, url, "DROP SCHEMA IF EXISTS "+bench.Ident(schema)+" CASCADE")
}

// pgxType is a column type as idem reads it (pgx's name of the type):
// PostgreSQL's checksum hashes a value by its type's own hash function.
func pgxType(typ string) string {
	switch typ {
	case "BIGINT":
		return "INT8"
	case "VARCHAR":
		return "TEXT"
	case "DECIMAL(12,2)":
		return "NUMERIC"
	}
	return typ
}

// checksum reads the partition's count and checksum as idem's skip does,
// with PostgreSQL's checksum query, on one connection.
func checksum(ctx context.Context, op bench.Op) (int64, error) {
	q, err := bench.PartitionChecksum((*postgres.DB)(nil).SQL(), op.Table, op.Day, bench.Typed(pgxType))
	if err != nil {
		return 0, err
	}
	conn, err := pgx.Connect(ctx, op.Target)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int64
	var sum *string
	if err := conn.QueryRow(ctx, q).Scan(&n, &sum); err != nil {
		return 0, fmt.Errorf("checksum: %w", err)
	}
	return n, conn.Close(ctx)
}
