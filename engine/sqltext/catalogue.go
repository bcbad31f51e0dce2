package sqltext

import (
	"slices"
	"strings"
)

// Lexicon is what idem knows of one engine's SQL text: how its lexer reads
// it, and which of its functions give a different value on every run. An
// engine registers one with its driver (engine.Driver.Lexicon).
type Lexicon struct {
	Rules Rules
	Funcs *Catalogue
	// ClockStrings maps the date and time input strings the engine reads
	// as the time of the run when they are cast to a date or time type
	// ('now'::timestamp on PostgreSQL), lowercase, to the function each
	// stands for.
	ClockStrings map[string]string
}

// FuncKind is why a function's value changes from run to run.
type FuncKind uint8

// Function kinds.
const (
	Clock    FuncKind = iota // reads the time of the run
	Random                   // draws a random value: a number, a UUID, a string
	Sequence                 // reads or advances a sequence
	Session                  // is the session's or the transaction's: a process, query or transaction id, the client's address
)

// Func is a function whose value changes from run to run.
type Func struct {
	// Name is the function's name as the engine documents it; calls match
	// it whatever their case.
	Name string
	Kind FuncKind
	// Args lists the argument counts the entry covers (PostgreSQL's age
	// reads the clock with one argument, not with two); nil covers any.
	Args []int
	// Bare: the function is also called without parentheses, as a keyword
	// (CURRENT_DATE).
	Bare bool
}

// Named makes entries of kind k for names, any argument count.
func Named(k FuncKind, names ...string) []Func {
	out := make([]Func, len(names))
	for i, n := range names {
		out[i] = Func{Name: n, Kind: k}
	}
	return out
}

// Keywords makes entries of kind k for names that are also called without
// parentheses (CURRENT_DATE), any argument count.
func Keywords(k FuncKind, names ...string) []Func {
	out := Named(k, names...)
	for i := range out {
		out[i].Bare = true
	}
	return out
}

// Catalogue is one engine's functions whose value changes from run to run.
// A nil *Catalogue is empty.
type Catalogue struct {
	funcs  []Func
	byName map[string][]int // lowercase name → indexes in funcs
}

// NewCatalogue makes a catalogue of funcs. A name may have several entries
// (for different argument counts).
func NewCatalogue(funcs ...Func) *Catalogue {
	c := &Catalogue{funcs: funcs, byName: map[string][]int{}}
	for i, f := range funcs {
		k := strings.ToLower(f.Name)
		c.byName[k] = append(c.byName[k], i)
	}
	return c
}

// Merge makes one catalogue of several (nil ones are skipped).
func Merge(cs ...*Catalogue) *Catalogue {
	var all []Func
	for _, c := range cs {
		all = append(all, c.Funcs()...)
	}
	return NewCatalogue(all...)
}

// Funcs lists the catalogue's entries in the order given.
func (c *Catalogue) Funcs() []Func {
	if c == nil {
		return nil
	}
	return slices.Clone(c.funcs)
}

// Has reports whether the catalogue has an entry named name, whatever its
// case.
func (c *Catalogue) Has(name string) bool {
	return c != nil && len(c.byName[strings.ToLower(name)]) > 0
}

// Lookup returns the entry for a call of name with args arguments, or with
// args < 0 for name written as a keyword, without parentheses.
func (c *Catalogue) Lookup(name string, args int) (Func, bool) {
	if c == nil {
		return Func{}, false
	}
	for _, i := range c.byName[strings.ToLower(name)] {
		f := c.funcs[i]
		if args < 0 && f.Bare || args >= 0 && (f.Args == nil || slices.Contains(f.Args, args)) {
			return f, true
		}
	}
	return Func{}, false
}

// Call is a call of a catalogued function in a list of tokens.
type Call struct {
	Func Func
	// Start is the index of the call's first token (the qualifier of
	// pg_catalog.now()), Name that of the function's name, End that of the
	// closing parenthesis (the last token when it is not closed), or Name
	// for a keyword without parentheses.
	Start, Name, End int
	// Args is the number of arguments, -1 for a keyword without
	// parentheses.
	Args int
}

// Calls finds the calls of the catalogue's functions in toks (as Tokenize
// returns them), in order. A call is a name followed by "(" (comments
// between are skipped): plain, quoted ("now"(), `rand`()) or qualified
// (pg_catalog.now(), pg_catalog."now"()), with an argument count the entry
// covers. After a dot the call may also be a method call (DuckDB's
// ts.age(), which is age(ts)), so one more argument counts too. A Bare
// entry is also a call as an unquoted keyword without parentheses, except
// where it is a column or an alias: after "." or AS, or before ".". A name
// in a string, a comment or a quoted identifier without "(" is no call.
// The work is linear in the number of tokens.
func (c *Catalogue) Calls(toks []Token) []Call {
	if c == nil || len(c.funcs) == 0 {
		return nil
	}
	s := callScan{c: c, toks: toks, code: make([]int, 0, len(toks))}
	for i, t := range toks {
		if t.Kind != Comment {
			s.code = append(s.code, i)
		}
	}
	s.closeAt, s.commas = groups(toks, s.code)
	var out []Call
	for n := range s.code {
		if call, ok := s.callAt(n); ok {
			out = append(out, call)
		}
	}
	return out
}

// callScan is Calls' view of a list of tokens: the code tokens (those
// that are not comments), counted by position n, and their brackets.
type callScan struct {
	c               *Catalogue
	toks            []Token
	code            []int // the index in toks of code token n
	closeAt, commas []int // as groups returns them
}

// tok is code token n.
func (s *callScan) tok(n int) Token {
	if n < 0 || n >= len(s.code) {
		return Token{Kind: Punct} // no name, no "." or "(": the edge of the text
	}
	return s.toks[s.code[n]]
}

// callAt is the call whose name is code token n, if that is one.
func (s *callScan) callAt(n int) (Call, bool) {
	i := s.code[n]
	t := s.toks[i]
	name := t.Text
	switch t.Kind {
	case QuotedIdent:
		name = t.Value()
	case Word:
	default:
		return Call{}, false
	}
	if s.c.byName[strings.ToLower(name)] == nil {
		return Call{}, false
	}
	afterDot := isPunct(s.tok(n-1), ".")
	if isPunct(s.tok(n+1), "(") {
		return s.parenCall(n, name, afterDot)
	}
	if t.Kind != Word || afterDot || isPunct(s.tok(n+1), ".") || isWord(s.tok(n-1), "as") {
		return Call{}, false
	}
	f, ok := s.c.Lookup(name, -1)
	return Call{Func: f, Start: i, Name: i, End: i, Args: -1}, ok
}

// parenCall is the call of name, code token n, followed by "(", if the
// catalogue has an entry for its argument count.
func (s *callScan) parenCall(n int, name string, afterDot bool) (Call, bool) {
	start := n
	for isPunct(s.tok(start-1), ".") && isName(s.tok(start-2)) {
		start -= 2
	}
	open := n + 1
	args := s.commas[open] + 1
	if open+1 == len(s.code) || isPunct(s.tok(open+1), ")") {
		args = 0
	}
	end := len(s.code) - 1
	if s.closeAt[open] >= 0 {
		end = s.closeAt[open]
	}
	f, ok := s.c.Lookup(name, args)
	if !ok && afterDot {
		f, ok = s.c.Lookup(name, args+1)
	}
	return Call{Func: f, Start: s.code[start], Name: s.code[n], End: s.code[end], Args: args}, ok
}

// groups pairs the brackets among the code tokens: closeAt[n] is the code
// position closing the bracket opened at code position n (-1: none), and
// commas[n] the commas directly inside it.
func groups(toks []Token, code []int) (closeAt, commas []int) {
	closeAt = make([]int, len(code))
	commas = make([]int, len(code))
	var open []int
	for n, i := range code {
		closeAt[n] = -1
		t := toks[i]
		if t.Kind != Punct {
			continue
		}
		switch t.Text {
		case "(", "[", "{":
			open = append(open, n)
		case ",":
			if len(open) > 0 {
				commas[open[len(open)-1]]++
			}
		case ")", "]", "}":
			if len(open) > 0 && toks[code[open[len(open)-1]]].Text == opener[t.Text] {
				closeAt[open[len(open)-1]] = n
				open = open[:len(open)-1]
			}
		}
	}
	return closeAt, commas
}

var opener = map[string]string{")": "(", "]": "[", "}": "{"}

func isPunct(t Token, s string) bool { return t.Kind == Punct && t.Text == s }
func isWord(t Token, s string) bool  { return t.Kind == Word && strings.EqualFold(t.Text, s) }
func isName(t Token) bool            { return t.Kind == Word || t.Kind == QuotedIdent }
