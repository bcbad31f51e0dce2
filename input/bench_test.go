package input

import (
	"context"
	"errors"
	"io"
	"os"
	"testing"
)

// BenchmarkScanRead reads IDEM_BENCH_CSV (the benchmark's 1M-row CSV):
// go test ./input -run '^$' -bench ScanRead -benchtime 3x
func BenchmarkScanRead(b *testing.B) {
	path := os.Getenv("IDEM_BENCH_CSV")
	if path == "" {
		b.Skip("IDEM_BENCH_CSV names a CSV file to read")
	}
	format := "csv"
	if len(path) > 6 && path[len(path)-6:] == ".jsonl" {
		format = "jsonl"
	}
	for b.Loop() {
		in, err := Scan(context.Background(), Spec{Paths: []string{path}, Format: format})
		if err != nil {
			b.Fatal(err)
		}
		r := in.Read(context.Background())
		n := 0
		for {
			bt, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += bt.Len
		}
		r.Close()
		if int64(n) != in.Rows {
			b.Fatal(n, in.Rows)
		}
	}
}

func BenchmarkScan(b *testing.B) {
	path := os.Getenv("IDEM_BENCH_CSV")
	if path == "" {
		b.Skip("IDEM_BENCH_CSV names a CSV file to read")
	}
	for b.Loop() {
		if _, err := Scan(context.Background(), Spec{Paths: []string{path}, Format: "csv"}); err != nil {
			b.Fatal(err)
		}
	}
}
