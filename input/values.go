package input

import (
	"bytes"
	"math/big"
	"regexp"
	"unicode/utf8"
)

// Limits are what a target's types hold beyond the reader's rules, which
// take years 1 to 9999: an engine whose dates or times cover less says so,
// and a value outside is refused by the reader (file, line, column) before
// anything reaches the target. Zero values mean no limit.
type Limits struct {
	// Engine names the target's engine, for messages.
	Engine string
	// Dates (days since 1970-01-01), Timestamp and TimestampTZ
	// (microseconds since 1970-01-01 00:00 UTC) that the target holds,
	// both ends included.
	MinDate, MaxDate                int64
	MinTime, MaxTime                int64
	MinInstant, MaxInstant          int64
	HasDates, HasTimes, HasInstants bool
}

// check refuses a value of type t outside the limits.
func (l *Limits) check(t Type, x int64) error {
	if l == nil {
		return nil
	}
	switch {
	case t.Kind == Date && l.HasDates && (x < l.MinDate || x > l.MaxDate):
		return reasonf("is outside the dates %s holds (%s to %s)", l.Engine, FormatDate(l.MinDate), FormatDate(l.MaxDate))
	case t.Kind == Timestamp && l.HasTimes && (x < l.MinTime || x > l.MaxTime):
		return reasonf("is outside the timestamps %s holds (%s to %s)", l.Engine, AppendTimestamp(nil, l.MinTime), AppendTimestamp(nil, l.MaxTime))
	case t.Kind == TimestampTZ && l.HasInstants && (x < l.MinInstant || x > l.MaxInstant):
		return reasonf("is outside the instants %s holds (%s to %s UTC)", l.Engine, AppendTimestamp(nil, l.MinInstant), AppendTimestamp(nil, l.MaxInstant))
	}
	return nil
}

// slashDate matches a date written with slashes or dots (01/02/2026,
// 1.2.26): day or month first, which nothing in the text decides.
var slashDate = regexp.MustCompile(`^[0-9]{1,4}[/.][0-9]{1,2}[/.][0-9]{1,4}`)

// isNull reports a field that is NULL in a column of kind k: an empty CSV
// field (quoted or not: a quoted one is empty text in a text column), JSON
// null or a missing key, or an empty JSON string outside a text column.
func isNull(f field, k Kind) bool {
	switch f.json {
	case jsonNull:
		return true
	case jsonNumber, jsonBool, jsonNested:
		return false
	}
	if len(f.b) > 0 {
		return false
	}
	return !(f.quoted || f.json == jsonString) || k != Text
}

// value is one converted value; which field holds it follows the type
// (see Vector).
type value struct {
	i   int64
	f   float64
	b   bool
	big *big.Int
	s   []byte
}

// put converts f to v's type and appends it, or says why it cannot.
func put(v *Vector, f field, ar *arena, lim *Limits) error {
	t := v.Type
	if isNull(f, t.Kind) {
		v.appendNull()
		return nil
	}
	x, err := convert(f, t, lim)
	if err != nil {
		return err
	}
	v.Null = append(v.Null, false)
	switch t.Kind {
	case Text, JSON:
		v.Str = append(v.Str, ar.str(x.s))
	case Bool:
		v.Bool = append(v.Bool, x.b)
	case Float:
		v.Float = append(v.Float, x.f)
	case Decimal:
		switch {
		case t.IsAnyDecimal():
			v.Str = append(v.Str, ar.str(x.s))
		case t.IsBig():
			v.Big = append(v.Big, x.big)
		default:
			v.Int = append(v.Int, x.i)
		}
	default:
		v.Int = append(v.Int, x.i)
	}
	return nil
}

// check reports why f is not a value of t (nil when it is, or is NULL).
func check(f field, t Type, lim *Limits) error {
	if isNull(f, t.Kind) {
		return nil
	}
	_, err := convert(f, t, lim)
	return err
}

// convert reads a value that is not NULL as a value of t.
func convert(f field, t Type, lim *Limits) (value, error) {
	switch t.Kind {
	case Text:
		s, err := text(f, t)
		return value{s: s}, err
	case JSON:
		s, err := jsonText(f)
		return value{s: s}, err
	case Bool:
		b, err := boolOf(f)
		return value{b: b}, err
	case Date, Timestamp, TimestampTZ:
		x, err := timeOf(f, t)
		if err == nil {
			err = lim.check(t, x)
		}
		return value{i: x}, err
	}
	// A number.
	if f.json == jsonBool || f.json == jsonNested {
		return value{}, reasonf("is not a number")
	}
	n, ok := scanNumber(f.b)
	if !ok {
		return value{}, notNumber(f.b, t)
	}
	switch t.Kind {
	case Int:
		if !n.isInt() {
			return value{}, reasonf("is not an integer")
		}
		x, err := int64Of(f.b, t.Bits)
		return value{i: x}, err
	case Float:
		x, err := float64Of(f.b, n, t.Bits)
		return value{f: x}, err
	case Decimal:
		if t.IsAnyDecimal() {
			s, err := plainDecimal(n)
			return value{s: s}, err
		}
		small, large, err := decimalOf(n, t.Precision, t.Scale)
		return value{i: small, big: large}, err
	}
	return value{}, reasonf("has a type the reader does not know")
}

// notNumber says why text is not a number of type t.
func notNumber(b []byte, t Type) error {
	lower := string(bytes.ToLower(bytes.TrimLeft(b, "+-")))
	switch lower {
	case "inf", "infinity", "nan":
		return reasonf("is not a number: infinity and NaN are not stored (MariaDB has neither)")
	}
	if t.Kind == Int {
		return reasonf("is not an integer")
	}
	return reasonf("is not a number")
}

// text checks a text value: UTF-8, no NUL, within t's length.
func text(f field, t Type) ([]byte, error) {
	b := f.b
	if f.json == jsonNested || f.json == jsonNumber || f.json == jsonBool || f.json == jsonString {
		// JSON values: already checked by the parser (strings unescaped).
		if t.MaxChars > 0 && utf8.RuneCount(b) > t.MaxChars {
			return nil, reasonf("has %d characters; the column holds at most %d", utf8.RuneCount(b), t.MaxChars)
		}
		return b, nil
	}
	if err := checkText(b); err != nil {
		return nil, err
	}
	if t.MaxChars > 0 && utf8.RuneCount(b) > t.MaxChars {
		return nil, reasonf("has %d characters; the column holds at most %d", utf8.RuneCount(b), t.MaxChars)
	}
	return b, nil
}

// checkText refuses text that is not UTF-8 or holds a NUL byte.
func checkText(b []byte) error {
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
		if c == 0 {
			return reasonf("holds a NUL byte, which PostgreSQL cannot store in text")
		}
	}
	if ascii {
		return nil
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return reasonf("holds a NUL byte, which PostgreSQL cannot store in text")
	}
	for j := 0; j < len(b); {
		r, n := utf8.DecodeRune(b[j:])
		if r == utf8.RuneError && n <= 1 {
			return &reason{msg: "is not valid UTF-8 (byte 0x" + hex2(b[j]) + " at offset " + itoa(j) + "); re-encode the file as UTF-8"}
		}
		j += n
	}
	return nil
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

func itoa(i int) string { return string(appendInt(nil, int64(i))) }

// jsonText is a value's canonical JSON text: a JSON Lines value as the
// parser wrote it, a CSV field parsed as JSON.
func jsonText(f field) ([]byte, error) {
	switch f.json {
	case jsonNested, jsonNumber, jsonBool:
		return f.b, nil
	case jsonString:
		return appendJSONString(nil, f.b), nil
	}
	if err := checkText(f.b); err != nil {
		return nil, err
	}
	var p jsonParser
	p.b = f.b
	p.skipSpace()
	v, err := p.value()
	if err == nil {
		p.skipSpace()
		if p.i != len(p.b) {
			err = reasonf("is not JSON: text after the value")
		}
	}
	if err != nil {
		return nil, reasonf("is not JSON (%v)", err)
	}
	switch v.json {
	case jsonString:
		return appendJSONString(nil, v.b), nil
	case jsonNull:
		return []byte("null"), nil
	}
	return v.b, nil
}

// boolOf reads true or false, in any case.
func boolOf(f field) (bool, error) {
	switch f.json {
	case jsonBool:
		return f.b[0] == 't', nil
	case jsonNumber, jsonNested:
		return false, reasonf("is not a boolean (true or false)")
	}
	switch {
	case bytes.EqualFold(f.b, []byte("true")):
		return true, nil
	case bytes.EqualFold(f.b, []byte("false")):
		return false, nil
	}
	return false, reasonf("is not a boolean (true or false)")
}

// timeOf reads a date or time for a column of t: a date is midnight in a
// timestamp column; a timestamp without an offset in a TIMESTAMPTZ column
// is UTC; an offset in a TIMESTAMP column is refused (it would be dropped).
func timeOf(f field, t Type) (int64, error) {
	if f.json == jsonNumber || f.json == jsonBool || f.json == jsonNested {
		return 0, notTimeReason(f.b, t)
	}
	form, micros, named := parseTime(f.b)
	switch {
	case named && t.Kind != Date:
		return 0, reasonf("names its time zone: write its UTC offset instead (like +01:00); a zone's offset depends on rules that change")
	case form == notTime:
		return 0, notTimeReason(f.b, t)
	}
	switch t.Kind {
	case Date:
		if form != isDate {
			return 0, reasonf("is not a date (like 2026-11-28): a DATE column would drop its time of day")
		}
		return micros / microsPerDay, nil
	case Timestamp:
		if form == isZoned {
			return 0, reasonf("has a UTC offset, which a TIMESTAMP column would drop: declare the column TIMESTAMPTZ")
		}
	}
	if t.Precision < 6 {
		unit := int64(1)
		for range 6 - t.Precision {
			unit *= 10
		}
		if micros%unit != 0 {
			return 0, reasonf("has more digits of a second than the column keeps (%d), which would round it", t.Precision)
		}
	}
	return micros, nil
}

func notTimeReason(b []byte, t Type) error {
	hint := ""
	if slashDate.Match(b) {
		hint = ": it is written day or month first, and nothing in the text says which"
	}
	if t.Kind == Date {
		return reasonf("is not a date (like 2026-11-28)%s", hint)
	}
	return reasonf("is not a date or timestamp (like 2026-11-28 13:45:00)%s", hint)
}
