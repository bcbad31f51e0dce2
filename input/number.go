package input

import (
	"bytes"
	"math"
	"math/big"
	"strconv"
	"unsafe"
)

// number is the shape of a number's text: JSON's grammar,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, in CSV and JSON alike. A
// plus sign, a leading zero (02134: a code, not a number), a bare point
// (.5, 5.) or spaces make text instead.
type number struct {
	neg    bool
	intg   []byte // digits before the point
	frac   []byte // digits after the point
	hasExp bool
	exp    int // the exponent, clamped to ±1e6
}

// scanNumber reads b as a number, or reports it is not one.
func scanNumber(b []byte) (number, bool) {
	var n number
	i := 0
	if i < len(b) && b[i] == '-' {
		n.neg = true
		i++
	}
	start := i
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	n.intg = b[start:i]
	if len(n.intg) == 0 || len(n.intg) > 1 && n.intg[0] == '0' {
		return n, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		start = i
		for i < len(b) && isDigit(b[i]) {
			i++
		}
		n.frac = b[start:i]
		if len(n.frac) == 0 {
			return n, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		n.hasExp = true
		i++
		eneg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			eneg = b[i] == '-'
			i++
		}
		start = i
		for i < len(b) && isDigit(b[i]) {
			if n.exp < 1e6 {
				n.exp = n.exp*10 + int(b[i]-'0')
			}
			i++
		}
		if i == start {
			return n, false
		}
		if eneg {
			n.exp = -n.exp
		}
	}
	return n, i == len(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isInt reports a number without a fraction or an exponent.
func (n number) isInt() bool { return len(n.frac) == 0 && !n.hasExp }

// digits is the number's significant digits (no leading or trailing
// zeros), appended to buf, and the exponent e such that its value is
// 0.digits × 10^e; none for zero.
func (n number) digits(buf []byte) ([]byte, int) {
	all := append(buf, n.intg...)
	all = append(all, n.frac...)
	e := len(n.intg) + n.exp
	i := 0
	for i < len(all) && all[i] == '0' {
		i++
		e--
	}
	all = all[i:]
	j := len(all)
	for j > 0 && all[j-1] == '0' {
		j--
	}
	if j == 0 {
		return all[:0], 0
	}
	return all[:j], e
}

// shape is digits' length and exponent without building the digits: the
// significant digits' count n and the exponent e (value = 0.d × 10^e),
// n 0 for zero.
func (n number) shape() (count, e int) {
	first, last := -1, -1 // positions in intg+frac of the first and last nonzero digit
	total := len(n.intg) + len(n.frac)
	for i := 0; i < total; i++ {
		c := n.digitAt(i)
		if c != '0' {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 0, 0
	}
	return last - first + 1, len(n.intg) + n.exp - first
}

func (n number) digitAt(i int) byte {
	if i < len(n.intg) {
		return n.intg[i]
	}
	return n.frac[i-len(n.intg)]
}

// scale is the number of digits after the point the value needs as
// written (1.50: 2; 1.5e1: 0; 15e-1: 1), at least 0.
func (n number) scale() int { return max(len(n.frac)-n.exp, 0) }

// intDigits is the number of digits before the point, as written with the
// exponent applied (0.5: 0; 12.5: 2).
func (n number) intDigits() int {
	count, e := n.shape()
	if count == 0 {
		return 0
	}
	return max(e, 0)
}

// sigDigits counts the significant digits.
func (n number) sigDigits() int {
	count, _ := n.shape()
	return count
}

// asString views b as a string without copying, for a call that keeps no
// reference to it.
func asString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// int64Of returns the integer n (isInt) as an int64 of bits, or why not.
func int64Of(b []byte, bits int) (int64, error) {
	v, err := strconv.ParseInt(asString(b), 10, bits)
	if err != nil {
		lo, hi := int64(-1)<<(bits-1), int64(math.MaxInt64)>>(64-bits)
		return 0, reasonf("is out of range for a %d-bit integer (%d to %d)", bits, lo, hi)
	}
	return v, nil
}

// float64Of returns n (its text b) as a float of bits when the float reads
// back as the same number (0.1 does: its shortest text is 0.1), or why not.
// Every number of at most 15 significant digits within the range does.
func float64Of(b []byte, n number, bits int) (float64, error) {
	f, err := strconv.ParseFloat(asString(b), bits)
	if err != nil || math.IsInf(f, 0) {
		return 0, reasonf("is beyond the range of a %s", floatName(bits))
	}
	if f == 0 {
		if count, _ := n.shape(); count != 0 {
			return 0, reasonf("is beyond the range of a %s (it would be stored as 0)", floatName(bits))
		}
		return 0, nil // -0 too: engines differ on keeping its sign
	}
	count, e := n.shape()
	limit := 15
	if bits == 32 {
		limit = 6
	}
	// Within the normal range, DBL_DIG (FLT_DIG) digits always read back.
	if count <= limit && e > -300 && e < 300 && (bits == 64 || e > -30 && e < 30) {
		return f, nil
	}
	sig, _ := n.digits(nil)
	back := strconv.AppendFloat(nil, f, 'e', -1, bits)
	m, _ := scanNumber(back)
	bd, be := m.digits(nil)
	if !bytes.Equal(bd, sig) || be != e {
		return 0, reasonf("cannot be held exactly by a %s (it would read back as %s)", floatName(bits), back)
	}
	return f, nil
}

func floatName(bits int) string {
	if bits == 32 {
		return "REAL"
	}
	return "DOUBLE"
}

// decimalOf returns n as the unscaled integer of DECIMAL(p, s): an int64
// when p ≤ 18, else a *big.Int. A value that needs more digits after the
// point than s, or more before it than p-s, is refused: a DECIMAL column
// would round or refuse it.
func decimalOf(n number, p, s int) (small int64, large *big.Int, err error) {
	var stack [40]byte // a DECIMAL's digits, mostly: none allocated
	d, e := n.digits(stack[:0])
	if len(d) == 0 {
		if p > 18 {
			return 0, new(big.Int), nil
		}
		return 0, nil, nil
	}
	// value = 0.d × 10^e = d × 10^(e-len(d)); unscaled at s: d × 10^(e-len(d)+s)
	shift := e - len(d) + s
	if shift < 0 {
		return 0, nil, reasonf("has more than %d digits after the point (DECIMAL(%d,%d))", s, p, s)
	}
	if e > p-s {
		return 0, nil, reasonf("has more than %d digits before the point (DECIMAL(%d,%d))", p-s, p, s)
	}
	if p <= 18 {
		var v int64
		for i := 0; i < len(d); i++ {
			v = v*10 + int64(d[i]-'0')
		}
		for range shift {
			v *= 10
		}
		if n.neg {
			v = -v
		}
		return v, nil, nil
	}
	v, _ := new(big.Int).SetString(string(d), 10)
	if shift > 0 {
		v.Mul(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(shift)), nil))
	}
	if n.neg {
		v.Neg(v)
	}
	return 0, v, nil
}

// FormatDecimal is the canonical text of DECIMAL(·, scale)'s unscaled
// value: digits, a point and scale digits after it (none for scale 0).
func FormatDecimal(unscaled *big.Int, scale int) string {
	s := new(big.Int).Abs(unscaled).String()
	return decimalText(s, unscaled.Sign() < 0, scale)
}

// FormatDecimal64 is FormatDecimal for an int64 unscaled value.
func FormatDecimal64(unscaled int64, scale int) string {
	neg := unscaled < 0
	u := uint64(unscaled)
	if neg {
		u = -u
	}
	return decimalText(strconv.FormatUint(u, 10), neg, scale)
}

func decimalText(s string, neg bool, scale int) string {
	if scale > 0 {
		if len(s) <= scale {
			s = zeros(scale-len(s)+1) + s
		}
		s = s[:len(s)-scale] + "." + s[len(s)-scale:]
	}
	if neg && s != "0" && trimZeros(s) != "" {
		s = "-" + s
	}
	return s
}

func zeros(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '0'
	}
	return string(b)
}

// trimZeros drops zeros and the point, so "" means the text was zero.
func trimZeros(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '0' && s[i] != '.' {
			out = append(out, s[i])
		}
	}
	return string(out)
}

// FormatFloat is the canonical text of a float of bits: the shortest that
// reads back as the same value.
func FormatFloat(f float64, bits int) string { return strconv.FormatFloat(f, 'g', -1, bits) }

// maxPlainDigits bounds a decimal of any precision written out in full
// (1e100000 would otherwise be a hundred thousand digits).
const maxPlainDigits = 1000

// plainDecimal is n written out in plain digits, its scale as written
// (1.50 stays 1.50; 1.5e2 is 150), for a decimal column of any precision.
func plainDecimal(n number) ([]byte, error) {
	digits := make([]byte, 0, len(n.intg)+len(n.frac))
	digits = append(digits, n.intg...)
	digits = append(digits, n.frac...)
	point := len(n.intg) + n.exp // digits before the point
	if point > maxPlainDigits || len(digits)-point > maxPlainDigits {
		return nil, reasonf("has more than %d digits written out", maxPlainDigits)
	}
	var intPart, fracPart []byte
	switch {
	case point <= 0:
		intPart = []byte("0")
		fracPart = append(bytes.Repeat([]byte("0"), -point), digits...)
	case point >= len(digits):
		intPart = append(digits, bytes.Repeat([]byte("0"), point-len(digits))...)
	default:
		intPart, fracPart = digits[:point], digits[point:]
	}
	for len(intPart) > 1 && intPart[0] == '0' {
		intPart = intPart[1:]
	}
	out := make([]byte, 0, len(intPart)+len(fracPart)+2)
	zero := len(bytes.Trim(append(append([]byte{}, intPart...), fracPart...), "0")) == 0
	if n.neg && !zero {
		out = append(out, '-')
	}
	out = append(out, intPart...)
	if len(fracPart) > 0 {
		out = append(out, '.')
		out = append(out, fracPart...)
	}
	return out, nil
}
