package mysql

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

// The reader's types as MySQL and MariaDB columns (engine.Types), and the
// columns of an existing target as the reader's types.

// maxVarchar is the longest text column a new table gets as VARCHAR;
// longer ones are LONGTEXT. A row holds at most 65,535 bytes of VARCHAR
// (4 per utf8mb4 character), so a wide one would leave a table of many
// such columns uncreatable.
const maxVarchar = 255

// ColumnType is a new column's type for the reader's type t, one that
// holds each of its values exactly, as new targets had them before:
// booleans as BIT(1) (see driver.go), instants as TIMESTAMP (UTC in the
// session, 1970 to 2038: Limits), nullable so the server never fills
// one in.
func (d Dialect) ColumnType(t input.Type) string {
	switch t.Kind {
	case input.Text:
		if t.MaxChars > 0 && t.MaxChars <= maxVarchar {
			return fmt.Sprintf("VARCHAR(%d)", t.MaxChars)
		}
		return "LONGTEXT"
	case input.Bool:
		return "BIT(1)"
	case input.Int:
		switch t.Bits {
		case 8:
			return "TINYINT"
		case 16:
			return "SMALLINT"
		case 32:
			return "INT"
		}
		return "BIGINT"
	case input.Decimal:
		if t.Precision == 0 {
			// Not a type the reader gives a MySQL target (ReaderType never
			// returns it): the widest DECIMAL, where a value it cannot hold
			// is an error of the load, never a rounded value.
			return "DECIMAL(65,30)"
		}
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Precision, t.Scale)
	case input.Float:
		if t.Bits == 32 {
			return "FLOAT"
		}
		return "DOUBLE"
	case input.Date:
		return "DATE"
	case input.Timestamp:
		return fmt.Sprintf("DATETIME(%d)", t.Precision)
	case input.TimestampTZ:
		return fmt.Sprintf("TIMESTAMP(%d) NULL", t.Precision)
	case input.JSON:
		if d.MySQL {
			// MySQL's JSON stores numbers as doubles (5.70 reads back as
			// 5.7); its text is kept as written.
			return "LONGTEXT"
		}
		return "JSON"
	}
	return "LONGTEXT"
}

// Text types hold at most this many bytes; a character takes up to 4 in
// utf8mb4, so each holds a quarter as many characters whatever they are.
var textBytes = map[string]int{"tinytext": 255, "text": 65535, "mediumtext": 16777215}

// ReaderType is the reader's type for an existing column of sqlType, as
// information_schema.COLUMNS.COLUMN_TYPE spells it (bigint(20),
// int(10) unsigned, decimal(12,2), varchar(40); ColumnTypes spells
// MariaDB's JSON, a longtext with a json_valid check, json). Each value of
// the reader's type is one the column holds as it is, or the load fails:
//
//   - tinyint(1), MySQL's BOOLEAN, is an 8-bit integer: it holds -128 to
//     127 and reads back as a number, so true and false are not its
//     values. bit(1) is a boolean.
//   - An unsigned integer is the smallest signed one that holds all its
//     values (bigint unsigned: DECIMAL(20,0)); a negative one, or one past
//     its top, is an error of the load, never a changed value. So is a
//     mediumint's beyond 24 bits.
//   - Text columns hold bytes, the reader counts characters: tinytext,
//     text and mediumtext take as many as their bytes hold at 4 a
//     character; varchar(n) takes n.
//   - char pads and strips trailing spaces, float(m,d) and double(m,d)
//     round, zerofill pads the printed digits, MySQL's JSON rewrites
//     numbers: those are refused, as are the types the reader has none
//     for (enum, set, blobs, binary, year, time, spatial, uuid, inet).
func (d Dialect) ReaderType(sqlType string) (input.Type, bool) {
	name, args, rest, ok := splitColumnType(sqlType)
	if !ok {
		return input.Type{}, false
	}
	unsigned := false
	switch rest {
	case "":
	case "unsigned":
		unsigned = true
	default: // zerofill, a character set, anything else
		return input.Type{}, false
	}
	if bits, ok := integerBits[name]; ok {
		return integerType(bits, unsigned), true
	}
	if unsigned {
		return input.Type{}, false
	}
	switch name {
	case "decimal", "numeric":
		return decimalType(args)
	case "datetime", "timestamp":
		return timeType(name, args)
	case "varchar":
		if n, err := strconv.Atoi(args); err == nil && n > 0 {
			return input.Type{Kind: input.Text, MaxChars: n}, true
		}
		return input.Type{}, false
	case "json":
		if d.MySQL {
			return input.Type{}, false
		}
	case "bit":
		if args == "1" {
			args = ""
		}
	}
	if t, ok := plainTypes[name]; ok && args == "" {
		return t, true
	}
	return input.Type{}, false
}

// splitColumnType cuts a column type into its name, its arguments (12,2)
// without parentheses or spaces, and the words after them (unsigned).
func splitColumnType(sqlType string) (name, args, rest string, ok bool) {
	s := strings.ToLower(strings.Join(strings.Fields(sqlType), " "))
	s = strings.TrimSuffix(s, " null") // ColumnType's TIMESTAMP(6) NULL
	name, rest, _ = strings.Cut(s, " ")
	if i := strings.IndexByte(name, '('); i >= 0 {
		// decimal(12, 2) was split at its space: take the whole argument
		// list back.
		if !strings.HasSuffix(name, ")") {
			end := strings.IndexByte(s, ')')
			if end < 0 {
				return "", "", "", false
			}
			name, rest = s[:end+1], strings.TrimSpace(s[end+1:])
		}
		name, args = name[:i], strings.ReplaceAll(name[i+1:len(name)-1], " ", "")
	}
	return name, args, rest, true
}

// integerBits are an integer type's bits as the reader reads it, signed
// and unsigned (past 64: DECIMAL(20,0)).
var integerBits = map[string][2]int{
	"tinyint": {8, 16}, "smallint": {16, 32}, "mediumint": {32, 32},
	"int": {32, 64}, "integer": {32, 64}, "bigint": {64, 128},
}

func integerType(bits [2]int, unsigned bool) input.Type {
	n := bits[0]
	if unsigned {
		n = bits[1]
	}
	if n > 64 {
		return input.DecimalType(20, 0)
	}
	return input.Type{Kind: input.Int, Bits: n}
}

// plainTypes are the reader's types for the column types that take no
// arguments here (bit(1) is bit; MySQL's json is refused before).
var plainTypes = map[string]input.Type{
	"bit":        input.BoolType,
	"float":      {Kind: input.Float, Bits: 32},
	"double":     input.DoubleType,
	"real":       input.DoubleType,
	"tinytext":   {Kind: input.Text, MaxChars: textBytes["tinytext"] / 4},
	"text":       {Kind: input.Text, MaxChars: textBytes["text"] / 4},
	"mediumtext": {Kind: input.Text, MaxChars: textBytes["mediumtext"] / 4},
	"longtext":   input.TextType,
	"json":       input.JSONType,
	"date":       input.DateType,
}

// decimalType is the reader's type for decimal(args), 10 digits by default.
func decimalType(args string) (input.Type, bool) {
	p, sc := 10, 0
	if args != "" {
		a, b, _ := strings.Cut(args, ",")
		var err1, err2 error
		p, err1 = strconv.Atoi(a)
		if b != "" {
			sc, err2 = strconv.Atoi(b)
		}
		if err1 != nil || err2 != nil || p < 1 || sc < 0 || sc > p {
			return input.Type{}, false
		}
	}
	return input.DecimalType(p, sc), true
}

// timeType is the reader's type for datetime(args) or timestamp(args).
func timeType(name, args string) (input.Type, bool) {
	p := 0
	if args != "" {
		var err error
		if p, err = strconv.Atoi(args); err != nil || p < 0 || p > 6 {
			return input.Type{}, false
		}
	}
	if name == "datetime" {
		return input.Type{Kind: input.Timestamp, Precision: p}, true
	}
	return input.Type{Kind: input.TimestampTZ, Precision: p}, true
}

// Limits are the documented ranges of DATE and DATETIME (years 1000 to
// 9999) and of TIMESTAMP (a 32-bit count of seconds since 1970, 0 being
// the zero date).
func (d Dialect) Limits() *input.Limits {
	name := "MariaDB"
	if d.MySQL {
		name = "MySQL"
	}
	micros := func(y int, m time.Month, day, h, mi, s, us int) int64 {
		return time.Date(y, m, day, h, mi, s, us*1000, time.UTC).UnixMicro()
	}
	const microsPerDay = 86_400_000_000
	return &input.Limits{
		Engine:  name,
		MinDate: micros(1000, 1, 1, 0, 0, 0, 0) / microsPerDay, MaxDate: micros(9999, 12, 31, 0, 0, 0, 0) / microsPerDay,
		MinTime: micros(1000, 1, 1, 0, 0, 0, 0), MaxTime: micros(9999, 12, 31, 23, 59, 59, 999999),
		MinInstant: micros(1970, 1, 1, 0, 0, 1, 0), MaxInstant: micros(2038, 1, 19, 3, 14, 7, 999999),
		HasDates: true, HasTimes: true, HasInstants: true,
	}
}

// ColumnTypes selects t's columns with COLUMN_TYPE, which keeps lengths,
// precisions, scales and unsigned. MariaDB's JSON is a longtext with a
// json_valid check named after its column: it is spelled json here. The
// check's text quotes the column as the session's sql_mode does
// (ANSI_QUOTES here, backticks elsewhere).
func (d Dialect) ColumnTypes(t engine.Table) (string, []any) {
	schema, args := "DATABASE()", []any{t.Name}
	if t.Schema != "" {
		schema, args = "?", []any{t.Schema, t.Name}
	}
	typ := "c.column_type"
	if !d.MySQL {
		typ = "CASE WHEN c.data_type = 'longtext' AND EXISTS (SELECT 1 FROM information_schema.check_constraints k\n" +
			"    WHERE k.constraint_schema = c.table_schema AND k.table_name = c.table_name AND k.constraint_name = c.column_name\n" +
			"      AND k.check_clause IN (concat('json_valid(`', replace(c.column_name, '`', '``'), '`)'),\n" +
			"        concat('json_valid(\"', replace(c.column_name, '\"', '\"\"'), '\")')))\n" +
			"  THEN 'json' ELSE c.column_type END"
	}
	return fmt.Sprintf("SELECT c.column_name, %s\nFROM information_schema.columns c WHERE c.table_schema = %s AND c.table_name = ? ORDER BY c.ordinal_position", typ, schema), args
}

// CreateStage creates the temporary table the reader's rows are staged in
// (Aria on MariaDB: see open), text compared bytewise (Collate). A
// TIMESTAMP column is declared NULL: without explicit_defaults_for_timestamp
// the first one would be NOT NULL and take the current time for a NULL.
func (d Dialect) CreateStage(stage string, cols []engine.Column) []string {
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = d.Ident(c.Name) + " " + c.Type
		if isTimestamp(c.Type) && !strings.HasSuffix(strings.ToUpper(c.Type), " NULL") {
			defs[i] += " NULL"
		}
	}
	return []string{fmt.Sprintf("CREATE TEMPORARY TABLE %s (%s) %s", d.Ident(stage), strings.Join(defs, ", "), d.tableOptions())}
}

// isTimestamp reports a TIMESTAMP column type.
func isTimestamp(typ string) bool {
	base, _, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(typ)), "(")
	return strings.TrimSpace(base) == "TIMESTAMP"
}

// isBit reports a BIT column type: LOAD DATA stores a field's bytes in
// it, so a boolean's digit goes through a variable (LoadRows).
func isBit(typ string) bool {
	base, _, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(typ)), "(")
	return strings.TrimSpace(base) == "BIT"
}

// MarkJSON gives JSON columns back the check that makes them JSON, which
// CREATE TABLE … AS drops (ColumnTypes reads it), keeping the bytewise
// collation every text column has.
func (d Dialect) MarkJSON(t engine.Table, cols []string) []string {
	var out []string
	for _, c := range cols {
		out = append(out, fmt.Sprintf("ALTER TABLE %s MODIFY %s LONGTEXT COLLATE %s NULL CHECK (json_valid(%s))",
			d.Table(t), d.Ident(c), d.Collate(), d.Ident(c)))
	}
	return out
}
