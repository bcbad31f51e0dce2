package input

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"time"

	"github.com/zeebo/xxh3"
)

// A database source's fingerprint is taken in Go, from the rows as the
// source sends them, while the reader reads them: no scan of what was
// staged. It is a hash of the multiset of rows:
//
//   - each row is encoded as its values in column order, each value a tag
//     byte then its payload: NULL 0x00; an integer (int64, uint64 or a
//     *big.Int alike) 'i', its decimal digits' length (uvarint), the
//     digits; a float (float32 widened exactly) 'f' and its IEEE-754
//     64-bit pattern, big-endian; a boolean 'b' and 0 or 1; text and
//     bytes (a decimal's exact text too) 's', the length (uvarint), the
//     bytes; a date or time 't', then the seconds (int64) and nanoseconds
//     (uint32) of its wall clock read as UTC, big-endian, where the wall
//     clock of an instant (TimestampTZ) is its UTC one;
//   - a row's hash is the XXH3 128-bit hash (seed 0) of its encoding, and
//     the rows' hashes are added modulo 2^128: the sum depends neither on
//     their order nor on how they were batched, and a repeated row counts
//     each time;
//   - the fingerprint is the first 16 bytes of SHA-256 over "idem-rows:1\n",
//     each column's name and source type ("name\x00TYPE\n"), the row count
//     in decimal and "\n", and the sum (16 bytes, big-endian), in hex.
//
// The source's values, not the target's, are hashed: the fingerprint of
// one source is the same whatever the target engine and its columns'
// types. It guards against accidental change, not a crafted collision, as
// the partition checksums do.

// RowsHash is the running fingerprint of a source's rows.
type RowsHash struct {
	cols   []Column
	n      int64
	hi, lo uint64 // the sum of the rows' hashes
	buf    []byte
}

// NewRowsHash starts the fingerprint of rows with columns cols.
func NewRowsHash(cols []Column) *RowsHash { return &RowsHash{cols: cols} }

// Add adds one row, its values as Rows.Next set them.
func (h *RowsHash) Add(row []any) {
	b := h.buf[:0]
	for i, v := range row {
		b = appendCanonical(b, v, h.cols[i].Type)
	}
	h.add(b)
}

// AddValues adds one row, its values as ValueRows.NextValues set them.
func (h *RowsHash) AddValues(row []Value) {
	b := h.buf[:0]
	for i := range row {
		b = appendCanonicalValue(b, &row[i], h.cols[i].Type)
	}
	h.add(b)
}

// add adds the row encoded as b.
func (h *RowsHash) add(b []byte) {
	h.buf = b
	s := xxh3.Hash128(b)
	var c uint64
	h.lo, c = bits.Add64(h.lo, s.Lo, 0)
	h.hi, _ = bits.Add64(h.hi, s.Hi, c)
	h.n++
}

// Rows is how many rows were added.
func (h *RowsHash) Rows() int64 { return h.n }

// Fingerprint is the fingerprint of the rows added so far.
func (h *RowsHash) Fingerprint() string {
	d := sha256.New()
	d.Write([]byte("idem-rows:1\n"))
	for _, c := range h.cols {
		fmt.Fprintf(d, "%s\x00%s\n", c.Name, c.Type)
	}
	fmt.Fprintf(d, "%d\n", h.n)
	var sum [16]byte
	binary.BigEndian.PutUint64(sum[:8], h.hi)
	binary.BigEndian.PutUint64(sum[8:], h.lo)
	d.Write(sum[:])
	return hex.EncodeToString(d.Sum(nil)[:16])
}

// appendCanonical appends v's encoding (see above); src is its column's
// type as the source reports it.
func appendCanonical(b []byte, v any, src Type) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, 0)
	case int64:
		return appendCanonicalInt(b, x)
	case uint64: // at most 20 digits
		b = append(b, 'i', 0)
		n := len(b)
		b = strconv.AppendUint(b, x, 10)
		b[n-1] = byte(len(b) - n)
		return b
	case *big.Int:
		d := x.Append(nil, 10)
		return append(binary.AppendUvarint(append(b, 'i'), uint64(len(d))), d...)
	case float64:
		return binary.BigEndian.AppendUint64(append(b, 'f'), math.Float64bits(x))
	case float32:
		return binary.BigEndian.AppendUint64(append(b, 'f'), math.Float64bits(float64(x)))
	case bool:
		if x {
			return append(b, 'b', 1)
		}
		return append(b, 'b', 0)
	case string:
		return append(binary.AppendUvarint(append(b, 's'), uint64(len(x))), x...)
	case []byte:
		return append(binary.AppendUvarint(append(b, 's'), uint64(len(x))), x...)
	case time.Time:
		return appendCanonicalTime(b, x, src)
	}
	// Not a value Rows hands over (the reader refuses it): its Go text.
	s := fmt.Sprintf("%T:%v", v, v)
	return append(binary.AppendUvarint(append(b, '?'), uint64(len(s))), s...)
}

// appendCanonicalValue appends a typed value's encoding: the same bytes
// as appendCanonical's of the value boxed.
func appendCanonicalValue(b []byte, v *Value, src Type) []byte {
	switch v.Kind {
	case IntValue:
		return appendCanonicalInt(b, v.Int)
	case FloatValue:
		return binary.BigEndian.AppendUint64(append(b, 'f'), math.Float64bits(v.Float))
	case BoolValue:
		if v.Bool {
			return append(b, 'b', 1)
		}
		return append(b, 'b', 0)
	case TextValue:
		return append(binary.AppendUvarint(append(b, 's'), uint64(len(v.Text))), v.Text...)
	case TimeValue:
		return appendCanonicalTime(b, v.Time, src)
	}
	return append(b, 0)
}

// appendCanonicalInt encodes an int64: at most 20 digits, so the length
// is one byte.
func appendCanonicalInt(b []byte, x int64) []byte {
	b = append(b, 'i', 0)
	n := len(b)
	b = strconv.AppendInt(b, x, 10)
	b[n-1] = byte(len(b) - n)
	return b
}

// appendCanonicalTime encodes a date or time.
func appendCanonicalTime(b []byte, x time.Time, src Type) []byte {
	sec := x.Unix()
	if src.Kind != TimestampTZ { // its wall clock, read as UTC
		_, off := x.Zone()
		sec += int64(off)
	}
	b = binary.BigEndian.AppendUint64(append(b, 't'), uint64(sec))
	return binary.BigEndian.AppendUint32(b, uint32(x.Nanosecond()))
}

// HashedRows are rows whose values are added to a RowsHash as they are
// read.
type HashedRows struct {
	Rows
	Hash *RowsHash
}

// HashRows wraps rows so that each row read is added to the returned
// rows' Hash.
func HashRows(rows Rows) *HashedRows {
	return &HashedRows{Rows: rows, Hash: NewRowsHash(rows.Columns())}
}

// Next reads the next row and adds it to the hash.
func (r *HashedRows) Next(dest []any) bool {
	if !r.Rows.Next(dest) {
		return false
	}
	r.Hash.Add(dest)
	return true
}

// Typed reports whether the rows hashed hand their values over typed.
func (r *HashedRows) Typed() bool { return IsTyped(r.Rows) }

// NextValues reads the next row typed and adds it to the hash.
func (r *HashedRows) NextValues(dest []Value) bool {
	if !r.Rows.(ValueRows).NextValues(dest) {
		return false
	}
	r.Hash.AddValues(dest)
	return true
}
