package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/idemdata/idem/engine/sqltext"
)

// CheckExpression checks that s, a user's SQL condition (`idem checksum
// --where`), is one expression that stays one when wrapped as WHERE (s): no
// statement separator or comment outside string literals and quoted
// identifiers, parentheses that never close more than they opened, and no
// top-level query clause. It is a lexical check, not a parser: the engine
// parses what passes, on a connection that cannot write (the real guard;
// this one turns an injection into a clear error instead of a second
// statement).
//
// s is read by r, the engine's rules (LexiconOf, LexiconFor). Where a rule
// depends on a setting of the server (whether a backslash escapes a quote,
// whether "…" is a string), s is read every way and must pass each, so
// that the engine, whatever its settings, sees no text outside literals
// that was not checked. The first reading also requires every literal and
// parenthesis closed; under the others, text that looks unclosed at the
// end was closed under the first, which checked the rest.
func CheckExpression(s string, r sqltext.Rules) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("is empty: give one SQL condition, like \"status = 'shipped'\"")
	}
	r.Templates = false // {{ is no template here: it is checked like any text
	for i, rr := range r.ReadingsOf(s) {
		if err := checkTokens(sqltext.Tokenize(s, rr), rr, i == 0); err != nil {
			return err
		}
	}
	return nil
}

// clauseWords cannot appear outside parentheses in a condition: they would
// continue the statement, not the expression. All are reserved words, so
// none is an unquoted column name.
var clauseWords = map[string]bool{
	"SELECT": true, "UNION": true, "INTERSECT": true, "EXCEPT": true,
	"WHERE": true, "GROUP": true, "HAVING": true, "ORDER": true, "LIMIT": true,
	"OFFSET": true, "INTO": true, "RETURNING": true, "WINDOW": true,
}

var errComment = errors.New("contains a comment (--, /*, # or //): it must be one condition, and a comment could hide the rest of the query")

// checkTokens checks one reading of the condition; strict is the first.
func checkTokens(toks []sqltext.Token, r sqltext.Rules, strict bool) error {
	depth := 0
	for _, t := range toks {
		switch t.Kind {
		case sqltext.Comment:
			return errComment
		case sqltext.String, sqltext.QuotedIdent:
			if !t.Unclosed {
				continue
			}
			if !strict {
				return nil
			}
			switch {
			case t.Kind == sqltext.QuotedIdent:
				return errors.New("has a quoted identifier that is not closed")
			case strings.HasPrefix(t.Text, "$"):
				tag := t.Text[:strings.IndexByte(t.Text[1:], '$')+2]
				return fmt.Errorf("has a %s…%s string that is not closed", tag, tag)
			}
			return errors.New("has a string literal that is not closed")
		case sqltext.Punct:
			switch t.Text {
			case ";":
				return errors.New("contains ';': it must be one condition, not several statements")
			case "#":
				// Not a comment here (ClickHouse's # before a letter), but
				// nothing a condition needs where # can start one.
				if r.Hash {
					return errComment
				}
			case "`":
				return errors.New("contains '`': quote identifiers with double quotes")
			case "(":
				depth++
			case ")":
				depth--
				if depth < 0 {
					return errors.New("closes a parenthesis it did not open: it must be one condition")
				}
			}
		case sqltext.Word:
			if w := strings.ToUpper(t.Text); depth == 0 && clauseWords[w] {
				return fmt.Errorf("has %s outside parentheses: it must be one condition (a subquery goes in parentheses)", w)
			}
		}
	}
	if depth > 0 && strict {
		return errors.New("opens a parenthesis it does not close")
	}
	return nil
}
