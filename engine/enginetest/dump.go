package enginetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

// A Dump is a table's contents as canonical text: each value rendered by
// its column's type as the reader knows it (engine.Types.ReaderType), so
// that tables of two engines holding the same values dump alike, whatever
// their own types and drivers return. Integers are digits, decimals their
// exact value (1.50 is 1.5), floats their shortest text, dates
// YYYY-MM-DD, timestamps in UTC to the microsecond, booleans true or
// false, text quoted as Go quotes it (so blanks show), JSON parsed and
// written again after "json:", with sorted keys and numbers by exact
// value (PostgreSQL's jsonb reorders keys and respells numbers).
type Dump struct {
	Cols []DumpColumn
	// Rows holds each row's values in column order.
	Rows [][]string
}

// DumpColumn is one column of a Dump.
type DumpColumn struct {
	Name string
	// Type is the engine's spelling; Kind the reader's type for it, as a
	// label (text, json, int64, decimal(12,2), timestamptz, …), or the
	// engine's spelling in brackets where the reader has none.
	Type, Kind string
}

// Lines is the dump as text: a header naming each column and its kind,
// then every row, sorted.
func (d *Dump) Lines() []string {
	head := make([]string, len(d.Cols))
	for i, c := range d.Cols {
		head[i] = c.Name + " " + c.Kind
	}
	rows := make([]string, len(d.Rows))
	for i, r := range d.Rows {
		rows[i] = strings.Join(r, " | ")
	}
	sort.Strings(rows)
	return append([]string{strings.Join(head, " | ")}, rows...)
}

// ErrNoTable: DumpTable found no table of that name.
var ErrNoTable = errors.New("no such table")

// DumpTable reads every row of table t of db as a Dump.
func DumpTable(ctx context.Context, db engine.DB, t engine.Table) (*Dump, error) {
	dump, kinds, err := dumpColumns(ctx, db, t)
	if err != nil {
		return nil, err
	}
	if err := dump.readRows(ctx, db, t, kinds); err != nil {
		return nil, err
	}
	return dump, nil
}

// dumpColumns reads table t's columns, with the reader's type of each.
func dumpColumns(ctx context.Context, db engine.DB, t engine.Table) (*Dump, []input.Type, error) {
	d := db.SQL()
	q, args := d.Catalog.ColumnTypes(t)
	rows, err := db.Conn().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the columns of %s: %w", t.Name, err)
	}
	defer rows.Close()
	dump := &Dump{}
	var kinds []input.Type
	for rows.Next() {
		var c DumpColumn
		if err := rows.Scan(&c.Name, &c.Type); err != nil {
			return nil, nil, err
		}
		rt, ok := d.Types.ReaderType(c.Type)
		c.Kind = kindLabel(rt, ok, c.Type)
		dump.Cols = append(dump.Cols, c)
		kinds = append(kinds, rt)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	if len(dump.Cols) == 0 {
		return nil, nil, fmt.Errorf("%w: %s", ErrNoTable, t.Name)
	}
	return dump, kinds, nil
}

// readRows reads every row of table t into the dump, each value rendered
// by its column's reader type.
func (dump *Dump) readRows(ctx context.Context, db engine.DB, t engine.Table, kinds []input.Type) error {
	d := db.SQL()
	list := make([]string, len(dump.Cols))
	for i, c := range dump.Cols {
		list[i] = d.Ident(c.Name)
		if kinds[i].Kind == input.JSON {
			// As text: DuckDB's driver decodes JSON into float64s. CONCAT
			// makes text on every engine, and NULL into '' on some.
			list[i] = fmt.Sprintf("CASE WHEN %[1]s IS NULL THEN NULL ELSE CONCAT(%[1]s, '') END", list[i])
		}
	}
	// A bound parameter makes MySQL's driver use the binary protocol, which
	// returns a DOUBLE as its float rather than the server's text of it.
	q := fmt.Sprintf("SELECT %s FROM %s WHERE 1 = %s", strings.Join(list, ", "), d.Table(t), d.Placeholder(1))
	rows, err := db.Conn().QueryContext(ctx, q, 1)
	if err != nil {
		return fmt.Errorf("reading %s: %w", t.Name, err)
	}
	defer rows.Close()
	for rows.Next() {
		vals := make([]any, len(dump.Cols))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			if row[i], err = canonical(v, kinds[i]); err != nil {
				return fmt.Errorf("column %q (%s): %w", dump.Cols[i].Name, dump.Cols[i].Type, err)
			}
		}
		dump.Rows = append(dump.Rows, row)
	}
	return rows.Err()
}

// kindLabel names a reader type for a Dump.
func kindLabel(t input.Type, ok bool, engineType string) string {
	if !ok {
		return "[" + engineType + "]"
	}
	switch t.Kind {
	case input.Text:
		return "text"
	case input.JSON:
		return "json"
	case input.Bool:
		return "bool"
	case input.Int:
		return fmt.Sprintf("int%d", t.Bits)
	case input.Float:
		return fmt.Sprintf("float%d", t.Bits)
	case input.Decimal:
		if t.Precision == 0 {
			return "decimal"
		}
		return fmt.Sprintf("decimal(%d,%d)", t.Precision, t.Scale)
	case input.Date:
		return "date"
	case input.Timestamp:
		return fmt.Sprintf("timestamp(%d)", t.Precision)
	case input.TimestampTZ:
		return fmt.Sprintf("timestamptz(%d)", t.Precision)
	}
	return "[" + engineType + "]"
}

// AlignJSON makes dumps of engines without a JSON type comparable with
// others': a column that is json in one dump and text in another has its
// text values read as JSON (ClickHouse keeps JSON in a String). A text
// value that is not JSON is left as it is, and so differs.
func AlignJSON(dumps ...*Dump) {
	for i := range dumps[0].Cols {
		isJSON := false
		for _, d := range dumps {
			if i < len(d.Cols) && d.Cols[i].Kind == "json" {
				isJSON = true
			}
		}
		if !isJSON {
			continue
		}
		for _, d := range dumps {
			if i >= len(d.Cols) || d.Cols[i].Kind != "text" {
				continue
			}
			d.Cols[i].Kind = "json"
			for _, r := range d.Rows {
				s, err := strconv.Unquote(r[i])
				if err != nil {
					continue // NULL
				}
				if c, err := CanonicalJSON(s); err == nil {
					r[i] = c
				}
			}
		}
	}
}

// canonical renders one value a driver returned for a column the reader
// types t.
func canonical(v any, t input.Type) (string, error) {
	if v == nil {
		return "NULL", nil
	}
	if b, ok := v.([]byte); ok {
		v = string(b)
		if t.Kind == input.Bool && len(b) == 1 && b[0] <= 1 { // MySQL's BIT(1)
			return strconv.FormatBool(b[0] == 1), nil
		}
	}
	switch t.Kind {
	case input.Text:
		return strconv.Quote(fmt.Sprint(v)), nil
	case input.JSON:
		return canonicalJSONValue(v)
	case input.Bool:
		if s, ok := canonicalBool(v); ok {
			return s, nil
		}
	case input.Int, input.Decimal:
		if s, ok, err := canonicalExact(v); ok {
			return s, err
		}
	case input.Float:
		return canonicalFloat(v, t.Bits)
	case input.Date, input.Timestamp, input.TimestampTZ:
		return canonicalTime(v, t.Kind)
	}
	return "", fmt.Errorf("%T %v is not a value of %s", v, v, t)
}

// canonicalJSONValue renders JSON a driver returned as text, or decoded.
func canonicalJSONValue(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			return "", err
		}
		s = string(b)
	}
	return CanonicalJSON(s)
}

// canonicalBool renders a boolean, or reports that v is not one.
func canonicalBool(v any) (string, bool) {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x), true
	case int64:
		return strconv.FormatBool(x != 0), true
	case string:
		switch strings.ToLower(x) {
		case "t", "true", "1":
			return "true", true
		case "f", "false", "0":
			return "false", true
		}
	}
	return "", false
}

// canonicalExact renders an integer or a decimal; ok is false for a Go
// type that holds neither.
func canonicalExact(v any) (s string, ok bool, err error) {
	switch x := v.(type) {
	case int64, int32, int16, int8, int, uint64, uint32, uint16, uint8:
		return fmt.Sprint(x), true, nil
	case *big.Int:
		return x.String(), true, nil
	case float64, float32:
		return "", true, fmt.Errorf("the driver returned a float (%v) for an exact number", x)
	case string:
		s, err := CanonicalNumber(x)
		return s, true, err
	case fmt.Stringer: // DuckDB's Decimal
		s, err := CanonicalNumber(x.String())
		return s, true, err
	}
	return "", false, nil
}

// canonicalFloat renders a float of the given bits as its shortest text.
func canonicalFloat(v any, bits int) (string, error) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	case string:
		var err error
		if f, err = strconv.ParseFloat(x, 64); err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("%T is not a float", v)
	}
	return strconv.FormatFloat(f, 'g', -1, bits), nil
}

// canonicalTime renders a date, or a timestamp in UTC to the microsecond.
func canonicalTime(v any, kind input.Kind) (string, error) {
	var tm time.Time
	switch x := v.(type) {
	case time.Time:
		tm = x
	case string:
		var err error
		if tm, err = parseTimeText(x); err != nil {
			return "", err
		}
	default:
		return "", fmt.Errorf("%T is not a time", v)
	}
	if kind == input.Date {
		return tm.Format("2006-01-02"), nil
	}
	if kind == input.Timestamp {
		// A wall clock: drivers return it as if in UTC, or in their
		// location without converting it.
		tm = time.Date(tm.Year(), tm.Month(), tm.Day(), tm.Hour(), tm.Minute(), tm.Second(), tm.Nanosecond(), time.UTC)
	}
	return tm.UTC().Format("2006-01-02 15:04:05.000000"), nil
}

// parseTimeText reads a date or timestamp as engines print them.
func parseTimeText(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999Z07:00",
		"2006-01-02 15:04:05.999999999Z07", "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date or timestamp", s)
}

// CanonicalNumber is a number's exact value as text: digits, a point only
// before a fraction that is not zero, no exponent, no -0 (1.50, 15e-1 and
// 1.5 are 1.5).
func CanonicalNumber(s string) (string, error) {
	r, ok := new(big.Rat).SetString(strings.TrimSpace(s))
	if !ok {
		return "", fmt.Errorf("%q is not a number", s)
	}
	if r.IsInt() {
		return r.Num().String(), nil
	}
	// A fraction of a decimal number has a denominator of 2^a·5^b: as many
	// digits after the point as the greater exponent.
	den := new(big.Int).Set(r.Denom())
	digits := 0
	for _, p := range []int64{2, 5} {
		n, m := 0, new(big.Int)
		for {
			q, rem := new(big.Int).QuoRem(den, big.NewInt(p), m)
			if rem.Sign() != 0 {
				break
			}
			den, n = q, n+1
		}
		digits = max(digits, n)
	}
	if den.Cmp(big.NewInt(1)) != 0 {
		return "", fmt.Errorf("%q is not a decimal number", s)
	}
	return strings.TrimRight(r.FloatString(digits), "0"), nil
}

// CanonicalJSON is a JSON text written compact after "json:", object
// keys sorted, numbers by exact value (CanonicalNumber), strings escaped
// one way.
func CanonicalJSON(s string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("%q is not JSON: %w", s, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", fmt.Errorf("%q is not one JSON value", s)
	}
	var b bytes.Buffer
	b.WriteString("json:") // text "a" and JSON's "a" differ
	if err := writeJSON(&b, v); err != nil {
		return "", err
	}
	return b.String(), nil
}

func writeJSON(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case json.Number:
		n, err := CanonicalNumber(string(x))
		if err != nil {
			return err
		}
		b.WriteString(n)
	case string:
		b.WriteString(strconv.Quote(x))
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeJSON(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(':')
			if err := writeJSON(b, x[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("%T is not a JSON value", v)
	}
	return nil
}
