// Package baseline is idem-bench's MySQL baseline: the file's bytes
// through LOAD DATA LOCAL, and a hand-written upsert.
package baseline

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/idemdata/idem/engine/bench"
	"github.com/idemdata/idem/engine/mysql"
)

func init() { bench.Register("mysql", my{}) }

type my struct{}

// open connects to a mysql:// URL as idem does (ANSI quotes, UTC),
// allowed to send local files: the baseline's LOAD DATA LOCAL.
func open(url string) (*sql.DB, error) {
	cfg, err := mysql.Config(url, time.Minute)
	if err != nil {
		return nil, err
	}
	cfg.AllowAllFiles = true
	c, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(c)
	// One connection: a temporary table lives in its session.
	db.SetMaxOpenConns(1)
	return db, nil
}

// myType is the column type idem gives a staged column on MySQL.
func myType(typ string) string {
	switch typ {
	case "VARCHAR":
		return "LONGTEXT"
	case "TIMESTAMP":
		return "DATETIME(6)"
	}
	return typ
}

// loadData is the bare bulk load: the file's bytes through LOAD DATA LOCAL.
func loadData(table, file string) string {
	return fmt.Sprintf(`LOAD DATA LOCAL INFILE %s INTO TABLE %s
  FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' IGNORE 1 LINES (%s)`, bench.Str(file), bench.Ident(table), strings.Join(bench.Names(), ", "))
}

// upsert is the hand-written guarded merge on MySQL: a newer version
// replaces a key's row, a new key is inserted. updated_at is assigned last:
// assignments run left to right, so the others still see the old version.
func upsert(table, src string) string {
	cols := bench.Names()
	set := make([]string, 0, len(cols))
	newer := fmt.Sprintf("VALUES(%s) > %s.%s", bench.Ident("updated_at"), bench.Ident(table), bench.Ident("updated_at"))
	for _, c := range cols[1:] {
		set = append(set, fmt.Sprintf("%[1]s = IF(%[2]s, VALUES(%[1]s), %[3]s.%[1]s)", c, newer, bench.Ident(table)))
	}
	return fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s\nON DUPLICATE KEY UPDATE %s",
		bench.Ident(table), strings.Join(cols, ", "), strings.Join(cols, ", "), bench.Ident(src), strings.Join(set, ",\n  "))
}

func (my) Run(ctx context.Context, op bench.Op) (int64, error) {
	file := op.File
	if op.Format != "csv" {
		file = op.CSV // MySQL reads no Parquet or JSON Lines: the same rows as CSV
	}
	var stmts []string
	switch op.Kind {
	case "checksum":
		return checksum(ctx, op)
	case "load":
		stmts = []string{bench.Create(op.Table, myType), loadData(op.Table, file)}
		if op.UniqueKey {
			stmts = append(stmts, fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s (order_id)", bench.Ident(op.Table+"_key"), bench.Ident(op.Table)))
		}
	case "merge":
		stage := strings.Replace(bench.Create("bench_stage", myType), "CREATE TABLE", "CREATE TEMPORARY TABLE", 1)
		stmts = []string{stage, loadData("bench_stage", file), upsert(op.Table, "bench_stage")}
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

func exec(ctx context.Context, url string, stmts ...string) error {
	db, err := open(url)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := bench.Exec(ctx, db, stmts...); err != nil {
		return err
	}
	return db.Close()
}

// Fill on MariaDB: its sequence engine (seq_FROM_to_TO) generates the keys.
func (my) Fill(ctx context.Context, target, table string, from, n, perDay int64) error {
	return exec(ctx, target, fmt.Sprintf(`INSERT INTO %s (%s)
SELECT seq, seq %% 9973 + 1, DATE '2024-01-01' + INTERVAL (seq DIV %d) DAY,
       ELT(seq %% 4 + 1, 'placed', 'shipped', 'completed', 'returned'),
       CAST(seq %% 100000 AS DECIMAL(12,2)) / 100, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL (seq %% 86400) SECOND
FROM seq_%d_to_%d`, bench.Ident(table), strings.Join(bench.Names(), ", "), perDay, from, from+n-1), "ANALYZE TABLE "+bench.Ident(table))
}

func (my) CreateTable(ctx context.Context, target, table string, uniqueKey bool) error {
	stmts := []string{bench.Create(table, myType)}
	if uniqueKey {
		stmts = append(stmts, fmt.Sprintf("CREATE UNIQUE INDEX %s ON %s (order_id)", bench.Ident(table+"_key"), bench.Ident(table)))
	}
	return exec(ctx, target, stmts...)
}

func (my) Count(ctx context.Context, target, table string) (int64, error) {
	db, err := open(target)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	return bench.ExecCount(ctx, db, bench.Op{Table: table})
}

// DropDatabase drops a database with everything in it, if it exists. url
// names any database of the server.
func DropDatabase(ctx context.Context, url, database string) error {
	return exec(ctx, url, "DROP DATABASE IF EXISTS `"+strings.ReplaceAll(database, "`", "``")+"`")
}

// ResetDatabase drops a database with everything in it and creates it
// again, empty. url names any database of the server.
func ResetDatabase(ctx context.Context, url, database string) error {
	q := "`" + strings.ReplaceAll(database, "`", "``") + "`"
	return exec(ctx, url, "DROP DATABASE IF EXISTS "+q, "CREATE DATABASE "+q)
}

// checksum reads the partition's count and checksum as idem's skip does,
// with the checksum idem takes on this server (it depends on the
// version), on a connection opened as idem's is.
func checksum(ctx context.Context, op bench.Op) (int64, error) {
	db, err := mysql.OpenReadOnly(ctx, op.Target, time.Minute)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	q, err := bench.PartitionChecksum(db.SQL(), op.Table, op.Day, bench.Typed(myType))
	if err != nil {
		return 0, err
	}
	n, err := bench.ReadChecksum(ctx, db.Conn(), q)
	if err != nil {
		return 0, err
	}
	return n, db.Close()
}
