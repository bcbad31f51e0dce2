package lint

import (
	"strings"
	"unicode/utf8"
)

// Dialect selects the lexical rules of one engine's SQL. They differ in
// what a quote, a backslash and a comment mean, which is exactly what
// decides whether "now()" is code or text.
type Dialect int

// Dialects. DuckDB's parser descends from PostgreSQL's and shares its
// lexical rules; they are separate so a test names the engine it covers.
const (
	Postgres Dialect = iota
	DuckDB
	MySQL
)

func (d Dialect) String() string {
	switch d {
	case Postgres:
		return "postgres"
	case DuckDB:
		return "duckdb"
	case MySQL:
		return "mysql"
	}
	return "unknown"
}

// DialectOf maps an engine name (job.SplitURL's) to its dialect.
func DialectOf(engineName string) Dialect {
	switch engineName {
	case "postgres":
		return Postgres
	case "mysql":
		return MySQL
	}
	return DuckDB
}

// Kind is what a token is.
type Kind int

// Token kinds.
const (
	Word        Kind = iota // keyword or unquoted identifier
	QuotedIdent             // "x", or `x` in MySQL
	String                  // '…', E'…', $tag$…$tag$, and "…" in MySQL
	Number
	Punct    // one character (or ::), such as ( ) , . ;
	Comment  // -- …, /* … */, and # … in MySQL
	Template // {{ … }}: an idem template, replaced by a literal before the query runs
	Param    // $1
)

var kindNames = [...]string{"word", "quoted identifier", "string", "number", "punctuation", "comment", "template", "parameter"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "?"
}

// Token is one lexical unit of SQL with its position.
type Token struct {
	Kind Kind
	// Text is the token as written, quotes included.
	Text string
	// Off is the byte offset in the input; Line and Col are 0-based, Col
	// counted in characters (as YAML counts columns), not bytes.
	Off, Line, Col int
	// Unclosed is true for a string, quoted identifier, comment or
	// template that runs to the end of the input.
	Unclosed bool
}

// Value is a string's or quoted identifier's content without quotes and
// with doubled quotes undone (backslash escapes are left as written). For
// other kinds it is Text.
func (t Token) Value() string {
	s := t.Text
	switch t.Kind {
	case String:
		if strings.HasPrefix(s, "$") {
			tag := s[:strings.IndexByte(s[1:], '$')+2]
			s = strings.TrimPrefix(s, tag)
			return strings.TrimSuffix(s, tag)
		}
		if len(s) > 0 && (s[0] == 'E' || s[0] == 'e') {
			s = s[1:]
		}
	case QuotedIdent:
	default:
		return s
	}
	if len(s) == 0 {
		return ""
	}
	q := s[:1]
	s = s[1:]
	if !t.Unclosed {
		s = strings.TrimSuffix(s, q)
	}
	return strings.ReplaceAll(s, q+q, q)
}

// Tokenize splits sql into tokens under dialect d, skipping whitespace.
// It never fails: text it cannot make sense of becomes Punct tokens, and a
// literal or comment left open runs to the end of the input (Unclosed).
func Tokenize(sql string, d Dialect) []Token {
	tz := tokenizer{s: sql, d: d}
	var out []Token
	for {
		t, ok := tz.next()
		if !ok {
			return out
		}
		out = append(out, t)
	}
}

type tokenizer struct {
	s         string
	d         Dialect
	i         int
	line      int
	lineStart int // byte offset where the current line starts
	colOff    int // byte offset whose column is col
	col       int
}

func (z *tokenizer) next() (Token, bool) {
	s := z.s
	for z.i < len(s) && isSpace(s[z.i]) {
		if s[z.i] == '\n' {
			z.line++
			z.lineStart = z.i + 1
		}
		z.i++
	}
	if z.i >= len(s) {
		return Token{}, false
	}
	start := z.i
	// Columns are counted from the previous token on the same line, not
	// from the line's start: a long one-line query stays linear.
	if z.colOff < z.lineStart {
		z.colOff, z.col = z.lineStart, 0
	}
	z.col += utf8.RuneCountInString(s[z.colOff:start])
	z.colOff = start
	t := Token{Off: start, Line: z.line, Col: z.col}
	c := s[start]
	rest := s[start:]
	switch {
	case strings.HasPrefix(rest, "{{"):
		t.Kind = Template
		t.Unclosed = !z.until(start+2, "}}")
	case strings.HasPrefix(rest, "--") && (z.d != MySQL || len(rest) == 2 || isSpace(rest[2])):
		// MySQL needs a space after --: 1--1 is one minus minus one.
		t.Kind = Comment
		z.toLineEnd()
	case c == '#' && z.d == MySQL:
		t.Kind = Comment
		z.toLineEnd()
	case strings.HasPrefix(rest, "/*"):
		t.Kind = Comment
		t.Unclosed = !z.blockComment(z.d != MySQL)
	case c == '\'':
		t.Kind = String
		t.Unclosed = !z.quoted(start, '\'', z.d == MySQL)
	case (c == 'E' || c == 'e') && len(rest) > 1 && rest[1] == '\'' && z.d != MySQL:
		// E'…': a PostgreSQL escape string, where \' does not end it.
		t.Kind = String
		t.Unclosed = !z.quoted(start+1, '\'', true)
	case c == '"':
		// A double quote makes an identifier, except in MySQL (without
		// ANSI_QUOTES), where it makes a string with backslash escapes.
		t.Kind = QuotedIdent
		if z.d == MySQL {
			t.Kind = String
		}
		t.Unclosed = !z.quoted(start, '"', z.d == MySQL)
	case c == '`' && z.d == MySQL:
		t.Kind = QuotedIdent
		t.Unclosed = !z.quoted(start, '`', false)
	case c == '$' && z.d != MySQL && dollarTag(rest) != "":
		tag := dollarTag(rest)
		t.Kind = String
		t.Unclosed = !z.until(start+len(tag), tag)
	case c == '$' && len(rest) > 1 && isDigit(rest[1]):
		t.Kind = Param
		z.i++
		for z.i < len(s) && isDigit(s[z.i]) {
			z.i++
		}
	case isDigit(c) || (c == '.' && len(rest) > 1 && isDigit(rest[1])):
		t.Kind = Number
		z.number()
	case isWordStart(c):
		t.Kind = Word
		for z.i < len(s) && isWordPart(s[z.i]) {
			z.i++
		}
	case strings.HasPrefix(rest, "::"):
		t.Kind = Punct
		z.i += 2
	default:
		t.Kind = Punct
		_, n := utf8.DecodeRuneInString(rest)
		z.i += n
	}
	t.Text = s[start:z.i]
	z.countLines(start)
	return t, true
}

// countLines advances the line counter over the token just read.
func (z *tokenizer) countLines(from int) {
	for k := from; k < z.i; k++ {
		if z.s[k] == '\n' {
			z.line++
			z.lineStart = k + 1
		}
	}
}

// until moves past the first end at or after from; false if there is none
// (the token then runs to the end).
func (z *tokenizer) until(from int, end string) bool {
	k := strings.Index(z.s[from:], end)
	if k < 0 {
		z.i = len(z.s)
		return false
	}
	z.i = from + k + len(end)
	return true
}

func (z *tokenizer) toLineEnd() {
	k := strings.IndexByte(z.s[z.i:], '\n')
	if k < 0 {
		z.i = len(z.s)
		return
	}
	z.i += k // the newline is whitespace, counted by the next token
}

// blockComment reads /* … */ from z.i; nested counts /* inside it, as
// PostgreSQL does (and MySQL does not).
func (z *tokenizer) blockComment(nested bool) bool {
	depth := 0
	for z.i < len(z.s) {
		switch {
		case strings.HasPrefix(z.s[z.i:], "/*"):
			if depth == 0 || nested {
				depth++
			}
			z.i += 2
		case strings.HasPrefix(z.s[z.i:], "*/"):
			depth--
			z.i += 2
			if depth == 0 {
				return true
			}
		default:
			z.i++
		}
	}
	return false
}

// quoted reads a literal opened by quote q at open: a doubled quote is one
// quote, and with backslash a backslash escapes the next byte.
func (z *tokenizer) quoted(open int, q byte, backslash bool) bool {
	k := open + 1
	for k < len(z.s) {
		switch c := z.s[k]; {
		case backslash && c == '\\':
			k += 2
		case c == q:
			if k+1 < len(z.s) && z.s[k+1] == q {
				k += 2
				continue
			}
			z.i = k + 1
			return true
		default:
			k++
		}
	}
	z.i = len(z.s)
	return false
}

func (z *tokenizer) number() {
	s := z.s
	for z.i < len(s) {
		c := s[z.i]
		switch {
		case isDigit(c) || c == '.' || c == '_' || isLetter(c):
			z.i++
			// 1e-5: the sign belongs to the exponent.
			if (c == 'e' || c == 'E') && z.i < len(s) && (s[z.i] == '+' || s[z.i] == '-') {
				z.i++
			}
		default:
			return
		}
	}
}

// dollarTag returns the opening $tag$ (or $$) at the start of s, or "".
func dollarTag(s string) string {
	if len(s) < 2 || s[0] != '$' {
		return ""
	}
	for k := 1; k < len(s); k++ {
		c := s[k]
		switch {
		case c == '$':
			return s[:k+1]
		case isLetter(c) || c == '_' || c >= 0x80 || (k > 1 && isDigit(c)):
		default:
			return ""
		}
	}
	return ""
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
func isDigit(c byte) bool     { return '0' <= c && c <= '9' }
func isLetter(c byte) bool    { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isWordStart(c byte) bool { return isLetter(c) || c == '_' || c >= 0x80 }
func isWordPart(c byte) bool  { return isWordStart(c) || isDigit(c) || c == '$' }
