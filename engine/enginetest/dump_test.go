package enginetest

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem/input"
)

// Values that are equal render alike, and values that differ do not: a
// dump that rendered two values alike would hide a difference between
// engines.
func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"1.50": "1.5", "15e-1": "1.5", "1.5": "1.5", "-0": "0", "-0.0": "0", "0e0": "0", "1E+5": "100000",
		"1e21": "1000000000000000000000", "-0.000001": "-0.000001", "12345678901234567890123": "12345678901234567890123",
		"1234567890123456789012345678.0123456789": "1234567890123456789012345678.0123456789", "7": "7", "-2.50": "-2.5",
	} {
		got, err := CanonicalNumber(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err := CanonicalNumber("1/3")
	require.Error(t, err, "not a decimal number")

	for in, want := range map[string]string{
		`{"b":1,"a":[1.10,1e2]}`:    `json:{"a":[1.1,100],"b":1}`,
		`{"a": [1.1, 100], "b":1}`:  `json:{"a":[1.1,100],"b":1}`,
		`"x"`:                       `json:"x"`,
		`[12345678901234567890123]`: `json:[12345678901234567890123]`,
		`{"é":"\u00e9<&>"}`:         `json:{"é":"é<&>"}`,
		`null`:                      `json:null`,
	} {
		got, err := CanonicalJSON(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err = CanonicalJSON(`{"a":1} x`)
	require.Error(t, err)

	at := time.Date(2026, 1, 8, 10, 0, 0, 123456000, time.FixedZone("", 3600))
	for _, c := range []struct {
		v    any
		t    input.Type
		want string
	}{
		{"x ", input.TextType, `"x "`},
		{[]byte(`"x"`), input.JSONType, `json:"x"`},
		{"x", input.TextType, `"x"`},
		{[]byte{1}, input.BoolType, "true"},
		{[]byte{0}, input.BoolType, "false"},
		{"t", input.BoolType, "true"},
		{int64(0), input.BoolType, "false"},
		{float32(0.1), input.Type{Kind: input.Float, Bits: 32}, "0.1"},
		{0.1, input.DoubleType, "0.1"},
		{"1e+21", input.DoubleType, "1e+21"},
		{big.NewInt(-5), input.DecimalType(38, 0), "-5"},
		{"1.50", input.DecimalType(12, 2), "1.5"},
		{at, input.TimestampTZType, "2026-01-08 09:00:00.123456"},
		{at, input.TimestampType, "2026-01-08 10:00:00.123456"},
		{"2026-01-08 10:00:00", input.TimestampType, "2026-01-08 10:00:00.000000"},
		{at, input.DateType, "2026-01-08"},
		{nil, input.TextType, "NULL"},
	} {
		got, err := canonical(c.v, c.t)
		require.NoError(t, err, "%v", c.v)
		require.Equal(t, c.want, got, "%v as %s", c.v, c.t)
	}
	_, err = canonical(1.5, input.DecimalType(12, 2))
	require.Error(t, err, "a float for an exact number")
}

// A column that is JSON on one engine and text on another (ClickHouse
// keeps JSON in a String) compares by value; text that is no JSON stays
// text, and so differs.
func TestAlignJSON(t *testing.T) {
	pg := &Dump{Cols: []DumpColumn{{Name: "j", Kind: "json"}}, Rows: [][]string{{`json:{"a":1,"b":2}`}, {`json:"abc"`}, {"NULL"}}}
	ch := &Dump{Cols: []DumpColumn{{Name: "j", Kind: "text"}}, Rows: [][]string{{`"{\"b\":2,\"a\":1}"`}, {`"abc"`}, {"NULL"}}}
	AlignJSON(pg, ch)
	require.Equal(t, []string{"j json", "NULL", `json:"abc"`, `json:{"a":1,"b":2}`}, pg.Lines())
	require.Equal(t, []string{"j json", `"abc"`, "NULL", `json:{"a":1,"b":2}`}, ch.Lines())
}
