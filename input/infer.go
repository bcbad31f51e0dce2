package input

import (
	"bytes"
	"fmt"
)

// A column without a declared type (and not in the target yet) takes the
// type its values have, over the whole input, by these rules:
//
//   - every value true or false: BOOLEAN;
//   - every value an integer: BIGINT; with one beyond BIGINT's range,
//     DECIMAL(38,0); with one of more than 38 digits, refused;
//   - every value a number, some with a fraction or an exponent: DOUBLE
//     when each one reads back from a DOUBLE as itself (up to 15
//     significant digits always do); otherwise DECIMAL(38,s), s the most
//     digits after the point, when every value fits; otherwise refused;
//   - every value a date: DATE; dates and timestamps: TIMESTAMP; any of
//     them with a UTC offset: TIMESTAMPTZ (the others read as UTC);
//   - JSON Lines: an object or array anywhere: JSON;
//   - anything else, a mix of the above included, or no value at all:
//     VARCHAR, each value as written.
//
// NULLs (and empty fields) never decide a type.

// form is what one value could be.
type form uint8

const (
	fNull form = iota
	fBool
	fInt    // an integer in BIGINT's range
	fBigInt // an integer beyond it
	fNumber // a number with a fraction or an exponent
	fDate
	fStamp
	fZoned
	fNested
	fText
	nForms
)

// spot is where a value was read, for a message.
type spot struct {
	line  int
	file  string
	value string
	err   error // the refusal, for a value no type holds
}

func (s *spot) set(file string, line int, value []byte, err error) {
	if s.line == 0 {
		*s = spot{line: line, file: file, value: string(value), err: err}
	}
}

// guess gathers what one column's values are.
type guess struct {
	count [nForms]int64
	// numbers
	maxDigits  int  // digits of the longest integer beyond BIGINT
	maxScale   int  // most digits after the point any number needs
	maxIntPart int  // most digits before the point
	inexact    spot // the first number a DOUBLE would not read back as itself
	huge       spot // the first integer of more than 38 digits
	outOfRange spot // the first number beyond a DOUBLE's range
	text       spot // the first value that is only text
	// times
	minTime, maxTime spot // for the limits: the earliest and latest value
	lo, hi           int64
	timeSeen         bool
}

// add counts one value, and returns what it is.
func (g *guess) add(f field, file string, line int) form {
	fm := g.classify(f, file, line)
	g.count[fm]++
	return fm
}

func (g *guess) classify(f field, file string, line int) form {
	switch f.json {
	case jsonNull:
		return fNull
	case jsonBool:
		return fBool
	case jsonNested:
		return fNested
	case jsonNumber:
		n, _ := scanNumber(f.b)
		return g.number(f.b, n, file, line)
	}
	if len(f.b) == 0 {
		return fNull
	}
	c := f.b[0]
	if f.json == jsonNone {
		if c == '-' || isDigit(c) {
			if n, ok := scanNumber(f.b); ok {
				return g.number(f.b, n, file, line)
			}
		}
		if (c == 't' || c == 'T' || c == 'f' || c == 'F') && (bytes.EqualFold(f.b, []byte("true")) || bytes.EqualFold(f.b, []byte("false"))) {
			return fBool
		}
	}
	if isDigit(c) && len(f.b) >= 10 {
		switch form, micros, _ := parseTime(f.b); form {
		case isDate:
			g.time(micros, file, line, f.b)
			return fDate
		case isTimestamp:
			g.time(micros, file, line, f.b)
			return fStamp
		case isZoned:
			g.time(micros, file, line, f.b)
			return fZoned
		}
	}
	g.text.set(file, line, f.b, nil)
	return fText
}

func (g *guess) time(micros int64, file string, line int, b []byte) {
	if !g.timeSeen || micros < g.lo {
		g.lo = micros
		g.minTime = spot{}
		g.minTime.set(file, line, b, nil)
	}
	if !g.timeSeen || micros > g.hi {
		g.hi = micros
		g.maxTime = spot{}
		g.maxTime.set(file, line, b, nil)
	}
	g.timeSeen = true
}

// number classifies a number and keeps what deciding its column's type
// needs.
func (g *guess) number(b []byte, n number, file string, line int) form {
	if n.isInt() {
		g.maxIntPart = max(g.maxIntPart, len(n.intg))
		if len(n.intg) <= 15 {
			return fInt
		}
		if _, err := float64Of(b, n, 64); err != nil {
			g.inexact.set(file, line, b, err)
		}
		if _, err := int64Of(b, 64); err == nil {
			return fInt
		}
		g.maxDigits = max(g.maxDigits, len(n.intg))
		if len(n.intg) > MaxPrecision {
			g.huge.set(file, line, b, nil)
		}
		return fBigInt
	}
	g.maxScale = max(g.maxScale, n.scale())
	g.maxIntPart = max(g.maxIntPart, n.intDigits())
	if _, err := float64Of(b, n, 64); err != nil {
		if bytes.Contains([]byte(err.Error()), []byte("beyond the range")) {
			g.outOfRange.set(file, line, b, err)
		} else {
			g.inexact.set(file, line, b, err)
		}
	}
	return fNumber
}

// decide gives the column's type, or refuses the value no type holds.
func (g *guess) decide(col string) (Type, error) {
	c := g.count
	groups := 0
	has := func(fs ...form) bool {
		for _, f := range fs {
			if c[f] > 0 {
				return true
			}
		}
		return false
	}
	bools, numbers, times := has(fBool), has(fInt, fBigInt, fNumber), has(fDate, fStamp, fZoned)
	for _, b := range []bool{bools, numbers, times} {
		if b {
			groups++
		}
	}
	switch {
	case has(fNested):
		return JSONType, nil
	case has(fText) || groups != 1:
		return TextType, nil
	case bools:
		return BoolType, nil
	case times:
		switch {
		case has(fZoned):
			return TimestampTZType, nil
		case has(fStamp):
			return TimestampType, nil
		}
		return DateType, nil
	}
	return g.numberType(col)
}

func (g *guess) numberType(col string) (Type, error) {
	refuse := func(s spot, msg string) error {
		return &Error{File: s.file, Line: s.line, Column: col, Value: s.value, Msg: msg}
	}
	if g.huge.line > 0 {
		return Type{}, refuse(g.huge, fmt.Sprintf("is an integer of %d digits: no engine's numbers hold more than %d; declare the column VARCHAR to keep such values as text", g.maxDigits, MaxPrecision))
	}
	if g.count[fNumber] == 0 {
		if g.count[fBigInt] > 0 {
			return DecimalType(MaxPrecision, 0), nil
		}
		return BigIntType, nil
	}
	if g.inexact.line == 0 && g.outOfRange.line == 0 {
		return DoubleType, nil
	}
	if g.maxScale+g.maxIntPart <= MaxPrecision && g.outOfRange.line == 0 {
		return DecimalType(MaxPrecision, g.maxScale), nil
	}
	if g.outOfRange.line > 0 {
		return Type{}, refuse(g.outOfRange, g.outOfRange.err.Error())
	}
	return Type{}, refuse(g.inexact, fmt.Sprintf("cannot be held exactly by a DOUBLE, nor with the column's other values by a DECIMAL of %d digits: declare the column's type (a DECIMAL(p,s), or VARCHAR)", MaxPrecision))
}

// checkLimits refuses the column's earliest or latest time when the
// target's type does not hold it.
func (g *guess) checkLimits(col string, t Type, lim *Limits) error {
	if !g.timeSeen || !t.IsTime() {
		return nil
	}
	lo, hi := g.lo, g.hi
	if t.Kind == Date {
		lo, hi = floorDiv(lo, microsPerDay), floorDiv(hi, microsPerDay)
	}
	for _, c := range []struct {
		x int64
		s spot
	}{{lo, g.minTime}, {hi, g.maxTime}} {
		if err := lim.check(t, c.x); err != nil {
			return at(err, c.s.file, c.s.line, col, []byte(c.s.value))
		}
	}
	return nil
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
