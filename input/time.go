package input

import (
	"bytes"
	"strconv"
	"time"
)

// Dates and times have one spelling each, ISO 8601's:
//
//	date         2026-11-28                  (years 0001 to 9999)
//	timestamp    2026-11-28 13:45[:00[.123456]]   (T or a space before the time)
//	with offset  …Z, …+01, …+0100, …+01:00, … UTC, … GMT
//
// Digits past the microsecond are dropped (never rounded: a time stays in
// its second, its day, its partition). Anything else, a zone's name
// included (CET, Europe/Paris: its offset depends on rules that change),
// is not a date.

// epochDays is the number of days from 0001-01-01 to 1970-01-01.
const (
	microsPerDay    = int64(86_400_000_000)
	microsPerSecond = int64(1_000_000)
)

// daysFromCivil counts days from 1970-01-01 to y-m-d (proleptic
// Gregorian), for any year the reader accepts.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// civilFromDays is daysFromCivil's inverse.
func civilFromDays(z int64) (y, m, d int) {
	z += 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	yy := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		yy++
	}
	return int(yy), m, d
}

func daysIn(y, m int) int {
	switch m {
	case 4, 6, 9, 11:
		return 30
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	}
	return 31
}

// num2 reads two digits at b[i:].
func num2(b []byte, i int) (int, bool) {
	if i+2 > len(b) || !isDigit(b[i]) || !isDigit(b[i+1]) {
		return 0, false
	}
	return int(b[i]-'0')*10 + int(b[i+1]-'0'), true
}

// parseDate reads YYYY-MM-DD at the start of b, returning its days since
// 1970-01-01.
func parseDate(b []byte) (int64, bool) {
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return 0, false
	}
	y := 0
	for i := 0; i < 4; i++ {
		if !isDigit(b[i]) {
			return 0, false
		}
		y = y*10 + int(b[i]-'0')
	}
	m, ok1 := num2(b, 5)
	d, ok2 := num2(b, 8)
	if !ok1 || !ok2 || y < 1 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, false
	}
	return daysFromCivil(y, m, d), true
}

// timeForm is what a date or time text holds.
type timeForm uint8

const (
	notTime     timeForm = iota
	isDate               // a date alone
	isTimestamp          // a date and a time, no offset
	isZoned              // a date and a time with an offset
)

// parseTime reads a date, a timestamp or a timestamp with an offset. For a
// timestamp, micros is its wall clock as if in UTC; with an offset, the
// instant in UTC. zoneName reports a text that names a zone where an
// offset would be (CET, Europe/Paris), for a clearer refusal.
func parseTime(b []byte) (form timeForm, micros int64, zoneName bool) {
	days, ok := parseDate(b)
	if !ok {
		return notTime, 0, false
	}
	if len(b) == 10 {
		return isDate, days * microsPerDay, false
	}
	if b[10] != ' ' && b[10] != 'T' {
		return notTime, 0, false
	}
	h, ok1 := num2(b, 11)
	mi, ok2 := num2(b, 14)
	if !ok1 || !ok2 || len(b) < 16 || b[13] != ':' || h > 23 || mi > 59 {
		return notTime, 0, false
	}
	i := 16
	sec, frac := 0, int64(0)
	if i < len(b) && b[i] == ':' {
		s, ok := num2(b, i+1)
		if !ok || s > 59 {
			return notTime, 0, false
		}
		sec = s
		i += 3
		if i < len(b) && b[i] == '.' {
			i++
			start := i
			for i < len(b) && isDigit(b[i]) {
				if i-start < 6 {
					frac = frac*10 + int64(b[i]-'0')
				}
				i++
			}
			n := i - start
			if n == 0 {
				return notTime, 0, false
			}
			for ; n < 6; n++ {
				frac *= 10
			}
		}
	}
	micros = days*microsPerDay + int64(h)*3_600_000_000 + int64(mi)*60_000_000 + int64(sec)*1_000_000 + frac
	if i == len(b) {
		return isTimestamp, micros, false
	}
	off, ok, named := parseOffset(b[i:])
	if !ok {
		return notTime, 0, named
	}
	return isZoned, micros - off, false
}

// parseOffset reads what follows a time: Z, ±HH, ±HHMM, ±HH:MM, or a
// space and UTC or GMT. It returns the offset in microseconds east of
// UTC; named reports a space and a word (a zone's name) instead.
func parseOffset(b []byte) (off int64, ok, named bool) {
	switch {
	case len(b) == 1 && (b[0] == 'Z' || b[0] == 'z'):
		return 0, true, false
	case bytes.Equal(b, []byte(" UTC")), bytes.Equal(b, []byte(" GMT")), bytes.Equal(b, []byte("UTC")):
		return 0, true, false
	case b[0] == '+' || b[0] == '-':
		h, ok := num2(b, 1)
		if !ok || h > 15 {
			return 0, false, false
		}
		m := 0
		switch rest := b[3:]; {
		case len(rest) == 0:
		case len(rest) == 2:
			m, ok = num2(rest, 0)
		case len(rest) == 3 && rest[0] == ':':
			m, ok = num2(rest, 1)
		default:
			ok = false
		}
		if !ok || m > 59 {
			return 0, false, false
		}
		off = int64(h)*3_600_000_000 + int64(m)*60_000_000
		if b[0] == '-' {
			off = -off
		}
		return off, true, false
	case b[0] == ' ' && len(b) > 1 && isLetter(b[1]):
		return 0, false, true
	}
	return 0, false, false
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// FormatDate is a date's canonical text, from its days since 1970-01-01.
func FormatDate(days int64) string {
	return string(AppendDate(nil, days))
}

// AppendDate appends FormatDate's text.
func AppendDate(b []byte, days int64) []byte {
	y, m, d := civilFromDays(days)
	b = appendPad(b, y, 4)
	b = append(b, '-')
	b = appendPad(b, m, 2)
	b = append(b, '-')
	return appendPad(b, d, 2)
}

// AppendTimestamp appends a timestamp's canonical text (its microseconds
// since 1970-01-01 00:00): YYYY-MM-DD HH:MM:SS.ffffff, the fraction left
// out when it is zero.
func AppendTimestamp(b []byte, micros int64) []byte {
	days := micros / microsPerDay
	rem := micros % microsPerDay
	if rem < 0 {
		days--
		rem += microsPerDay
	}
	b = AppendDate(b, days)
	b = append(b, ' ')
	secs := rem / 1_000_000
	b = appendPad(b, int(secs/3600), 2)
	b = append(b, ':')
	b = appendPad(b, int(secs/60%60), 2)
	b = append(b, ':')
	b = appendPad(b, int(secs%60), 2)
	if f := rem % 1_000_000; f != 0 {
		b = append(b, '.')
		b = appendPad(b, int(f), 6)
	}
	return b
}

func appendPad(b []byte, v, width int) []byte {
	s := strconv.Itoa(v)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// TimeOf is a timestamp's microseconds as a time.Time in UTC (the wall
// clock, for a timestamp without zone).
func TimeOf(micros int64) time.Time {
	return time.UnixMicro(micros).UTC()
}

// DateOf is a date's days as a time.Time at midnight UTC.
func DateOf(days int64) time.Time {
	return time.Unix(days*86400, 0).UTC()
}
