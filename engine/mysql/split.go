package mysql

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/idemdata/idem/engine"
)

var _ engine.SplitChecksummer = (*DB)(nil)

// checksumShares is how many connections a split checksum runs on: the
// server's CPUs are unknown here, and two beat one
// (docs/decisions/0014-mysql-split-checksum.md).
const checksumShares = 2

// ChecksumSplit sums the checksum over checksumShares connections of the
// pool (the session settings are the DSN's, so each reads values as the
// pinned one does), each taking the rows whose spread column hashes to its
// share: every row in exactly one share, NULL in the first.
func (d *DB) ChecksumSplit(ctx context.Context, table string, cols []engine.Column, where string, rec func(string)) (int64, string, error) {
	check := d.SQL().Check
	if len(cols) == 0 {
		return 0, "", fmt.Errorf("checksum of %s: no columns", table)
	}
	spread := d.dialect().Ident(spreadColumn(cols))
	queries := make([]string, checksumShares)
	for i := range queries {
		share := fmt.Sprintf("ifnull(crc32(CAST(%s AS BINARY)) %% %d, 0) = %d", spread, checksumShares, i)
		if where != "" {
			share = "(" + where + ") AND " + share
		}
		queries[i] = check.Checksum(table, cols, share)
		rec(queries[i])
	}
	counts := make([]int64, len(queries))
	sums := make([]string, len(queries))
	g, ctx := errgroup.WithContext(ctx)
	for i, q := range queries {
		g.Go(func() error {
			conn, err := d.db.Conn(ctx)
			if err != nil {
				return err
			}
			defer conn.Close()
			return conn.QueryRowContext(ctx, q).Scan(&counts[i], &sums[i])
		})
	}
	if err := g.Wait(); err != nil {
		return 0, "", err
	}
	var n int64
	total := new(big.Int)
	for i := range queries {
		v, ok := new(big.Int).SetString(strings.TrimSpace(sums[i]), 10)
		if !ok {
			return 0, "", fmt.Errorf("checksum share %d: not a number: %q", i, sums[i])
		}
		n += counts[i]
		total.Add(total, v)
	}
	return n, total.String(), nil
}

// spreadColumn is the column whose hash splits the rows: the first
// integer (ids spread), else the first time of day, else the first that
// is not a date (a day's partition holds one date), else the first.
func spreadColumn(cols []engine.Column) string {
	rank := func(c engine.Column) int {
		base, _, _ := strings.Cut(strings.ToUpper(c.Type), "(")
		base = strings.TrimPrefix(base, "UNSIGNED ")
		switch {
		case strings.HasSuffix(base, "INT"):
			return 0
		case base == "DATETIME" || base == "TIMESTAMP":
			return 1
		case base == "DATE" || base == "YEAR" || base == "BOOLEAN":
			return 3
		}
		return 2
	}
	best := 0
	for i, c := range cols {
		if rank(c) < rank(cols[best]) {
			best = i
		}
	}
	return cols[best].Name
}
