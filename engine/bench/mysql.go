package bench

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/idemdata/idem/engine/mysql"
)

// openMySQL connects to a mysql:// URL as idem does (ANSI quotes, UTC),
// allowed to send local files: the baseline's LOAD DATA LOCAL.
func openMySQL(url string) (*sql.DB, error) {
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

// mysqlType is the column type idem gives a staged column on MySQL.
func mysqlType(typ string) string {
	switch typ {
	case "VARCHAR":
		return "LONGTEXT"
	case "TIMESTAMP":
		return "DATETIME(6)"
	}
	return typ
}

func createMySQLTable(table string, temporary bool) string {
	defs := make([]string, len(Columns))
	for i, c := range Columns {
		defs[i] = ident(c[0]) + " " + mysqlType(c[1])
	}
	kind := "TABLE"
	if temporary {
		kind = "TEMPORARY TABLE"
	}
	return fmt.Sprintf("CREATE %s %s (%s)", kind, ident(table), strings.Join(defs, ", "))
}

// loadData is the bare bulk load: the file's bytes through LOAD DATA LOCAL.
func loadData(table, file string) string {
	return fmt.Sprintf(`LOAD DATA LOCAL INFILE %s INTO TABLE %s
  FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' IGNORE 1 LINES (%s)`, str(file), ident(table), strings.Join(names(), ", "))
}

// upsert is the hand-written guarded merge on MySQL: a newer version
// replaces a key's row, a new key is inserted. updated_at is assigned last:
// assignments run left to right, so the others still see the old version.
func upsert(table, src string) string {
	cols := names()
	set := make([]string, 0, len(cols))
	newer := fmt.Sprintf("VALUES(%s) > %s.%s", ident("updated_at"), ident(table), ident("updated_at"))
	for _, c := range cols[1:] {
		set = append(set, fmt.Sprintf("%[1]s = IF(%[2]s, VALUES(%[1]s), %[3]s.%[1]s)", c, newer, ident(table)))
	}
	return fmt.Sprintf("INSERT INTO %s (%s) SELECT %s FROM %s\nON DUPLICATE KEY UPDATE %s",
		ident(table), strings.Join(cols, ", "), strings.Join(cols, ", "), ident(src), strings.Join(set, ",\n  "))
}

func runMySQL(ctx context.Context, op Op) (int64, error) {
	db, err := openMySQL(op.Target)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	file := op.File
	if op.Format != "csv" {
		file = op.CSV // MySQL reads no Parquet or JSON Lines: the same rows as CSV
	}
	var stmts []string
	switch op.Kind {
	case "load":
		stmts = []string{createMySQLTable(op.Table, false), loadData(op.Table, file)}
	case "merge":
		stmts = []string{createMySQLTable("bench_stage", true), loadData("bench_stage", file), upsert(op.Table, "bench_stage")}
	default:
		return 0, fmt.Errorf("unknown baseline %q", op.Kind)
	}
	for _, q := range stmts {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return 0, fmt.Errorf("%s: %w", op.Kind, err)
		}
	}
	var n int64
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+ident(op.Table)).Scan(&n); err != nil {
		return 0, err
	}
	return n, db.Close()
}

func execMySQL(ctx context.Context, url string, stmts ...string) error {
	db, err := openMySQL(url)
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
}

// fillMySQL is Fill on MariaDB, whose sequence engine (seq_FROM_to_TO)
// generates the keys.
func fillMySQL(ctx context.Context, url, table string, from, n, perDay int64) error {
	return execMySQL(ctx, url, fmt.Sprintf(`INSERT INTO %s (%s)
SELECT seq, seq %% 9973 + 1, DATE '2024-01-01' + INTERVAL (seq DIV %d) DAY,
       ELT(seq %% 4 + 1, 'placed', 'shipped', 'completed', 'returned'),
       CAST(seq %% 100000 AS DECIMAL(12,2)) / 100, TIMESTAMP '2024-01-01 00:00:00' + INTERVAL (seq %% 86400) SECOND
FROM seq_%d_to_%d`, ident(table), strings.Join(names(), ", "), perDay, from, from+n-1), "ANALYZE TABLE "+ident(table))
}

// DropDatabase drops a MySQL database with everything in it, if it
// exists. url names any database of the server.
func DropDatabase(ctx context.Context, url, database string) error {
	return execMySQL(ctx, url, "DROP DATABASE IF EXISTS `"+strings.ReplaceAll(database, "`", "``")+"`")
}

// ResetDatabase drops a MySQL database with everything in it and creates
// it again, empty. url names any database of the server.
func ResetDatabase(ctx context.Context, url, database string) error {
	q := "`" + strings.ReplaceAll(database, "`", "``") + "`"
	return execMySQL(ctx, url, "DROP DATABASE IF EXISTS "+q, "CREATE DATABASE "+q)
}
