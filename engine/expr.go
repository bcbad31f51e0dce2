package engine

import (
	"errors"
	"fmt"
	"strings"
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
// Engines disagree on where a literal ends: whether a backslash escapes a
// quote (PostgreSQL's E'…' strings, MySQL) and whether $$…$$ quotes
// (PostgreSQL, DuckDB; not MySQL). s is scanned under every combination and
// must pass all, so whichever rules the engine uses, it sees no text outside
// literals that a scan did not check.
func CheckExpression(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("is empty: give one SQL condition, like \"status = 'shipped'\"")
	}
	for _, m := range []scanMode{{dollar: true}, {}, {backslash: true, dollar: true}, {backslash: true}} {
		if err := scanExpr(s, m); err != nil {
			return err
		}
	}
	return nil
}

// scanMode is one set of rules for where literals end. The first mode
// scanned (standard SQL with dollar quotes) also requires every literal and
// parenthesis closed; under the others, text that looks unclosed at the end
// was closed earlier under the standard rules, which checked the rest.
type scanMode struct {
	backslash bool // a backslash escapes the next character in '…' and "…"
	dollar    bool // $$…$$ and $tag$…$tag$ are literals
}

// clauseWords cannot appear outside parentheses in a condition: they would
// continue the statement, not the expression. All are reserved words, so
// none is an unquoted column name.
var clauseWords = map[string]bool{
	"SELECT": true, "UNION": true, "INTERSECT": true, "EXCEPT": true,
	"WHERE": true, "GROUP": true, "HAVING": true, "ORDER": true, "LIMIT": true,
	"OFFSET": true, "INTO": true, "RETURNING": true, "WINDOW": true,
}

// scanExpr walks s outside literals, under the rules of m.
func scanExpr(s string, m scanMode) error {
	strict := m == scanMode{dollar: true}
	depth := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			end := closeQuote(s, i, c, m.backslash)
			if end < 0 {
				if !strict {
					return nil
				}
				what := "string literal"
				if c == '"' {
					what = "quoted identifier"
				}
				return fmt.Errorf("has a %s that is not closed", what)
			}
			i = end + 1
			continue
		case c == '$' && m.dollar:
			if tag, ok := dollarTag(s[i:]); ok {
				end := strings.Index(s[i+len(tag):], tag)
				if end < 0 {
					if !strict {
						return nil
					}
					return fmt.Errorf("has a %s…%s string that is not closed", tag, tag)
				}
				i += 2*len(tag) + end
				continue
			}
		case c == ';':
			return errors.New("contains ';': it must be one condition, not several statements")
		case c == '-' && strings.HasPrefix(s[i:], "--"), c == '/' && strings.HasPrefix(s[i:], "/*"), c == '#':
			return errors.New("contains a comment (--, /* or #): it must be one condition, and a comment could hide the rest of the query")
		case c == '`':
			return errors.New("contains '`': quote identifiers with double quotes")
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return errors.New("closes a parenthesis it did not open: it must be one condition")
			}
		case isWordStart(c):
			j := i
			for j < len(s) && isWordPart(s[j]) {
				j++
			}
			if (s[i:j] == "E" || s[i:j] == "e") && j < len(s) && s[j] == '\'' {
				// An escape string, E'…': backslashes escape under every rule.
				end := closeQuote(s, j, '\'', true)
				if end < 0 {
					if !strict {
						return nil
					}
					return errors.New("has a string literal that is not closed")
				}
				i = end + 1
				continue
			}
			if depth == 0 && clauseWords[strings.ToUpper(s[i:j])] {
				return fmt.Errorf("has %s outside parentheses: it must be one condition (a subquery goes in parentheses)", strings.ToUpper(s[i:j]))
			}
			i = j
			continue
		}
		i++
	}
	if depth > 0 && strict {
		return errors.New("opens a parenthesis it does not close")
	}
	return nil
}

// closeQuote returns the index of the quote closing the literal opened at
// s[open], or -1. A doubled quote is an escaped one.
func closeQuote(s string, open int, q byte, backslash bool) int {
	for i := open + 1; i < len(s); i++ {
		switch {
		case backslash && s[i] == '\\':
			i++
		case s[i] == q:
			if i+1 < len(s) && s[i+1] == q {
				i++
				continue
			}
			return i
		}
	}
	return -1
}

// dollarTag returns the $tag$ that starts s, if it starts a dollar-quoted
// string ($$…$$ or $name$…$name$; $1 is a parameter).
func dollarTag(s string) (string, bool) {
	if len(s) < 2 {
		return "", false
	}
	if s[1] == '$' {
		return "$$", true
	}
	if !isWordStart(s[1]) {
		return "", false
	}
	j := 1
	for j < len(s) && isWordPart(s[j]) && s[j] != '$' {
		j++
	}
	if j < len(s) && s[j] == '$' {
		return s[:j+1], true
	}
	return "", false
}

func isWordStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isWordPart(c byte) bool {
	return isWordStart(c) || c >= '0' && c <= '9' || c == '$'
}
