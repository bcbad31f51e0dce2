package sqltext

import (
	"strings"
	"unicode/utf8"
)

// Kind is what a token is.
type Kind int

// Token kinds.
const (
	Word        Kind = iota // keyword or unquoted identifier
	QuotedIdent             // "x", or `x` (Rules.Backtick)
	String                  // '…', E'…', $tag$…$tag$, and "…" where that is a string
	Number
	Punct    // one character (or ::), such as ( ) , . ;
	Comment  // -- …, /* … */, # … and // … where the rules say so; a /*! marker
	Template // {{ … }} (Rules.Templates)
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
			if !t.Unclosed {
				s = strings.TrimSuffix(s, tag)
			}
			return s
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

// Tokenize splits sql into tokens under rules r, skipping whitespace. A
// rule that depends on a setting is read its first way (see
// Rules.Readings). It never fails: text it cannot make sense of becomes
// Punct tokens, and a literal or comment left open runs to the end of the
// input (Unclosed).
func Tokenize(sql string, r Rules) []Token {
	z := lexer{s: sql, r: r}
	var out []Token
	for {
		t, ok := z.next()
		if !ok {
			return out
		}
		out = append(out, t)
	}
}

type lexer struct {
	s         string
	r         Rules
	i         int
	inRun     bool // inside /*! … */, whose */ is a token of its own
	line      int
	lineStart int // byte offset where the current line starts
	colOff    int // byte offset whose column is col
	col       int
}

func (z *lexer) next() (Token, bool) {
	z.skipSpace()
	if z.i >= len(z.s) {
		return Token{}, false
	}
	start := z.i
	t := Token{Off: start, Line: z.line, Col: z.column(start)}
	// The groups are tried in this order: a comment's marker wins over a
	// quote, a quote over a word.
	if !z.comment(&t) && !z.quotedToken(&t) {
		z.bareToken(&t)
	}
	t.Text = z.s[start:z.i]
	z.countLines(start)
	return t, true
}

// skipSpace moves past whitespace, counting its lines.
func (z *lexer) skipSpace() {
	for z.i < len(z.s) && isSpace(z.s[z.i]) {
		if z.s[z.i] == '\n' {
			z.line++
			z.lineStart = z.i + 1
		}
		z.i++
	}
}

// column is the column of the token starting at start. Columns are
// counted from the previous token on the same line, not from the line's
// start: a long one-line query stays linear.
func (z *lexer) column(start int) int {
	if z.colOff < z.lineStart {
		z.colOff, z.col = z.lineStart, 0
	}
	z.col += utf8.RuneCountInString(z.s[z.colOff:start])
	z.colOff = start
	return z.col
}

// comment reads a comment, a template, or the */ that ends a /*! run, at
// t.Off into t; false if none starts there.
func (z *lexer) comment(t *Token) bool {
	s, r := z.s, z.r
	start := t.Off
	c, rest := s[start], s[start:]
	switch {
	case r.Templates && strings.HasPrefix(rest, "{{"):
		t.Kind = Template
		t.Unclosed = !z.until(start+2, "}}")
	case z.inRun && strings.HasPrefix(rest, "*/"):
		t.Kind = Comment
		z.inRun = false
		z.i += 2
	case strings.HasPrefix(rest, "--") && (!r.DashSpace || len(rest) == 2 || isSpace(rest[2]) || rest[2] < ' ' || rest[2] == 0x7f):
		t.Kind = Comment
		z.toLineEnd()
	case c == '#' && r.Hash && (!r.HashSpace || len(rest) > 1 && (rest[1] == ' ' || rest[1] == '!')):
		t.Kind = Comment
		z.toLineEnd()
	case r.SlashSlash && strings.HasPrefix(rest, "//"):
		t.Kind = Comment
		z.toLineEnd()
	case r.RunComments && !z.inRun && (strings.HasPrefix(rest, "/*!") || strings.HasPrefix(rest, "/*M!")):
		// The server runs what follows, up to */: the marker (with its
		// version number) is the comment.
		t.Kind = Comment
		z.inRun = true
		z.i += strings.IndexByte(rest, '!') + 1
		for z.i < len(s) && isDigit(s[z.i]) {
			z.i++
		}
	case strings.HasPrefix(rest, "/*"):
		t.Kind = Comment
		t.Unclosed = !z.blockComment(r.NestedComments)
	default:
		return false
	}
	return true
}

// quotedToken reads a string or quoted identifier at t.Off into t; false
// if none starts there.
func (z *lexer) quotedToken(t *Token) bool {
	s, r := z.s, z.r
	start := t.Off
	c, rest := s[start], s[start:]
	var dollar, closed bool
	if c == '$' && r.Dollar.on() {
		dollar, closed = z.dollarQuote(start)
	}
	switch {
	case c == '\'':
		t.Kind = String
		t.Unclosed = !z.quoted(start, '\'', r.Backslash.on())
	case (c == 'E' || c == 'e') && len(rest) > 1 && rest[1] == '\'' && r.EscapeStrings:
		// E'…': an escape string, where \' does not end it.
		t.Kind = String
		t.Unclosed = !z.quoted(start+1, '\'', true)
	case c == '"' && r.DoubleQuoted.on():
		t.Kind = String
		t.Unclosed = !z.quoted(start, '"', r.Backslash.on())
	case c == '"':
		t.Kind = QuotedIdent
		t.Unclosed = !z.quoted(start, '"', r.IdentBackslash)
	case c == '`' && r.Backtick:
		t.Kind = QuotedIdent
		t.Unclosed = !z.quoted(start, '`', r.IdentBackslash)
	case dollar:
		t.Kind = String
		t.Unclosed = !closed
	default:
		return false
	}
	return true
}

// bareToken reads a parameter, number, word or punctuation at t.Off into t.
func (z *lexer) bareToken(t *Token) {
	s := z.s
	c, rest := s[t.Off], s[t.Off:]
	switch {
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
}

// countLines advances the line counter over the token just read.
func (z *lexer) countLines(from int) {
	for k := from; k < z.i; k++ {
		if z.s[k] == '\n' {
			z.line++
			z.lineStart = k + 1
		}
	}
}

// until moves past the first end at or after from; false if there is none
// (the token then runs to the end).
func (z *lexer) until(from int, end string) bool {
	k := strings.Index(z.s[from:], end)
	if k < 0 {
		z.i = len(z.s)
		return false
	}
	z.i = from + k + len(end)
	return true
}

func (z *lexer) toLineEnd() {
	k := strings.IndexByte(z.s[z.i:], '\n')
	if k < 0 {
		z.i = len(z.s)
		return
	}
	z.i += k // the newline is whitespace, counted by the next token
}

// blockComment reads /* … */ from z.i; nested counts /* inside it.
func (z *lexer) blockComment(nested bool) bool {
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
func (z *lexer) quoted(open int, q byte, backslash bool) bool {
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

// dollarQuote reads a dollar-quoted string at start, if one starts there
// (ok), and reports whether it is closed: with AnyTag only a closed one
// starts, otherwise an unclosed one runs to the end.
func (z *lexer) dollarQuote(start int) (ok, closed bool) {
	tag := dollarTag(z.s[start:], z.r.AnyTag)
	if tag == "" {
		return false, false
	}
	k := strings.Index(z.s[start+len(tag):], tag)
	switch {
	case k >= 0:
		z.i = start + len(tag) + k + len(tag)
		return true, true
	case z.r.AnyTag:
		return false, false
	}
	z.i = len(z.s)
	return true, false
}

func (z *lexer) number() {
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
// With anyTag, the tag is whatever lies before the next dollar; otherwise it
// is an identifier.
func dollarTag(s string, anyTag bool) string {
	if len(s) < 2 || s[0] != '$' {
		return ""
	}
	if anyTag {
		if k := strings.IndexByte(s[1:], '$'); k >= 0 {
			return s[:k+2]
		}
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
