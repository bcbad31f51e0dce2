package benchcli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/idemdata/idem/engine/bench"
	pgbase "github.com/idemdata/idem/engine/postgres/baseline"
)

// Scenario 8 (issue 36): a PostgreSQL table as a job's source database,
// loaded into an empty target (a first load) and rerun unchanged, against
// a bare pipe of the same rows into the target's bulk load. Only DuckDB
// and PostgreSQL targets have a pipe.
const (
	dbLoad  = "8 db source load"
	dbRerun = "8 db source rerun"
)

// dbSourceEngines are the targets scenario 8 measures.
var dbSourceEngines = map[string]bool{"duckdb": true, "postgres": true}

// dbSource is scenario 8 on v's engine.
func (v *env) dbSource(ctx context.Context) ([]Row, error) {
	if !dbSourceEngines[v.engine] {
		return nil, nil
	}
	n := v.cfg.Rows
	srcURL, err := v.sourceTable(ctx, n)
	if err != nil {
		return nil, err
	}
	pipe := "COPY (SELECT … FROM orders WHERE order_date in the day) TO STDOUT (FORMAT binary) on one pgx connection piped into COPY … FROM STDIN (FORMAT binary) on another, into a new table, one process"
	if v.engine == "duckdb" {
		pipe = "pgx reading SELECT … FROM orders WHERE order_date in the day (binary) into DuckDB's appender on a new table, one process"
	}
	load, rerun := v.row(dbLoad, pipe+"; PostgreSQL source", n), v.row(dbRerun, "the same pipe (idem column: the rerun, skipped)", n)
	it, jobPath, err := v.dbJob(ctx, srcURL)
	if err != nil {
		return nil, err
	}
	bt, err := v.target(ctx, "s7-bare")
	if err != nil {
		return nil, err
	}
	op := bench.Op{Source: srcURL, Query: pgbase.SourceQuery("orders", benchDate, "2026-11-29"), Target: bt.loc, Table: "orders", Kind: "pipe"}
	skipped := func(r result) error {
		if r.Action != "skipped" || r.RowCount != n {
			return fmt.Errorf("want skipped with %d rows", n)
		}
		return nil
	}
	var loads, reruns, pipes []sample
	for k := range v.cfg.Repeat {
		if err := v.reset(ctx, it); err != nil {
			return nil, err
		}
		s, err := v.runIdem(ctx, jobPath, false, loaded(n))
		if err != nil {
			return nil, err
		}
		v.note(dbLoad, "idem", k, s)
		loads = append(loads, s)
		if s, err = v.runIdem(ctx, jobPath, false, skipped); err != nil {
			return nil, err
		}
		v.note(dbRerun, "rerun", k, s)
		reruns = append(reruns, s)
		if err := v.reset(ctx, bt); err != nil {
			return nil, err
		}
		if s, err = v.runBaseline(ctx, op, n); err != nil {
			return nil, err
		}
		v.note(dbLoad, "pipe", k, s)
		pipes = append(pipes, s)
	}
	finish(&load, loads, pipes)
	finish(&rerun, reruns, pipes)
	return []Row{load, rerun}, nil
}

// dbJob makes scenario 8's target and writes its job, which reads the
// source table at srcURL.
func (v *env) dbJob(ctx context.Context, srcURL string) (target, string, error) {
	it, err := v.target(ctx, "s7")
	if err != nil {
		return it, "", err
	}
	jobPath := filepath.Join(v.work, "s7.yaml")
	body := fmt.Sprintf("idem: 1\njob: s7\ntarget:\n  url: %q\n  table: orders\nsource:\n  url: %q\n  table: orders\nstrategy: partition\npartition:\n  column: order_date\n", it.url, srcURL)
	return it, jobPath, os.WriteFile(jobPath, []byte(body), 0o644)
}

// sourceTable makes (or finds) the source table of n orders on the
// benchmark's day, in a PostgreSQL schema of its own, and returns the URL
// a job reads it by.
func (v *env) sourceTable(ctx context.Context, n int64) (string, error) {
	u, err := url.Parse(v.cfg.Postgres)
	if err != nil {
		return "", fmt.Errorf("--postgres: %w", err)
	}
	schema := fmt.Sprintf("%ssrc_%d", v.cfg.Prefix, n)
	v.made(target{engine: "postgres", schema: schema})
	if err := pgbase.EnsureSchema(ctx, v.cfg.Postgres, schema); err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	fmt.Fprintf(v.log, "source table %s.orders: %d rows\n", schema, n)
	return u.String(), pgbase.CreateSource(ctx, u.String(), "orders", n, benchDate)
}
