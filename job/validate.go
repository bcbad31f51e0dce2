package job

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/idemdata/idem/engine"
)

var (
	nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.\-]*$`)
	// typeRE admits SQL type names such as BIGINT, DECIMAL(12,2),
	// TIMESTAMP WITH TIME ZONE, VARCHAR[]: they are spliced into SQL, so
	// nothing else gets through.
	// surrogateRE matches names that usually hold keys minted by the loading
	// database rather than by the source system.
	surrogateRE = regexp.MustCompile(`^(sk|.*_sk|surrogate_key|.*_surrogate_key|row_?id|row_?num(ber)?|serial|identity|auto_?id|.*_serial)$`)
	typeRE      = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_ ]*(\(\s*\d+\s*(,\s*\d+\s*)?\))?(\[\])?$`)
)

// maxLookback bounds partition.lookback: each run rebuilds that many
// partitions, one transaction each.
const maxLookback = 1000

// Validate reports every problem with the job, each with its path.
func (j *Job) Validate() []Problem {
	var ps problemList
	j.checkIdentity(&ps)
	j.Source.check(&ps)
	j.checkStrategy(&ps)
	j.checkWindow(&ps)
	j.checkChoices(&ps)
	j.checkTimezone(&ps)
	j.checkKeyColumns(&ps)
	ps = append(ps, j.Lint.check()...)
	ps = append(ps, j.checkNames()...)
	j.checkColumnTypes(&ps)
	return ps
}

// problemList collects Validate's problems in the order they are found.
type problemList []Problem

func (ps *problemList) add(path, format string, args ...any) {
	*ps = append(*ps, Problem{Path: path, Msg: fmt.Sprintf(format, args...)})
}

// checkIdentity checks the format version, the job name and the target.
func (j *Job) checkIdentity(ps *problemList) {
	if j.Idem != 1 {
		if j.Idem == 0 {
			ps.add("idem", "required: the job file format version (idem: 1)")
		} else {
			ps.add("idem", "format version %d is not supported by this idem (it reads version 1)", j.Idem)
		}
	}
	switch {
	case j.Name == "":
		ps.add("job", "required: a stable name for the job; it is part of every run id")
	case !nameRE.MatchString(j.Name):
		ps.add("job", "%q may hold only letters, digits, _ . and -", j.Name)
	}
	if _, err := ParseTable(j.Target.Table); err != nil {
		ps.add("target.table", "%v", err)
	}
	if _, _, err := SplitURL(j.Target.URL); err != nil {
		ps.add("target.url", "%v", err)
	}
}

// check checks that the source is one query, one table or a set of file
// globs, and the database it names.
func (s Source) check(ps *problemList) {
	n := 0
	for _, given := range []bool{s.Query != "", s.Table != "", s.HasFiles()} {
		if given {
			n++
		}
	}
	switch {
	case n == 0:
		ps.add("source", "required: one of query, table or files")
	case n > 1:
		ps.add("source", "give one of query, table or files, not more")
	case s.HasFiles():
		if s.URL != "" {
			ps.add("source.url", "applies to query and table only: files are read from disk")
		}
		s.checkFiles(ps)
	default:
		s.checkDatabase(ps)
	}
}

// checkDatabase checks a query or table source and the database it names.
func (s Source) checkDatabase(ps *problemList) {
	if s.Format != "" {
		ps.add("source.format", "applies to files only")
	}
	if s.Query != "" {
		if err := checkTemplate(s.Query); err != nil {
			ps.add("source.query", "%v", err)
		}
	}
	if s.Table != "" {
		if s.URL == "" {
			ps.add("source.table", "needs source.url, the database the table is in (a query of the target itself is written as source.query)")
		} else if _, err := ParseTable(s.Table); err != nil {
			ps.add("source.table", "%v", err)
		}
	}
	if s.URL != "" {
		if _, _, err := SplitURL(s.URL); err != nil {
			ps.add("source.url", "%v", strings.Replace(err.Error(), "not a target URL", "not a database URL", 1))
		}
	}
}

// checkFiles checks the file globs and that they name one format.
func (s Source) checkFiles(ps *problemList) {
	formats := map[string]bool{}
	remote := 0
	for i, f := range s.Files {
		path := "source.files"
		if len(s.Files) > 1 {
			path = fmt.Sprintf("source.files[%d]", i)
		}
		if strings.TrimSpace(f) == "" {
			ps.add(path, "empty glob")
			continue
		}
		if err := checkTemplate(f); err != nil {
			ps.add(path, "%v", err)
		}
		if sc := urlScheme(f); sc != "" {
			remote++
			if !slices.Contains(objectSchemes, sc) {
				ps.add(path, "%s:// is not a scheme idem reads inputs from (s3://, gs://, azblob://, https://, or a local path)", sc)
			}
		}
		if ff := formatFromPath(f); ff != "" {
			formats[ff] = true
		}
	}
	switch s.Format {
	case "csv", "jsonl", "parquet":
	case "":
		ps.add("source.format", "required: cannot tell the format from %q (csv, jsonl or parquet)", s.Files[0])
	default:
		ps.add("source.format", "%q is not one of csv, jsonl, parquet", s.Format)
	}
	if len(formats) > 1 {
		ps.add("source.files", "the globs name more than one format; one job reads one format")
	}
	if remote > 0 && remote < len(s.Files) {
		ps.add("source.files", "names both URLs and local files; one job reads from one place")
	}
}

// objectSchemes are the URL schemes source.files reads (input/objstore).
var objectSchemes = []string{"s3", "gs", "azblob", "http", "https"}

// urlScheme is the scheme of a source.files entry that is a URL, in lower
// case, or "" for a local path (a Windows drive letter is no scheme).
func urlScheme(f string) string {
	sc, _, ok := strings.Cut(f, "://")
	if !ok || len(sc) < 2 || strings.ContainsAny(sc, `/\ {}`) {
		return ""
	}
	return strings.ToLower(sc)
}

// checkStrategy checks the strategy and the fields it requires.
func (j *Job) checkStrategy(ps *problemList) {
	switch j.Strategy {
	case StrategyPartition:
		if j.Partition.Column == "" {
			ps.add("partition.column", "required for strategy partition")
		}
		if j.DeleteWhen != "" {
			ps.add("delete_when", "applies to strategy merge only")
		}
	case StrategyMerge:
		if len(j.Key) == 0 {
			ps.add("key", "required for strategy merge: the natural key rows are matched on")
		}
		if j.LatestBy == "" {
			ps.add("latest_by", "required for strategy merge: the version column (the newest wins)")
		}
	case "":
		ps.add("strategy", "required: partition or merge")
		return
	default:
		ps.add("strategy", "%q is not one of partition, merge", j.Strategy)
		return
	}
	j.checkVersion(ps)
}

// checkVersion refuses a version column that cannot tell copies of a key
// apart, and latest_by: run where runs do not version rows.
func (j *Job) checkVersion(ps *problemList) {
	if j.LatestBy == LatestByRun && j.Strategy != StrategyMerge {
		ps.add("latest_by", "run applies to strategy merge only: a partition run replaces its whole partition, so its rows need no version from the run")
	}
	for _, k := range j.Key {
		if k == j.LatestBy && k != "" && k != LatestByRun {
			ps.add("latest_by", "%q is a column of the key: every copy of a key has the same value there, so the newest copy cannot be told (an older file loaded later would win or lose by its content alone). "+
				"Name a column that grows when a row changes (updated_at, a version number), or set latest_by: run to let a later partition's rows (--date) replace an earlier one's", k)
		}
	}
}

// checkWindow checks the partition grain, lookback and closed_after.
func (j *Job) checkWindow(ps *problemList) {
	p := j.Partition
	if !p.Grain.valid() {
		ps.add("partition.grain", "%q is not one of hour, day, month", p.Grain)
	}
	switch {
	case p.Lookback < 0:
		ps.add("partition.lookback", "must not be negative")
	case p.Lookback > maxLookback:
		ps.add("partition.lookback", "%d is more than %d partitions; use a backfill for long ranges", p.Lookback, maxLookback)
	}
	closedAfter := p.ClosedAfterOr(0)
	if closedAfter < 0 {
		ps.add("partition.closed_after", "must not be negative")
	}
	// A glob reaching forward ({{ date + 1d }}: late rows in the next
	// day's file) reads a file that is complete only after that much time
	// past the partition's end: loading earlier would miss rows silently.
	if j.Strategy == StrategyPartition && closedAfter >= 0 {
		var reach time.Duration
		for _, f := range j.Source.Files {
			reach = max(reach, templateReach(f))
		}
		if reach > closedAfter {
			ps.add("partition.closed_after", "source.files reads files up to %s past the partition's start, which are complete only after the partition ends; closed_after must be at least %s (it is %s)",
				FormatDuration(reach), FormatDuration(reach), FormatDuration(closedAfter))
		}
	}
}

// checkChoices checks the fields that take one of a fixed set of values,
// and the job names in target.shared_with.
func (j *Job) checkChoices(ps *problemList) {
	p := j.Partition
	if j.MaxShrink != 0 && j.Strategy != StrategyPartition {
		ps.add("max_shrink", "applies to strategy partition only: a merge never removes rows it did not read")
	}
	if !isOneOf(p.OutOfWindow, []string{OutOfWindowReport, OutOfWindowFail}) {
		ps.add("partition.out_of_window", "%q is not one of report, fail", p.OutOfWindow)
	}
	if !isOneOf(p.OnNull, []string{OnNullFail, OnNullSkip}) {
		ps.add("partition.on_null", "%q is not one of fail, skip", p.OnNull)
	}
	if !isOneOf(j.OnSchemaChange, []string{SchemaFail, SchemaAddColumns}) {
		ps.add("on_schema_change", "%q is not one of fail, add_columns", j.OnSchemaChange)
	}
	for i, o := range j.Target.SharedWith {
		if !nameRE.MatchString(o) {
			ps.add(fmt.Sprintf("target.shared_with[%d]", i), "%q is not a job name", o)
		}
	}
}

// checkTimezone checks partition.timezone names a zone and fits the grain.
func (j *Job) checkTimezone(ps *problemList) {
	p := j.Partition
	if p.Timezone == "" {
		return
	}
	if _, err := time.LoadLocation(p.Timezone); err != nil {
		ps.add("partition.timezone", "%q is not an IANA time zone (like Europe/Berlin)", p.Timezone)
	} else if p.Grain == GrainHour {
		// Local hours skip or repeat at daylight-saving changes, so a
		// local hour label would not name one interval.
		ps.add("partition.timezone", "applies to day and month partitions; hour partitions are UTC hours")
	}
}

// checkKeyColumns checks the key lists each column once, and that
// loaded_at names no column the job's logic uses.
func (j *Job) checkKeyColumns(ps *problemList) {
	seen := map[string]bool{}
	for i, k := range j.Key {
		path := fmt.Sprintf("key[%d]", i)
		switch {
		case strings.TrimSpace(k) == "":
			ps.add(path, "empty column name")
		case seen[k]:
			ps.add(path, "column %q is listed twice", k)
		}
		seen[k] = true
	}
	if j.LoadedAt != "" {
		for _, c := range j.namedColumns() {
			if c.col == j.LoadedAt {
				ps.add("loaded_at", "%q is also %s: loaded_at is metadata filled by idem and is never used in logic", j.LoadedAt, c.path)
			}
		}
	}
}

// checkColumnTypes checks each columns entry is a SQL type name, in
// column name order.
func (j *Job) checkColumnTypes(ps *problemList) {
	names := make([]string, 0, len(j.Columns))
	for c := range j.Columns {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		if !typeRE.MatchString(strings.TrimSpace(j.Columns[c])) {
			ps.add("columns."+c, "%q is not a SQL type name (like BIGINT or DECIMAL(12,2))", j.Columns[c])
		}
	}
}

type namedColumn struct{ path, col string }

// namedColumns lists the source columns the job refers to by name, with the
// path that names each.
func (j *Job) namedColumns() []namedColumn {
	var cs []namedColumn
	if j.Partition.Column != "" && j.Strategy == StrategyPartition {
		cs = append(cs, namedColumn{"partition.column", j.Partition.Column})
	}
	for i, k := range j.Key {
		cs = append(cs, namedColumn{fmt.Sprintf("key[%d]", i), k})
	}
	if j.LatestBy != "" && j.LatestBy != LatestByRun { // run names no source column
		cs = append(cs, namedColumn{"latest_by", j.LatestBy})
	}
	if j.DeleteWhen != "" {
		cs = append(cs, namedColumn{"delete_when", j.DeleteWhen})
	}
	return cs
}

// RequiredColumns lists the source columns the job names, each with the
// path in the job file that names it, for checks against the staged input.
func (j *Job) RequiredColumns() [][2]string {
	var out [][2]string
	for _, c := range j.namedColumns() {
		out = append(out, [2]string{c.path, c.col})
	}
	names := make([]string, 0, len(j.Columns))
	for c := range j.Columns {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		out = append(out, [2]string{"columns." + c, c})
	}
	return out
}

// DefinitionHash identifies what the job computes: source, strategy, keys,
// types and target table. The target URL, lookback and closing rules are
// left out: they decide where and when, not what.
func (j *Job) DefinitionHash() string {
	def := struct {
		Idem       int               `json:"idem"`
		Job        string            `json:"job"`
		Table      string            `json:"table"`
		Query      string            `json:"query,omitempty"`
		Files      any               `json:"files,omitempty"`
		Format     string            `json:"format,omitempty"`
		Strategy   string            `json:"strategy"`
		Column     string            `json:"partition_column,omitempty"`
		Grain      Grain             `json:"grain"`
		Timezone   string            `json:"timezone,omitempty"`
		Key        []string          `json:"key,omitempty"`
		LatestBy   string            `json:"latest_by,omitempty"`
		DeleteWhen string            `json:"delete_when,omitempty"`
		Columns    map[string]string `json:"columns,omitempty"`
		LoadedAt   string            `json:"loaded_at,omitempty"`
		SourceURL  string            `json:"source_url,omitempty"`
		SrcTable   string            `json:"source_table,omitempty"`
	}{
		j.Idem, j.Name, j.Target.Table, j.Source.Query, filesForHash(j.Source.Files), j.Source.Format,
		j.Strategy, j.Partition.Column, j.Partition.Grain, j.Partition.Timezone,
		j.Key, j.LatestBy, j.DeleteWhen, j.Columns, j.LoadedAt,
		Redact(j.Source.URL), j.Source.Table,
	}
	b, _ := json.Marshal(def) // maps marshal with sorted keys
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// filesForHash keeps the hash of a one-glob job what it was when files
// could only be a string, so upgrading idem does not change run ids.
func filesForHash(files []string) any {
	switch len(files) {
	case 0:
		return nil
	case 1:
		return files[0]
	}
	return files
}

// FormatDuration prints a duration as a job file writes it: whole days as
// "1d", else Go's form without zero units ("6h", "1h30m", "90s").
func FormatDuration(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// TableName is a possibly schema-qualified table name.
type TableName struct {
	Schema, Name string
}

func (t TableName) String() string {
	if t.Schema == "" {
		return t.Name
	}
	return t.Schema + "." + t.Name
}

// ParseTable splits "schema.table" or "table".
func ParseTable(s string) (TableName, error) {
	if s == "" {
		return TableName{}, fmt.Errorf("required: the table to load (schema.table or table)")
	}
	parts := strings.Split(s, ".")
	for _, p := range parts {
		if strings.TrimSpace(p) == "" || strings.ContainsAny(p, "\x00\"`") {
			return TableName{}, fmt.Errorf("%q is not a table name (schema.table or table)", s)
		}
	}
	switch len(parts) {
	case 1:
		return TableName{Name: parts[0]}, nil
	case 2:
		return TableName{Schema: parts[0], Name: parts[1]}, nil
	}
	return TableName{}, fmt.Errorf("%q has too many dots (schema.table or table)", s)
}

// Table returns the job's target table, already validated.
func (j *Job) Table() TableName {
	t, _ := ParseTable(j.Target.Table)
	return t
}

// TargetURL is a target URL read through the engine registry.
type TargetURL struct {
	Scheme string
	Driver engine.Driver
	// Location is what the driver opens: the file path as written (a
	// file engine), or the whole URL (a server).
	Location string
}

// ParseTargetURL reads a target URL: its scheme names a registered engine
// (engine.Register). A server URL that cannot be parsed (by the engine's
// CheckURL, when it has one) is an error wrapping ErrURL.
func ParseTargetURL(url string) (TargetURL, error) {
	scheme, after, ok := strings.Cut(url, ":")
	d, known := engine.Lookup(scheme)
	if !ok || !known || (!d.File && !strings.HasPrefix(after, "//")) {
		forms := engine.Forms()
		if len(forms) == 0 {
			forms = []string{"this program registers no engine"}
		}
		return TargetURL{}, fmt.Errorf("%q is not a target URL (%s)", Redact(url), strings.Join(forms, ", "))
	}
	if d.File {
		loc := strings.TrimPrefix(after, "//")
		if loc == "" {
			return TargetURL{}, fmt.Errorf("%s: needs a file path (%s)", scheme, d.Example)
		}
		return TargetURL{Scheme: scheme, Driver: d, Location: loc}, nil
	}
	if d.CheckURL != nil {
		if err := d.CheckURL(url); err != nil {
			return TargetURL{}, err
		}
	} else if _, err := ParseServerURL(url); err != nil {
		return TargetURL{}, err
	}
	return TargetURL{Scheme: scheme, Driver: d, Location: url}, nil
}

// SplitURL returns a target URL's engine name and what its driver opens
// (see ParseTargetURL).
func SplitURL(url string) (engineName, rest string, err error) {
	t, err := ParseTargetURL(url)
	if err != nil {
		return "", "", err
	}
	return t.Driver.Name, t.Location, nil
}
