package bench

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Fixtures: what the benchmark builds untimed around the runs it times.

// exec runs statements on a target: a DuckDB file, a PostgreSQL or MySQL URL.
func exec(ctx context.Context, engineName, target string, stmts ...string) error {
	switch engineName {
	case "duckdb":
		db, err := openDuck(target)
		if err != nil {
			return err
		}
		defer db.Close()
		for _, q := range stmts {
			if _, err := db.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return db.Close()
	case "postgres":
		conn, err := pgx.Connect(ctx, target)
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
	case "mysql":
		return execMySQL(ctx, target, stmts...)
	case "clickhouse":
		return execClickHouse(ctx, target, stmts...)
	}
	return fmt.Errorf("unknown engine %q", engineName)
}

// Fill appends n generated orders, keys from+0 … from+n-1, to table (which
// has Columns). Order dates are clustered, perDay consecutive keys a day
// from 2024-01-01, as a table loaded a partition at a time is; they never
// reach 2026. Every value is a function of the key: no randomness. A
// PostgreSQL table is vacuumed and analyzed after, as autovacuum would.
func Fill(ctx context.Context, engineName, target, table string, from, n, perDay int64) error {
	cols := strings.Join(names(), ", ")
	switch engineName {
	case "duckdb":
		return exec(ctx, engineName, target, fmt.Sprintf(`INSERT INTO %s (%s)
SELECT k, k %% 9973 + 1, DATE '2024-01-01' + CAST(k // %d AS INTEGER),
       ['placed', 'shipped', 'completed', 'returned'][k %% 4 + 1],
       CAST(k %% 100000 AS DECIMAL(12,2)) / 100, TIMESTAMP '2024-01-01 00:00:00' + to_seconds(k %% 86400)
FROM range(%d, %d) AS g(k)`, ident(table), cols, perDay, from, from+n))
	case "postgres":
		return exec(ctx, engineName, target, fmt.Sprintf(`INSERT INTO %s (%s)
SELECT k, k %% 9973 + 1, DATE '2024-01-01' + CAST(k / %d AS INTEGER),
       (ARRAY['placed', 'shipped', 'completed', 'returned'])[k %% 4 + 1],
       (k %% 100000) / 100.0, TIMESTAMP '2024-01-01 00:00:00' + (k %% 86400) * INTERVAL '1 second'
FROM generate_series(CAST(%d AS BIGINT), %d) AS g(k)`, ident(table), cols, perDay, from, from+n-1),
			// The state autovacuum brings a table to after a bulk insert:
			// statistics, and BRIN ranges summarized (an unsummarized range
			// is read by every query that uses the index).
			"VACUUM ANALYZE "+ident(table))
	case "mysql":
		return fillMySQL(ctx, target, table, from, n, perDay)
	case "clickhouse":
		return fillClickHouse(ctx, target, table, from, n, perDay)
	}
	return fmt.Errorf("unknown engine %q", engineName)
}

// CreateTable creates an empty table of Columns; with uniqueKey, a unique
// index on order_id, as idem gives a merge target it creates (ClickHouse:
// a ReplacingMergeTree on order_id, versioned by updated_at, the table a
// ClickHouse user upserts into).
func CreateTable(ctx context.Context, engineName, target, table string, uniqueKey bool) error {
	stmts := []string{createTable(table, engineName == "postgres")}
	switch {
	case engineName == "clickhouse":
		stmts = []string{chCreate(table, uniqueKey)}
	case engineName == "mysql":
		stmts = []string{createMySQLTable(table, false)}
		if uniqueKey {
			stmts = append(stmts, fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s (order_id)", ident(table+"_key"), ident(table)))
		}
	case uniqueKey && engineName == "postgres":
		stmts = append(stmts, fmt.Sprintf("CREATE UNIQUE INDEX ON %s (order_id)", ident(table)))
	}
	return exec(ctx, engineName, target, stmts...)
}

// ResetSchema drops a PostgreSQL schema with everything in it and creates
// it again, empty.
func ResetSchema(ctx context.Context, url, schema string) error {
	return exec(ctx, "postgres", url, "DROP SCHEMA IF EXISTS "+ident(schema)+" CASCADE", "CREATE SCHEMA "+ident(schema))
}

// DropSchema drops a PostgreSQL schema and everything in it, if it exists.
func DropSchema(ctx context.Context, url, schema string) error {
	return exec(ctx, "postgres", url, "DROP SCHEMA IF EXISTS "+ident(schema)+" CASCADE")
}

// DropTables drops PostgreSQL tables (in the URL's search_path) if they
// exist.
func DropTables(ctx context.Context, url string, tables ...string) error {
	stmts := make([]string, len(tables))
	for i, t := range tables {
		stmts[i] = "DROP TABLE IF EXISTS " + ident(t)
	}
	return exec(ctx, "postgres", url, stmts...)
}

// Count returns the number of rows of table.
func Count(ctx context.Context, engineName, target, table string) (int64, error) {
	var n int64
	q := "SELECT count(*) FROM " + ident(table)
	switch engineName {
	case "duckdb":
		db, err := sql.Open("duckdb", target)
		if err != nil {
			return 0, err
		}
		defer db.Close()
		return n, db.QueryRowContext(ctx, q).Scan(&n)
	case "postgres":
		conn, err := pgx.Connect(ctx, target)
		if err != nil {
			return 0, err
		}
		defer conn.Close(ctx)
		return n, conn.QueryRow(ctx, q).Scan(&n)
	case "mysql":
		db, err := openMySQL(target)
		if err != nil {
			return 0, err
		}
		defer db.Close()
		return n, db.QueryRowContext(ctx, q).Scan(&n)
	case "clickhouse":
		return countClickHouse(ctx, target, table)
	}
	return 0, fmt.Errorf("unknown engine %q", engineName)
}

// ToParquet writes a CSV of Columns as a Parquet file, with an in-memory
// DuckDB.
func ToParquet(ctx context.Context, csv, parquet string) error {
	return exec(ctx, "duckdb", "", fmt.Sprintf("COPY (SELECT * FROM %s) TO %s (FORMAT parquet)", duckRead("csv", csv), str(parquet)))
}
