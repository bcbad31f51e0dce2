// Package job reads, checks and renders idem job files.
//
// A job file is strict YAML: unknown keys are errors, ${VAR} and
// ${VAR:-default} are expanded in string values, and Validate reports every
// problem with its path in the file. Nothing here touches a database.
package job

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Strategies.
const (
	StrategyPartition = "partition"
	StrategyMerge     = "merge"
)

// Job is a parsed, expanded and validated job file.
type Job struct {
	// Idem is the job file format version: 1. Required.
	Idem int `yaml:"idem"`
	// Name is the job's stable name, part of every run id: renaming a job
	// makes every partition new to it. Required.
	Name string `yaml:"job"`
	// Target is where the job writes.
	Target Target `yaml:"target"`
	// Source is where rows come from: exactly one of query, table or
	// files.
	Source Source `yaml:"source"`
	// Strategy is how rows are written: partition (replace one partition
	// per run) or merge (insert new keys, update where newer). Required.
	Strategy string `yaml:"strategy"`
	// Partition is how rows map onto partitions (strategy partition), and
	// the grain --date names runs at (both strategies).
	Partition Partition `yaml:"partition"`
	// Key is the natural key: staging keeps one row per key. Required for
	// merge; optional for partition. Never a surrogate the target mints.
	Key StringList `yaml:"key"`
	// LatestBy is the version column: the newest row of a key wins, in
	// staging and in a merge. Required for merge; never a column of the
	// key. `run` (merge only) versions each row by its run instead, for
	// inputs without a version column: a later partition's rows win.
	LatestBy string `yaml:"latest_by"`
	// DeleteWhen is a boolean column (merge only, optional): a winning row
	// with it true deletes its key, remembered in <table>__idem_deleted.
	DeleteWhen string `yaml:"delete_when"`
	// Columns gives columns explicit types (BIGINT, DECIMAL(12,2), DATE,
	// TIMESTAMPTZ, …); other columns are typed by the reader.
	Columns map[string]string `yaml:"columns"`
	// LoadedAt names a metadata column idem fills with the run's time;
	// never in logic or checksums.
	LoadedAt string `yaml:"loaded_at"`
	// AllowEmpty accepts an empty input (no file, no rows) as the
	// partition's contents, instead of failing the run. Default false.
	AllowEmpty bool `yaml:"allow_empty"`
	// MaxShrink ("20%") fails a partition run, writing nothing, that would
	// replace the partition with that many percent fewer rows (or more)
	// than the ledger recorded last time. Unset: no such limit.
	MaxShrink Percent `yaml:"max_shrink"`
	// OnSchemaChange decides what a source column the target lacks does:
	// fail (default) or add_columns.
	OnSchemaChange string `yaml:"on_schema_change"`
	// Lint is the lint findings the job waives, by name (package lint has
	// the checks).
	Lint Lint `yaml:"lint"`

	// Dir is the folder of the job file: relative paths resolve against it.
	Dir string `yaml:"-"`
	// Path is the job file as given to Load ("" when parsed from bytes).
	Path string `yaml:"-"`
	// Pos says where values start in the file, so lint findings inside
	// the query point at a line and column the user can jump to.
	Pos Positions `yaml:"-"`
}

// Target names where a job writes.
type Target struct {
	// URL is the target database: duckdb:PATH (default
	// duckdb:warehouse.duckdb), chdb:PATH, postgres://…, mysql://…,
	// clickhouse://…. ${VAR} and ${VAR:-default} are expanded.
	URL string `yaml:"url"`
	// Table is the table written: schema.table or table, created from
	// the input if missing. Required.
	Table string `yaml:"table"`
	// SharedWith names other jobs allowed to write the same table. A table
	// has one owning job unless its jobs say otherwise.
	SharedWith StringList `yaml:"shared_with"`
}

// Source is exactly one of a query, a table or file globs.
type Source struct {
	// URL names the database query or table is read from (postgres://…,
	// mysql://…, duckdb:PATH, chdb:PATH, clickhouse://…), opened read-only
	// and read in one snapshot.
	// Without it, query runs inside the target. ${VAR} are expanded; the
	// password is redacted like the target's.
	URL string `yaml:"url"`
	// Query is SQL run inside the source database (the target without
	// url); {{ start }}, {{ end }}, {{ date }} render as typed literals.
	Query string `yaml:"query"`
	// Table (with url) reads a table of the source: the rows whose
	// partition.column is in the partition's window, or every row for a
	// merge job. Shorthand for a query idem writes.
	Table string `yaml:"table"`
	// Files is one glob or a list of globs, relative to the job file's
	// folder, with {{ date }} and its parts as text; a file matched twice
	// is read once.
	Files StringList `yaml:"files"`
	// Format is the files' format: csv, jsonl or parquet; default from
	// the file extension.
	Format string `yaml:"format"`
}

// HasFiles reports whether the source is files.
func (s Source) HasFiles() bool { return len(s.Files) > 0 }

// IsDatabase reports whether the source is another database (url).
func (s Source) IsDatabase() bool { return s.URL != "" }

// IsQuery reports whether rows come from SQL: a query (in the target or a
// source database) or a source table.
func (s Source) IsQuery() bool { return s.Query != "" || s.Table != "" }

// Percent is a share written "20%" (or 20), 0 to 100.
type Percent float64

// UnmarshalYAML reads "20%" or 20.
func (p *Percent) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return errors.New("must be a percentage (like 20%)")
	}
	s := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(n.Value), "%"))
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("%q is not a percentage (like 20%%)", n.Value)
	}
	if v <= 0 || v > 100 {
		return fmt.Errorf("%q must be more than 0%% and at most 100%%", n.Value)
	}
	*p = Percent(v)
	return nil
}

// Partition describes how rows map onto partitions.
type Partition struct {
	// Column is the DATE or TIMESTAMP column holding the partition value.
	// Required for strategy partition.
	Column string `yaml:"column"`
	// Grain is the partitions' size: hour, day (default) or month.
	Grain Grain `yaml:"grain"`
	// Lookback is how many earlier partitions each run also rebuilds,
	// oldest first. Default 0.
	Lookback int `yaml:"lookback"`
	// ClosedAfter is how long after its end a partition closes (90m, 6h,
	// 2d): a run before then exits 75 unless --allow-open. Unset (nil), a
	// partition job's partitions close at their end, and merge runs are
	// never held back.
	ClosedAfter *Duration `yaml:"closed_after"`
	// Timezone is an IANA zone partition boundaries are computed in
	// (default UTC).
	Timezone string `yaml:"timezone"`
	// OutOfWindow is what rows outside the partition being run do: report
	// (default: counted, listed per partition, not written) or fail.
	OutOfWindow string `yaml:"out_of_window"`
	// OnNull is what a row whose partition value is NULL does: fail
	// (default) or skip (counted as out of window).
	OnNull string `yaml:"on_null"`
}

// Out-of-window and NULL-partition policies.
const (
	OutOfWindowReport = "report"
	OutOfWindowFail   = "fail"
	OnNullFail        = "fail"
	OnNullSkip        = "skip"
	SchemaFail        = "fail"
	SchemaAddColumns  = "add_columns"
)

// ClosedAfterOr returns closed_after, or def when the job does not give it.
func (p Partition) ClosedAfterOr(def time.Duration) time.Duration {
	if p.ClosedAfter == nil {
		return def
	}
	return time.Duration(*p.ClosedAfter)
}

// Duration is a time.Duration written as "90m", "2h", "0s"; "1d" means 24h.
type Duration time.Duration

// UnmarshalYAML reads a Go duration string, allowing a whole number of days.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode { // a mapping or list has Value "": not 0
		return errors.New("must be a duration (like 90m, 6h or 2d)")
	}
	s := strings.TrimSpace(n.Value)
	if s == "" || s == "0" {
		*d = 0
		return nil
	}
	if strings.HasSuffix(s, "d") {
		var days int
		if _, err := fmt.Sscanf(s, "%dd", &days); err == nil && fmt.Sprintf("%dd", days) == s {
			*d = Duration(time.Duration(days) * 24 * time.Hour)
			return nil
		}
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (like 90m, 6h or 2d)", s)
	}
	*d = Duration(v)
	return nil
}

// StringList accepts either a single string or a list of strings.
type StringList []string

// UnmarshalYAML accepts `key: id` as well as `key: [id, line]`.
func (l *StringList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		*l = StringList{n.Value}
		return nil
	case yaml.SequenceNode:
		var s []string
		if err := n.Decode(&s); err != nil {
			return err
		}
		*l = s
		return nil
	}
	return errors.New("must be a column name or a list of column names")
}

// Load reads, expands and validates the job file at path, with variables
// taken from the process environment.
func Load(path string) (*Job, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Problems: []Problem{{Msg: err.Error()}}}
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	j, err := Parse(data, dir, os.LookupEnv)
	if err != nil {
		var je *Error
		if errors.As(err, &je) {
			je.File = path
		}
		return nil, err
	}
	j.Path = path
	return j, nil
}

// Parse reads a job from YAML, expanding ${VAR} with lookup, and validates
// it. dir is the folder relative paths resolve against.
func Parse(data []byte, dir string, lookup func(string) (string, bool)) (*Job, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) { // no document at all: empty, or only comments
			return nil, &Error{Problems: []Problem{{Msg: "the job file is empty"}}}
		}
		return nil, &Error{Problems: []Problem{{Msg: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}}}
	}
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, &Error{Problems: []Problem{{Msg: "the job file is empty"}}}
	}
	doc := root.Content[0]
	var problems []Problem
	pos := recordPositions(doc, data) // before expansion rewrites values
	// Expand first, so that checkKeys sees the values that will be decoded:
	// `lookback: ${N:-2}` is an int once expanded.
	problems = append(problems, expandNode(doc, "", lookup)...)
	problems = append(problems, checkKeys(doc, jobSchema, "")...)
	j := &Job{Dir: dir, Pos: pos}
	if err := doc.Decode(j); err != nil {
		if len(problems) == 0 { // checkKeys reports type errors with their path
			problems = decodeProblems(err)
		}
		return nil, &Error{Problems: problems}
	}
	// Validate even after unknown keys: a typo'd key usually leaves a
	// required one missing, and the user should see both at once.
	j.applyDefaults()
	problems = append(problems, lintAllowLines(j.Validate(), doc)...)
	if len(problems) > 0 {
		return nil, &Error{Problems: problems}
	}
	return j, nil
}

func (j *Job) applyDefaults() {
	if j.Partition.Grain == "" {
		j.Partition.Grain = GrainDay
	}
	if j.Target.URL == "" {
		j.Target.URL = "duckdb:warehouse.duckdb"
	}
	if j.Source.HasFiles() && j.Source.Format == "" {
		j.Source.Format = formatFromPath(j.Source.Files[0])
	}
	if j.Partition.OutOfWindow == "" {
		j.Partition.OutOfWindow = OutOfWindowReport
	}
	if j.Partition.OnNull == "" {
		j.Partition.OnNull = OnNullFail
	}
	if j.OnSchemaChange == "" {
		j.OnSchemaChange = SchemaFail
	}
}

func formatFromPath(p string) string {
	if urlScheme(p) != "" { // a URL's query (endpoint options) is not its name
		p, _, _ = strings.Cut(p, "?")
	}
	// A gzip-compressed CSV or JSON Lines file is read as it is: every
	// reader decompresses it.
	if base, ok := strings.CutSuffix(strings.ToLower(p), ".gz"); ok {
		if f := formatFromPath(base); f != "parquet" {
			return f
		}
		return ""
	}
	switch strings.ToLower(filepath.Ext(p)) {
	case ".csv", ".tsv":
		return "csv"
	case ".jsonl", ".ndjson", ".json":
		return "jsonl"
	case ".parquet":
		return "parquet"
	}
	return ""
}

// Problem is one thing wrong with a job file, at a path such as
// "partition.column".
type Problem struct {
	Path string
	Line int
	Msg  string
}

func (p Problem) String() string {
	var b strings.Builder
	if p.Path != "" {
		b.WriteString(p.Path)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	if p.Line > 0 {
		fmt.Fprintf(&b, " (line %d)", p.Line)
	}
	return b.String()
}

// Error lists every problem found in a job file. The CLI maps it to exit 2.
type Error struct {
	File     string
	Problems []Problem
}

func (e *Error) Error() string {
	var b strings.Builder
	name := e.File
	if name == "" {
		name = "job file"
	}
	if len(e.Problems) == 1 {
		fmt.Fprintf(&b, "%s: %s", name, e.Problems[0])
		return b.String()
	}
	fmt.Fprintf(&b, "%s: %d problems:", name, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

func decodeProblems(err error) []Problem {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		ps := make([]Problem, 0, len(te.Errors))
		for _, e := range te.Errors {
			ps = append(ps, Problem{Msg: strings.TrimSpace(e)})
		}
		return ps
	}
	return []Problem{{Msg: err.Error()}}
}

// LatestByRun is the latest_by that versions a merge's rows by the run
// that loads them, for inputs without a version column: each row carries
// the start of its run's partition (--date) in RunVersionColumn, so a later
// partition's rows win over an earlier one's, in any load order.
const LatestByRun = "run"

// RunVersionColumn is the column idem adds to the input and the target
// under latest_by: run: the start of the partition whose run wrote the row,
// as a timestamp (UTC).
const RunVersionColumn = "_idem_partition"

// VersionColumn is the column rows are versioned by: latest_by, or
// RunVersionColumn under latest_by: run ("" without latest_by).
func (j *Job) VersionColumn() string {
	if j.LatestBy == LatestByRun {
		return RunVersionColumn
	}
	return j.LatestBy
}
