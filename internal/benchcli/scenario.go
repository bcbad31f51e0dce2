package benchcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/idemdata/idem/engine/bench"
	mysqlbase "github.com/idemdata/idem/engine/mysql/baseline"
	pgbase "github.com/idemdata/idem/engine/postgres/baseline"
)

// The date every scenario loads or names its merge runs by, and an as-of
// time after which it is closed.
const (
	benchDate = "2026-11-28"
	benchAsOf = "2026-12-31T00:00:00Z"
)

// goals are the ratios (idem ÷ baseline), by scenario and engine.
// MySQL's load goal is the one figure (1.5), ClickHouse's issue 15's
// (1.3), with or without key and for every format.
var goals = map[string]map[string]float64{
	"1 csv load":          {"duckdb": 1.2, "postgres": 1.3, "mysql": 1.5, "clickhouse": 1.3},
	"1 csv load, key":     {"duckdb": 1.3, "postgres": 1.6, "mysql": 1.5, "clickhouse": 1.3},
	"2 parquet load":      {"duckdb": 1.2, "postgres": 1.3, "mysql": 1.5, "clickhouse": 1.3},
	"2 jsonl load":        {"duckdb": 1.2, "postgres": 1.3, "mysql": 1.5, "clickhouse": 1.3},
	"3 replace partition": {"duckdb": 1.2, "postgres": 1.2, "mysql": 1.2, "clickhouse": 1.2},
	"3 merge small batch": {"duckdb": 1.2, "postgres": 1.2, "mysql": 1.2, "clickhouse": 1.2},
	"4 merge":             {"duckdb": 1.3, "postgres": 1.3, "mysql": 1.3, "clickhouse": 1.3},
	"5 unchanged rerun":   {"duckdb": 0.03, "postgres": 0.03, "mysql": 0.03, "clickhouse": 0.03},
	// Issue 38: the skip costs no more than reading the partition's count
	// and checksum by hand.
	"5 unchanged rerun vs scan": {"duckdb": 1.2, "postgres": 1.2, "mysql": 1.2, "clickhouse": 1.2},
	// Issue 38: a merge's first load at the engine's bulk load.
	"7 merge first load": {"duckdb": 1.3, "postgres": 1.3, "mysql": 1.3, "clickhouse": 1.3},
	// Issue 38: the same into a table created empty beforehand.
	"7 merge into empty table": {"duckdb": 1.3, "postgres": 1.3, "mysql": 1.3, "clickhouse": 1.3},
	// Issue 35: from the local S3-compatible server vs the local file; the
	// object rerun reads no bytes, so it is no slower than the local one.
	"6 s3 csv load":        {"duckdb": 1.15, "postgres": 1.15, "mysql": 1.15, "clickhouse": 1.15},
	"6 s3 unchanged rerun": {"duckdb": 1.0, "postgres": 1.0, "mysql": 1.0, "clickhouse": 1.0},
	// Issue 36: a PostgreSQL source database against a bare pipe of the
	// same rows; the rerun reads the source once, as the pipe does.
	dbLoad:  {"duckdb": 1.3, "postgres": 1.3},
	dbRerun: {"duckdb": 1.3, "postgres": 1.3},
}

// env is one engine's run of the scenarios.
type env struct {
	cfg    Config
	log    io.Writer
	engine string
	idem   string // the idem binary
	self   string // this binary, for baselines
	data   string // generated input
	work   string // DuckDB files, job files
	settle *settler
	owned  *[]target // the schemas and databases made, for Config.Drop
}

// run builds idem, then runs every scenario on every engine.
func run(ctx context.Context, cfg Config, log io.Writer) (rows []Row, err error) {
	var made []target
	if cfg.Drop {
		defer func() {
			for _, t := range made {
				err = errors.Join(err, dropTarget(ctx, cfg, t))
			}
		}()
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	bin, err := buildIdem(ctx, cfg, dir, log)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	settle := &settler{max: cfg.Settle, read: readProcStat, sleep: sleepCtx}
	defer func() {
		if settle.waited > 0 {
			fmt.Fprintf(log, "waited %.1f s in all for a quiet machine before runs\n", settle.waited.Seconds())
		}
	}()
	for _, e := range cfg.Engines {
		v := &env{cfg: cfg, log: log, engine: e, idem: bin, self: self, data: filepath.Join(dir, "data"), work: filepath.Join(dir, "work", e), settle: settle, owned: &made}
		if err := os.MkdirAll(v.work, 0o755); err != nil {
			return rows, err
		}
		rs, err := v.scenarios(ctx)
		rows = append(rows, rs...)
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

// dropTarget drops a schema or database a scenario made.
func dropTarget(ctx context.Context, cfg Config, t target) error {
	if t.engine == "mysql" {
		return mysqlbase.DropDatabase(context.WithoutCancel(ctx), cfg.MySQL, t.schema)
	}
	return pgbase.DropSchema(context.WithoutCancel(ctx), cfg.Postgres, t.schema)
}

// buildIdem returns the idem binary to measure: cfg.Idem, or one built
// into dir.
func buildIdem(ctx context.Context, cfg Config, dir string, log io.Writer) (string, error) {
	if cfg.Idem != "" {
		return cfg.Idem, nil
	}
	bin := filepath.Join(dir, "idem")
	fmt.Fprintln(log, "building idem:", bin)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/idemdata/idem/cmd/idem")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build (run idem-bench inside the idem module, or pass --idem): %w\n%s", err, out)
	}
	return bin, nil
}

// scenarios runs the wanted scenarios on v's engine, in order, stopping at
// the first that fails.
func (v *env) scenarios(ctx context.Context) ([]Row, error) {
	var rows []Row
	for _, sc := range []struct {
		name string // --only matches its start ("3" both of scenario 3, "3 merge" one)
		run  func(context.Context) ([]Row, error)
	}{
		{"1 csv load", v.csvLoad}, {"2 format load", v.formatLoad}, {"3 replace partition", v.replacePartition},
		{"3 merge small batch", v.mergeSmallBatch}, {"4 merge", v.merge}, {"5 unchanged rerun", v.unchangedRerun},
		{"6 s3", v.objectLoad}, {"7 merge first load", v.mergeFirstLoad}, {"8 db source", v.dbSource},
	} {
		if !v.cfg.wanted(sc.name) {
			continue
		}
		rs, err := sc.run(ctx)
		rows = append(rows, rs...)
		if err != nil {
			return rows, fmt.Errorf("%s, scenario %s: %w", v.engine, sc.name, err)
		}
	}
	return rows, nil
}

// target is where one scenario's table lives: a DuckDB file, a PostgreSQL
// schema or a MySQL database of its own (its own idem_runs too).
type target struct {
	engine string
	url    string // the job's target.url
	loc    string // a DuckDB file path; the PostgreSQL URL with the schema on its search_path; the MySQL URL of the database
	schema string
}

func (v *env) target(ctx context.Context, name string) (target, error) {
	switch v.engine {
	case "duckdb":
		p := filepath.Join(v.work, name+".duckdb")
		return target{engine: v.engine, url: "duckdb:" + p, loc: p}, v.reset(ctx, target{engine: v.engine, loc: p})
	case "clickhouse":
		p := filepath.Join(v.work, name+".chdb")
		return target{engine: v.engine, url: "chdb:" + p, loc: p}, v.reset(ctx, target{engine: v.engine, loc: p})
	case "mysql":
		db := v.cfg.Prefix + strings.ReplaceAll(name, "-", "_")
		base, query, _ := strings.Cut(v.cfg.MySQL, "?")
		i := strings.LastIndex(base, "/")
		if i < len("mysql://") {
			return target{}, fmt.Errorf("--mysql %s names no database", v.cfg.MySQL)
		}
		u := base[:i+1] + db
		if query != "" {
			u += "?" + query
		}
		t := target{engine: v.engine, url: u, loc: u, schema: db}
		v.made(t)
		return t, v.reset(ctx, t)
	}
	u, err := url.Parse(v.cfg.Postgres)
	if err != nil {
		return target{}, fmt.Errorf("--postgres: %w", err)
	}
	schema := v.cfg.Prefix + strings.ReplaceAll(name, "-", "_")
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	t := target{engine: v.engine, url: u.String(), loc: u.String(), schema: schema}
	v.made(t)
	return t, pgbase.ResetSchema(ctx, v.cfg.Postgres, schema)
}

// made records a schema or database made (once), for Config.Drop.
func (v *env) made(t target) {
	if !slices.ContainsFunc(*v.owned, func(m target) bool { return m.engine == t.engine && m.schema == t.schema }) {
		*v.owned = append(*v.owned, t)
	}
}

// reset empties a target: a DuckDB file is removed, a schema dropped and
// created again.
func (v *env) reset(ctx context.Context, t target) error {
	if t.engine == "duckdb" {
		for _, p := range []string{t.loc, t.loc + ".wal"} {
			if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
				return err
			}
		}
		return nil
	}
	switch t.engine {
	case "mysql":
		return mysqlbase.ResetDatabase(ctx, v.cfg.MySQL, t.schema)
	case "clickhouse":
		return os.RemoveAll(t.loc)
	}
	return pgbase.ResetSchema(ctx, v.cfg.Postgres, t.schema)
}

// file generates (or finds) an input file.
func (v *env) file(ctx context.Context, name, format string, n int64, gen func() rowsFunc) (string, error) {
	p := filepath.Join(v.data, name+"."+format)
	if _, err := os.Stat(p); err != nil {
		fmt.Fprintf(v.log, "generating %s\n", p)
	}
	return p, writeFile(ctx, p, format, n, gen)
}

func (v *env) loadFile(ctx context.Context, n int64, format string) (string, error) {
	return v.file(ctx, fmt.Sprintf("orders-%d", n), format, n, loadRows)
}

// job writes a job file and returns its path.
func (v *env) job(name string, t target, table, file, strategy string, key bool) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "idem: 1\njob: %s\ntarget:\n  url: %q\n  table: %s\nsource:\n  files: %q\nstrategy: %s\n", name, t.url, table, file, strategy)
	if strategy == "partition" {
		b.WriteString("partition:\n  column: order_date\n")
	}
	if key || strategy == "merge" {
		b.WriteString("key: [order_id]\nlatest_by: updated_at\n")
	}
	b.WriteString("columns:\n  amount: DECIMAL(12,2)\n")
	p := filepath.Join(v.work, name+".yaml")
	return p, os.WriteFile(p, []byte(b.String()), 0o644)
}

// result is the part of idem's --json line the benchmark checks.
type result struct {
	Action   string `json:"action"`
	RowsIn   int64  `json:"rows_in"`
	Inserted int64  `json:"inserted"`
	Updated  int64  `json:"updated"`
	RowCount int64  `json:"row_count"`
	Error    string `json:"error"`
}

// runIdem runs `idem run` on a job and checks what it did.
func (v *env) runIdem(ctx context.Context, jobPath string, force bool, check func(result) error) (sample, error) {
	args := []string{"run", jobPath, "--date", benchDate, "--as-of", benchAsOf, "--json"}
	if force {
		args = append(args, "--force")
	}
	if err := v.quiet(ctx); err != nil {
		return sample{}, err
	}
	s, err := measure(ctx, exec.Command(v.idem, args...))
	if err != nil {
		return s, err
	}
	var r result
	if err := json.Unmarshal(s.stdout, &r); err != nil {
		return s, fmt.Errorf("idem's output %q: %w", s.stdout, err)
	}
	if err := check(r); err != nil {
		return s, fmt.Errorf("idem run %s: %w (%s)", filepath.Base(jobPath), err, strings.TrimSpace(string(s.stdout)))
	}
	return s, nil
}

// runBaseline runs one baseline in a subprocess and checks the table's
// row count after it.
func (v *env) runBaseline(ctx context.Context, op bench.Op, want int64) (sample, error) {
	op.Engine = v.engine
	spec, err := json.Marshal(op)
	if err != nil {
		return sample{}, err
	}
	if err := v.quiet(ctx); err != nil {
		return sample{}, err
	}
	s, err := measure(ctx, exec.Command(v.self, "baseline", string(spec)))
	if err != nil {
		return s, err
	}
	if got := strings.TrimSpace(string(s.stdout)); got != fmt.Sprint(want) {
		return s, fmt.Errorf("baseline %s %s: the table has %s rows, want %d", op.Kind, op.Format, got, want)
	}
	return s, nil
}

// quiet waits for the machine to be idle before a sample, and says so
// when that took long or did not happen.
func (v *env) quiet(ctx context.Context) error {
	d, gaveUp, err := v.settle.wait(ctx)
	switch {
	case err != nil:
		return fmt.Errorf("waiting for a quiet machine: %w", err)
	case gaveUp:
		fmt.Fprintf(v.log, "the machine is still busy after %s: measuring anyway\n", d)
	case d >= time.Second:
		fmt.Fprintf(v.log, "waited %.1f s for a quiet machine\n", d.Seconds())
	}
	return nil
}

func (v *env) note(scenario, what string, k int, s sample) {
	fmt.Fprintf(v.log, "%-22s %-8s %-9s %d/%d  %7.3f s  %5d MiB\n", scenario, v.engine, what, k+1, v.cfg.Repeat, s.secs, s.rssKiB/1024)
}

func (v *env) row(scenario, baseline string, rows int64) Row {
	return Row{Scenario: scenario, Engine: v.engine, Baseline: baseline, Rows: rows, Goal: goals[scenario][v.engine]}
}

func loaded(n int64) func(result) error {
	return func(r result) error {
		if r.Action != "loaded" || r.RowCount != n {
			return fmt.Errorf("want %d rows loaded", n)
		}
		return nil
	}
}

// bulkName says what the engine's bare bulk load of a format is.
func (v *env) bulkName(format string) string {
	if v.engine == "clickhouse" {
		return "CREATE TABLE … ENGINE = MergeTree PARTITION BY order_date + INSERT INTO t SELECT * FROM file(…) in a fresh chDB process and folder"
	}
	if v.engine == "mysql" {
		if format != "csv" {
			return "CREATE TABLE + LOAD DATA LOCAL INFILE of the same rows as CSV (MySQL reads no " + format + "), one process"
		}
		return "CREATE TABLE + LOAD DATA LOCAL INFILE, one process"
	}
	if v.engine == "postgres" {
		if format != "csv" {
			return "CREATE TABLE + COPY FROM STDIN of the same rows as CSV (PostgreSQL reads no " + format + "), one process"
		}
		return "CREATE TABLE + COPY FROM STDIN (FORMAT csv) streamed by pgx, one process"
	}
	reader := map[string]string{"csv": "read_csv", "parquet": "read_parquet", "jsonl": "read_json"}[format]
	return "CREATE TABLE + INSERT INTO t SELECT * FROM " + reader + "(…) in a fresh DuckDB process and file"
}

// load measures one partition load into an empty target against the bare
// bulk load into an empty table.
func (v *env) load(ctx context.Context, scenario, name, format string, key bool) (Row, error) {
	n := v.cfg.Rows
	r := v.row(scenario, v.bulkName(format), n)
	file, err := v.loadFile(ctx, n, format)
	if err != nil {
		return r, err
	}
	csv, err := v.loadFile(ctx, n, "csv")
	if err != nil {
		return r, err
	}
	it, err := v.target(ctx, name)
	if err != nil {
		return r, err
	}
	bt, err := v.target(ctx, name+"-bare")
	if err != nil {
		return r, err
	}
	jobPath, err := v.job(strings.ReplaceAll(name, "-", "_"), it, "orders", file, "partition", key)
	if err != nil {
		return r, err
	}
	var idem, base []sample
	for k := range v.cfg.Repeat {
		if err := v.reset(ctx, it); err != nil {
			return r, err
		}
		s, err := v.runIdem(ctx, jobPath, false, loaded(n))
		if err != nil {
			return r, err
		}
		v.note(scenario, "idem", k, s)
		idem = append(idem, s)
		if err := v.reset(ctx, bt); err != nil {
			return r, err
		}
		s, err = v.runBaseline(ctx, bench.Op{Target: bt.loc, Table: "orders", Kind: "load", Format: format, File: file, CSV: csv}, n)
		if err != nil {
			return r, err
		}
		v.note(scenario, "baseline", k, s)
		base = append(base, s)
	}
	finish(&r, idem, base)
	return r, nil
}

// csvLoad is scenario 1: a CSV partition into an empty target, without
// and with key.
func (v *env) csvLoad(ctx context.Context) ([]Row, error) {
	var rows []Row
	for _, c := range []struct {
		scenario, name string
		key            bool
	}{{"1 csv load", "s1", false}, {"1 csv load, key", "s1-key", true}} {
		r, err := v.load(ctx, c.scenario, c.name, "csv", c.key)
		if err != nil {
			return rows, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// formatLoad is scenario 2: the same rows from Parquet and JSON Lines.
func (v *env) formatLoad(ctx context.Context) ([]Row, error) {
	var rows []Row
	for _, f := range []string{"parquet", "jsonl"} {
		r, err := v.load(ctx, "2 "+f+" load", "s2-"+f, f, false)
		if err != nil {
			return rows, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// sizes of scenario 3 and 4, scaled from --rows.
func (c Config) partitionSizes() (part, small, big int64) {
	if c.Big {
		return c.Rows, 3 * c.Rows, 30 * c.Rows
	}
	return c.Rows / 10, 3 * c.Rows / 10, 3 * c.Rows
}

func (c Config) smallMergeSizes() (batch, small, big int64) {
	if c.Big {
		return c.Rows / 100, c.Rows, 30 * c.Rows
	}
	return c.Rows / 100, 3 * c.Rows / 10, 3 * c.Rows
}

func (c Config) mergeSizes() (batch, table int64) {
	if c.Big {
		return c.Rows, 10 * c.Rows
	}
	return c.Rows / 10, c.Rows
}

// replacePartition is scenario 3a: a loaded partition replaced (--force)
// in a table of 3 partitions' rows and in one of 30. The baseline is the
// same run on the small table: cost should follow the partition, not the
// table.
func (v *env) replacePartition(ctx context.Context) ([]Row, error) {
	part, small, big := v.cfg.partitionSizes()
	scenario := "3 replace partition"
	r := v.row(scenario, fmt.Sprintf("the same --force run on a %d-row table (idem column: a %d-row table; the partition has %d rows)", small, big, part), part)
	file, err := v.loadFile(ctx, part, "csv")
	if err != nil {
		return nil, err
	}
	jobs := map[int64]string{}
	for _, size := range []int64{small, big} {
		name := fmt.Sprintf("s3p-%d", size)
		t, err := v.target(ctx, name)
		if err != nil {
			return nil, err
		}
		jobPath, err := v.job(strings.ReplaceAll(name, "-", "_"), t, "orders", file, "partition", false)
		if err != nil {
			return nil, err
		}
		if _, err := v.runIdem(ctx, jobPath, false, loaded(part)); err != nil {
			return nil, err
		}
		fmt.Fprintf(v.log, "filling %s to %d rows\n", name, size)
		if err := bench.Fill(ctx, v.engine, t.loc, "orders", part+1, size-part, part); err != nil {
			return nil, err
		}
		jobs[size] = jobPath
	}
	var idem, base []sample
	for k := range v.cfg.Repeat {
		s, err := v.runIdem(ctx, jobs[big], true, loaded(part))
		if err != nil {
			return nil, err
		}
		v.note(scenario, "big", k, s)
		idem = append(idem, s)
		if s, err = v.runIdem(ctx, jobs[small], true, loaded(part)); err != nil {
			return nil, err
		}
		v.note(scenario, "small", k, s)
		base = append(base, s)
	}
	finish(&r, idem, base)
	return []Row{r}, nil
}

// mergeTarget makes a merge target of n rows that idem created: a first
// merge of 1000 rows creates it (with what idem gives a table it
// creates), generated rows fill it.
func (v *env) mergeTarget(ctx context.Context, name string, n int64) (target, string, error) {
	t, err := v.target(ctx, name)
	if err != nil {
		return t, "", err
	}
	seedRows := min(1000, n/10)
	seed, err := v.loadFile(ctx, seedRows, "csv")
	if err != nil {
		return t, "", err
	}
	stable, err := v.stableInput(name, seed)
	if err != nil {
		return t, "", err
	}
	jobPath, err := v.job(strings.ReplaceAll(name, "-", "_"), t, "orders", stable, "merge", true)
	if err != nil {
		return t, "", err
	}
	if _, err := v.runIdem(ctx, jobPath, false, func(r result) error {
		if r.Inserted != seedRows {
			return fmt.Errorf("want %d rows inserted", seedRows)
		}
		return nil
	}); err != nil {
		return t, "", err
	}
	fmt.Fprintf(v.log, "filling %s to %d rows\n", name, n)
	return t, jobPath, bench.Fill(ctx, v.engine, t.loc, "orders", seedRows+1, n-seedRows, 1_000_000)
}

// batchJob points a merge job at batch k and returns the batch's file.
// The job reads it at one path, the seed's (stableInput): its definition
// stays the same from batch to batch, as a scheduled job's does, so no
// batch is the first merge of a changed definition (which reads the whole
// table's keys once).
func (v *env) batchJob(ctx context.Context, name string, t target, table, m, k int64) (string, string, error) {
	file, err := v.file(ctx, fmt.Sprintf("merge-%d-%d-%d", table, m, k), "csv", m, func() rowsFunc { return mergeRows(table, m, k) })
	if err != nil {
		return "", "", err
	}
	stable, err := v.stableInput(name, file)
	if err != nil {
		return "", "", err
	}
	jobPath, err := v.job(strings.ReplaceAll(name, "-", "_"), t, "orders", stable, "merge", true)
	return jobPath, file, err
}

// stableInput links file to the one path a merge job of name reads.
func (v *env) stableInput(name, file string) (string, error) {
	p := filepath.Join(v.work, name+"-input.csv")
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return p, os.Link(file, p)
}

func merged(m int64) func(result) error {
	return func(r result) error {
		if r.Action != "loaded" || r.Inserted+r.Updated != m {
			return fmt.Errorf("want %d rows inserted or updated", m)
		}
		return nil
	}
}

// mergeSmallBatch is scenario 3b: a small batch merged into a small and a
// large table; the baseline is the small table's merge.
func (v *env) mergeSmallBatch(ctx context.Context) ([]Row, error) {
	m, small, big := v.cfg.smallMergeSizes()
	scenario := "3 merge small batch"
	r := v.row(scenario, fmt.Sprintf("the same merge into a %d-row table (idem column: a %d-row table; %d rows merged, 10%% updates)", small, big, m), m)
	targets := map[int64]target{}
	for _, size := range []int64{small, big} {
		t, _, err := v.mergeTarget(ctx, fmt.Sprintf("s3m-%d", size), size)
		if err != nil {
			return nil, err
		}
		targets[size] = t
	}
	var idem, base []sample
	for k := range int64(v.cfg.Repeat) {
		for _, size := range []int64{big, small} {
			jobPath, _, err := v.batchJob(ctx, fmt.Sprintf("s3m-%d", size), targets[size], size, m, k)
			if err != nil {
				return nil, err
			}
			s, err := v.runIdem(ctx, jobPath, false, merged(m))
			if err != nil {
				return nil, err
			}
			if size == big {
				v.note(scenario, "big", int(k), s)
				idem = append(idem, s)
			} else {
				v.note(scenario, "small", int(k), s)
				base = append(base, s)
			}
		}
	}
	finish(&r, idem, base)
	return []Row{r}, nil
}

// merge is scenario 4: a large batch (10% newer versions, 90% new keys)
// merged into a large table, against one hand-written guarded MERGE.
func (v *env) merge(ctx context.Context) ([]Row, error) {
	m, size := v.cfg.mergeSizes()
	scenario := "4 merge"
	how := "one MERGE … WHEN MATCHED AND t.updated_at < s.updated_at THEN UPDATE … WHEN NOT MATCHED THEN INSERT (stage with read_csv in the MERGE's USING, one process)"
	switch v.engine {
	case "postgres":
		how = "one MERGE … WHEN MATCHED AND t.updated_at < s.updated_at THEN UPDATE … WHEN NOT MATCHED THEN INSERT (COPY into a temp table + MERGE, one transaction, one process; the table has a unique index on the key, as idem's)"
	case "clickhouse":
		how = "one INSERT INTO t SELECT * FROM file(…) into a ReplacingMergeTree(updated_at) ORDER BY order_id, ClickHouse's newest-wins upsert (resolved when read, FINAL; one process)"
	case "mysql":
		how = "LOAD DATA LOCAL into a temporary table + one INSERT … SELECT … ON DUPLICATE KEY UPDATE c = IF(newer, VALUES(c), c), updated_at assigned last (one process; the table has a unique index on the key, as idem's)"
	}
	r := v.row(scenario, fmt.Sprintf("%s; %d rows into %d", how, m, size), m)
	it, _, err := v.mergeTarget(ctx, "s4", size)
	if err != nil {
		return nil, err
	}
	bt, err := v.target(ctx, "s4-bare")
	if err != nil {
		return nil, err
	}
	if err := bench.CreateTable(ctx, v.engine, bt.loc, "orders", true); err != nil {
		return nil, err
	}
	if err := bench.Fill(ctx, v.engine, bt.loc, "orders", 1, size, 1_000_000); err != nil {
		return nil, err
	}
	var idem, base []sample
	for k := range int64(v.cfg.Repeat) {
		jobPath, file, err := v.batchJob(ctx, "s4", it, size, m, k)
		if err != nil {
			return nil, err
		}
		s, err := v.runIdem(ctx, jobPath, false, merged(m))
		if err != nil {
			return nil, err
		}
		v.note(scenario, "idem", int(k), s)
		idem = append(idem, s)
		// Both tables grow by the batch's new keys: 90% of m.
		want := size + (k+1)*(m-(m+9)/10)
		if s, err = v.runBaseline(ctx, bench.Op{Target: bt.loc, Table: "orders", Kind: "merge", Format: "csv", File: file}, want); err != nil {
			return nil, err
		}
		v.note(scenario, "baseline", int(k), s)
		base = append(base, s)
	}
	finish(&r, idem, base)
	return []Row{r}, nil
}

// unchangedRerun is scenario 5: a rerun with the same input (skipped)
// against the load it skips (the same run with --force).
func (v *env) unchangedRerun(ctx context.Context) ([]Row, error) {
	n := v.cfg.Rows
	scenario := "5 unchanged rerun"
	r := v.row(scenario, "the load it skips: the same run with --force (idem column: the rerun, action skipped)", n)
	file, err := v.loadFile(ctx, n, "csv")
	if err != nil {
		return nil, err
	}
	t, err := v.target(ctx, "s5")
	if err != nil {
		return nil, err
	}
	jobPath, err := v.job("s5", t, "orders", file, "partition", false)
	if err != nil {
		return nil, err
	}
	if _, err := v.runIdem(ctx, jobPath, false, loaded(n)); err != nil {
		return nil, err
	}
	skipped := func(r result) error {
		if r.Action != "skipped" || r.RowCount != n {
			return fmt.Errorf("want skipped with %d rows", n)
		}
		return nil
	}
	// The second baseline: the partition's count and checksum read by
	// hand, the engine's own checksum query (what the skip must read at
	// least to see a change made behind idem's back), one process.
	scan := v.row(scenario+" vs scan", "a bare count(*) + checksum of the partition's rows with the engine's own checksum query, as idem's skip reads it, one process (idem column: the rerun, action skipped)", n)
	scanOp := bench.Op{Target: t.loc, Table: "orders", Kind: "checksum", Day: benchDate}
	var idem, base, scans []sample
	for k := range v.cfg.Repeat {
		s, err := v.runIdem(ctx, jobPath, false, skipped)
		if err != nil {
			return nil, err
		}
		v.note(scenario, "skip", k, s)
		idem = append(idem, s)
		if s, err = v.runIdem(ctx, jobPath, true, loaded(n)); err != nil {
			return nil, err
		}
		v.note(scenario, "load", k, s)
		base = append(base, s)
		if s, err = v.runBaseline(ctx, scanOp, n); err != nil {
			return nil, err
		}
		v.note(scenario, "scan", k, s)
		scans = append(scans, s)
	}
	finish(&r, idem, base)
	finish(&scan, idem, scans)
	return []Row{r, scan}, nil
}

// mergeFirstLoad is scenario 7: a merge job's first load (distinct keys)
// into a target that does not exist, against the engine's bulk load of
// the same rows into an empty table, with the key's unique index where
// idem gives the table one.
func (v *env) mergeFirstLoad(ctx context.Context) ([]Row, error) {
	n := v.cfg.Rows
	scenario := "7 merge first load"
	how := v.bulkName("csv")
	if v.engine == "postgres" || v.engine == "mysql" {
		how += ", then CREATE UNIQUE INDEX on the key"
	}
	r := v.row(scenario, how, n)
	file, err := v.loadFile(ctx, n, "csv")
	if err != nil {
		return nil, err
	}
	it, err := v.target(ctx, "s7")
	if err != nil {
		return nil, err
	}
	bt, err := v.target(ctx, "s7-bare")
	if err != nil {
		return nil, err
	}
	jobPath, err := v.job("s7", it, "orders", file, "merge", true)
	if err != nil {
		return nil, err
	}
	inserted := func(res result) error {
		if res.Action != "loaded" || res.Inserted != n || res.RowCount != n {
			return fmt.Errorf("want %d rows inserted", n)
		}
		return nil
	}
	var idem, base []sample
	for k := range v.cfg.Repeat {
		if err := v.reset(ctx, it); err != nil {
			return nil, err
		}
		s, err := v.runIdem(ctx, jobPath, false, inserted)
		if err != nil {
			return nil, err
		}
		v.note(scenario, "idem", k, s)
		idem = append(idem, s)
		if err := v.reset(ctx, bt); err != nil {
			return nil, err
		}
		s, err = v.runBaseline(ctx, bench.Op{Target: bt.loc, Table: "orders", Kind: "load", Format: "csv", File: file, CSV: file, UniqueKey: true}, n)
		if err != nil {
			return nil, err
		}
		v.note(scenario, "baseline", k, s)
		base = append(base, s)
	}
	finish(&r, idem, base)
	empty, err := v.mergeIntoEmpty(ctx, jobPath, it, base, inserted)
	return append([]Row{r}, empty...), err
}

// mergeIntoEmpty is scenario 7's merge into the same table created empty
// beforehand (as a migration would, with its unique key), against the
// same bare loads: no plan is made (runner.intoEmpty), the rows are
// staged and inserted.
func (v *env) mergeIntoEmpty(ctx context.Context, jobPath string, it target, base []sample, check func(result) error) ([]Row, error) {
	scenario := "7 merge into empty table"
	r := v.row(scenario, "scenario 7's bare loads (the table created by the load)", v.cfg.Rows)
	var idem []sample
	for k := range v.cfg.Repeat {
		if err := v.reset(ctx, it); err != nil {
			return nil, err
		}
		if err := bench.CreateTable(ctx, v.engine, it.loc, "orders", true); err != nil {
			return nil, err
		}
		s, err := v.runIdem(ctx, jobPath, false, check)
		if err != nil {
			return nil, err
		}
		v.note(scenario, "idem", k, s)
		idem = append(idem, s)
	}
	finish(&r, idem, base)
	return []Row{r}, nil
}
