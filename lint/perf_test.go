package lint

import (
	"strings"
	"testing"
	"time"
)

// Linting stays near linear: before columns were counted incrementally, the
// first input took minutes (the bound is loose for a busy machine; quadratic
// work on these inputs takes far longer).
func TestLargeInputIsFast(t *testing.T) {
	for _, q := range []string{
		strings.Repeat("a ", 200000),
		strings.Repeat("x AS id ", 50000),
		strings.Repeat("(", 100000) + strings.Repeat(") AS id", 50000),
		strings.Repeat("é,", 100000),
	} {
		start := time.Now()
		toks := Tokenize(q, Postgres)
		nondeterministic(q, toks)
		generatedKeys(q, toks, []string{"id"})
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%.20q…: %s", q, d)
		}
	}
}
