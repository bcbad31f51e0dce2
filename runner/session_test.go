package runner

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNormalizeSum(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"0", "0000000000000000"},
		{"255", "00000000000000ff"},
		{"18446744073709551616", "0000000000000000"}, // 2^64 wraps
		{"18446744073709551617", "0000000000000001"},
		{"-1", "ffffffffffffffff"}, // a signed hash sum wraps the same way
		{" 42 ", "000000000000002a"},
	} {
		require.Equal(t, tc.want, normalizeSum(tc.in), tc.in)
	}
}
