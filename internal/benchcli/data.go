package benchcli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	duckbase "github.com/idemdata/idem/engine/duckdb/baseline"
)

// order is one generated row, in bench.Columns' order.
type order struct {
	id, customer int64
	date, status string
	cents        int64
	at           time.Time
}

var statuses = []string{"placed", "shipped", "completed", "return_pending", "returned"}

// rowsFunc generates row i of a file; it is called for i = 0, 1, … in
// order, so a PRNG it holds gives the same file every time.
type rowsFunc func(i int64) order

// loadRows are the load scenarios' orders: keys 1..n, all on 2026-11-28
// (one day partition), other values from a fixed-seed PCG.
func loadRows() rowsFunc {
	rng := rand.New(rand.NewPCG(20261128, 1))
	day := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	return func(i int64) order {
		return order{id: i + 1, customer: rng.Int64N(50_000) + 1, date: "2026-11-28", status: statuses[rng.IntN(len(statuses))],
			cents: rng.Int64N(100_000) + 100, at: day.Add(time.Duration(rng.IntN(86_400)) * time.Second)}
	}
}

// mergeRows is batch k of m rows merged into a table holding keys 1..t:
// every tenth row a newer version of an existing key (spread over the
// table), the rest new keys, disjoint from every other batch's. Its
// versions (December 2026, day k) are newer than anything before it.
func mergeRows(t, m, k int64) rowsFunc {
	rng := rand.New(rand.NewPCG(uint64(t), uint64(m*1000+k)))
	stride := max(t/max(m/10, 1), 1)
	day := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(k))
	return func(i int64) order {
		id := t + k*m + i + 1
		if i%10 == 0 {
			id = (i/10)*stride%t + 1
		}
		return order{id: id, customer: rng.Int64N(50_000) + 1, date: "2026-11-28", status: statuses[rng.IntN(len(statuses))],
			cents: rng.Int64N(100_000) + 100, at: day.Add(time.Duration(rng.IntN(86_400)) * time.Second)}
	}
}

// writeFile writes n rows as CSV or JSON Lines (a Parquet file is
// converted from the CSV of the same name), unless the file exists: the
// data is deterministic, so a cached file is the same data.
func writeFile(ctx context.Context, path, format string, n int64, gen func() rowsFunc) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if format == "parquet" {
		csv := path[:len(path)-len(filepath.Ext(path))] + ".csv"
		if err := writeFile(ctx, csv, "csv", n, gen); err != nil {
			return err
		}
		os.Remove(tmp)
		if err := duckbase.ToParquet(ctx, csv, tmp); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	}
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	if format == "csv" {
		fmt.Fprintln(w, "order_id,customer_id,order_date,status,amount,updated_at")
	}
	row := gen()
	var buf []byte
	for i := range n {
		o := row(i)
		buf = buf[:0]
		at := o.at.Format(time.DateTime)
		if format == "csv" {
			buf = fmt.Appendf(buf, "%d,%d,%s,%s,%d.%02d,%s\n", o.id, o.customer, o.date, o.status, o.cents/100, o.cents%100, at)
		} else {
			st, _ := json.Marshal(o.status)
			buf = fmt.Appendf(buf, `{"order_id":%d,"customer_id":%d,"order_date":"%s","status":%s,"amount":"%d.%02d","updated_at":"%s"}`+"\n",
				o.id, o.customer, o.date, st, o.cents/100, o.cents%100, at)
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
