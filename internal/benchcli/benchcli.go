// Package benchcli is idem-bench: it measures idem against each engine's own
// bulk path, scenario by scenario, and prints one table. idem and every
// baseline run as subprocesses (idem the built binary, a baseline this
// binary again, `idem-bench baseline`), so both pay a process start and both
// have their peak memory read from the kernel (rusage maxrss). The runs of
// a scenario alternate, idem then baseline, so a machine's drifting load
// falls on both alike. Data is generated deterministically (a fixed-seed
// PRNG, values derived from keys) and cached by size.
package benchcli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/idemdata/idem/engine/bench"
	_ "github.com/idemdata/idem/engine/clickhouse/baseline" // registers its baseline
	"github.com/idemdata/idem/internal/peakrss"
)

// Row is one line of the table.
type Row struct {
	Scenario string `json:"scenario"`
	Engine   string `json:"engine"`
	// Baseline says what the idem runs are compared with.
	Baseline string    `json:"baseline"`
	Rows     int64     `json:"rows"` // rows one idem run reads
	Idem     []float64 `json:"idem_s"`
	Base     []float64 `json:"baseline_s"`
	IdemMed  float64   `json:"idem_median_s"`
	BaseMed  float64   `json:"baseline_median_s"`
	Ratio    float64   `json:"ratio"`
	RowsPerS float64   `json:"rows_per_s"`
	IdemRSS  float64   `json:"idem_peak_rss_mib"`
	BaseRSS  float64   `json:"baseline_peak_rss_mib"`
	Goal     float64   `json:"goal"`
	Met      bool      `json:"met"`
}

// Config is the command line.
type Config struct {
	Engines  []string
	Rows     int64
	Repeat   int
	JSON     bool
	Big      bool
	Only     string // run only scenarios whose name starts with one of these (comma-separated)
	Dir      string
	Postgres string
	MySQL    string
	Prefix   string // of the PostgreSQL schemas and MySQL databases the benchmark owns
	// Drop drops the schemas and databases it made when it ends (they are
	// kept otherwise, to be looked at).
	Drop bool
	Idem string
	// Settle is how long a sample may wait for the machine to be quiet
	// (settle.go); 0: not at all.
	Settle time.Duration
}

// Main runs idem-bench with args and returns the exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "baseline" {
		return baselineMain(ctx, args[1:], stdout, stderr)
	}
	cfg, err := parse(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "idem-bench:", err)
		return 2
	}
	rows, err := run(ctx, cfg, stderr)
	print(stdout, cfg, rows)
	if err != nil {
		fmt.Fprintln(stderr, "idem-bench:", err)
		return 1
	}
	return 0
}

func parse(args []string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("idem-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	engines := fs.String("engines", "duckdb,postgres", "engines to measure, comma-separated")
	rows := fs.Int64("rows", 1_000_000, "rows of the load scenarios (1, 2, 5); the others scale from it")
	repeat := fs.Int("repeat", 3, "runs of idem and of the baseline per scenario, alternating")
	asJSON := fs.Bool("json", false, "print one JSON object per row instead of the table")
	big := fs.Bool("big", false, "the issue's full sizes: replace 1 partition of --rows in 3x and 30x --rows; merge 10k into --rows and 30x; merge --rows into 10x")
	only := fs.String("only", "", "run only scenarios starting with these prefixes, comma-separated (e.g. 1,4)")
	dir := fs.String("dir", filepath.Join(os.TempDir(), "idem-bench-cmd"), "where generated data (cached by size) and DuckDB files go")
	pg := fs.String("postgres", envOr("IDEM_BENCH_POSTGRES", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"), "PostgreSQL URL (schemas named --schema-prefix* are dropped and created there)")
	my := fs.String("mysql", envOr("IDEM_BENCH_MYSQL", "mysql://root@127.0.0.1:3306/test"), "MySQL/MariaDB URL (databases named --schema-prefix* are dropped and created there; MariaDB: its sequence engine fills the tables)")
	prefix := fs.String("schema-prefix", "idem_bench_", "prefix of the PostgreSQL schemas and MySQL databases the benchmark drops and creates")
	drop := fs.Bool("drop", false, "drop the PostgreSQL schemas and MySQL databases the benchmark made when it ends (by default they are kept, to be looked at)")
	idem := fs.String("idem", "", "a built idem binary (default: go build ./cmd/idem into --dir)")
	settle := fs.Duration("settle", time.Minute, "before each run, wait up to this long until at most a fifth of the cores is busy (a server's work left from the run before); 0: do not wait")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	cfg := Config{Rows: *rows, Repeat: *repeat, JSON: *asJSON, Big: *big, Only: *only, Dir: *dir, Postgres: *pg, MySQL: *my, Prefix: *prefix, Drop: *drop, Idem: *idem, Settle: *settle}
	for _, e := range strings.Split(*engines, ",") {
		switch e = strings.TrimSpace(e); e {
		case "duckdb", "postgres", "mysql", "clickhouse":
			cfg.Engines = append(cfg.Engines, e)
		case "":
		default:
			return cfg, fmt.Errorf("--engines: unknown engine %q (duckdb, postgres, mysql, clickhouse)", e)
		}
	}
	switch {
	case cfg.Rows < 1000:
		return cfg, errors.New("--rows must be at least 1000")
	case cfg.Repeat < 1:
		return cfg, errors.New("--repeat must be at least 1")
	case len(cfg.Engines) == 0:
		return cfg, errors.New("--engines names no engine")
	}
	return cfg, nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// baselineMain runs one baseline: `idem-bench baseline '<json of bench.Op>'`.
func baselineMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: idem-bench baseline JSON")
		return 2
	}
	var op bench.Op
	if err := json.Unmarshal([]byte(args[0]), &op); err != nil {
		fmt.Fprintln(stderr, "idem-bench baseline:", err)
		return 2
	}
	n, err := bench.Run(ctx, op)
	if err != nil {
		fmt.Fprintln(stderr, "idem-bench baseline:", err)
		return 1
	}
	fmt.Fprintln(stdout, n)
	return 0
}

// print writes the table, or JSON Lines.
func print(w io.Writer, cfg Config, rows []Row) {
	if cfg.JSON {
		enc := json.NewEncoder(w)
		for _, r := range rows {
			enc.Encode(r)
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tengine\tidem s\tbaseline s\tratio\tgoal\tmet\trows/s\tidem RSS MiB\tbaseline RSS MiB\t")
	for _, r := range rows {
		met := "no"
		if r.Met {
			met = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%.3f\t%s\t%s\t%.0f\t%.0f\t%.0f\t\n", r.Scenario, r.Engine, r.IdemMed, r.BaseMed, r.Ratio,
			goal(r.Goal), met, r.RowsPerS, r.IdemRSS, r.BaseRSS)
	}
	tw.Flush()
	fmt.Fprintln(w)
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Scenario] {
			seen[r.Scenario] = true
			fmt.Fprintf(w, "%s: baseline = %s\n", r.Scenario, r.Baseline)
		}
	}
	fmt.Fprintf(w, "medians of %d runs each, idem and baseline alternating; ratio = idem / baseline (lower is better)\n", cfg.Repeat)
}

func goal(g float64) string {
	if g == 0 {
		return "-"
	}
	return fmt.Sprintf("≤%.2f", g)
}

// sample is one measured subprocess.
type sample struct {
	secs   float64
	rssKiB int64
	stdout []byte
}

// measure runs cmd and reads its wall time and its own peak resident
// memory (peakrss: os/exec's figure would be this process's when larger).
func measure(ctx context.Context, cmd *exec.Cmd) (sample, error) {
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	ps, err := peakrss.Run(ctx, cmd)
	s := sample{secs: ps.Secs, rssKiB: ps.KiB, stdout: []byte(out.String())}
	if err != nil {
		return s, fmt.Errorf("%s: %w\n%s%s", strings.Join(cmd.Args[:min(3, len(cmd.Args))], " "), err, out.String(), errb.String())
	}
	return s, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// finish fills a row's medians and verdict from its samples.
func finish(r *Row, idem, base []sample) {
	var rss, brss int64
	for _, s := range idem {
		r.Idem = append(r.Idem, round(s.secs))
		rss = max(rss, s.rssKiB)
	}
	for _, s := range base {
		r.Base = append(r.Base, round(s.secs))
		brss = max(brss, s.rssKiB)
	}
	r.IdemMed, r.BaseMed = round(median(r.Idem)), round(median(r.Base))
	if r.BaseMed > 0 {
		r.Ratio = round(r.IdemMed / r.BaseMed)
	}
	if r.IdemMed > 0 {
		r.RowsPerS = float64(int64(float64(r.Rows) / r.IdemMed))
	}
	r.IdemRSS, r.BaseRSS = float64(rss/1024), float64(brss/1024)
	r.Met = r.Goal > 0 && r.Ratio <= r.Goal
}

func round(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }

// wanted reports whether a scenario runs under --only.
func (c Config) wanted(scenario string) bool {
	if c.Only == "" {
		return true
	}
	for _, p := range strings.Split(c.Only, ",") {
		if p = strings.TrimSpace(p); p != "" && strings.HasPrefix(scenario, p) {
			return true
		}
	}
	return false
}
