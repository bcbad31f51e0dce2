package engine

import (
	"maps"
	"strings"

	"github.com/idemdata/idem/engine/sqltext"
)

// Lexer is a Dialect that says how its engine reads SQL text and which of
// its functions change from run to run: the lexicon it registers with its
// driver. Optional: text for an engine without one is read by
// sqltext.Unknown's rules.
type Lexer interface {
	Lexicon() *sqltext.Lexicon
}

// LexiconOf returns the lexicon of d's engine (see Lexer), or the unknown
// engine's.
func LexiconOf(d Dialect) *sqltext.Lexicon {
	if l, ok := d.(Lexer); ok && l.Lexicon() != nil {
		return l.Lexicon()
	}
	return unknownLexicon()
}

// LexiconFor returns the lexicon of the engine a target URL's scheme names
// (Driver.Lexicon). For a scheme no engine registers with one it is the
// unknown engine's: sqltext.Unknown's rules, and every registered engine's
// functions.
func LexiconFor(url string) *sqltext.Lexicon {
	scheme, _, _ := strings.Cut(url, ":")
	if d, ok := Lookup(scheme); ok && d.Lexicon != nil {
		return d.Lexicon
	}
	return unknownLexicon()
}

func unknownLexicon() *sqltext.Lexicon {
	l := &sqltext.Lexicon{Rules: sqltext.Unknown, ClockStrings: map[string]string{}}
	var cs []*sqltext.Catalogue
	for _, d := range registered() {
		if d.Lexicon != nil {
			cs = append(cs, d.Lexicon.Funcs)
			maps.Copy(l.ClockStrings, d.Lexicon.ClockStrings)
		}
	}
	l.Funcs = sqltext.Merge(cs...)
	return l
}

// ReportsFunc reports whether lint may report function fn (any case): some
// registered engine's lexicon lists it, or a clock string stands for it.
// In a program that registers no lexicon every name may be.
func ReportsFunc(fn string) bool {
	some := false
	for _, d := range registered() {
		l := d.Lexicon
		if l == nil {
			continue
		}
		some = true
		if l.Funcs.Has(fn) {
			return true
		}
		for _, f := range l.ClockStrings {
			if strings.EqualFold(f, fn) {
				return true
			}
		}
	}
	return !some
}
