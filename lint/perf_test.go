package lint

import (
	"strings"
	"testing"
)

// Linting stays near linear: quadratic work on these inputs (as before
// columns were counted incrementally) takes hours, past the test timeout;
// the time itself is never asserted.
func TestLargeInputEnds(t *testing.T) {
	for _, q := range []string{
		strings.Repeat("a ", 200000),
		strings.Repeat("x AS id ", 50000),
		strings.Repeat("(", 100000) + strings.Repeat(") AS id", 50000),
		strings.Repeat("é,", 100000),
		strings.Repeat("now(", 50000),
	} {
		lex := lexiconOf("postgres")
		reads := readings(q, lex.Rules)
		nondeterministic(q, reads, lex)
		generatedKeys(q, reads[0], []string{"id"}, lex.Funcs)
	}
}
