package clickhouse

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/duckdb"
	"github.com/idemdata/idem/source"
	"github.com/idemdata/idem/source/filereader"
)

// Input files reach embedded ClickHouse in one of two ways:
//
//   - Raw CSV: CSV whose dialect and column types ClickHouse reads as DuckDB
//     does (filereader.Input.CSV, chTypes.CSVText) is parsed by ClickHouse
//     itself, file() into the staging table, with the types of the
//     embedded reader's sample and settings that let no value be skipped,
//     defaulted or guessed. Every value must have a form both readers read
//     alike and that DuckDB's sniffer takes for the sample's type
//     (rawConversion), so the sample's types hold for every row without the
//     reader's pass over them (filereader.Input.Resolve), which would take
//     one of two cores from ClickHouse's parsing. On any error of
//     ClickHouse's the staged rows are dropped and the files go the other
//     way, which names the file and line of a bad value.
//   - Parquet, for everything else: the embedded DuckDB every engine
//     shares (source/filereader) reads the files, typed exactly as the
//     DuckDB engine stages them, and writes one Parquet file, which
//     ClickHouse reads with file() into the staging table. Memory stays
//     bounded by the reader's spilling, and ClickHouse parses Parquet in
//     parallel.

// LoadFiles loads the input files into a new session table stage.
func (d *DB) LoadFiles(ctx context.Context, tx *sql.Tx, stage string, in engine.FileInput) error {
	// The runner stages outside its (empty) transaction on this engine.
	var ex engine.Querier = d.conn
	if tx != nil {
		ex = tx
	}
	return d.load(ctx, ex, stage, engine.Table{}, in)
}

var _ engine.BuildLoader = (*DB)(nil)

// LoadFilesBuilt loads a first load's input straight into the MergeTree
// table built to replace the target (engine.BuildLoader), created by the
// runner's in.BuildDDL from the staging table, which stays empty: the rows
// are written once, where staging them in a Memory table and copying them
// there wrote them twice.
func (d *DB) LoadFilesBuilt(ctx context.Context, stage string, built engine.Table, in engine.FileInput) (int64, error) {
	if in.BuildDDL == nil {
		return 0, engine.ErrNotBuilt
	}
	q := Dialect{}
	rec := func(s string) {
		if in.Record != nil {
			in.Record(s)
		}
	}
	if built.Schema != "" {
		exists := "SELECT count() FROM system.databases WHERE name = $1"
		rec(exists)
		var n int64
		if err := d.conn.QueryRowContext(ctx, exists, built.Schema).Scan(&n); err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, engine.ErrNoBuildSchema
		}
	}
	if err := d.load(ctx, d.conn, stage, built, in); err != nil {
		return 0, err
	}
	count := "SELECT count() FROM " + q.Table(built)
	rec(count)
	var n int64
	err := d.conn.QueryRowContext(ctx, count).Scan(&n)
	return n, err
}

// load loads the input files into a new session table stage, or, when
// into is given, into that new table (in.BuildDDL creates it) with stage
// made empty.
func (d *DB) load(ctx context.Context, ex engine.Querier, stage string, into engine.Table, in engine.FileInput) error {
	if len(in.Paths) == 0 {
		return errors.New("no input files")
	}
	rd, err := filereader.Open(ctx)
	if err != nil {
		return err
	}
	defer rd.Close()
	q := Dialect{}
	rec := func(s string) {
		if in.Record != nil {
			in.Record(s)
		}
	}
	if in.Format == "csv" && !d.csvParquet {
		switch done, err := loadRawCSV(ctx, ex, rd, stage, into, in, rec); {
		case err != nil:
			return err
		case done && in.Target.Name != "":
			return toTargetTypes(ctx, ex, stage, in.Target, rec)
		case done:
			return nil
		}
	}
	src, err := rd.Describe(ctx, in, chTypes{})
	if err != nil {
		return err
	}
	pq := rd.ScratchFile("input.parquet")
	defer os.Remove(pq)
	if err := src.WriteParquet(ctx, pq); err != nil {
		return err
	}
	rec(engine.LoadNote(in.Paths, q.Ident(stage), "via Parquet (the embedded DuckDB reads the files and writes their rows to one Parquet file, which ClickHouse reads)"))
	dest, err := createStage(ctx, ex, stage, into, src.Columns, in, rec)
	if err != nil {
		return err
	}
	// The file's path is the run's own scratch file, not the input's: it
	// is not recorded, so plans and golden files do not depend on it.
	ins := fmt.Sprintf("INSERT INTO %s SELECT * FROM file(%%s, Parquet)", dest)
	if into.Name != "" {
		ins += " SETTINGS " + manyPartitions
	}
	rec(fmt.Sprintf(ins, "<the Parquet file>"))
	ins = fmt.Sprintf(ins, q.String(pq))
	if _, err := ex.ExecContext(ctx, ins); err != nil {
		return fmt.Errorf("loading the staged rows: %w", err)
	}
	if in.Target.Name != "" {
		return toTargetTypes(ctx, ex, stage, in.Target, rec)
	}
	return nil
}

// stageDefs are the staging table's column definitions.
func stageDefs(cols []filereader.Column) []string {
	q := Dialect{}
	defs := make([]string, len(cols))
	for i, c := range cols {
		typ := c.Type
		if c.Unknown && !strings.HasPrefix(typ, "Nullable(") { // the job's type, as written
			typ = "Nullable(" + typ + ")"
		}
		defs[i] = q.Ident(c.Name) + " " + typ
	}
	return defs
}

// createStage creates the staging table, empty, for cols, and, when into
// is given, that table from it (in.BuildDDL). It returns the table the rows
// go to, quoted.
func createStage(ctx context.Context, ex engine.Querier, stage string, into engine.Table, cols []filereader.Column, in engine.FileInput, rec func(string)) (string, error) {
	q := Dialect{}
	stmts := []string{
		"DROP TABLE IF EXISTS " + q.Ident(stage),
		fmt.Sprintf("CREATE TEMPORARY TABLE %s (%s) ENGINE = Memory", q.Ident(stage), strings.Join(stageDefs(cols), ", ")),
	}
	for _, s := range stmts {
		rec(s)
		if _, err := ex.ExecContext(ctx, s); err != nil {
			return "", fmt.Errorf("creating the staging table: %w", err)
		}
	}
	if into.Name == "" {
		return q.Ident(stage), nil
	}
	ddl, err := in.BuildDDL(ctx)
	if err != nil {
		return "", err
	}
	for _, s := range ddl {
		rec(s)
		if _, err := ex.ExecContext(ctx, s); err != nil {
			return "", fmt.Errorf("creating %s: %w", into.Name, err)
		}
	}
	return q.Table(into), nil
}

// manyPartitions lets one INSERT into the partitioned table built for a
// first load write rows of any number of partitions (ClickHouse refuses
// more than 100 by default): the runner then deletes those outside the
// run's partition.
const manyPartitions = "max_partitions_per_insert_block = 0"

// rawSettings make ClickHouse's CSV reading as strict as DuckDB's and
// never lenient where DuckDB is not: no error skipped, no field defaulted
// or trimmed, no type guessed, the header's names matched to the columns
// (every file's header names exactly the columns: filereader.Input.CSV),
// an empty unquoted field NULL. A quoted empty field, which ClickHouse
// reads as an empty string, is NULL by nullIf in the INSERT's SELECT, as
// DuckDB reads it.
var rawSettings = []string{
	"input_format_allow_errors_num = 0",
	"input_format_allow_errors_ratio = 0",
	"input_format_skip_unknown_fields = 0",
	"input_format_with_names_use_header = 1",
	"input_format_defaults_for_omitted_fields = 0",
	"input_format_null_as_default = 0",
	"input_format_csv_empty_as_default = 0",
	"input_format_csv_use_default_on_bad_values = 0",
	"input_format_csv_trim_whitespaces = 0",
	"input_format_csv_allow_variable_number_of_columns = 0",
	"input_format_csv_skip_trailing_empty_lines = 0",
	"input_format_csv_allow_cr_end_of_line = 0",
	"input_format_csv_allow_whitespace_or_tab_as_delimiter = 0",
	"input_format_csv_skip_first_lines = 0",
	"input_format_csv_detect_header = 0",
	"input_format_csv_enum_as_number = 0",
	"input_format_csv_arrays_as_nested_csv = 0",
	"format_csv_allow_single_quotes = 0",
	"format_csv_null_representation = ''",
	"date_time_input_format = 'basic'",
}

// loadRawCSV has ClickHouse parse the CSV files' bytes into a new staging
// table stage (or into the new table into, stage made empty), with the
// types of the reader's sample. It reports false, with nothing staged and
// no error, when the files must go the other way: their dialect or a
// column's type is one ClickHouse may read otherwise than DuckDB, or
// ClickHouse refused a value (one whose form another type would fit, as
// the sample's types would not hold for it). An error is the session's.
func loadRawCSV(ctx context.Context, ex engine.Querier, rd *filereader.Reader, stage string, into engine.Table, in engine.FileInput, rec func(string)) (bool, error) {
	src, err := rd.DescribeSample(ctx, in, chTypes{})
	if err != nil {
		return false, nil // the reader says what is wrong, the other way
	}
	for _, c := range src.Columns {
		if c.Unknown {
			return false, nil
		}
	}
	cd, err := src.CSV(ctx)
	if err != nil || cd == nil || cd.Escape != "" {
		return false, nil
	}
	q := Dialect{}
	rec(engine.LoadNote(in.Paths, q.Ident(stage), "via file() (raw CSV: ClickHouse parses the files' bytes; on any error, the embedded DuckDB reads them instead)"))
	dest, err := createStage(ctx, ex, stage, into, src.Columns, in, rec)
	if err != nil {
		return false, err
	}
	// Every field is read as text, and converted here only where its text
	// has a form both readers read alike, and one DuckDB's sniffer would
	// have typed so had it been in the sample; any other value stops the
	// load (throwIf), and the reader reads the files.
	sel := make([]string, len(src.Columns))
	var checks []string
	strs := make([]filereader.Column, len(src.Columns))
	for i, c := range src.Columns {
		strs[i] = filereader.Column{Name: c.Name, Type: "Nullable(String)"}
		v := fmt.Sprintf("nullIf(%s, '')", q.Ident(c.Name))
		conv, check := rawConversion(v, BaseType(c.Type))
		sel[i] = conv // no alias: it would shadow the column in WHERE
		if check != "" {
			checks = append(checks, fmt.Sprintf("(%s IS NULL OR %s)", v, check))
		}
	}
	where := ""
	if len(checks) > 0 {
		where = fmt.Sprintf(" WHERE throwIf(NOT (%s), %s) = 0", strings.Join(checks, " AND "), q.String(errRawValue))
	}
	quotes := "1"
	if cd.Quote == "" { // no quoting: a " is a plain character
		quotes = "0"
	}
	settings := append([]string{"format_csv_delimiter = " + q.String(cd.Delim), "format_csv_allow_double_quotes = " + quotes}, rawSettings...)
	if into.Name != "" {
		settings = append(settings, manyPartitions)
	}
	structure := q.String(strings.Join(stageDefs(strs), ", "))
	var lerr error
	for _, p := range in.Paths {
		ins := fmt.Sprintf("INSERT INTO %s SELECT %s FROM file(%s, CSVWithNames, %s)%s SETTINGS %s",
			dest, strings.Join(sel, ", "), q.String(p), structure, where, strings.Join(settings, ", "))
		rec(ins)
		if _, lerr = ex.ExecContext(ctx, ins); lerr != nil {
			break
		}
	}
	if lerr == nil {
		return true, nil
	}
	// ClickHouse met a value of another form: the files are read the
	// other way.
	why, _, _ := strings.Cut(lerr.Error(), "\n")
	rec("-- the raw CSV load is dropped: " + why)
	drops := []string{"DROP TABLE IF EXISTS " + q.Ident(stage)}
	if into.Name != "" {
		drops = append(drops, "DROP TABLE IF EXISTS "+q.Table(into))
	}
	for _, drop := range drops {
		rec(drop)
		if _, err := ex.ExecContext(ctx, drop); err != nil {
			return false, err
		}
	}
	return false, nil
}

// errRawValue is what stops a raw load at a value whose text has another
// form than rawConversion reads alike with DuckDB.
const errRawValue = "a value the raw CSV load does not read (the embedded reader reads the files instead)"

// rawConversion converts a field's text v (NULL when empty) to typ (a
// type chTypes.CSVText accepts), and gives the condition its text must
// meet: a form DuckDB reads as the same value, and one its sniffer takes
// for typ (so a value past the sample cannot have made the column another
// type: 02134 is text to it, 5.5 a DOUBLE, a time of day a TIMESTAMP, an
// offset a TIMESTAMPTZ). Other forms DuckDB may read (a sign, leading or
// trailing blanks, more digits than a type holds, a date out of Date32's
// range) are left to the reader.
func rawConversion(v, typ string) (conv, check string) {
	d := Dialect{}
	date := `[0-9]{4}-[0-9]{2}-[0-9]{2}`
	roundTrip := func(text string) string { // a real date, in Date32's range
		return fmt.Sprintf("toString(toDate32OrNull(%s)) = %s", text, text)
	}
	switch {
	case typ == "String":
		return v, ""
	case typ == "Int64": // up to 18 digits: always an Int64; no leading zero
		return "toInt64OrNull(" + v + ")", fmt.Sprintf("match(%s, %s)", v, d.String(`^-?(0|[1-9][0-9]{0,17})$`))
	case typ == "Date32":
		return "toDate32OrNull(" + v + ")", fmt.Sprintf("match(%s, %s) AND %s", v, d.String("^"+date+"$"), roundTrip(v))
	case typ == "DateTime64(6)":
		re := "^" + date + `[ T]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,6})?$`
		return "toDateTime64OrNull(" + v + ", 6)", fmt.Sprintf("match(%s, %s) AND %s", v, d.String(re), roundTrip("substring("+v+", 1, 10)"))
	}
	p, sc, _ := decimalArgs(typ)
	re := fmt.Sprintf(`^-?[0-9]{1,%d}$`, p-sc)
	if sc > 0 {
		re = fmt.Sprintf(`^-?[0-9]{1,%d}(\.[0-9]{1,%d})?$`, p-sc, sc)
	}
	return fmt.Sprintf("CAST(%s, %s)", v, d.String("Nullable("+typ+")")), fmt.Sprintf("match(%s, %s)", v, d.String(re))
}

// decimalArgs reads Decimal(P, S)'s precision and scale.
func decimalArgs(typ string) (p, s int, ok bool) {
	n, err := fmt.Sscanf(strings.ReplaceAll(typ, " ", ""), "Decimal(%d,%d)", &p, &s)
	return p, s, err == nil && n == 2
}

// toTargetTypes converts the staged columns to the existing target's
// types, as an INSERT into it would, but strictly: a value the target's
// type cannot hold (an unparsable date, an integer out of range) is an
// error, which the runner locates by file and line. ClickHouse's own
// conversions would turn it into NULL, or wrap it around.
func toTargetTypes(ctx context.Context, q engine.Querier, stage string, target engine.Table, rec func(string)) error {
	d := Dialect{}
	exists, args := d.TableExists(target)
	var one int
	if err := q.QueryRowContext(ctx, exists, args...).Scan(&one); errors.Is(err, sql.ErrNoRows) {
		return nil
	} else if err != nil {
		return err
	}
	targetCols, err := columnTypes(ctx, q, d.Table(target))
	if err != nil {
		return err
	}
	want := map[string]string{}
	for _, c := range targetCols {
		want[c.Name] = c.Type
	}
	have, err := columnTypes(ctx, q, d.Ident(stage))
	if err != nil {
		return err
	}
	for _, c := range have {
		// Only the kinds the runner can locate a bad value of (integers,
		// dates, timestamps); other changes are the runner's to refuse.
		typ, ok := want[c.Name]
		if !ok || typ == c.Type || source.KindOfType(typ) == source.KindOther {
			continue
		}
		check := fmt.Sprintf("SELECT toString(%s) FROM %s WHERE %s IS NOT NULL AND %s LIMIT 1",
			d.Ident(c.Name), d.Ident(stage), d.Ident(c.Name), unreadable(d.Ident(c.Name), c.Type, typ))
		rec(check)
		var bad string
		switch err := q.QueryRowContext(ctx, check).Scan(&bad); {
		case err == nil:
			return fmt.Errorf("column %q: %q cannot be read as %s, the target's type", c.Name, bad, typ)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		alter := fmt.Sprintf("ALTER TABLE %s MODIFY COLUMN %s %s", d.Ident(stage), d.Ident(c.Name), typ)
		rec(alter)
		if _, err := q.ExecContext(ctx, alter); err != nil {
			return err
		}
	}
	return nil
}

// unreadable holds when col's value (of type from) is no value of type to.
// Text read as a date must read back as itself: ClickHouse reads
// 2024-13-45 as 1900-01-01.
func unreadable(col, from, to string) string {
	d := Dialect{}
	if BaseType(from) == "String" {
		switch source.KindOfType(to) {
		case source.KindDate:
			return fmt.Sprintf("toString(toDate32OrNull(%s)) IS DISTINCT FROM trim(%s)", col, col)
		case source.KindTimestamp:
			return fmt.Sprintf("parseDateTime64BestEffortOrNull(%s, 6, 'UTC') IS NULL", col)
		}
	}
	return fmt.Sprintf("accurateCastOrNull(%s, %s) IS NULL", col, d.String(BaseType(to)))
}

// columnTypes reads a table's columns and their types.
func columnTypes(ctx context.Context, q engine.Querier, table string) ([]engine.Column, error) {
	rows, err := q.QueryContext(ctx, "SELECT * FROM "+table+" LIMIT 0")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	cols := make([]engine.Column, len(types))
	for i, t := range types {
		cols[i] = engine.Column{Name: t.Name(), Type: t.DatabaseTypeName()}
	}
	return cols, nil
}

// chTypes maps the reader's (DuckDB's) types to ClickHouse's: every column
// Nullable, so a NULL stays NULL.
type chTypes struct{}

func (chTypes) Type(reader string) (string, bool) {
	t := strings.ToUpper(strings.TrimSpace(reader))
	if filereader.IsNested(reader) {
		return "Nullable(String)", true
	}
	base, args, _ := strings.Cut(t, "(")
	simple := map[string]string{
		"BOOLEAN": "Bool", "TINYINT": "Int8", "SMALLINT": "Int16", "INTEGER": "Int32", "BIGINT": "Int64",
		"HUGEINT": "Int128", "UTINYINT": "UInt8", "USMALLINT": "UInt16", "UINTEGER": "UInt32", "UBIGINT": "UInt64",
		"UHUGEINT": "UInt128", "FLOAT": "Float32", "DOUBLE": "Float64", "VARCHAR": "String", "DATE": "Date32",
		"TIMESTAMP": "DateTime64(6)", "TIMESTAMP WITH TIME ZONE": "DateTime64(6, 'UTC')", "TIMESTAMPTZ": "DateTime64(6, 'UTC')",
		"TIMESTAMP_NS": "DateTime64(9)", "TIMESTAMP_MS": "DateTime64(3)", "TIMESTAMP_S": "DateTime64(0)", "UUID": "UUID",
	}
	switch {
	case base == "DECIMAL":
		return "Nullable(Decimal(" + args + ")", false
	case simple[t] != "":
		text := t == "HUGEINT" || t == "UHUGEINT"
		return "Nullable(" + simple[t] + ")", text
	}
	return "Nullable(String)", true
}

// CSVText reports whether ClickHouse's CSV input reads a column of type
// typ from the text DuckDB accepts for it as DuckDB does, or fails (with
// rawSettings): integers, decimals, text, dates and timestamps without a
// zone. The others go through Parquet.
func (chTypes) CSVText(typ string) bool {
	switch t := BaseType(typ); t {
	case "Int64", "String", "Date32", "DateTime64(6)":
		return true
	default:
		p, s, ok := decimalArgs(t)
		return ok && p > s
	}
}

// CheckType reports whether a `columns:` type can be used: ClickHouse
// knows it (it is staged as written), or the reader does (DuckDB's names,
// mapped by chTypes).
func (d *DB) CheckType(ctx context.Context, typ string) error {
	_, err := d.conn.ExecContext(ctx, "SELECT CAST(NULL AS Nullable("+typ+"))")
	if err == nil {
		return nil
	}
	reader, rerr := sql.Open("duckdb", "")
	if rerr != nil {
		return rerr
	}
	defer reader.Close()
	if duckdb.KnowsType(ctx, reader, typ) {
		return nil
	}
	return err
}

var _ engine.TypeChecker = (*DB)(nil)
