package postgres_test

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/postgres"
	"github.com/idemdata/idem/input"
)

// col is one input column of a round trip: its name, its type (given to
// the reader, or "" to take the target's), and its values as written in
// CSV (nil: an empty field).
type col struct {
	name string
	typ  string
	vals []*string
}

func v(s string) *string { return &s }

// q is a value written in quotes, as CSV quotes it: an empty one is empty
// text, not NULL.
func q(s string) *string {
	s = `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	return &s
}

// writeCSV writes cols as a CSV file, an id column first (1, 2, …) to
// read the rows back in order.
func writeCSV(t *testing.T, name string, cols []col) string {
	t.Helper()
	rows := 0
	for _, c := range cols {
		rows = max(rows, len(c.vals))
	}
	var b strings.Builder
	b.WriteString("id")
	for _, c := range cols {
		b.WriteString("," + c.name)
	}
	b.WriteString("\n")
	for i := range rows {
		b.WriteString(strconv.Itoa(i + 1))
		for _, c := range cols {
			b.WriteString(",")
			if i < len(c.vals) && c.vals[i] != nil {
				b.WriteString(*c.vals[i])
			}
		}
		b.WriteString("\n")
	}
	return writeFile(t, t.TempDir(), name, b.String())
}

// scan reads the file with the given types (and id as a BIGINT).
func scan(t *testing.T, path string, types map[string]input.Type) *input.Input {
	t.Helper()
	all := map[string]input.Type{"id": input.BigIntType}
	for n, typ := range types {
		all[n] = typ
	}
	in, err := input.Scan(t.Context(), input.Spec{Paths: []string{path}, Format: "csv", Types: all})
	require.NoError(t, err)
	return in
}

// canonical is every value the reader yields, as its canonical text, by
// row and column ("NULL" for NULL).
func canonical(t *testing.T, in *input.Input) [][]string {
	t.Helper()
	r := in.Read(t.Context())
	defer r.Close()
	var out [][]string
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		for i := range b.Len {
			row := make([]string, len(b.Cols))
			for j, vec := range b.Cols {
				s, ok := vec.Text(i)
				if !ok {
					s = "NULL"
				}
				row[j] = s
			}
			out = append(out, row)
		}
	}
}

// columns are the input's columns with the engine's types for them.
func columns(in *input.Input) []engine.Column {
	d := postgres.Dialect{}
	cols := make([]engine.Column, len(in.Columns))
	for i, c := range in.Columns {
		cols[i] = engine.Column{Name: c.Name, Type: d.ColumnType(c.Type)}
	}
	return cols
}

// load copies the input's rows into table, which has cols, on q.
func load(t *testing.T, db *postgres.DB, q engine.Querier, table engine.Table, cols []engine.Column, in *input.Input) (int64, []string, error) {
	t.Helper()
	r := in.Read(t.Context())
	defer r.Close()
	var ran []string
	n, err := db.LoadRows(t.Context(), q, table, cols, r, func(s string) { ran = append(ran, s) })
	return n, ran, err
}

// readBack selects every column of table as text, by id: instants in UTC
// without their offset, JSONB as the reader's text cast to jsonb would
// show (its keys reordered), so each compares with the reader's canonical
// text.
func readBack(t *testing.T, q engine.Querier, table engine.Table, cols []engine.Column) [][]string {
	t.Helper()
	d := postgres.Dialect{}
	exprs := make([]string, len(cols))
	for i, c := range cols {
		e := d.Ident(c.Name)
		typ, _ := d.ReaderType(c.Type)
		if typ.Kind == input.TimestampTZ {
			e = fmt.Sprintf("(%s AT TIME ZONE 'UTC')", e)
		}
		exprs[i] = fmt.Sprintf("coalesce(CAST(%s AS TEXT), 'NULL')", e)
	}
	rows, err := q.QueryContext(t.Context(), fmt.Sprintf("SELECT %s FROM %s ORDER BY %s",
		strings.Join(exprs, ", "), d.Table(table), d.Ident("id")))
	require.NoError(t, err)
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		row := make([]string, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		out = append(out, row)
	}
	require.NoError(t, rows.Err())
	return out
}

// same compares what the database holds with the reader's text: floats as
// numbers (PostgreSQL writes 1e+06 as 1000000, Go as 1e+06), JSONB as
// the reader's text would be stored, a time's fraction without trailing
// zeros.
func same(t *testing.T, q engine.Querier, cols []engine.Column, want, got [][]string) {
	t.Helper()
	require.Len(t, got, len(want))
	d := postgres.Dialect{}
	for i := range want {
		for j, c := range cols {
			w, g := want[i][j], got[i][j]
			typ, ok := d.ReaderType(c.Type)
			require.True(t, ok, c.Type)
			if w != "NULL" && g != "NULL" {
				switch {
				case typ.Kind == input.Float:
					wf, err := strconv.ParseFloat(w, typ.Bits)
					require.NoError(t, err)
					gf, err := strconv.ParseFloat(g, typ.Bits)
					require.NoError(t, err)
					require.Equal(t, wf, gf, "row %d column %s: %s read back as %s", i+1, c.Name, w, g)
					continue
				case strings.EqualFold(c.Type, "JSONB"):
					require.NoError(t, q.QueryRowContext(t.Context(), "SELECT CAST(CAST($1 AS jsonb) AS TEXT)", w).Scan(&w))
				case typ.Kind == input.Timestamp || typ.Kind == input.TimestampTZ:
					// The reader writes six digits of a fraction, PostgreSQL
					// no trailing zeros.
					if strings.Contains(w, ".") {
						w = strings.TrimRight(strings.TrimRight(w, "0"), ".")
					}
				}
			}
			require.Equal(t, w, g, "row %d column %s (%s)", i+1, c.Name, c.Type)
		}
	}
}

func roundTripCols() []col {
	nines := strings.Repeat("9", 38)
	return []col{
		{"i64", "BIGINT", []*string{v("-9223372036854775808"), v("9223372036854775807"), v("0"), nil, v("-1")}},
		{"i32", "INTEGER", []*string{v("-2147483648"), v("2147483647"), v("0")}},
		{"i16", "SMALLINT", []*string{v("-32768"), v("32767"), v("-1")}},
		{"i8", "TINYINT", []*string{v("-128"), v("127"), v("0")}},
		{"d38_0", "DECIMAL(38,0)", []*string{v(nines), v("-" + nines), v("0"), v("10000"), v("-1")}},
		{"d38_10", "DECIMAL(38,10)", []*string{v(nines[:28] + "." + nines[:10]), v("-" + nines[:28] + "." + nines[:10]),
			v("0.0000000001"), v("-12345.5"), v("1e20")}},
		{"d18_2", "DECIMAL(18,2)", []*string{v("9999999999999999.99"), v("-9999999999999999.99"), v("-0.01"), v("0"), v("10000.1")}},
		{"d9_4", "DECIMAL(9,4)", []*string{v("12345.6789"), v("-0.0001"), v("0.5"), v("1"), v("-10000")}},
		{"d50_20", "", []*string{v("123456789012345678901234567890.12345678901234567890"), v("-0.00000000000000000001"), v("0")}},
		{"dany", "", []*string{v("1.50"), v("-0.000123"), v("123456789012345678901234567890123456789012345.6789"),
			v("0"), v("1.5e3"), v("-0.0"), v("10000"), v("0.00010000")}},
		{"f64", "DOUBLE", []*string{v("0.1"), v("1e300"), v("5e-324"), v("-0"), v("-1.5"), v("1e6"), v("123456.789")}},
		{"f32", "REAL", []*string{v("0.1"), v("3.4028235e38"), v("1e-45"), v("-2.5"), v("16777216")}},
		{"b", "BOOLEAN", []*string{v("true"), v("false"), v("TRUE"), nil}},
		{"t", "VARCHAR", []*string{q(`zoë ☃ "quoted", 'single'`), q(`back\slash \N \\`), q("tab\there"), q("two\nlines\r\nthree"),
			q(""), nil, q("  spaced  ")}},
		{"vc", "VARCHAR(5)", []*string{q("héllo"), q(""), q("ab   "), q("☃☃☃☃☃")}},
		{"j", "JSON", []*string{q(`{"a": 5.70, "b": [12345678901234567890123, {"c": "x\"y"}], "z": null}`), q(`[1, 2.50, "☃"]`),
			q(`"text"`), q(`12345678901234567890123.5`), nil, q(`{}`)}},
		{"dt", "DATE", []*string{v("0001-01-01"), v("9999-12-31"), v("1970-01-01"), v("2000-01-01"), v("1969-12-31"), v("2000-02-29")}},
		{"ts", "TIMESTAMP", []*string{v("0001-01-01 00:00:00"), v("9999-12-31 23:59:59.999999"), v("2026-11-28 13:45:00.123456"),
			v("1969-12-31 23:59:59.999999"), v("2000-01-01T00:00:00.000001"), v("1999-12-31 23:59:59")}},
		{"ts3", "TIMESTAMP(3)", []*string{v("2026-11-28 13:45:00.123"), v("0001-01-01 00:00:00"), v("1960-06-01 12:00:00.5")}},
		{"tz", "TIMESTAMPTZ", []*string{v("2026-11-28T13:45:00.123456+01:00"), v("0001-01-01 00:00:00Z"), v("9999-12-31 23:59:59.999999Z"),
			v("2026-03-08 02:30:00-05:00"), v("1969-12-31 23:59:59.999999 UTC")}},
		{"tz0", "TIMESTAMPTZ(0)", []*string{v("2026-11-28 13:45:00-08:00"), v("1999-12-31 23:59:59Z")}},
	}
}

// roundTripTypes are the reader's types of roundTripCols.
func roundTripTypes(t *testing.T, cols []col) map[string]input.Type {
	types := map[string]input.Type{
		"i8":     {Kind: input.Int, Bits: 8},
		"ts3":    {Kind: input.Timestamp, Precision: 3},
		"tz0":    {Kind: input.TimestampTZ, Precision: 0},
		"d50_20": input.DecimalType(50, 20),
		"dany":   {Kind: input.Decimal},
	}
	for _, c := range cols {
		if _, ok := types[c.name]; ok || c.typ == "" {
			continue
		}
		typ, err := input.ParseType(c.typ)
		require.NoError(t, err, c.typ)
		types[c.name] = typ
	}
	return types
}

// Every reader type, at its edges, is stored as the reader read it: into
// the staging table, and into a new target created from it (in its own
// schema), in the run's transaction.
func TestLoadRowsRoundTrip(t *testing.T) {
	t.Parallel()
	db := open(t, freshDatabase(t))
	ctx := t.Context()
	spec := roundTripCols()
	in := scan(t, writeCSV(t, "all.csv", spec), roundTripTypes(t, spec))
	want := canonical(t, in)
	cols := columns(in)
	d := postgres.Dialect{}

	tx, err := db.Begin(ctx)
	require.NoError(t, err)
	defer tx.Rollback()
	stage := engine.Table{Name: engine.StageTable}
	execAll(t, tx, d.CreateStage(stage.Name, cols)...)
	n, ran, err := load(t, db, tx, stage, cols, in)
	require.NoError(t, err)
	require.EqualValues(t, in.Rows, n)
	require.Len(t, ran, 1)
	require.True(t, strings.HasPrefix(ran[0], `COPY "idem_stage" ("id", "i64", `), ran[0])
	require.True(t, strings.HasSuffix(ran[0], `) FROM STDIN (FORMAT binary)`), ran[0])
	same(t, tx, cols, want, readBack(t, tx, stage, cols))

	target := engine.Table{Schema: "sales", Name: "all types"}
	execAll(t, tx, d.CreateTableFrom(target, stage.Name, "")...)
	n, _, err = load(t, db, tx, target, cols, in)
	require.NoError(t, err)
	require.EqualValues(t, in.Rows, n)
	same(t, tx, cols, want, readBack(t, tx, target, cols))

	// The rows were the transaction's: rolled back, they are gone.
	require.NoError(t, tx.Rollback())
	var left int
	require.NoError(t, db.Conn().QueryRowContext(ctx, `SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = 'sales'`).Scan(&left))
	require.Zero(t, left)
}

// An existing target's columns, as the catalog spells them, give the
// reader its types (ReaderType), and LoadRows writes into each exactly:
// json keeps the reader's text, varchar(n), numeric(p,s), timestamps
// keeping fewer digits of a second. In a transaction, a rollback removes
// them; without one, they are written on the run's connection.
func TestLoadRowsIntoExistingTarget(t *testing.T) {
	t.Parallel()
	db := open(t, freshDatabase(t))
	ctx := t.Context()
	execAll(t, db.Conn(), `CREATE SCHEMA s`, `CREATE TABLE s.t (
	  id bigint, j json, jb jsonb, vc character varying(3), n numeric(7,3), na numeric, r real, i smallint,
	  ts timestamp(2) without time zone, tz timestamp(4) with time zone, d date, b boolean, x text)`)
	target := engine.Table{Schema: "s", Name: "t"}
	d := postgres.Dialect{}
	query, args := d.ColumnTypes(target)
	rows, err := db.Conn().QueryContext(ctx, query, args...)
	require.NoError(t, err)
	var cols []engine.Column
	types := map[string]input.Type{}
	for rows.Next() {
		var c engine.Column
		require.NoError(t, rows.Scan(&c.Name, &c.Type))
		typ, ok := d.ReaderType(c.Type)
		require.True(t, ok, c.Type)
		cols = append(cols, c)
		types[c.Name] = typ
	}
	require.NoError(t, rows.Err())
	rows.Close()
	var spelled []string
	for _, c := range cols {
		spelled = append(spelled, c.Name+" "+c.Type)
	}
	require.Equal(t, []string{"id bigint", "j json", "jb jsonb", "vc character varying(3)", "n numeric(7,3)", "na numeric",
		"r real", "i smallint", "ts timestamp(2) without time zone", "tz timestamp(4) with time zone", "d date", "b boolean",
		"x text"}, spelled)

	path := writeFile(t, t.TempDir(), "t.csv", "id,j,jb,vc,n,na,r,i,ts,tz,d,b,x\n"+
		`1,"{""b"": 1, ""a"": [5.70, 1e2]}","{""b"": 1, ""a"": 5.70}",abc,1234.567,-1.10,0.5,-32768,2026-11-28 10:00:00.12,2026-11-28 10:00:00.1234+02,2026-11-28,false,x`+"\n"+
		`2,,,"",-0.001,0,,32767,,,,,""`+"\n")
	in := scan(t, path, types)
	want := canonical(t, in)
	require.Equal(t, `{"b":1,"a":[5.70,1e2]}`, want[0][1], "json keeps the reader's text")
	// In a transaction, the rows are the transaction's.
	tx, err := db.Begin(ctx)
	require.NoError(t, err)
	n, _, err := load(t, db, tx, target, cols, in)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	require.NoError(t, tx.Rollback())
	var left int
	require.NoError(t, db.Conn().QueryRowContext(ctx, `SELECT count(*) FROM s.t`).Scan(&left))
	require.Zero(t, left)

	n, _, err = load(t, db, db.Conn(), target, cols, in)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	got := readBack(t, db.Conn(), target, cols)
	require.Equal(t, `{"a": 5.70, "b": 1}`, got[0][2])
	same(t, db.Conn(), cols, want, got)
}

// What the column cannot take exactly is refused before the server sees
// it: a decimal with more digits after the point than the column keeps
// (the server would round it), a value beyond a smaller integer column,
// text longer than a varchar (the server would cut trailing spaces), a
// column count that differs. The input's own error comes back as the
// reader's, not as the server's echo of it.
func TestLoadRowsRefuses(t *testing.T) {
	t.Parallel()
	db := open(t, freshDatabase(t))
	ctx := t.Context()
	dir := t.TempDir()
	execAll(t, db.Conn(), `CREATE TABLE t (id bigint, n numeric(9,2), i integer, vc varchar(2), f real, ts timestamp(0))`)
	target := engine.Table{Name: "t"}
	for _, tc := range []struct {
		name, col, typ, file, want string
		readerType                 input.Type
	}{
		{"scale", "n", "numeric(9,2)", "id,n\n1,1.125\n", `column "n" of type numeric(9,2) cannot take the reader's DECIMAL(9,3) values exactly`, input.DecimalType(9, 3)},
		{"any", "n", "numeric(9,2)", "id,n\n1,1.1\n", `column "n" of type numeric(9,2) cannot take the reader's NUMERIC values exactly`, input.Type{Kind: input.Decimal}},
		{"range", "i", "integer", "id,i\n1,1\n2,2147483648\n", `column "i": 2147483648 is out of range for a 32-bit integer`, input.BigIntType},
		{"length", "vc", "character varying(2)", "id,vc\n1,ab\n2,\"ab \"\n", `column "vc": a value of 3 characters, and the column holds 2`, input.TextType},
		{"double", "f", "real", "id,f\n1,0.5\n", `column "f" of type real cannot take the reader's DOUBLE values exactly`, input.DoubleType},
		{"digits", "ts", "timestamp(0) without time zone", "id,ts\n1,2026-11-28 10:00:00\n", `column "ts" of type timestamp(0) without time zone cannot take the reader's TIMESTAMP values exactly`, input.TimestampType},
		{"kind", "i", "integer", "id,i\n1,x\n", `column "i" of type integer cannot take the reader's VARCHAR values exactly`, input.TextType},
	} {
		in := scan(t, writeFile(t, dir, tc.name+".csv", tc.file), map[string]input.Type{tc.col: tc.readerType})
		tx, err := db.Begin(ctx)
		require.NoError(t, err)
		_, _, err = load(t, db, tx, target, []engine.Column{{Name: "id", Type: "bigint"}, {Name: tc.col, Type: tc.typ}}, in)
		require.ErrorContains(t, err, tc.want, tc.name)
		require.NotContains(t, err.Error(), "COPY from stdin failed", tc.name)
		require.NoError(t, tx.Rollback())
	}

	in := scan(t, writeFile(t, dir, "n.csv", "id,n\n1,1.5\n"), map[string]input.Type{"n": input.DecimalType(9, 2)})
	_, _, err := load(t, db, db.Conn(), target, []engine.Column{{Name: "id", Type: "bigint"}}, in)
	require.ErrorContains(t, err, "1 columns, and the input has 2")

	// A file that changed between the reader's two passes: the reader's
	// error, as it says it.
	path := writeFile(t, dir, "changed.csv", "id,n\n1,1.5\n")
	in = scan(t, path, map[string]input.Type{"n": input.DecimalType(9, 2)})
	writeFile(t, dir, "changed.csv", "id,n\n1,1.5\n2,2.5\n")
	_, _, err = load(t, db, db.Conn(), target, []engine.Column{{Name: "id", Type: "bigint"}, {Name: "n", Type: "numeric(9,2)"}}, in)
	require.ErrorIs(t, err, input.ErrChanged)

	// The server's own refusal keeps its error, with where it arose.
	execAll(t, db.Conn(), `ALTER TABLE t ADD CHECK (n > 0)`)
	in = scan(t, writeFile(t, dir, "neg.csv", "id,n\n1,1.5\n2,-1\n"), map[string]input.Type{"n": input.DecimalType(9, 2)})
	_, _, err = load(t, db, db.Conn(), target, []engine.Column{{Name: "id", Type: "bigint"}, {Name: "n", Type: "numeric(9,2)"}}, in)
	var pe *pgconn.PgError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "23514", pe.Code)
	require.ErrorContains(t, err, `copying rows into "t": `)
	require.ErrorContains(t, err, `(COPY t, line 2)`)

	var n int
	require.NoError(t, db.Conn().QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&n))
	require.Zero(t, n)

	// Only the run's own connection, or a transaction on it.
	other, err := sql.Open("pgx", freshDatabase(t))
	require.NoError(t, err)
	defer other.Close()
	_, _, err = load(t, db, other, target, []engine.Column{{Name: "id", Type: "bigint"}, {Name: "n", Type: "numeric(9,2)"}}, in)
	require.ErrorContains(t, err, "is not the run's connection or transaction")
}

// A numeric's binary form, for values whose digits fall on each side of
// the groups of four: checked against the server's own reading of the
// text.
func TestLoadRowsNumericGroups(t *testing.T) {
	t.Parallel()
	db := open(t, freshDatabase(t))
	var vals []*string
	var b strings.Builder
	b.WriteString("id,n,m\n")
	for _, s := range []string{"1", "12", "123", "1234", "12345", "123456789", "0.1", "0.12", "0.123", "0.1234", "0.12345",
		"1.0001", "10000", "100000000", "0.0001", "0.00001", "0.000100", "9999.9999", "10000.00001", "1000000000000000000.000000000000000001"} {
		for _, sign := range []string{"", "-"} {
			fmt.Fprintf(&b, "%d,%s%s,%s%s\n", len(vals)+1, sign, s, sign, s)
			vals = append(vals, v(sign+s))
		}
	}
	in := scan(t, writeFile(t, t.TempDir(), "n.csv", b.String()),
		map[string]input.Type{"n": {Kind: input.Decimal}, "m": input.DecimalType(38, 18)})
	want := canonical(t, in)
	cols := columns(in)
	execAll(t, db.Conn(), postgres.Dialect{}.CreateStage("s", cols)...)
	_, _, err := load(t, db, db.Conn(), engine.Table{Name: "s"}, cols, in)
	require.NoError(t, err)
	same(t, db.Conn(), cols, want, readBack(t, db.Conn(), engine.Table{Name: "s"}, cols))
	var bad int
	require.NoError(t, db.Conn().QueryRowContext(t.Context(), `SELECT count(*) FROM s WHERE n <> CAST(CAST(n AS TEXT) AS numeric) OR n <> m`).Scan(&bad))
	require.Zero(t, bad)
}
