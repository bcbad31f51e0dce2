package postgres

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

var _ engine.RowLoader = (*DB)(nil)

// LoadPath: the reader's rows travel in PostgreSQL's binary COPY format,
// each value in its type's binary form, which the server does not parse.
func (*DB) LoadPath() string { return "COPY FROM STDIN (binary)" }

// LoadRows streams rows into t with one COPY … FROM STDIN (FORMAT binary)
// on the pinned connection: inside the run's transaction when q is one
// (Begin opens it on that connection), so a rollback removes the rows.
// The values are encoded straight from the batches' vectors, in the binary
// form of each column's type: no value is text the server parses, but for
// JSON (the reader's canonical text).
func (d *DB) LoadRows(ctx context.Context, q engine.Querier, t engine.Table, cols []engine.Column, rows *input.Reader, rec func(string)) (int64, error) {
	switch q := q.(type) {
	case *sql.Tx:
	case *sql.Conn:
		if q != d.conn {
			return 0, errors.New("loading rows: the connection is not the run's")
		}
	default:
		return 0, fmt.Errorf("loading rows: %T is not the run's connection or transaction", q)
	}
	dl := Dialect{}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = dl.Ident(c.Name)
	}
	stmt := fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT binary)", dl.Table(t), strings.Join(names, ", "))
	if rec != nil {
		rec(stmt)
	}
	r := &copyReader{rows: rows, cols: cols}
	var tag pgconn.CommandTag
	err := d.conn.Raw(func(dc any) error {
		var err error
		tag, err = dc.(*stdlib.Conn).Conn().PgConn().CopyFrom(ctx, r, stmt)
		return err
	})
	switch rerr := r.failure(); {
	case rerr != nil && lostConnection(err) == nil:
		// The input's or the encoder's own error, which the server only
		// echoes ("COPY from stdin failed: …").
		return 0, rerr
	case err != nil:
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Where != "" {
			return 0, fmt.Errorf("copying rows into %s: %w (%s)", dl.Table(t), err, pe.Where)
		}
		return 0, fmt.Errorf("copying rows into %s: %w", dl.Table(t), err)
	}
	return tag.RowsAffected(), nil
}

// copyHeader starts the binary COPY format: its signature, no flags, no
// header extension.
var copyHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// chunk is about how much encoded data a Read prepares: what pgconn
// sends in one CopyData message.
const chunk = 64 << 10

// copyReader is the COPY's data, encoded from the reader's batches as the
// COPY asks for it (pgconn reads it in a goroutine of its own while the
// reader reads the next batch in another).
type copyReader struct {
	rows   *input.Reader
	cols   []engine.Column
	fields []field // set at the first batch, from its vectors' types
	batch  *input.Batch
	row    int
	buf    []byte
	off    int
	begun  bool
	ended  bool
	// err is why reading stopped; pgconn may return before its goroutine
	// ends when the connection fails, hence the lock.
	mu     sync.Mutex
	err    error
	digits []int16 // scratch for numeric digits
	text   []byte  // scratch for decimal text
}

func (r *copyReader) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if err := r.failure(); err != nil {
			return 0, err
		}
		if r.ended {
			return 0, io.EOF
		}
		r.buf, r.off = r.buf[:0], 0
		if err := r.fill(); err != nil {
			r.mu.Lock()
			r.err, r.buf = err, r.buf[:0] // no part of a row before the COPY fails
			r.mu.Unlock()
		}
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

func (r *copyReader) failure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// fill encodes rows into buf, about a chunk of them, and the trailer
// after the last.
func (r *copyReader) fill() error {
	if !r.begun {
		r.begun = true
		r.buf = append(r.buf, copyHeader...)
	}
	for len(r.buf) < chunk {
		if r.batch == nil || r.row == r.batch.Len {
			b, err := r.rows.Next()
			if errors.Is(err, io.EOF) {
				r.ended = true
				r.buf = binary.BigEndian.AppendUint16(r.buf, 0xffff) // the trailer: a field count of -1
				return nil
			}
			if err != nil {
				return err
			}
			if r.fields == nil {
				if r.fields, err = plan(r.cols, b.Cols); err != nil {
					return err
				}
			}
			r.batch, r.row = b, 0
			continue
		}
		for ; r.row < r.batch.Len && len(r.buf) < chunk; r.row++ {
			if err := r.encodeRow(r.row); err != nil {
				return err
			}
		}
	}
	return nil
}

// op is how one column's values are encoded.
type op uint8

const (
	opInt2       op = iota + 1 // Int into smallint
	opInt4                     // Int into integer
	opInt8                     // Int into bigint
	opIntNumeric               // Int into numeric
	opDecimal                  // Decimal (unscaled int64) into numeric
	opBigDecimal               // Decimal (unscaled *big.Int) into numeric
	opAnyDecimal               // Decimal of any precision (canonical text) into numeric
	opFloat4                   // Float of 32 bits into real
	opFloat8                   // Float into double precision
	opBool                     // Bool into boolean
	opDate                     // Date into date
	opTime                     // Timestamp or TimestampTZ into its type
	opText                     // Text or JSON into text, varchar or json
	opJSONB                    // JSON into jsonb
)

// field is one column's encoding.
type field struct {
	op       op
	name     string
	check    bool // Int: check the column's range
	maxChars int  // Text: check the column's length (0: none)
	scale    int  // Decimal
}

// pgEpochDays and pgEpochMicros are 2000-01-01, PostgreSQL's epoch for
// dates and timestamps, counted from 1970-01-01.
const (
	pgEpochDays   = 10957
	pgEpochMicros = pgEpochDays * 86_400_000_000
)

// plan picks each column's encoding from its SQL type and the reader's
// type of its values, refusing a pair where the server would change a
// value on its way in (round a decimal or a time, truncate text): the
// reader checks every value against the column's type, so such a pair is
// a bug, never the input's fault.
func plan(cols []engine.Column, vecs []*input.Vector) ([]field, error) {
	if len(cols) != len(vecs) {
		return nil, fmt.Errorf("loading rows: %d columns, and the input has %d", len(cols), len(vecs))
	}
	fields := make([]field, len(cols))
	for i, c := range cols {
		ct, ok := parseColumnType(c.Type)
		v := vecs[i].Type
		f := field{name: c.Name}
		if ok {
			f.op = pick(ct, v, &f)
		}
		if f.op == 0 {
			return nil, fmt.Errorf("loading rows: column %q of type %s cannot take the reader's %s values exactly", c.Name, c.Type, v)
		}
		fields[i] = f
	}
	return fields, nil
}

// pick is the encoding of values of type v into a column of type ct (0:
// none is exact).
func pick(ct columnType, v input.Type, f *field) op {
	switch c := ct.Type; c.Kind {
	case input.Int:
		if v.Kind != input.Int {
			return 0
		}
		f.check = v.Bits > c.Bits
		switch c.Bits {
		case 16:
			return opInt2
		case 32:
			return opInt4
		}
		return opInt8
	case input.Decimal:
		return pickDecimal(c, v, f)
	case input.Float:
		switch {
		case v.Kind != input.Float || v.Bits > c.Bits:
			return 0
		case c.Bits == 32:
			return opFloat4
		}
		return opFloat8
	case input.Bool:
		if v.Kind == input.Bool {
			return opBool
		}
	case input.Date:
		if v.Kind == input.Date {
			return opDate
		}
	case input.Timestamp, input.TimestampTZ:
		if v.Kind == c.Kind && v.Precision <= c.Precision {
			return opTime
		}
	case input.Text:
		return pickText(c, v, f)
	case input.JSON:
		switch {
		case v.Kind != input.JSON:
			return 0
		case ct.jsonText:
			return opText
		}
		return opJSONB
	}
	return 0
}

// pickDecimal is pick for a numeric column c.
func pickDecimal(c, v input.Type, f *field) op {
	switch {
	case v.Kind == input.Int:
		return opIntNumeric
	case v.Kind != input.Decimal:
		return 0
	case c.Precision > 0 && (v.Precision == 0 || v.Scale > c.Scale):
		return 0 // the server would round the digits past the column's scale
	case v.IsAnyDecimal():
		return opAnyDecimal
	case v.IsBig():
		f.scale = v.Scale
		return opBigDecimal
	}
	f.scale = v.Scale
	return opDecimal
}

// pickText is pick for a text column c.
func pickText(c, v input.Type, f *field) op {
	if v.Kind != input.Text && v.Kind != input.JSON {
		return 0
	}
	if c.MaxChars > 0 && (v.Kind != input.Text || v.MaxChars == 0 || v.MaxChars > c.MaxChars) {
		// varchar(n) silently cuts trailing spaces past n.
		f.maxChars = c.MaxChars
	}
	return opText
}

// encodeRow appends row i of the batch: its field count, then each field
// as its length (-1 for NULL) and its bytes.
func (r *copyReader) encodeRow(i int) error {
	b := binary.BigEndian.AppendUint16(r.buf, uint16(len(r.fields)))
	for j := range r.fields {
		f := &r.fields[j]
		v := r.batch.Cols[j]
		if v.Null[i] {
			b = binary.BigEndian.AppendUint32(b, 0xffffffff)
			continue
		}
		switch f.op {
		case opInt2:
			x := v.Int[i]
			if f.check && (x < math.MinInt16 || x > math.MaxInt16) {
				return f.outOfRange(x, 16)
			}
			b = append(b, 0, 0, 0, 2, byte(x>>8), byte(x))
		case opInt4:
			x := v.Int[i]
			if f.check && (x < math.MinInt32 || x > math.MaxInt32) {
				return f.outOfRange(x, 32)
			}
			b = binary.BigEndian.AppendUint32(append(b, 0, 0, 0, 4), uint32(x))
		case opInt8:
			b = binary.BigEndian.AppendUint64(append(b, 0, 0, 0, 8), uint64(v.Int[i]))
		case opDate:
			b = binary.BigEndian.AppendUint32(append(b, 0, 0, 0, 4), uint32(int32(v.Int[i]-pgEpochDays)))
		case opTime:
			b = binary.BigEndian.AppendUint64(append(b, 0, 0, 0, 8), uint64(v.Int[i]-pgEpochMicros))
		case opFloat4:
			b = binary.BigEndian.AppendUint32(append(b, 0, 0, 0, 4), math.Float32bits(float32(v.Float[i])))
		case opFloat8:
			b = binary.BigEndian.AppendUint64(append(b, 0, 0, 0, 8), math.Float64bits(v.Float[i]))
		case opBool:
			x := byte(0)
			if v.Bool[i] {
				x = 1
			}
			b = append(b, 0, 0, 0, 1, x)
		case opText, opJSONB:
			var err error
			if b, err = f.appendText(b, v.Str[i]); err != nil {
				return err
			}
		case opIntNumeric, opDecimal, opBigDecimal, opAnyDecimal:
			b = r.appendDecimal(b, f, v, i)
		}
	}
	r.buf = b
	return nil
}

// appendText appends s as a text or jsonb field.
func (f *field) appendText(b []byte, s string) ([]byte, error) {
	if f.maxChars > 0 && len(s) > f.maxChars && utf8.RuneCountInString(s) > f.maxChars {
		return b, fmt.Errorf("loading rows: column %q: a value of %d characters, and the column holds %d", f.name, utf8.RuneCountInString(s), f.maxChars)
	}
	n := len(s)
	if f.op == opJSONB {
		n++
	}
	if n > math.MaxInt32 {
		return b, fmt.Errorf("loading rows: column %q: a value of %d bytes, more than a field holds", f.name, len(s))
	}
	b = binary.BigEndian.AppendUint32(b, uint32(n))
	if f.op == opJSONB {
		b = append(b, 1) // jsonb's binary format version
	}
	return append(b, s...), nil
}

// appendDecimal appends value i of v as a numeric field, by way of its
// digits in r.text.
func (r *copyReader) appendDecimal(b []byte, f *field, v *input.Vector, i int) []byte {
	switch f.op {
	case opBigDecimal:
		r.text = v.Big[i].Append(r.text[:0], 10)
	case opAnyDecimal:
		s := v.Str[i]
		r.text = append(r.text[:0], s...)
		scale := 0
		if k := strings.IndexByte(s, '.'); k >= 0 {
			scale = len(s) - k - 1
			r.text = append(r.text[:k], s[k+1:]...)
		}
		return r.appendNumeric(b, r.text, scale)
	default: // opIntNumeric, opDecimal
		r.text = appendDigits(r.text[:0], v.Int[i])
	}
	return r.appendNumeric(b, r.text, f.scale)
}

func (f *field) outOfRange(x int64, bits int) error {
	return fmt.Errorf("loading rows: column %q: %d is out of range for a %d-bit integer", f.name, x, bits)
}

// appendDigits appends x in decimal digits, a minus sign first when
// negative.
func appendDigits(b []byte, x int64) []byte {
	var tmp [20]byte
	i := len(tmp)
	u := uint64(x)
	if x < 0 {
		u = -u
	}
	for {
		i--
		tmp[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			break
		}
	}
	if x < 0 {
		b = append(b, '-')
	}
	return append(b, tmp[i:]...)
}

// appendNumeric appends a numeric field: the value is text (an optional
// minus sign and decimal digits, no point) times 10^-scale. numeric's
// binary form is its digits in base 10000, grouped from the decimal point,
// without leading or trailing zero groups: their count, the weight of the
// first (its power of 10000), the sign, the scale to display (dscale), and
// the groups.
func (r *copyReader) appendNumeric(b, text []byte, scale int) []byte {
	neg := len(text) > 0 && text[0] == '-'
	if neg {
		text = text[1:]
	}
	// Align the digits on a group boundary at the point: the integer part
	// padded with zeros on its left, the fraction (scale digits, zeros
	// first when the text is shorter) on its right, to multiples of 4.
	fracStart := len(text) - scale
	intLen := max(fracStart, 0)
	intGroups := (intLen + 3) / 4
	total := intGroups + (scale+3)/4
	leftPad := intGroups*4 - intLen
	digit := func(k int) int16 {
		k -= leftPad
		switch {
		case k < 0:
			return 0
		case k < intLen:
			return int16(text[k] - '0')
		}
		k -= intLen
		if k >= scale || fracStart+k < 0 {
			return 0
		}
		return int16(text[fracStart+k] - '0')
	}
	r.digits = r.digits[:0]
	for g := range total {
		k := g * 4
		r.digits = append(r.digits, digit(k)*1000+digit(k+1)*100+digit(k+2)*10+digit(k+3))
	}
	weight := intGroups - 1
	ds := r.digits
	for len(ds) > 0 && ds[0] == 0 {
		ds = ds[1:]
		weight--
	}
	for len(ds) > 0 && ds[len(ds)-1] == 0 {
		ds = ds[:len(ds)-1]
	}
	sign := uint16(0)
	if len(ds) == 0 {
		weight = 0
	} else if neg {
		sign = 0x4000
	}
	b = binary.BigEndian.AppendUint32(b, uint32(8+2*len(ds)))
	b = binary.BigEndian.AppendUint16(b, uint16(len(ds)))
	b = binary.BigEndian.AppendUint16(b, uint16(int16(weight)))
	b = binary.BigEndian.AppendUint16(b, sign)
	b = binary.BigEndian.AppendUint16(b, uint16(scale))
	for _, g := range ds {
		b = binary.BigEndian.AppendUint16(b, uint16(g))
	}
	return b
}
