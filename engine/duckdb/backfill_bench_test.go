package duckdb_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/runner"
)

// A backfill of a year of tiny daily files (365 partitions of 3 rows) into
// DuckDB in one process, then the same backfill again, which skips every
// partition:
//
//	go test ./engine/duckdb/ -run '^$' -bench 'BenchmarkBackfill365' -benchtime 3x -count 3
//
// ms/partition is the backfill's wall time (open, every run, close)
// divided by 365: all of it is idem's own time, since no process starts.
// cpu-ms/partition is the process's CPU time (user and system, DuckDB's
// threads included) over the same span: on a shared machine it shows what
// the wall time owes to waiting for a core.

const backfillDays = 365

// backfillFixture writes a job reading in/{{ date }}.csv and 365 files.
func backfillFixture(b *testing.B) (dir string, j *idem.Job) {
	b.Helper()
	dir = b.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "in"), 0o755); err != nil {
		b.Fatal(err)
	}
	day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range backfillDays {
		d := day.AddDate(0, 0, i).Format("2006-01-02")
		csv := "order_id,customer_id,order_date,status,amount,updated_at\n" +
			fmt.Sprintf("%d,1,%s,placed,1.50,%s 09:00:00\n", i*3+1, d, d) +
			fmt.Sprintf("%d,2,%s,shipped,2.50,%s 10:00:00\n", i*3+2, d, d) +
			fmt.Sprintf("%d,3,%s,completed,3.50,%s 11:00:00\n", i*3+3, d, d)
		if err := os.WriteFile(filepath.Join(dir, "in", d+".csv"), []byte(csv), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	yaml := "idem: 1\njob: bench_daily\ntarget:\n  url: duckdb:target.duckdb\n  table: orders\n" +
		"source:\n  files: in/{{ date }}.csv\nstrategy: partition\npartition:\n  column: order_date\n" +
		"key: [order_id]\nlatest_by: updated_at\ncolumns:\n  amount: DECIMAL(12,2)\n"
	path := filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		b.Fatal(err)
	}
	j, err := idem.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	return dir, j
}

func backfillYear(b *testing.B, j *idem.Job, want string) {
	b.Helper()
	res, err := idem.Backfill(context.Background(), j, idem.BackfillOptions{
		Options: idem.Options{AsOf: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)},
		From:    "2025-01-01", To: "2025-12-31",
	})
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Results) != backfillDays || len(res.Failed) > 0 {
		b.Fatalf("%d results, failed %v", len(res.Results), res.Failed)
	}
	for _, r := range res.Results {
		if r.Action != want {
			b.Fatalf("%s: %s, want %s", r.Partition, r.Action, want)
		}
	}
}

// BenchmarkBackfill365 loads 365 partitions into a fresh database file.
func BenchmarkBackfill365(b *testing.B) {
	dir, j := backfillFixture(b)
	b.ReportAllocs()
	var total, cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.Remove(filepath.Join(dir, "target.duckdb"))
		os.Remove(filepath.Join(dir, "target.duckdb.wal"))
		b.StartTimer()
		began, cpuBegan := time.Now(), cpuTime()
		backfillYear(b, j, runner.ActionLoaded)
		total += time.Since(began)
		cpu += cpuTime() - cpuBegan
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N)/backfillDays, "ms/partition")
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N)/backfillDays, "cpu-ms/partition")
}

// BenchmarkBackfill365Rerun reruns a finished backfill: every partition
// skips.
func BenchmarkBackfill365Rerun(b *testing.B) {
	_, j := backfillFixture(b)
	backfillYear(b, j, runner.ActionLoaded)
	b.ReportAllocs()
	b.ResetTimer()
	began, cpuBegan := time.Now(), cpuTime()
	for i := 0; i < b.N; i++ {
		backfillYear(b, j, runner.ActionSkipped)
	}
	b.ReportMetric(float64(time.Since(began).Milliseconds())/float64(b.N)/backfillDays, "ms/partition")
	b.ReportMetric(float64((cpuTime()-cpuBegan).Milliseconds())/float64(b.N)/backfillDays, "cpu-ms/partition")
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
