package mysql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

// The reader's rows reach MySQL through LOAD DATA LOCAL INFILE from a
// reader the driver streams (mysql.RegisterReaderHandler), on the run's
// connection: each batch is written as text the server cannot read two
// ways, one batch in memory at a time.
//
//	NULL               \N
//	text, JSON         enclosed in double quotes; " \ NUL CR LF escaped with \
//	integers, decimals plain digits
//	floats             the shortest text that reads back as the same double
//	                   (a REAL's value is a double exactly: FLOAT stores it as it is)
//	dates              YYYY-MM-DD
//	timestamps         YYYY-MM-DD HH:MM:SS[.ffffff], instants in UTC (the session's zone)
//	booleans           1 or 0, into BIT through a variable (LOAD DATA stores a
//	                   field's bytes in a BIT column: '1' would be 0x31)
//
// The text is read as utf8mb4 (CHARACTER SET), so its bytes are stored as
// they are. With LOCAL the server cannot stop the client's transfer, so a
// value a column refuses is a warning and a changed value even in strict
// mode: any warning fails the load.

// loadPath is how rows travel, for plans.
const loadPath = "LOAD DATA LOCAL INFILE (the reader's rows as escaped text, streamed)"

// LoadPath says how rows travel (engine.RowLoader).
func (d *DB) LoadPath() string { return loadPath }

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

// loadStatement is the LOAD DATA of rows into t's cols from the reader
// name. The escape character is spelled '\': sessions have
// NO_BACKSLASH_ESCAPES (Config), and lines end at LF, the default.
func loadStatement(name string, t engine.Table, cols []engine.Column) string {
	dl := Dialect{}
	list := make([]string, len(cols))
	var sets []string
	for i, c := range cols {
		list[i] = dl.Ident(c.Name)
		if isBit(c.Type) {
			v := fmt.Sprintf("@v%d", i+1)
			list[i] = v
			sets = append(sets, fmt.Sprintf("%s = CAST(%s AS UNSIGNED)", dl.Ident(c.Name), v))
		}
	}
	load := fmt.Sprintf(`LOAD DATA LOCAL INFILE 'Reader::%s' INTO TABLE %s CHARACTER SET utf8mb4
  FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' ESCAPED BY '\' (%s)`,
		name, dl.Table(t), strings.Join(list, ", "))
	if len(sets) > 0 {
		load += "\n  SET " + strings.Join(sets, ", ")
	}
	return load
}

// errLoadEnded stops the row writer when the LOAD DATA has ended.
var errLoadEnded = errors.New("the load ended")

// LoadRows streams every row of rows into t, whose columns are cols in the
// reader's order, with one LOAD DATA LOCAL INFILE on q.
func (d *DB) LoadRows(ctx context.Context, q engine.Querier, t engine.Table, cols []engine.Column, rows *input.Reader, rec func(string)) (int64, error) {
	name, free := takeReaderName()
	defer free()
	load := loadStatement(name, t, cols)
	rec(load)

	pr, pw := io.Pipe()
	gomysql.RegisterReaderHandler(name, func() io.Reader { return pr })
	defer gomysql.DeregisterReaderHandler(name)
	var sent int64
	written := make(chan error, 1)
	go func() {
		err := writeRows(ctx, pw, rows, len(cols), &sent)
		pw.CloseWithError(err)
		written <- err
	}()
	res, err := q.ExecContext(ctx, load)
	pr.CloseWithError(errLoadEnded) // stops the writer if the load ended early
	// The writer's own error (the input's, a changed file; the context's)
	// is the load's; a pipe closed under it is the load's end.
	werr := <-written
	if werr != nil && (err == nil || !errors.Is(werr, errLoadEnded) && !errors.Is(werr, io.ErrClosedPipe)) {
		return 0, werr
	}
	if err != nil {
		if lostConnection(err) != nil {
			return 0, err
		}
		return 0, fmt.Errorf("loading the input's rows into %s: %w", t.Name, err)
	}
	if err := loadWarnings(ctx, q, rec); err != nil {
		return 0, fmt.Errorf("loading the input's rows into %s: %w", t.Name, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	if n != sent {
		return 0, fmt.Errorf("loading the input's rows into %s: the server took %d rows of %d", t.Name, n, sent)
	}
	return n, nil
}

// writeRows writes every row of rows, each of n values, as LOAD DATA text,
// and counts them in sent.
func writeRows(ctx context.Context, w io.Writer, rows *input.Reader, n int, sent *int64) error {
	const flushAt = 64 << 10
	buf := make([]byte, 0, flushAt+4096)
	for {
		b, err := rows.Next()
		if err == io.EOF {
			// The reader ends its batches when its context ends too:
			// that is no end of the input.
			if err := ctx.Err(); err != nil {
				return err
			}
			break
		}
		if err != nil {
			return err
		}
		if len(b.Cols) != n {
			return fmt.Errorf("the input has %d columns, the table %d", len(b.Cols), n)
		}
		for i := range b.Len {
			for j, v := range b.Cols {
				if j > 0 {
					buf = append(buf, ',')
				}
				buf = appendValue(buf, v, i)
			}
			buf = append(buf, '\n')
			if len(buf) >= flushAt {
				if _, err := w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		*sent += int64(b.Len)
	}
	if len(buf) == 0 {
		return nil
	}
	_, err := w.Write(buf)
	return err
}

// appendValue appends row i's value of v as LOAD DATA text: the text
// Vector.AppendText gives (the tests compare the two), written here
// without allocating for the types most rows hold.
func appendValue(b []byte, v *input.Vector, i int) []byte {
	if v.Null[i] {
		return append(b, '\\', 'N')
	}
	switch t := v.Type; t.Kind {
	case input.Text, input.JSON:
		return appendQuoted(b, v.Str[i])
	case input.Int:
		return strconv.AppendInt(b, v.Int[i], 10)
	case input.Bool:
		if v.Bool[i] {
			return append(b, '1')
		}
		return append(b, '0')
	case input.Float:
		// A REAL's value as the double it is exactly: read as a double and
		// stored as a float, it stays itself.
		return strconv.AppendFloat(b, v.Float[i], 'g', -1, 64)
	case input.Decimal:
		if !t.IsBig() && !t.IsAnyDecimal() {
			return appendDecimal(b, v.Int[i], t.Scale)
		}
	case input.Date:
		return appendDate(b, v.Int[i])
	case input.Timestamp, input.TimestampTZ:
		return appendTimestamp(b, v.Int[i])
	}
	return v.AppendText(b, i)
}

// appendDecimal appends the decimal whose unscaled value is x: digits,
// and scale of them after a point.
func appendDecimal(b []byte, x int64, scale int) []byte {
	if scale == 0 {
		return strconv.AppendInt(b, x, 10)
	}
	u := uint64(x)
	if x < 0 {
		b = append(b, '-')
		u = -u
	}
	var tmp [24]byte
	digits := strconv.AppendUint(tmp[:0], u, 10)
	if n := len(digits); n <= scale {
		b = append(b, '0', '.')
		for range scale - n {
			b = append(b, '0')
		}
		return append(b, digits...)
	}
	b = append(b, digits[:len(digits)-scale]...)
	b = append(b, '.')
	return append(b, digits[len(digits)-scale:]...)
}

const microsPerDay = 86_400_000_000

// appendDate appends a date (days since 1970-01-01) as YYYY-MM-DD.
func appendDate(b []byte, days int64) []byte {
	y, m, d := time.Unix(days*86400, 0).UTC().Date()
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-')
	b = append2(b, int(m))
	b = append(b, '-')
	return append2(b, d)
}

// appendTimestamp appends a timestamp (microseconds since 1970-01-01
// 00:00) as YYYY-MM-DD HH:MM:SS, and .ffffff when it has a fraction.
func appendTimestamp(b []byte, micros int64) []byte {
	days, rem := micros/microsPerDay, micros%microsPerDay
	if rem < 0 {
		days--
		rem += microsPerDay
	}
	b = appendDate(b, days)
	secs := int(rem / 1_000_000)
	b = append(b, ' ')
	b = append2(b, secs/3600)
	b = append(b, ':')
	b = append2(b, secs/60%60)
	b = append(b, ':')
	b = append2(b, secs%60)
	if f := int(rem % 1_000_000); f != 0 {
		b = append(b, '.', byte('0'+f/100000), byte('0'+f/10000%10), byte('0'+f/1000%10),
			byte('0'+f/100%10), byte('0'+f/10%10), byte('0'+f%10))
	}
	return b
}

// append2 appends two digits of 0 ≤ x < 100.
func append2(b []byte, x int) []byte { return append(b, byte('0'+x/10), byte('0'+x%10)) }

// appendQuoted encloses s in double quotes, escaping the quote, the escape
// character, NUL and line ends.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		var esc byte
		switch s[i] {
		case '"', '\\':
			esc = s[i]
		case 0:
			esc = '0'
		case '\n':
			esc = 'n'
		case '\r':
			esc = 'r'
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, '\\', esc)
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// showWarnings reads the first warning of the statement before it.
const showWarnings = "SHOW WARNINGS LIMIT 1"

// loadWarnings returns the first warning (or note) of the load as an
// error, or nil.
func loadWarnings(ctx context.Context, q engine.Querier, rec func(string)) error {
	rec(showWarnings)
	rows, err := q.QueryContext(ctx, showWarnings)
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
		return fmt.Errorf("the server changed a value (%s %d: %s)", level, code, msg)
	}
	return rows.Err()
}
