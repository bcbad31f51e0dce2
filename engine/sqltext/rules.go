// Package sqltext reads SQL text the way an engine's lexer does: where a
// string, a quoted identifier or a comment starts and ends, which decides
// whether now() is code or text. Each engine describes its lexer (Rules)
// and lists the functions whose value changes from run to run (Catalogue)
// in a Lexicon it registers with its driver; lint and `idem checksum
// --where` read SQL through this package only.
//
// It is a lexer, not a parser: it needs only quotes and comments right,
// which every engine spells in a few ways, where a parser would serve one
// dialect.
package sqltext

import "strings"

// Rule is a lexical rule an engine applies always, never, or depending on a
// setting of the server or session that the text does not show.
type Rule uint8

// Rules. For the two that depend on a setting, text is read both ways (see
// Rules.Readings), the way the name says first: the way idem's own
// sessions read it.
const (
	No Rule = iota
	Yes
	NoUnlessSet  // no, unless a setting turns it on
	YesUnlessSet // yes, unless a setting turns it off
)

// on is the rule's first reading.
func (r Rule) on() bool { return r == Yes || r == YesUnlessSet }

// ways are the readings of r, its first reading first.
func (r Rule) ways() []Rule {
	switch r {
	case NoUnlessSet:
		return []Rule{No, Yes}
	case YesUnlessSet:
		return []Rule{Yes, No}
	}
	return []Rule{r}
}

// Rules are one engine's lexical rules: what its quotes, backslashes and
// comments mean.
type Rules struct {
	// Backslash: a backslash escapes the next character in '…' (and in
	// "…" where that is a string). PostgreSQL: no, unless
	// standard_conforming_strings is off; MySQL: no in idem's sessions
	// (sql_mode NO_BACKSLASH_ESCAPES), yes by a server's default;
	// ClickHouse: yes.
	Backslash Rule
	// EscapeStrings: E'…' is a string in which a backslash always escapes
	// (PostgreSQL, DuckDB).
	EscapeStrings bool
	// DoubleQuoted: "…" is a string, not an identifier (MySQL by a
	// server's default; not in idem's sessions, whose sql_mode has
	// ANSI_QUOTES).
	DoubleQuoted Rule
	// IdentBackslash: a backslash escapes in quoted identifiers too
	// (ClickHouse).
	IdentBackslash bool
	// Backtick: `…` quotes an identifier (MySQL, ClickHouse).
	Backtick bool
	// Dollar: $tag$…$tag$ quotes a string (PostgreSQL, DuckDB; ClickHouse's
	// heredocs).
	Dollar Rule
	// AnyTag: a dollar quote's tag is any text up to the next dollar, and a
	// dollar that starts no closed quote is plain (ClickHouse). Otherwise a
	// tag is an identifier or empty, and an unclosed quote runs to the end.
	AnyTag bool
	// NestedComments: /* inside a block comment opens another, which needs
	// its own */ (PostgreSQL, DuckDB, ClickHouse).
	NestedComments bool
	// DashSpace: -- starts a comment only before white space, a control
	// character or the end (MySQL, where 1--1 is 1 - -1).
	DashSpace bool
	// Hash: # starts a comment to the end of the line (MySQL); with
	// HashSpace only before a space or '!' (ClickHouse).
	Hash, HashSpace bool
	// SlashSlash: // starts a comment to the end of the line (ClickHouse;
	// DuckDB's // is integer division).
	SlashSlash bool
	// RunComments: /*! … */ and MariaDB's /*M! … */ hold code the server
	// runs; only their markers are comments (MySQL, MariaDB).
	RunComments bool
	// Templates: {{ … }} is one token, an idem template that becomes a
	// literal before the query runs. Not an engine's rule: lint sets it for
	// job queries.
	Templates bool
}

// Unknown are the rules for an engine that registers none: every reading
// of backslashes and dollar quotes the known engines may take, # as a
// comment, and no backtick identifiers.
var Unknown = Rules{
	Backslash:      NoUnlessSet,
	EscapeStrings:  true,
	Dollar:         YesUnlessSet,
	NestedComments: true,
	Hash:           true,
}

// ReadingsOf returns the readings of r (see Readings) that may read s
// differently: a rule whose character s lacks (a backslash, a double
// quote, a dollar) reads s one way only.
func (r Rules) ReadingsOf(s string) []Rules {
	fix := func(rule *Rule, c string) {
		if !strings.Contains(s, c) {
			*rule = rule.ways()[0]
		}
	}
	fix(&r.Backslash, `\`)
	fix(&r.DoubleQuoted, `"`)
	fix(&r.Dollar, "$")
	return r.Readings()
}

// Readings returns r once for each way the rules that depend on a setting
// may read text, each such rule fixed to Yes or No: one Rules when none
// depends on a setting. The first is the way the rules name first (idem's
// own sessions). A scan that must see everything the engine may read as
// code reads the text every way.
func (r Rules) Readings() []Rules {
	var out []Rules
	for _, b := range r.Backslash.ways() {
		for _, d := range r.DoubleQuoted.ways() {
			for _, q := range r.Dollar.ways() {
				x := r
				x.Backslash, x.DoubleQuoted, x.Dollar = b, d, q
				out = append(out, x)
			}
		}
	}
	return out
}
