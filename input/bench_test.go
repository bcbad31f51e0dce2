package input

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkScanRead reads IDEM_BENCH_CSV (the benchmark's 1M-row CSV, or
// its .jsonl or .parquet twin) in both passes; BenchmarkScan in the first:
// go test ./input -run '^$' -bench Scan -benchtime 3x
func BenchmarkScanRead(b *testing.B) {
	path, format := benchInput(b)
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
	path, format := benchInput(b)
	for b.Loop() {
		if _, err := Scan(context.Background(), Spec{Paths: []string{path}, Format: format}); err != nil {
			b.Fatal(err)
		}
	}
}

// benchInput is IDEM_BENCH_CSV and its format, by its extension.
func benchInput(b *testing.B) (path, format string) {
	path = os.Getenv("IDEM_BENCH_CSV")
	if path == "" {
		b.Skip("IDEM_BENCH_CSV names a CSV, JSON Lines or Parquet file to read")
	}
	switch filepath.Ext(path) {
	case ".jsonl":
		return path, "jsonl"
	case ".parquet":
		return path, "parquet"
	}
	return path, "csv"
}
