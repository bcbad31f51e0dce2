package duckdb

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/idemdata/idem/engine"
)

var _ engine.FileResolver = (*DB)(nil)

// ResolveFiles gives every row of the input the type the whole input needs;
// see Resolve.
func (*DB) ResolveFiles(ctx context.Context, q engine.Querier, in engine.FileInput) (engine.FileInput, error) {
	return Resolve(ctx, q, in)
}

// zonedRE matches a date and time text that ends in a UTC offset or zone
// (Z, +01, -05:00, UTC, Europe/Berlin). DuckDB's TIMESTAMP input drops it
// without a word, and so does PostgreSQL's.
const zonedRE = `(?i):[0-9]{2}(\.[0-9]*)?\s*(z|[+-][0-9]{1,2}(:?[0-9]{2})?|utc|gmt|[a-z]+/[a-z_/+-]+)\s*$`

// plainFormats are the usual zoneless ISO forms. A value strptime parses
// in full with one of them has no offset; only the others meet zonedRE,
// which costs several times more per value.
var plainFormats = []string{"%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%d"}

// integerRE matches integer text, which a DOUBLE would round beyond 2^53.
const integerRE = `\s*[+-]?[0-9]+\s*`

// Resolve reads, over every row of every CSV or JSON Lines file, what
// DuckDB's sniffer decides from a sample (20480 rows by default), and
// returns in with the types that read every row right:
//
//   - A sniffed CSV column of zoneless TIMESTAMP with a value carrying a UTC
//     offset anywhere is read as TIMESTAMPTZ, as it would be had that value
//     been in the sample. A column declared TIMESTAMP with such a value is
//     an error naming the file, line and value: storing it would drop the
//     offset.
//   - A key or version column (in.Exact) that sniffing made floating point
//     (CSV beyond BIGINT, JSON beyond UBIGINT), and whose values are all
//     integers of at most 38 digits, is read as HUGEINT, exactly.
//     Otherwise it stays as sniffed, and the runner refuses it. A JSON
//     file with such a column, or a key column with a declared type, is
//     read with every column's type given (in.Columns), since a cast after
//     JSON's inference would cast the rounded value.
//   - A CSV or JSON column typed integer from the sample with a value past
//     it that has a fraction or an exponent (5.7) is read as DOUBLE, as it
//     would be had that value been in the sample: the reader would round
//     it.
//   - A sniffed CSV number column with a value past the sample that the
//     sniffer does not take for a number (02134, +5: notNumberRE) is read
//     as VARCHAR, as it would be had that value been in the sample; a cast
//     would drop the zero.
//
// The cost is one more scan of the files, as text, when they have such
// columns; none for Parquet, which is typed. For CSV, a scan of the bytes
// in Go (mayHoldOffset, mayHoldLeadingZero) first rules offsets and
// leading zeros out in most files, and with them the scan through DuckDB.
func Resolve(ctx context.Context, q engine.Querier, in engine.FileInput) (engine.FileInput, error) {
	return ResolveDescribed(ctx, q, in, nil)
}

// ResolveDescribed is Resolve given cols, what Describe says of
// SelectFiles(in) (nil: Resolve describes it): a caller that has described
// the files saves the sniffer a second reading.
func ResolveDescribed(ctx context.Context, q engine.Querier, in engine.FileInput, cols []engine.Column) (engine.FileInput, error) {
	if in.Format != "csv" && in.Format != "jsonl" {
		return in, nil
	}
	d := Dialect{}
	var sniffed *CSVSniff
	if cols == nil {
		if c, s, ok := SniffColumns(ctx, q, in); ok {
			cols, sniffed = c, &s
			in.Sniffed = &engine.CSVRead{Columns: slices.Clone(c), DateFormat: s.DateFormat, TimestampFormat: s.TimestampFormat,
				NewLine: s.NewLine, Comment: s.Comment}
		}
	}
	if cols == nil {
		sel, err := d.SelectFiles(in)
		if err != nil {
			return in, err
		}
		if cols, err = Describe(ctx, q, sel); err != nil {
			return in, err
		}
	}
	if err := checkDateFormats(ctx, q, in, cols, sniffed); err != nil {
		return in, err
	}
	var zoneless, integral, zoned, floating, dated, numeric, whole, huge []engine.Column
	late := pastSample(in.Paths) // values the sniffer did not see (CSV rows, JSON lines)
	exactJSON := false
	for _, c := range cols {
		_, declared := in.Types[c.Name]
		if zonedType(c.Type) {
			zoned = append(zoned, c)
		}
		if k, ok := d.TimeKindOf(c.Type); ok && k == engine.KindDate && !declared && in.Format == "csv" {
			dated = append(dated, c)
		}
		if !declared && late && in.Format == "csv" && isNumber(c.Type) {
			numeric = append(numeric, c)
		}
		if !declared && late && isInteger(c.Type) {
			whole = append(whole, c)
		}
		if engine.IsFloat(c.Type) {
			huge = append(huge, c)
		}
		if k, ok := d.TimeKindOf(c.Type); ok && k == engine.KindTimestamp && (declared || in.Format == "csv") {
			zoneless = append(zoneless, c)
		}
		if !declared && engine.IsFloat(c.Type) && slices.Contains(in.Exact, c.Name) {
			integral = append(integral, c)
		} else if !declared && engine.IsFloat(c.Type) {
			floating = append(floating, c)
		}
		// JSON has no per-column type override: a declared type is a cast
		// of what was inferred, so a key declared VARCHAR would be the text
		// of a rounded DOUBLE. Read key columns as typed instead.
		if in.Format == "jsonl" && declared && slices.Contains(in.Exact, c.Name) {
			exactJSON = true
		}
	}
	// The byte scans for offsets and of the columns each read the files
	// on one core: they run at once, beside the sample's query.
	offsets := make(chan bool, 1)
	if len(zoneless) > 0 && in.Format == "csv" {
		go func() { offsets <- mayHoldOffset(in.Paths) }()
	} else {
		offsets <- true
	}
	wide, err := sampledIntegers(ctx, q, in, floating)
	if in.Format == "csv" {
		dated, whole, numeric = spareColumns(in, dated, whole, numeric)
	}
	if !<-offsets {
		zoneless = nil // no value can carry an offset: no scan for one
	}
	if err != nil {
		return in, err
	}
	integral = append(integral, wide...)
	// Where the files are read as text anyway, their checks cost little
	// there; else a scan of the bytes first rules them out in most files.
	if anyway := len(integral)+len(dated)+len(whole) > 0 || exactJSON; !anyway {
		if len(huge) > 0 && !mayHoldHugeExponent(in.Paths) {
			huge = nil // no exponent of three digits: no value beyond a DOUBLE
		}
		if len(numeric) > 0 && !mayHoldLeadingZero(in.Paths, in.Delim) {
			numeric = nil // no field starts with 0 and a digit, or +: no scan for one
		}
	}
	if len(zoneless)+len(integral)+len(dated)+len(numeric)+len(whole)+len(huge) == 0 && !exactJSON {
		return in, checkZoned(ctx, q, in, zoned)
	}

	// One pass over the files as text: for each zoneless column, the least
	// value with an offset; for each floating key, how many values are not
	// integers and the most digits one has. (The file of a value is looked
	// for again only for an error message: DuckDB 1.5's filename option
	// breaks reading files whose line endings differ.)
	var read []string // the columns the pass reads
	text := func(name string) string {
		if !slices.Contains(read, name) {
			read = append(read, name)
		}
		return textOf(name)
	}
	var aggs []string
	for _, c := range zoneless {
		v := text(c.Name)
		aggs = append(aggs, fmt.Sprintf("min(%s) FILTER (WHERE try_strptime(%s, %s) IS NULL AND regexp_matches(%s, %s))",
			v, v, d.list(plainFormats), v, d.String(zonedRE)))
	}
	// For each column sniffed DATE, a value past the sample with a time of
	// day (a DATE would drop it without a word), and one with an offset.
	for _, c := range dated {
		v := text(c.Name)
		aggs = append(aggs, fmt.Sprintf("min(%s) FILTER (WHERE length(trim(%s)) > 10)", v, v),
			fmt.Sprintf("min(%s) FILTER (WHERE regexp_matches(%s, %s))", v, v, d.String(zonedRE)))
	}
	for _, c := range integral {
		v := text(c.Name)
		aggs = append(aggs,
			fmt.Sprintf("count(*) FILTER (WHERE NOT regexp_full_match(%s, %s))", v, d.String(integerRE)),
			fmt.Sprintf("coalesce(max(length(ltrim(regexp_replace(%s, '[^0-9]', '', 'g'), '0'))), 0)", v))
	}
	// For each number column, a value past the sample the sniffer would
	// not have taken for a number (02134, +5).
	for _, c := range numeric {
		v := text(c.Name)
		aggs = append(aggs, fmt.Sprintf("min(%s) FILTER (WHERE regexp_matches(%s, %s))", v, v, d.String(notNumberRE)))
	}
	// For each integer column, how many values past the sample have a
	// fraction or an exponent (5.7): the reader would round them.
	for _, c := range whole {
		v := text(c.Name)
		aggs = append(aggs, fmt.Sprintf("count(*) FILTER (WHERE NOT regexp_full_match(%s, %s) AND TRY_CAST(%s AS DOUBLE) IS NOT NULL)", v, d.String(integerRE), v))
	}
	// For each floating column, a value beyond a DOUBLE's range (1e400),
	// which the readers take for infinity and PostgreSQL refuses.
	for _, c := range huge {
		v := text(c.Name)
		aggs = append(aggs, fmt.Sprintf("min(%s) FILTER (WHERE isinf(TRY_CAST(%s AS DOUBLE)) AND NOT regexp_matches(%s, '(?i)inf'))", v, v, v))
	}
	from := asText(in, read)
	if len(aggs) == 0 {
		in.Columns = cols
		return in, checkZoned(ctx, q, in, zoned)
	}
	vals := make([]any, len(aggs))
	ptrs := make([]any, len(aggs))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := q.QueryRowContext(ctx, fmt.Sprintf("SELECT %s FROM %s", strings.Join(aggs, ", "), from)).Scan(ptrs...); err != nil {
		return in, err
	}

	types := maps.Clone(in.Types)
	if types == nil {
		types = map[string]string{}
	}
	for i, c := range zoneless {
		value, ok := vals[i].(string)
		if !ok {
			continue
		}
		if t, declared := in.Types[c.Name]; declared {
			return in, zonedError(ctx, q, in, c.Name, t, value)
		}
		types[c.Name] = "TIMESTAMPTZ"
		zoned = append(zoned, engine.Column{Name: c.Name, Type: "TIMESTAMPTZ"})
	}
	for i, c := range dated {
		timed, offset := vals[len(zoneless)+2*i], vals[len(zoneless)+2*i+1]
		switch {
		case offset != nil:
			types[c.Name] = "TIMESTAMPTZ"
			zoned = append(zoned, engine.Column{Name: c.Name, Type: "TIMESTAMPTZ"})
		case timed != nil:
			types[c.Name] = "TIMESTAMP"
		}
	}
	base := len(zoneless) + 2*len(dated)
	for i, c := range integral {
		bad, digits := vals[base+2*i], vals[base+2*i+1]
		switch {
		case toInt(bad) == 0 && toInt(digits) <= 38:
			types[c.Name] = "HUGEINT"
			exactJSON = exactJSON || in.Format == "jsonl"
		case toInt(bad) == 0 && !slices.Contains(in.Exact, c.Name):
			return in, &engine.BadValue{Column: c.Name, Msg: fmt.Sprintf("%s: column %q holds integers of %d digits, which no number type holds exactly (a DOUBLE would round them): declare it VARCHAR to keep them as text",
				strings.Join(in.Paths, ", "), c.Name, toInt(digits))}
		}
	}
	base += 2 * len(integral)
	for i, c := range whole {
		if toInt(vals[base+len(numeric)+i]) > 0 {
			types[c.Name] = "DOUBLE" // what the sniffer makes of 5.7 in the sample
			exactJSON = exactJSON || in.Format == "jsonl"
		}
	}
	for i, c := range numeric {
		if vals[base+i] != nil {
			types[c.Name] = "VARCHAR" // what the sniffer makes of 02134 in the sample
		}
	}
	base += len(numeric) + len(whole)
	for i, c := range huge {
		if value, ok := vals[base+i].(string); ok {
			return in, zonedValueError(ctx, q, in, c.Name, value, "is beyond the range of a DOUBLE (about 1.8e308), which would store it as infinity")
		}
	}
	in.Types = types
	if exactJSON {
		for i, c := range cols {
			if t, ok := types[c.Name]; ok {
				cols[i].Type = t
			}
		}
		in.Columns = cols
		if late {
			if err := checkKeys(ctx, q, in, cols); err != nil {
				return in, err
			}
		}
	}
	return in, checkZoned(ctx, q, in, zoned)
}

// checkKeys refuses JSON Lines files with a key that is none of cols, the
// columns the reader found in its sample, before they are read with cols
// given (in.Columns): that read drops such a key without a word, where
// the inferring read fails on it. The cost is one more pass over the
// files (0.25 s for a 1M-line file here), only on that path.
func checkKeys(ctx context.Context, q engine.Querier, in engine.FileInput, cols []engine.Column) error {
	d := Dialect{}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	var key sql.NullString
	err := q.QueryRowContext(ctx, fmt.Sprintf("SELECT min(k) FROM (SELECT unnest(json_keys(json)) AS k FROM read_json_objects(%s, format = 'newline_delimited')) WHERE NOT list_contains(%s, k)",
		d.list(in.Paths), d.list(names))).Scan(&key)
	if err != nil || !key.Valid {
		return err
	}
	return &engine.BadValue{Column: key.String, Msg: fmt.Sprintf("%s: key %q first appears past the first %d lines, from which the reader takes a file's columns: it would be dropped without a word; put an object with every key among the first lines",
		strings.Join(in.Paths, ", "), key.String, sampleRows)}
}

// asText reads the input files (CSV or JSON Lines) as text, in the dialect
// SelectFiles reads them with. A JSON Lines file gives its columns cols,
// each value as the text ->> would give (a number as yyjson prints it, 1e3
// as 1000.0; a string unescaped; an array or object as JSON), parsed once
// per row instead of once per value: 0.37 s against 0.54–0.71 s for two
// integer columns of 1M rows. Keys match case-sensitively, as with ->>.
func asText(in engine.FileInput, cols []string) string {
	d := Dialect{}
	if in.Format == "jsonl" {
		types := make([]string, len(cols))
		for i, c := range cols {
			types[i] = d.String(c) + ": 'VARCHAR'"
		}
		return fmt.Sprintf("read_json(%s, format = 'newline_delimited', columns = {%s})", d.list(in.Paths), strings.Join(types, ", "))
	}
	return fmt.Sprintf("read_csv(%s, header = true, all_varchar = true%s)", d.list(in.Paths), d.csvOptions(in.Delim))
}

// textOf is column name's value as text in asText's rows.
func textOf(name string) string { return Dialect{}.Ident(name) }

// notNumberRE matches number text DuckDB's sniffer does not take for a
// number, though a cast to the sniffed type would read it: a leading zero
// before a digit (02134, 007.25) or a plus sign. (A minus sign before a
// zero, -01, it takes.)
const notNumberRE = `^(0[0-9]|\+)`

// isInteger reports an integer type the sniffer gives a CSV column.
func isInteger(typ string) bool {
	return isNumber(typ) && !engine.IsFloat(typ) && !strings.HasPrefix(strings.ToUpper(typ), "DECIMAL")
}

// pastSample reports whether the CSV or JSON Lines files may hold rows the
// readers' sample did not see: they type from the first sampleRows rows of
// the first file, so another file, or a file of more lines, may (a
// compressed file is counted as more).
func pastSample(paths []string) bool {
	if len(paths) != 1 {
		return len(paths) > 1
	}
	if compressed(paths[0]) {
		return true
	}
	n, err := countLines(paths[0], sampleRows+1) // the header and the sample
	return err != nil || n > sampleRows+1
}

// countLines counts the line ends in the file at path, stopping past
// limit.
func countLines(path string, limit int) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	n := 0
	for n <= limit {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// isNumber reports a number type the sniffer gives a CSV column.
func isNumber(typ string) bool {
	t := strings.ToUpper(typ)
	for _, p := range []string{"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "DECIMAL", "DOUBLE", "FLOAT", "REAL"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// namedZoneRE finds the zone name a date and time text ends with
// (CET, Europe/Berlin; UTC and GMT too, told apart by the caller).
const namedZoneRE = `[0-9]\s*([A-Za-z][A-Za-z0-9_/+-]+)\s*$`

// sampleRows is how many rows DuckDB's sniffer types a CSV file's
// columns from (its sample_size).
const sampleRows = 20480

// sampledIntegers returns the columns among floating (typed DOUBLE by the
// reader) whose sampled values are all integers: the reader made them
// floating point because one was too large for BIGINT, and a DOUBLE keeps
// 15 to 17 digits of it; Resolve reads them as HUGEINT when every value in
// the files is an integer that fits. A column with a fraction in its
// sample is floating point by its nature, and costs no scan of the files.
func sampledIntegers(ctx context.Context, q engine.Querier, in engine.FileInput, floating []engine.Column) ([]engine.Column, error) {
	if len(floating) == 0 {
		return nil, nil
	}
	d := Dialect{}
	aggs := make([]string, len(floating))
	names := make([]string, len(floating))
	for i, c := range floating {
		v := textOf(c.Name)
		names[i] = c.Name
		aggs[i] = fmt.Sprintf("count(*) FILTER (WHERE NOT regexp_full_match(%s, %s))", v, d.String(integerRE))
	}
	from := asText(in, names)
	vals := make([]int64, len(aggs))
	ptrs := make([]any, len(aggs))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := q.QueryRowContext(ctx, fmt.Sprintf("SELECT %s FROM (SELECT * FROM %s LIMIT %d)", strings.Join(aggs, ", "), from, sampleRows)).Scan(ptrs...); err != nil {
		return nil, err
	}
	var out []engine.Column
	for i, c := range floating {
		if vals[i] == 0 {
			out = append(out, c)
		}
	}
	return out, nil
}

// checkDateFormats refuses a CSV file whose dates or timestamps DuckDB's
// sniffer reads day first or month first (%d/%m/%Y, %m-%d-%Y, %d.%m.%Y …)
// into a DATE or TIMESTAMP column when no value tells which: 01/02/2026 is
// 1 February to one reader and 2 January to another, the sniffer guesses
// day first when its sample does not tell, and a declared type reads with
// its guess. A value whose day is past the 12th proves the format (one
// that contradicts it fails the read), so the files are read once more
// for the greatest day, only when such a format was sniffed. ISO 8601 and
// other year-first forms cannot be misread. sniffed, when not nil, is
// the file's sniff already taken (SniffColumns).
func checkDateFormats(ctx context.Context, q engine.Querier, in engine.FileInput, cols []engine.Column, sniffed *CSVSniff) error {
	if in.Format != "csv" || len(in.Paths) == 0 {
		return nil
	}
	var dates, stamps []string
	for _, c := range cols {
		k, ok := Dialect{}.TimeKindOf(c.Type)
		switch {
		case !ok:
		case k == engine.KindDate:
			dates = append(dates, c.Name)
		default:
			stamps = append(stamps, c.Name)
		}
	}
	if len(dates)+len(stamps) == 0 {
		return nil
	}
	var s CSVSniff
	if sniffed != nil {
		s = *sniffed
	} else {
		var err error
		if s, err = SniffCSV(ctx, q, in.Paths[0], in.Delim); err != nil {
			return err
		}
	}
	var check []string
	format := map[string]string{}
	for _, f := range []struct {
		format string
		cols   []string
	}{{s.DateFormat, dates}, {s.TimestampFormat, stamps}} {
		if dayMonthFirst(f.format) {
			check = append(check, f.cols...)
			for _, c := range f.cols {
				format[c] = f.format
			}
		}
	}
	if len(check) == 0 {
		return nil
	}
	d := Dialect{}
	sel, err := d.SelectFiles(in)
	if err != nil {
		return err
	}
	aggs := make([]string, len(check))
	for i, c := range check {
		aggs[i] = fmt.Sprintf("max(day(%s))", d.Ident(c))
	}
	days := make([]sql.NullInt64, len(check))
	ptrs := make([]any, len(check))
	for i := range days {
		ptrs[i] = &days[i]
	}
	if err := q.QueryRowContext(ctx, fmt.Sprintf("SELECT %s FROM (%s)", strings.Join(aggs, ", "), sel)).Scan(ptrs...); err != nil {
		return err
	}
	for i, c := range check {
		if days[i].Valid && days[i].Int64 <= 12 {
			return &engine.BadValue{Column: c, Msg: fmt.Sprintf("%s: column %q: its dates are written day or month first (DuckDB would read them as %s) and none says which (no day is past the 12th): 01/02/2026 can be 1 February or 2 January; write them year first, as ISO 8601 does (2026-02-01, 2026-02-01 13:45:00), or declare the column VARCHAR to load the text as it is",
				strings.Join(in.Paths, ", "), c, format[c])}
		}
	}
	return nil
}

// dayMonthFirst reports a strptime format with day and month whose year is
// not first.
func dayMonthFirst(format string) bool {
	return strings.Contains(format, "%d") && strings.Contains(format, "%m") && !strings.HasPrefix(format, "%Y")
}

// zonedType reports a type whose text DuckDB's readers parse with the
// zone-aware cast that checkZoned guards.
func zonedType(typ string) bool {
	switch strings.ToUpper(typ) {
	case "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE", "TIMETZ", "TIME WITH TIME ZONE":
		return true
	}
	return false
}

func isTimeTZ(typ string) bool {
	t := strings.ToUpper(typ)
	return t == "TIMETZ" || t == "TIME WITH TIME ZONE"
}

// checkZoned reads every value of the columns read as TIMESTAMPTZ or
// TIMETZ (zoned) as text, for two things DuckDB's reader (its ICU cast,
// which DuckDB 1.5 uses for such text) gets wrong without a word:
//
//   - a value it cannot parse ("soon", an offset after a space) becomes
//     NULL, where every other type's reading fails and names the line;
//   - after a value that names its zone (CET, Europe/Berlin), the values
//     of the same vector without a zone are read in that zone instead of
//     UTC: "2026-11-28 10:00:00" after "… CET" becomes 09:00Z.
//
// Either is refused, naming the file, line and value; UTC and GMT, which
// are the reader's own zone, are not. It costs one scan of the files as
// text when they have such a column.
func checkZoned(ctx context.Context, q engine.Querier, in engine.FileInput, zoned []engine.Column) error {
	if len(zoned) == 0 || (in.Format != "csv" && in.Format != "jsonl") {
		return nil
	}
	d := Dialect{}
	var aggs, names []string
	for _, c := range zoned {
		v := textOf(c.Name)
		names = append(names, c.Name)
		aggs = append(aggs,
			fmt.Sprintf("min(%s) FILTER (WHERE trim(%s) <> '' AND TRY_CAST(%s AS %s) IS NULL)", v, v, v, c.Type),
			fmt.Sprintf("min(%s) FILTER (WHERE lower(regexp_extract(%s, %s, 1)) NOT IN ('', 'utc', 'gmt', 'z'))", v, v, d.String(namedZoneRE)))
	}
	from := asText(in, names)
	vals := make([]sql.NullString, len(aggs))
	ptrs := make([]any, len(aggs))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := q.QueryRowContext(ctx, fmt.Sprintf("SELECT %s FROM %s", strings.Join(aggs, ", "), from)).Scan(ptrs...); err != nil {
		return err
	}
	for i, c := range zoned {
		bad, named := vals[2*i], vals[2*i+1]
		switch {
		case bad.Valid && isTimeTZ(c.Type):
			return zonedValueError(ctx, q, in, c.Name, bad.String, "is not a time with a UTC offset (like 13:45:00+01:00)")
		case bad.Valid:
			return zonedValueError(ctx, q, in, c.Name, bad.String, "is not a date and time with a UTC offset (like 2026-11-28 13:45:00+01:00)")
		case named.Valid:
			return zonedValueError(ctx, q, in, c.Name, named.String,
				"names its time zone: write its UTC offset instead (like 2026-11-28 13:45:00+01:00); the embedded DuckDB that reads the files reads the values after a zone name in that zone")
		}
	}
	return nil
}

// zonedValueError names the file and line of value in column col.
func zonedValueError(ctx context.Context, q engine.Querier, in engine.FileInput, col, value, what string) error {
	bv := &engine.BadValue{Column: col}
	where := strings.Join(in.Paths, ", ")
	for _, file := range in.Paths {
		if line, err := findLine(ctx, q, in, file, col, value); err == nil && line > 0 {
			where = fmt.Sprintf("%s line %d", file, line)
			bv.File, bv.Line = file, line
			break
		}
	}
	bv.Msg = fmt.Sprintf("%s: column %q: %q %s", where, col, value, what)
	return bv
}

func toInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int32:
		return int64(x)
	}
	return -1
}

// ErrOffset marks a value with a UTC offset in a column declared without
// time zone.
var ErrOffset = errors.New("a UTC offset, which a column without time zone would drop")

func zonedError(ctx context.Context, q engine.Querier, in engine.FileInput, col, typ, value string) error {
	where := strings.Join(in.Paths, ", ")
	for _, file := range in.Paths {
		if line, err := findLine(ctx, q, in, file, col, value); err == nil && line > 0 {
			where = fmt.Sprintf("%s line %d", file, line)
			break
		}
	}
	return fmt.Errorf("%s: column %q is declared %s, and %q has %w; declare the column TIMESTAMPTZ under columns: to load the instant (in UTC), or write the value without offset",
		where, col, typ, value, ErrOffset)
}

// findLine finds the line of the first row of file whose column col holds
// value: only for an error message, so it reads the file again in Go.
func findLine(ctx context.Context, q engine.Querier, in engine.FileInput, file, col, value string) (int, error) {
	f, err := os.Open(file)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if in.Format == "jsonl" {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<30)
		for n := 1; sc.Scan(); n++ {
			var obj map[string]any
			dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
			dec.UseNumber() // a number's text, as the reader's ->> gives it (1e400 is no float64)
			if dec.Decode(&obj) != nil {
				continue
			}
			switch v := obj[col].(type) {
			case string:
				if v == value {
					return n, nil
				}
			case json.Number:
				if v.String() == value {
					return n, nil
				}
			}
		}
		return 0, sc.Err()
	}
	delim, quote := in.Delim, `"`
	if delim == "" {
		s, err := SniffCSV(ctx, q, file, "")
		if err != nil {
			return 0, err
		}
		delim, quote = s.Delimiter, s.Quote
	}
	if len(delim) != 1 || (quote != `"` && quote != "" && quote != "(empty)") {
		return 0, errors.New("a CSV dialect encoding/csv does not read")
	}
	r := csv.NewReader(bufio.NewReader(f))
	r.Comma, r.LazyQuotes, r.FieldsPerRecord, r.ReuseRecord = rune(delim[0]), true, -1, true
	head, err := r.Read()
	if err != nil {
		return 0, err
	}
	idx := -1
	for i, h := range head {
		if strings.TrimPrefix(h, "\ufeff") == col {
			idx = i
		}
	}
	if idx < 0 {
		return 0, fmt.Errorf("no column %q", col)
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		if idx < len(rec) && (rec[idx] == value || strings.TrimSpace(rec[idx]) == value) {
			line, _ := r.FieldPos(idx)
			return line, nil
		}
	}
}
