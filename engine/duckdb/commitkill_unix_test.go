//go:build unix

package duckdb

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The old table holds commitOld rows with ids [0, commitOld); the child's
// transaction replaces ids from commitOld/2 on and appends as many new ones,
// as a merge's rewrite or a partition's replacement does. More than one
// row group (122,880 rows) is appended, so DuckDB writes them ahead of the
// commit and the log only points at them; at 400k rows the log was written
// in one piece and no kill showed the fault.
const commitOld = 1_000_000

// A database killed while it commits holds the old rows or the new ones,
// never a mix. With DuckDB's write-ahead log (before SizeCommit),
// kills spread over the commit left the appended rows without the deletes
// (2M rows, 1.5M distinct ids) in every try of this test.
func TestCommitKilledMidwayIsAtomic(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills a dozen processes; not with -short")
	}
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	base := filepath.Join(dir, "base.duckdb")
	db, err := Open(ctx, base, time.Second)
	require.NoError(t, err)
	_, err = db.conn.ExecContext(ctx, fmt.Sprintf(
		"CREATE TABLE t AS SELECT i AS id, hash(i) AS a, md5(CAST(i AS VARCHAR)) AS s FROM range(%d) r(i)", commitOld))
	require.NoError(t, err)
	require.NoError(t, db.Close())

	oldRows, newRows := int64(commitOld), int64(commitOld+commitOld/2)
	// One run to the end measures the time from COMMIT to exit; the kills
	// are spread over that.
	work := filepath.Join(dir, "work.duckdb")
	took, killed := runCommitChild(t, base, work, -1)
	require.False(t, killed)
	require.Equal(t, [2]int64{newRows, newRows}, countIDs(t, work), "a run to the end leaves the new rows")
	t.Logf("COMMIT to exit took %v", took)

	const kills = 12
	midway := 0
	for i := range kills {
		delay := took * time.Duration(i) / kills
		_, killed := runCommitChild(t, base, work, delay)
		got := countIDs(t, work)
		if killed {
			midway++
		}
		require.Truef(t, got == [2]int64{oldRows, oldRows} || got == [2]int64{newRows, newRows},
			"killed %v into the commit: %d rows, %d distinct ids; want the old %d or the new %d", delay, got[0], got[1], oldRows, newRows)
	}
	t.Logf("%d of %d kills landed before the commit returned", midway, kills)
	require.Positive(t, midway, "no kill landed in the commit: the test showed nothing")
}

// runCommitChild copies base to work and runs commitChild on it; with
// delay >= 0 it kills the child that long after it sent COMMIT. It returns
// the time from COMMIT to the child's exit (run to the end) and whether
// the kill came before the commit returned.
func runCommitChild(t *testing.T, base, work string, delay time.Duration) (time.Duration, bool) {
	t.Helper()
	for _, p := range []string{work, work + ".wal"} {
		require.NoError(t, os.RemoveAll(p))
	}
	in, err := os.ReadFile(base)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(work, in, 0o644))

	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "IDEM_COMMIT_CHILD="+work)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	r := bufio.NewReader(out)
	line, err := r.ReadString('\n')
	require.NoErrorf(t, err, "child: %s", stderr.String())
	require.Equal(t, "commit\n", line)
	start := time.Now()
	if delay >= 0 {
		time.Sleep(delay)
		_ = cmd.Process.Kill() // an error only means it had finished
	}
	rest, _ := io.ReadAll(r)
	took := time.Since(start)
	err = cmd.Wait()
	if delay < 0 {
		require.NoErrorf(t, err, "child: %s", stderr.String())
	}
	return took, !strings.Contains(string(rest), "committed")
}

func countIDs(t *testing.T, path string) [2]int64 {
	t.Helper()
	db, err := OpenReadOnly(t.Context(), path, time.Second)
	require.NoError(t, err)
	defer db.Close()
	var n [2]int64
	require.NoError(t, db.conn.QueryRowContext(t.Context(), "SELECT count(*), count(DISTINCT id) FROM t").Scan(&n[0], &n[1]))
	return n
}

// commitChild runs the transaction TestCommitKilledMidwayIsAtomic kills,
// saying "commit" before COMMIT and "committed" after it.
func commitChild(path string) int {
	ctx := context.Background()
	db, err := Open(ctx, path, time.Second)
	if err == nil {
		for _, q := range []string{
			"BEGIN",
			fmt.Sprintf("CREATE TEMP TABLE s AS SELECT i AS id, hash(i + 1) AS a, md5(CAST(i + 1 AS VARCHAR)) AS s FROM range(%d, %d) r(i)", commitOld/2, commitOld+commitOld/2),
			"CREATE TEMP TABLE p AS SELECT s.*, t.rowid AS rid FROM s LEFT JOIN t ON t.id = s.id",
			"DELETE FROM t USING p WHERE t.rowid = p.rid AND t.id = p.id",
			"INSERT INTO t SELECT id, a, s FROM p",
			"DROP TABLE s",
			"DROP TABLE p",
		} {
			if _, err = db.conn.ExecContext(ctx, q); err != nil {
				break
			}
		}
	}
	if err == nil { // as the runner does before it commits
		err = db.SizeCommit(ctx, db.conn, commitOld)
	}
	if err == nil {
		fmt.Println("commit")
		_, err = db.conn.ExecContext(ctx, "COMMIT")
	}
	if err == nil {
		fmt.Println("committed")
		err = db.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// SizeCommit makes a commit of a row group or more skip the log, even of
// the narrowest row (a DATE), which DuckDB's estimate leaves out; a commit
// of a few rows goes through the log.
func TestLargeCommitSkipsTheLog(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "narrow.duckdb")
	db, err := Open(ctx, path, time.Second)
	require.NoError(t, err)
	defer db.Close()
	walSize := func() int64 {
		fi, err := os.Stat(path + ".wal")
		if os.IsNotExist(err) {
			return 0
		}
		require.NoError(t, err)
		return fi.Size()
	}
	for _, q := range []string{"CREATE TABLE d (day DATE)", "CHECKPOINT"} {
		_, err := db.conn.ExecContext(ctx, q)
		require.NoError(t, err)
	}
	require.Zero(t, walSize())

	commit := func(rows int) {
		_, err := db.conn.ExecContext(ctx, "BEGIN")
		require.NoError(t, err)
		_, err = db.conn.ExecContext(ctx, fmt.Sprintf("INSERT INTO d SELECT DATE '2026-01-01' + CAST(i %% 365 AS INTEGER) FROM range(%d) r(i)", rows))
		require.NoError(t, err)
		require.NoError(t, db.SizeCommit(ctx, db.conn, int64(rows)))
		_, err = db.conn.ExecContext(ctx, "COMMIT")
		require.NoError(t, err)
	}
	commit(3)
	require.Positive(t, walSize(), "a small commit is logged")
	commit(rowGroupRows)
	require.Zero(t, walSize(), "a row group of DATEs is checkpointed, the log with it")
	commit(3)
	require.Positive(t, walSize(), "a small commit after a large one is logged again")
}
