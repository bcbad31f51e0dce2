package postgres_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/postgres"
)

// LoadFilesInto creates the target in the transaction and copies the rows
// straight into it; an input it cannot load so leaves the transaction as
// it found it (engine.ErrNotBuilt), for the usual staging.
func TestLoadFilesInto(t *testing.T) {
	t.Parallel()
	url := freshDatabase(t)
	db := open(t, url)
	ctx := t.Context()
	dir := t.TempDir()
	into := engine.Table{Name: "t"}
	index := `CREATE INDEX "t_ix" ON "t" USING brin ("d")`
	load := func(tx *sql.Tx, content string) (int64, error) {
		p := writeFile(t, dir, fmt.Sprintf("in%d.csv", len(content)), content)
		return db.LoadFilesInto(ctx, tx, "s", into, engine.FileInput{Paths: []string{p}, Format: "csv", Indexes: []string{index}})
	}
	count := func(q *sql.Tx, query string) (n int64) {
		require.NoError(t, q.QueryRowContext(ctx, query).Scan(&n))
		return n
	}
	untouched := func(tx *sql.Tx) {
		t.Helper()
		require.Zero(t, count(tx, `SELECT count(*) FROM pg_class WHERE relname IN ('t', 't_ix')`), "nothing created")
		require.Zero(t, count(tx, `SELECT count(to_regclass('pg_temp.s'))`), "no staging table")
	}

	t.Run("loaded", func(t *testing.T) {
		tx, err := db.Begin(ctx)
		require.NoError(t, err)
		defer tx.Rollback()
		n, err := load(tx, "id,d\n1,2026-11-28\n2,2026-11-28\n3,2026-11-29\n")
		require.NoError(t, err)
		require.EqualValues(t, 3, n)
		require.EqualValues(t, 3, count(tx, `SELECT count(*) FROM "t"`))
		require.Zero(t, count(tx, `SELECT count(*) FROM "s"`), "the staging table holds the columns, no rows")
		require.EqualValues(t, 1, count(tx, `SELECT count(*) FROM pg_indexes WHERE indexname = 't_ix'`), "the index, made before the rows")
	})
	t.Run("rows", func(t *testing.T) {
		tx, err := db.Begin(ctx)
		require.NoError(t, err)
		defer func() { tx.Rollback() }()
		p := writeFile(t, dir, "in.jsonl", `{"id": 1, "d": "2026-11-28"}`+"\n"+`{"id": 2, "d": "2026-11-29"}`+"\n")
		n, err := db.LoadFilesInto(ctx, tx, "s", into, engine.FileInput{Paths: []string{p}, Format: "jsonl", Types: map[string]string{"d": "DATE"}})
		require.NoError(t, err)
		require.EqualValues(t, 2, n)
		require.EqualValues(t, 2, count(tx, `SELECT count(*) FROM "t" WHERE "d" IS NOT NULL`))

		// A column that travels as text gets its type after the rows:
		// staged as usual, not rewritten in the new table.
		require.NoError(t, tx.Rollback())
		tx, err = db.Begin(ctx)
		require.NoError(t, err)
		p = writeFile(t, dir, "doc.jsonl", `{"id": 1, "doc": {"a": 1}}`+"\n")
		_, err = db.LoadFilesInto(ctx, tx, "s", into, engine.FileInput{Paths: []string{p}, Format: "jsonl", Types: map[string]string{"doc": "JSONB"}})
		require.ErrorIs(t, err, engine.ErrNotBuilt)
		untouched(tx)
		// Likewise from CSV that is not copied raw (a list column), told
		// by the sample's types.
		p = writeFile(t, dir, "doc.csv", "id,xs\n1,\"[1, 2]\"\n")
		_, err = db.LoadFilesInto(ctx, tx, "s", into, engine.FileInput{Paths: []string{p}, Format: "csv", Delim: ",", Types: map[string]string{"xs": "INTEGER[]"}})
		require.ErrorIs(t, err, engine.ErrNotBuilt)
		untouched(tx)
	})
	for name, content := range map[string]string{
		"header only": "id,d\n",
		// Past the reader's sample (20,480 rows), a time with an offset:
		// COPY into the sample's TIMESTAMP would drop the offset; the
		// reader's full read types the column TIMESTAMPTZ.
		"types past the sample": "id,d\n" + strings.Repeat("1,2026-11-28 10:00:00\n", 30_000) + "2,2026-11-28T20:30:00-05:00\n",
	} {
		t.Run(name, func(t *testing.T) {
			tx, err := db.Begin(ctx)
			require.NoError(t, err)
			defer tx.Rollback()
			_, err = load(tx, content)
			require.ErrorIs(t, err, engine.ErrNotBuilt)
			untouched(tx)
		})
	}

	// Another partition's first run created the target while this one
	// waited: its rows are not this run's to place, so this one stages.
	t.Run("created meanwhile", func(t *testing.T) {
		first, err := db.Begin(ctx)
		require.NoError(t, err)
		defer first.Rollback()
		_, err = load(first, "id,d\n1,2026-11-28\n")
		require.NoError(t, err)

		other := open(t, url)
		second, err := other.Begin(ctx)
		require.NoError(t, err)
		defer second.Rollback()
		done := make(chan error, 1)
		go func() {
			p := writeFile(t, dir, "second.csv", "id,d\n7,2026-11-29\n")
			_, err := other.LoadFilesInto(context.Background(), second, "s", into, engine.FileInput{Paths: []string{p}, Format: "csv"})
			done <- err
		}()
		// Wait until the second waits for the first's creation lock.
		watch, err := sql.Open("pgx", url)
		require.NoError(t, err)
		defer watch.Close()
		require.Eventually(t, func() bool {
			var n int
			return watch.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
			  WHERE wait_event_type = 'Lock' AND wait_event = 'advisory'`).Scan(&n) == nil && n == 1
		}, 30*time.Second, 20*time.Millisecond)
		require.NoError(t, first.Commit())
		require.ErrorIs(t, <-done, engine.ErrNotBuilt)
		require.EqualValues(t, 1, count(second, `SELECT count(*) FROM "t"`), "the first run's row only")
		require.Zero(t, count(second, `SELECT count(to_regclass('pg_temp.s'))`), "no staging table")
	})
}

var _ engine.TxLoader = (*postgres.DB)(nil)
