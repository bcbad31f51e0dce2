package clickhouse

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

// chKind is a ClickHouse type idem writes values of.
type chKind uint8

const (
	chBool chKind = iota + 1
	chInt
	chFloat
	chDecimal
	chString
	chDate32
	chDateTime64
)

// chType is a column's ClickHouse type, parsed.
type chType struct {
	kind     chKind
	nullable bool
	// bits of an Int or a Float; of a Decimal's storage (32, 64, 128, 256).
	bits int
	// precision and scale of a Decimal; precision of a DateTime64 (digits
	// of a second).
	precision, scale int
	// zone of a DateTime64 ("" for none: a wall clock, read in the
	// sessions' UTC).
	zone string
	// json: a String column idem made for JSON (MarkJSON).
	json bool
}

// bareType is a type as ColumnTypes spells it without the JSON mark: a
// type ClickHouse's file() structure takes.
func bareType(s string) string {
	typ, _ := strings.CutSuffix(strings.TrimSpace(s), " COMMENT "+Dialect{}.String(jsonComment))
	return typ
}

// parseType reads a column type as system.columns spells it (Nullable and
// LowCardinality around the type, whose values they do not change). An
// error says why idem cannot write the type's values exactly.
func parseType(s string) (chType, error) {
	var t chType
	typ := bareType(s)
	t.json = typ != strings.TrimSpace(s)
	typ, t.nullable = unwrapTypes(typ)
	name, args, hasArgs := strings.Cut(typ, "(")
	if hasArgs {
		if !strings.HasSuffix(args, ")") {
			return chType{}, fmt.Errorf("%q is not a type ClickHouse spells", s)
		}
		args = strings.TrimSuffix(args, ")")
	}
	why := t.read(name, args)
	if why == "" && hasArgs != (t.kind == chDecimal || t.kind == chDateTime64) {
		why = "is not a type idem writes exactly"
	}
	if why == "" && t.kind == chDecimal {
		if t.scale > input.MaxPrecision {
			why = fmt.Sprintf("keeps more digits after the point than idem reads (%d)", input.MaxPrecision)
		}
		t.bits = decimalBits(t.precision)
	}
	if why != "" {
		return chType{}, fmt.Errorf("%s %s", typ, why)
	}
	return t, nil
}

// unwrapTypes returns typ without the Nullable and LowCardinality around
// it, and whether one was Nullable.
func unwrapTypes(typ string) (string, bool) {
	nullable := false
	for {
		inner, ok := unwrapType(typ, "Nullable")
		if ok {
			nullable = true
			typ = inner
			continue
		}
		if inner, ok = unwrapType(typ, "LowCardinality"); ok {
			typ = inner
			continue
		}
		return typ, nullable
	}
}

// refusedTypes say why idem writes no values of these types.
var refusedTypes = map[string]string{
	"Date":        "holds a narrower range of dates than Date32 and DateTime64 (from 1970), which ClickHouse would clamp values to: use Date32 or DateTime64",
	"DateTime":    "holds a narrower range of dates than Date32 and DateTime64 (from 1970), which ClickHouse would clamp values to: use Date32 or DateTime64",
	"FixedString": "pads its values with NUL bytes: use String",
}

// read sets t's kind, and what args give, for the type name; it returns
// why idem cannot write the type's values exactly ("": it can).
func (t *chType) read(name, args string) string {
	switch name {
	case "Bool":
		t.kind = chBool
	case "Int8", "Int16", "Int32", "Int64":
		t.kind, t.bits = chInt, atoiOr(name[3:], 0)
	case "Float32", "Float64":
		t.kind, t.bits = chFloat, atoiOr(name[5:], 0)
	case "String":
		t.kind = chString
	case "Date32":
		t.kind = chDate32
	case "Decimal", "Decimal32", "Decimal64", "Decimal128", "Decimal256":
		return t.readDecimal(name, args)
	case "DateTime64":
		return t.readDateTime64(args)
	default:
		if why, ok := refusedTypes[name]; ok {
			return why
		}
		return "is not a type idem writes exactly"
	}
	return ""
}

// decimalPrecision is the precision of each DecimalN(S).
var decimalPrecision = map[string]int{"Decimal32": 9, "Decimal64": 18, "Decimal128": 38, "Decimal256": 76}

// readDecimal is read for Decimal(P, S) and DecimalN(S).
func (t *chType) readDecimal(name, args string) string {
	if name == "Decimal" {
		p, sc, ok := twoArgs(args)
		if !ok || p < 1 || p > 76 || sc < 0 || sc > p {
			return "has no precision and scale idem reads"
		}
		t.kind, t.precision, t.scale = chDecimal, p, sc
		return ""
	}
	p := decimalPrecision[name]
	sc, err := strconv.Atoi(strings.TrimSpace(args))
	if err != nil || sc < 0 || sc > p {
		return "has no scale idem reads"
	}
	t.kind, t.precision, t.scale = chDecimal, p, sc
	return ""
}

// readDateTime64 is read for DateTime64(P[, 'zone']).
func (t *chType) readDateTime64(args string) string {
	ps, zone, hasZone := strings.Cut(args, ",")
	p, err := strconv.Atoi(strings.TrimSpace(ps))
	if err != nil || p < 0 || p > 9 {
		return "has no precision idem reads"
	}
	if p > 8 {
		// Nanoseconds in an Int64 end at 2262-04-11.
		return "holds no time after 2262-04-11 (nanoseconds): idem writes DateTime64 of up to 8 digits of a second, which hold every time to 2299"
	}
	t.kind, t.precision = chDateTime64, p
	if hasZone {
		z := strings.TrimSpace(zone)
		if len(z) < 2 || z[0] != '\'' || z[len(z)-1] != '\'' {
			return "names its time zone in a way idem does not read"
		}
		t.zone = z[1 : len(z)-1]
	}
	return ""
}

// decimalBits is the storage of a Decimal of precision p.
func decimalBits(p int) int {
	switch {
	case p <= 9:
		return 32
	case p <= 18:
		return 64
	case p <= 38:
		return 128
	}
	return 256
}

// unwrapType returns X of wrapper(X).
func unwrapType(typ, wrapper string) (string, bool) {
	if strings.HasPrefix(typ, wrapper+"(") && strings.HasSuffix(typ, ")") {
		return strings.TrimSpace(typ[len(wrapper)+1 : len(typ)-1]), true
	}
	return "", false
}

func atoiOr(s string, or int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return or
}

// twoArgs reads "P, S".
func twoArgs(args string) (p, s int, ok bool) {
	a, b, found := strings.Cut(args, ",")
	if !found {
		return 0, 0, false
	}
	p, err1 := strconv.Atoi(strings.TrimSpace(a))
	s, err2 := strconv.Atoi(strings.TrimSpace(b))
	return p, s, err1 == nil && err2 == nil
}

// ColumnType is the type of a new column of reader type t: every column
// Nullable, so that a NULL stays NULL. These are the types idem created
// before the reader typed the values, so existing tables keep their shape.
func (Dialect) ColumnType(t input.Type) string {
	var typ string
	switch t.Kind {
	case input.Bool:
		typ = "Bool"
	case input.Int:
		typ = fmt.Sprintf("Int%d", t.Bits)
	case input.Float:
		typ = fmt.Sprintf("Float%d", t.Bits)
	case input.Decimal:
		typ = fmt.Sprintf("Decimal(%d, %d)", t.Precision, t.Scale)
		if t.IsAnyDecimal() {
			// No ClickHouse number holds a decimal of any precision and
			// scale; its canonical text does (the reader never infers one).
			typ = "String"
		}
	case input.Date:
		typ = "Date32"
	case input.Timestamp:
		typ = fmt.Sprintf("DateTime64(%d)", t.Precision)
	case input.TimestampTZ:
		typ = fmt.Sprintf("DateTime64(%d, 'UTC')", t.Precision)
	default: // Text (ClickHouse strings have no length: the reader checks it), JSON
		typ = "String"
	}
	return "Nullable(" + typ + ")"
}

// ReaderType is the reader's type for values written to a column of
// sqlType. A DateTime64 without a zone is a wall clock (sessions read it
// in UTC); with one, whichever, it holds instants, displayed in its zone.
func (Dialect) ReaderType(sqlType string) (input.Type, bool) {
	t, err := parseType(sqlType)
	if err != nil {
		return input.Type{}, false
	}
	return t.readerType(), true
}

func (t chType) readerType() input.Type {
	if t.json && t.kind == chString {
		return input.JSONType
	}
	switch t.kind {
	case chBool:
		return input.BoolType
	case chInt:
		return input.Type{Kind: input.Int, Bits: t.bits}
	case chFloat:
		return input.Type{Kind: input.Float, Bits: t.bits}
	case chDecimal:
		// A Decimal wider than the reader's holds each of its values.
		return input.DecimalType(min(t.precision, input.MaxPrecision), t.scale)
	case chDate32:
		return input.DateType
	case chDateTime64:
		k := input.Timestamp
		if t.zone != "" {
			k = input.TimestampTZ
		}
		return input.Type{Kind: k, Precision: min(t.precision, 6)}
	}
	return input.TextType
}

// The ranges of Date32 and DateTime64 (ClickHouse's documentation, and
// what its date tables cover).
var (
	minDate = int64(-25567) // 1900-01-01
	maxDate = int64(120529) // 2299-12-31
	dayUS   = int64(86_400_000_000)
	minTime = minDate * dayUS
	maxTime = (maxDate+1)*dayUS - 1 // 2299-12-31 23:59:59.999999
)

// limits are the ranges ClickHouse's types hold. Instants are held a day
// inside DateTime64's range: a column's zone shows each instant as a
// local time, and ClickHouse's date tables end at 1900-01-01 and
// 2299-12-31 local time, beyond which it shows a wrong time (1900-01-01
// 00:00 UTC is the evening before in New York).
var limits = input.Limits{
	Engine:  "ClickHouse",
	MinDate: minDate, MaxDate: maxDate, HasDates: true,
	MinTime: minTime, MaxTime: maxTime, HasTimes: true,
	MinInstant: minTime + dayUS, MaxInstant: maxTime - dayUS, HasInstants: true,
}

// Limits are Date32's and DateTime64's ranges.
func (Dialect) Limits() *input.Limits {
	l := limits
	return &l
}

// ColumnTypes reads the table's columns from system.columns.
func (d Dialect) ColumnTypes(t engine.Table) (string, []any) {
	db, args := d.dbOf(t, 2)
	return "SELECT name, if(comment = " + d.String(jsonComment) + ", concat(type, ' COMMENT ', " + d.String(d.String(jsonComment)) + "), type) FROM system.columns WHERE table = $1 AND database = " + db + " ORDER BY position", append([]any{t.Name}, args...)
}

// CreateStage creates the session's staging table, a MergeTree: its parts
// are written to the session's folder as rows come, where a Memory table
// held every row (a 10M-row source staged: 885-905 MB RSS; BENCHMARKS.md).
func (d Dialect) CreateStage(stage string, cols []engine.Column) []string {
	defs := make([]string, len(cols))
	for i, c := range cols {
		defs[i] = d.Ident(c.Name) + " " + c.Type
	}
	return []string{
		"DROP TEMPORARY TABLE IF EXISTS " + d.Ident(stage),
		fmt.Sprintf("CREATE TEMPORARY TABLE %s (%s) ENGINE = MergeTree ORDER BY tuple()", d.Ident(stage), strings.Join(defs, ", ")),
	}
}

// jsonComment marks a String column that holds JSON (ColumnTypes reads it).
const jsonComment = "idem:json"

// MarkJSON comments JSON columns: ClickHouse keeps JSON as a String.
func (d Dialect) MarkJSON(t engine.Table, cols []string) []string {
	var out []string
	for _, c := range cols {
		out = append(out, fmt.Sprintf("ALTER TABLE %s COMMENT COLUMN %s %s", d.Table(t), d.Ident(c), d.String(jsonComment)))
	}
	return out
}
