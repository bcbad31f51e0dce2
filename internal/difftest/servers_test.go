package difftest_test

import (
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// diffDatabase names this process's database on a server.
func diffDatabase() string { return fmt.Sprintf("idem_d_%d", os.Getpid()) }

// staleDatabases are the databases query lists (idem_d_<pid>) whose
// process no longer runs: a test killed before its cleanup left them.
func staleDatabases(db *sql.DB, query string) ([]string, error) {
	rows, err := db.Query(query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		pid, err := strconv.Atoi(strings.TrimPrefix(name, "idem_d_"))
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		out = append(out, name)
	}
	return out, rows.Err()
}
