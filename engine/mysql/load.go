package mysql

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/source"
	"github.com/idemdata/idem/source/filereader"
)

// Input files reach MySQL through LOAD DATA LOCAL INFILE from a reader the
// driver streams (mysql.RegisterReaderHandler): the embedded DuckDB
// (source/filereader) reads the files, as every engine's input is read,
// and their rows are written as LOAD DATA text into a pipe, one batch of
// rows in memory at a time. No file holds the whole input, and the
// columns and types are DuckDB's, mapped to MySQL types (myType).

// readerNames are the LOAD DATA reader names in use in this process: the
// driver's registry is global, and a backfill loads several partitions at
// once. Each load takes the lowest free number, so a run's SQL text is the
// same every time (golden files, plans).
var readerNames = struct {
	sync.Mutex
	used map[int]bool
}{used: map[int]bool{}}

func takeReaderName() (string, func()) {
	readerNames.Lock()
	defer readerNames.Unlock()
	n := 1
	for readerNames.used[n] {
		n++
	}
	readerNames.used[n] = true
	return fmt.Sprintf("idem_%d", n), func() {
		readerNames.Lock()
		delete(readerNames.used, n)
		readerNames.Unlock()
	}
}

// LoadFiles streams the input files into a new temporary table stage. It
// runs on the pinned connection (tx is nil on this engine: staging comes
// before the data transaction).
func (d *DB) LoadFiles(ctx context.Context, tx *sql.Tx, stage string, in engine.FileInput) error {
	var q engine.Querier = d.conn
	if tx != nil {
		q = tx
	}
	_, err := d.loadFiles(ctx, q, stage, engine.Table{}, in)
	return err
}

var _ engine.BuildLoader = (*DB)(nil)

// LoadFilesBuilt loads a first load's input straight into the InnoDB table
// built to replace the target (engine.BuildLoader): LOAD DATA writes the
// rows once, where staging them in a temporary table and copying them
// there wrote them twice. The temporary table stage is made too, empty,
// for the staged columns, and built is made from it as the runner would.
func (d *DB) LoadFilesBuilt(ctx context.Context, stage string, built engine.Table, in engine.FileInput) (int64, error) {
	if built.Schema != "" {
		var one int
		q := "SELECT 1 FROM information_schema.schemata WHERE schema_name = ?"
		if in.Record != nil {
			in.Record(q)
		}
		err := d.conn.QueryRowContext(ctx, q, built.Schema).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, engine.ErrNoBuildSchema
		}
		if err != nil {
			return 0, err
		}
	}
	return d.loadFiles(ctx, d.conn, stage, built, in)
}

// loadFiles loads the files into stage, or into the new table into when
// it is given, and returns how many rows it loaded.
func (d *DB) loadFiles(ctx context.Context, q engine.Querier, stage string, into engine.Table, in engine.FileInput) (int64, error) {
	if len(in.Paths) == 0 {
		return 0, errors.New("no input files")
	}
	rd, err := filereader.Open(ctx)
	if err != nil {
		return 0, err
	}
	defer rd.Close()
	rec := func(s string) {
		if in.Record != nil {
			in.Record(s)
		}
	}
	// Where the target exists, a staged column takes the target's exact
	// type when that loses nothing (an INSERT would cast to it anyway);
	// one that would lose or misread values keeps its own, so the runner
	// reports the type change with both types.
	var target map[string]string
	if in.Target.Name != "" {
		if target, err = columnTypes(ctx, q, in.Target, rec); err != nil {
			return 0, err
		}
	}
	// CSV's types come from a sample of the rows first: the pass over
	// every row that confirms them (Input.Resolve) then runs in the
	// embedded reader while the server parses the files on the raw path.
	describe, sampled := rd.Describe, in.Format == "csv" && !d.csvRows
	if sampled {
		describe = rd.DescribeSample
	}
	src, err := describe(ctx, in, myTypes{})
	if err != nil {
		return 0, err
	}
	l := &loader{d: d, q: q, stage: stage, into: into, in: in, rd: rd, target: target, rec: rec}
	done, err := l.load(ctx, src, !sampled)
	if done || err != nil {
		return l.loaded, err
	}
	// Not the raw path, or the sample's types did not hold: read the
	// files with the types every row needs.
	if l.created {
		drops := []string{"DROP TEMPORARY TABLE " + Dialect{}.Ident(stage)}
		if into.Name != "" {
			drops = append(drops, "DROP TABLE IF EXISTS "+Dialect{}.Table(into))
		}
		for _, drop := range drops {
			rec(drop)
			if _, err := q.ExecContext(ctx, drop); err != nil {
				return 0, err
			}
		}
	}
	if src, err = rd.Describe(ctx, in, myTypes{}); err != nil {
		return 0, err
	}
	_, err = l.load(ctx, src, true)
	return l.loaded, err
}

// loader is one LoadFiles.
type loader struct {
	d      *DB
	q      engine.Querier
	stage  string
	into   engine.Table // the table the rows go to when not stage
	in     engine.FileInput
	rd     *filereader.Reader
	target map[string]string // the target's column types, if it exists
	rec    func(string)
	// created: the staging table exists.
	created bool
	loaded  int64 // rows loaded
}

// load creates the staging table with src's types and loads the files
// into it, raw or as rows. resolved says src's types hold for every row.
// When they may not, load takes only the raw path, having Input.Resolve
// read every row beside it, and reports false (and no error) when it
// cannot take it or the types do not hold: then the caller drops the
// staging table it made and loads again with the types that do.
func (l *loader) load(ctx context.Context, src *filereader.Input, resolved bool) (bool, error) {
	// The server's dialect: the built table's collation is the server's
	// (MySQL 8 has no utf8mb4_nopad_bin).
	dl, q, stage, rec := l.d.dialect(), l.q, l.stage, l.rec
	l.loaded = 0
	cols := src.Columns
	types := make([]string, len(cols))
	defs := make([]string, len(cols))
	var later []int // columns to give the target's type if they hold no value
	for i, c := range cols {
		types[i] = c.Type
		if t, ok := l.target[c.Name]; ok {
			if engine.TypeChange(c.Name, c.Reader, t) == "" {
				types[i] = t
			} else {
				later = append(later, i)
			}
		}
		defs[i] = dl.Ident(c.Name) + " " + types[i]
	}
	var raw *filereader.CSVDialect
	if l.in.Format == "csv" && !l.d.csvRows && rawTypes(types) {
		var err error
		if raw, err = src.CSV(ctx); err != nil {
			return false, err
		}
		if raw != nil && raw.Escape != "" {
			raw = nil // LOAD DATA's escape character also unescapes \N, \n, …: not DuckDB's reading
		}
		if raw != nil && raw.Quote != "" {
			// With an enclosing quote, LOAD DATA reads the unquoted word
			// NULL as NULL; DuckDB's reader keeps it as text.
			has, err := source.FilesContain(l.in.Paths, []byte("NULL"))
			if err != nil {
				return false, err
			}
			if has {
				raw = nil
			}
		}
		if raw != nil {
			// MySQL 8 rounds a time's digits past the microsecond (MariaDB
			// and the reader drop them): 23:59:59.9999999 would be the next
			// day's midnight.
			sub, err := source.FilesHoldSubMicroseconds(l.in.Paths)
			if err != nil {
				return false, err
			}
			if sub {
				raw = nil
			}
		}
	}
	if raw == nil && !resolved {
		return false, nil
	}
	if raw != nil {
		rec(engine.LoadNote(l.in.Paths, dl.Ident(stage), "via LOAD DATA LOCAL INFILE (raw CSV: the server parses the files' bytes; on any warning, the embedded DuckDB reads them instead)"))
	} else {
		rec(engine.LoadNote(l.in.Paths, dl.Ident(stage), fmt.Sprintf(
			"via LOAD DATA LOCAL INFILE (the embedded DuckDB reads the files and streams their rows in batches of %d)", filereader.BatchRows)))
	}
	create := fmt.Sprintf("CREATE TEMPORARY TABLE %s (%s) %s", dl.Ident(stage), strings.Join(defs, ", "), dl.tableOptions())
	rec(create)
	if _, err := q.ExecContext(ctx, create); err != nil {
		return false, fmt.Errorf("creating the staging table: %w", err)
	}
	l.created = true
	dest := dl.Ident(stage)
	if l.into.Name != "" {
		dest = dl.Table(l.into)
		for _, stmt := range dl.CreateTableFrom(l.into, stage, "") {
			rec(stmt)
			if _, err := q.ExecContext(ctx, stmt); err != nil {
				return false, fmt.Errorf("creating %s: %w", l.into.Name, err)
			}
		}
	}
	if raw != nil {
		err := l.loadRawResolving(ctx, dest, src, raw, resolved)
		if errors.Is(err, errTypesChanged) {
			return false, nil
		}
		if err == nil {
			return true, emptyToTarget(ctx, q, stage, cols, later, l.target, rec)
		}
		if lostConnection(err) != nil || !errors.Is(err, errRawRefused) {
			return false, err
		}
		// The server read something otherwise than DuckDB would (a bad
		// value, a line ending, a missing field): the embedded reader
		// reads the files again, and names the file and line of what it
		// cannot read.
		trunc := "TRUNCATE TABLE " + dest
		rec(trunc)
		if _, err := q.ExecContext(ctx, trunc); err != nil {
			return false, err
		}
		l.loaded = 0
	}
	n, err := loadRows(ctx, q, dest, src, types, rec)
	if err != nil {
		return false, err
	}
	l.loaded = n
	return true, emptyToTarget(ctx, q, stage, cols, later, l.target, rec)
}

// errTypesChanged: the types of the sample did not hold for every row.
var errTypesChanged = errors.New("the input's types differ from its sample's")

// errRawRefused wraps why the server's reading of the raw files was not
// taken (the rows path reads them instead).
var errRawRefused = errors.New("the raw load was refused")

// loadRawResolving loads the files' bytes while, unless resolved, the
// embedded reader reads every row to confirm src's types: the server's
// CPU and this process's at once. It returns errTypesChanged if the types
// do not hold, the input's error if the reader finds one, and an error
// wrapping errRawRefused if the server read a value otherwise.
func (l *loader) loadRawResolving(ctx context.Context, dest string, src *filereader.Input, raw *filereader.CSVDialect, resolved bool) error {
	type result struct {
		ok  bool
		err error
	}
	done := make(chan result, 1)
	if resolved {
		done <- result{ok: true}
	} else {
		go func() {
			ok, err := src.Resolve(ctx)
			done <- result{ok, err}
		}()
	}
	n, lerr := loadRaw(ctx, l.q, dest, l.in.Paths, raw, l.rec)
	l.loaded = n
	res := <-done
	switch {
	case lerr != nil && lostConnection(lerr) != nil:
		return lerr
	case res.err != nil:
		return res.err
	case !res.ok:
		return errTypesChanged
	case lerr != nil:
		return fmt.Errorf("%w: %w", errRawRefused, lerr)
	}
	return nil
}

// loadRows has the embedded reader read the files and streams their rows
// into dest (quoted) as LOAD DATA text.
func loadRows(ctx context.Context, q engine.Querier, dest string, src *filereader.Input, types []string, rec func(string)) (int64, error) {
	dl := Dialect{}
	cols := src.Columns
	// Values are sent as text, lines ending in a newline and \ escaping
	// (the defaults, left unsaid: NO_BACKSLASH_ESCAPES would make '\n'
	// two characters); BIT (boolean) columns go through a variable
	// (LOAD DATA cannot read a BIT from text), converted by SET.
	list := make([]string, len(cols))
	var sets []string
	for i, c := range cols {
		list[i] = dl.Ident(c.Name)
		if strings.HasPrefix(strings.ToUpper(types[i]), "BIT") {
			v := fmt.Sprintf("@v%d", i)
			list[i] = v
			sets = append(sets, fmt.Sprintf("%s = CAST(%s AS UNSIGNED)", dl.Ident(c.Name), v))
		}
	}
	name, free := takeReaderName()
	defer free()
	load := fmt.Sprintf(`LOAD DATA LOCAL INFILE 'Reader::%s' INTO TABLE %s CHARACTER SET utf8mb4
  FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' ESCAPED BY '\' (%s)`,
		name, dest, strings.Join(list, ", "))
	if len(sets) > 0 {
		load += " SET " + strings.Join(sets, ", ")
	}
	rec(load)

	rows, err := src.Rows(ctx)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	pr, pw := io.Pipe()
	gomysql.RegisterReaderHandler(name, func() io.Reader { return pr })
	defer gomysql.DeregisterReaderHandler(name)
	kinds := make([]valueKind, len(cols))
	for i, c := range cols {
		kinds[i] = kindOf(c)
	}
	go func() { pw.CloseWithError(writeRows(pw, rows, kinds)) }()
	res, err := q.ExecContext(ctx, load)
	pr.CloseWithError(io.ErrClosedPipe) // stops the writer if the load ended early
	if err != nil {
		if lostConnection(err) != nil {
			return 0, err
		}
		return 0, fmt.Errorf("loading the input: %w", err)
	}
	// With LOCAL, the server cannot stop the client's transfer, so it
	// reports values a column cannot hold as warnings and goes on: any
	// warning fails the load.
	if err := loadWarnings(ctx, q); err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// rawTypes reports whether LOAD DATA reads every staged column's text as
// DuckDB reads it, or warns: integers, decimals, doubles, text, dates and
// timestamps without a zone. BIT, TIMESTAMP (an instant), TIME, FLOAT,
// JSON, BLOB and the rest take the rows path.
func rawTypes(types []string) bool {
	for _, t := range types {
		base, _, _ := strings.Cut(strings.ToUpper(t), "(")
		switch strings.TrimSpace(base) {
		case "TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "DECIMAL", "DOUBLE",
			"CHAR", "VARCHAR", "TEXT", "MEDIUMTEXT", "LONGTEXT", "DATE", "DATETIME":
		default:
			return false
		}
	}
	return true
}

// errCarriageReturn stops a raw load at a carriage return: DuckDB ends a
// line at \r\n, LOAD DATA at \n only, so the rows path reads such files.
var errCarriageReturn = errors.New("a carriage return in the file")

// crGuard passes a file's bytes on, failing at the first carriage return.
type crGuard struct{ r io.Reader }

func (g crGuard) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if i := bytes.IndexByte(p[:n], '\r'); i >= 0 {
		return i, errCarriageReturn
	}
	return n, err
}

// loadRaw streams each file's bytes into one LOAD DATA LOCAL into dest
// (quoted), its columns in the file's header order. An empty field,
// quoted or not, is NULL (as DuckDB reads it: see rawFields), and a value
// the column cannot hold is a warning: any warning is an error, and the
// caller reads the files the other way.
func loadRaw(ctx context.Context, q engine.Querier, dest string, paths []string, cd *filereader.CSVDialect, rec func(string)) (int64, error) {
	dl := Dialect{}
	fields := "FIELDS TERMINATED BY " + dl.String(cd.Delim)
	if cd.Quote != "" {
		fields += " OPTIONALLY ENCLOSED BY " + dl.String(cd.Quote)
	}
	// No escape character: a quote inside a quoted field is doubled, and
	// \N or \n are the text they are, as DuckDB reads them.
	fields += " ESCAPED BY ''"
	var loaded int64
	for _, p := range paths {
		h, err := filereader.Header(p, cd.Delim[0])
		if err != nil {
			return 0, err
		}
		into, err := rawFields(p, h, cd)
		if err != nil {
			return 0, err
		}
		name, free := takeReaderName()
		load := fmt.Sprintf("LOAD DATA LOCAL INFILE 'Reader::%s' INTO TABLE %s CHARACTER SET utf8mb4\n  %s IGNORE 1 LINES %s",
			name, dest, fields, into)
		rec(load)
		err = func() error {
			defer free()
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			gomysql.RegisterReaderHandler(name, func() io.Reader { return crGuard{f} })
			defer gomysql.DeregisterReaderHandler(name)
			res, err := q.ExecContext(ctx, load)
			if err != nil {
				return err
			}
			if err := loadWarnings(ctx, q); err != nil {
				return err
			}
			n, err := res.RowsAffected()
			loaded += n
			return err
		}()
		if err != nil {
			return 0, err
		}
	}
	return loaded, nil
}

// rawFields is what LOAD DATA reads a file's fields into: each through a
// variable that makes an empty one NULL, or, where no field of the file is
// empty (source.FileHoldsEmptyField), straight into its column, which
// stores the same values: the variables cost a sixth of the load.
func rawFields(path string, header []string, cd *filereader.CSVDialect) (string, error) {
	var quote byte
	if cd.Quote != "" {
		quote = cd.Quote[0]
	}
	empty, err := source.FileHoldsEmptyField(path, cd.Delim[0], quote)
	if err != nil {
		return "", err
	}
	dl := Dialect{}
	if !empty {
		return "(" + dl.Idents(header) + ")", nil
	}
	vars := make([]string, len(header))
	sets := make([]string, len(header))
	for i, c := range header {
		vars[i] = fmt.Sprintf("@v%d", i)
		sets[i] = fmt.Sprintf("%s = NULLIF(@v%d, '')", dl.Ident(c), i)
	}
	return "(" + strings.Join(vars, ", ") + ")\n  SET " + strings.Join(sets, ", "), nil
}

// emptyToTarget gives the target's type to staged columns that kept their
// own because it differs (text where the target has numbers), when they
// hold no value at all: a column empty in a whole file is read as text,
// and has nothing to lose.
func emptyToTarget(ctx context.Context, q engine.Querier, stage string, cols []filereader.Column, later []int, target map[string]string, rec func(string)) error {
	if len(later) == 0 {
		return nil
	}
	dl := Dialect{}
	counts := make([]string, len(later))
	for i, c := range later {
		counts[i] = "count(" + dl.Ident(cols[c].Name) + ")"
	}
	query := "SELECT " + strings.Join(counts, ", ") + " FROM " + dl.Ident(stage)
	rec(query)
	n := make([]int64, len(later))
	ptrs := make([]any, len(later))
	for i := range n {
		ptrs[i] = &n[i]
	}
	if err := q.QueryRowContext(ctx, query).Scan(ptrs...); err != nil {
		return err
	}
	var alter []string
	for i, c := range later {
		if n[i] == 0 {
			alter = append(alter, "MODIFY COLUMN "+dl.Ident(cols[c].Name)+" "+target[cols[c].Name])
		}
	}
	if len(alter) == 0 {
		return nil
	}
	stmt := "ALTER TABLE " + dl.Ident(stage) + " " + strings.Join(alter, ", ")
	rec(stmt)
	_, err := q.ExecContext(ctx, stmt)
	return err
}

// loadWarnings returns the first warning of the last statement as an
// error, or nil.
func loadWarnings(ctx context.Context, q engine.Querier) error {
	rows, err := q.QueryContext(ctx, "SHOW WARNINGS LIMIT 1")
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var level, msg string
		var code int
		if err := rows.Scan(&level, &code, &msg); err != nil {
			return err
		}
		return fmt.Errorf("loading the input: %s", msg)
	}
	return rows.Err()
}

// columnTypes returns a table's column types as MySQL spells them
// (column_type: "bigint(20)", "decimal(12,2)"), or none if it does not
// exist.
func columnTypes(ctx context.Context, q engine.Querier, t engine.Table, rec func(string)) (map[string]string, error) {
	query, args := "SELECT column_name, column_type FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = ?", []any{t.Name}
	if t.Schema != "" {
		query, args = "SELECT column_name, column_type FROM information_schema.columns WHERE table_schema = ? AND table_name = ?", []any{t.Schema, t.Name}
	}
	rec(query)
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, err
		}
		types[name] = strings.ToUpper(typ)
	}
	return types, rows.Err()
}

// myTypes is MySQL's side of the file reader.
type myTypes struct{}

func (myTypes) Type(duck string) (string, bool) { return myType(duck) }

// CSVText: LoadFiles checks the staged types itself (rawTypes), the
// target's included.
func (myTypes) CSVText(string) bool { return true }

var decimalRE = regexp.MustCompile(`^DECIMAL\((\d+),\s*(\d+)\)$`)

// myType maps a DuckDB type to a MySQL type, and says whether values
// travel as the reader's text.
func myType(duck string) (string, bool) {
	t := strings.ToUpper(duck)
	switch t {
	case "BOOLEAN":
		return "BIT(1)", false
	case "TINYINT", "UTINYINT", "SMALLINT":
		return "SMALLINT", false
	case "USMALLINT", "INTEGER":
		return "INT", false
	case "UINTEGER", "BIGINT":
		return "BIGINT", false
	case "UBIGINT":
		return "DECIMAL(20,0)", false
	case "HUGEINT", "UHUGEINT", "BIGNUM", "VARINT":
		return "DECIMAL(39,0)", true
	case "FLOAT":
		return "FLOAT", false
	case "DOUBLE":
		return "DOUBLE", false
	case "VARCHAR":
		return "LONGTEXT", false
	case "DATE":
		return "DATE", false
	case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS":
		return "DATETIME(6)", false
	case "TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ":
		// An instant: MySQL's TIMESTAMP (stored as UTC, 1970 to 2038).
		// NULL, so the server never fills it with the current time.
		return "TIMESTAMP(6) NULL", false
	case "BLOB":
		return "LONGBLOB", false
	case "TIME":
		return "TIME(6)", true
	case "JSON":
		return "JSON", true
	}
	if m := decimalRE.FindStringSubmatch(t); m != nil {
		return "DECIMAL(" + m[1] + "," + m[2] + ")", false
	}
	if filereader.IsNested(t) {
		return "JSON", true
	}
	return "LONGTEXT", true // UUID, INTERVAL, ENUM, BIT and the rest: their text
}

type valueKind int

const (
	kindOther valueKind = iota
	kindDate
	kindTimestamp
)

func kindOf(c filereader.Column) valueKind {
	switch strings.ToUpper(c.Reader) {
	case "DATE":
		return kindDate
	case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS", "TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ":
		return kindTimestamp
	}
	return kindOther
}

// writeRows writes rows as LOAD DATA text: fields separated by commas,
// text enclosed in double quotes with \ escaping, NULL as \N.
func writeRows(w io.Writer, rows *filereader.Rows, kinds []valueKind) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var buf []byte
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			return err
		}
		buf = buf[:0]
		for i, v := range vals {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendValue(buf, v, kinds[i])
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return bw.Flush()
}

func appendValue(buf []byte, v any, k valueKind) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, `\N`...)
	case int64:
		return strconv.AppendInt(buf, x, 10)
	case uint64:
		return strconv.AppendUint(buf, x, 10)
	case float64:
		return strconv.AppendFloat(buf, x, 'g', -1, 64)
	case float32:
		return strconv.AppendFloat(buf, float64(x), 'g', -1, 32)
	case bool:
		if x {
			return append(buf, '1')
		}
		return append(buf, '0')
	case filereader.Decimal:
		return append(buf, x.String()...)
	case *big.Int:
		return append(buf, x.String()...)
	case time.Time:
		if k == kindDate {
			return x.AppendFormat(buf, "2006-01-02")
		}
		return x.UTC().AppendFormat(buf, "2006-01-02 15:04:05.999999")
	case string:
		return appendQuoted(buf, x)
	case []byte:
		return appendQuoted(buf, string(x))
	}
	return appendQuoted(buf, fmt.Sprint(v))
}

// appendQuoted encloses s in double quotes, escaping the quote, the
// escape character and NUL.
func appendQuoted(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			buf = append(buf, '\\', c)
		case 0:
			buf = append(buf, '\\', '0')
		default:
			buf = append(buf, c)
		}
	}
	return append(buf, '"')
}
