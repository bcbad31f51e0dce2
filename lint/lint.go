// Package lint finds what makes an idem job give a different result for
// the same input, or read more than its partition: non-deterministic
// functions in a query, a query or file glob that ignores the partition, a
// partition job without a key, a key the load itself would generate.
//
// It works on tokens, never on raw text: the query is read by the target
// engine's lexicon (engine.LexiconFor, registered by each engine), so now()
// in a string, a comment or a quoted identifier is not a finding, and the
// functions looked for are the engine's.
package lint

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/sqltext"
	"github.com/idemdata/idem/job"
)

// Severities. Errors refuse the job (idem run exits 2) unless the job
// waives them under lint.allow; warnings are printed by idem lint only.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Finding is one thing lint found.
type Finding struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Severity string `json:"severity"`
	// Name is the check (job.LintChecks), as lint.allow spells it.
	Name string `json:"name"`
	// Func is the function a nondeterministic finding is about, as the
	// engine's catalogue spells it.
	Func    string `json:"function,omitempty"`
	Message string `json:"message"`
	// Text is the offending text as written.
	Text    string `json:"text"`
	Instead string `json:"instead"`
	// Allowed is true when the job waives the finding under lint.allow.
	Allowed bool `json:"allowed,omitempty"`

	path string // the job file path of the value it is in, for Err
}

func (f Finding) String() string {
	sev := f.Severity
	if f.Allowed {
		sev += " (allowed by lint.allow)"
	}
	s := fmt.Sprintf("%s:%d:%d: %s: %s: %s", f.File, f.Line, f.Column, sev, f.Name, f.Message)
	if f.Text != "" {
		s += " (" + f.Text + ")"
	}
	return s + " — do instead: " + f.Instead
}

// Refuses reports whether the finding stops the job from running.
func (f Finding) Refuses() bool { return f.Severity == SeverityError && !f.Allowed }

// Check lints a parsed job. Findings come in file order.
func Check(j *job.Job) []Finding {
	file := j.Path
	if file == "" {
		file = "job file"
	}
	var fs []Finding
	fs = append(fs, queryFindings(j)...)
	fs = append(fs, layoutFindings(j)...)
	fs = append(fs, generatedKeyNames(j)...)
	for i := range fs {
		fs[i].File = file
		fs[i].Allowed = j.Lint.Allows(fs[i].Name, fs[i].Func)
	}
	slices.SortStableFunc(fs, func(a, b Finding) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return fs
}

// queryFindings lints source.query, read by the lexicon of the engine it
// runs in (the source database's, or the target's):
// its non-deterministic functions, its generated keys, and whether it uses
// the partition at all.
func queryFindings(j *job.Job) []Finding {
	q := j.Source.Query
	if q == "" {
		return nil
	}
	var fs []Finding
	url := j.Target.URL
	if j.Source.URL != "" {
		url = j.Source.URL
	}
	lex := engine.LexiconFor(url)
	reads := readings(q, lex.Rules)
	toks := reads[0]
	at := func(t sqltext.Token) (int, int) { return j.Pos.Query.At(t.Line, t.Col) }
	for _, f := range nondeterministic(q, reads, lex) {
		f.Line, f.Column = at(f.tok)
		fs = append(fs, f.Finding)
	}
	for _, f := range generatedKeys(q, toks, j.Key, lex.Funcs) {
		f.Line, f.Column = at(f.tok)
		fs = append(fs, f.Finding)
	}
	if !usesWindow(toks) {
		l, c := j.Pos.Query.Line, j.Pos.Query.Column
		fs = append(fs, Finding{Line: l, Column: c, Severity: SeverityWarning, Name: job.LintQueryWithoutWindow, path: "source.query",
			Message: "the query does not use the partition: every run reads the same rows, whatever --date says, and keeps only its partition's",
			Text:    firstLine(q),
			Instead: "restrict the query to the partition, like WHERE created_at >= {{ start }} AND created_at < {{ end }} (or = {{ date }})"})
	}
	return fs
}

// layoutFindings warns of file globs without a date and of a partition job
// without a key.
func layoutFindings(j *job.Job) []Finding {
	var fs []Finding
	if j.Source.HasFiles() && !slices.ContainsFunc(j.Source.Files, func(g string) bool { return strings.Contains(g, "{{") }) {
		fs = append(fs, Finding{Line: j.Pos.Files.Line, Column: j.Pos.Files.Column, Severity: SeverityWarning, Name: job.LintFilesWithoutDate, path: "source.files",
			Message: "no glob in source.files has a date template: every run reads every file, and a new file changes the input of every partition",
			Text:    strings.Join(j.Source.Files, ", "),
			Instead: "name the files by date, like data/orders-{{ date }}.csv or data/{{ yyyy }}/{{ mm }}/*.csv"})
	}
	if j.Strategy == job.StrategyPartition && len(j.Key) == 0 {
		fs = append(fs, Finding{Line: j.Pos.Strategy.Line, Column: j.Pos.Strategy.Column, Severity: SeverityWarning, Name: job.LintPartitionWithoutKey, path: "strategy",
			Message: "a partition job without key cannot tell a duplicate from two equal rows: exact duplicate input rows are all kept",
			Text:    "strategy: partition",
			Instead: "give key: [the natural key columns] so staging keeps one row per key; waive this only when equal rows are real (lint: {allow: [partition-without-key]})"})
	}
	return fs
}

// generatedKeyNames finds key columns named like surrogate keys.
func generatedKeyNames(j *job.Job) []Finding {
	var fs []Finding
	for i, k := range j.Key {
		// A name is a guess, so this is a lint error the job can waive (a
		// source's own row_id is a natural key); a column the target
		// generates is refused by the merge itself, waiver or not.
		if job.LooksGenerated(k) {
			msg := fmt.Sprintf("key[%d] %q is named like a surrogate key the loading database generates: generated keys differ on every run, so no two rows are ever duplicates", i, k)
			if j.Strategy == job.StrategyMerge {
				msg += ", and every rerun would mint new keys and fill the target with duplicates"
			}
			fs = append(fs, Finding{Line: j.Pos.Key.Line, Column: j.Pos.Key.Column, Severity: SeverityError, Name: job.LintGeneratedKey, path: "key",
				Message: msg,
				Text:    k,
				Instead: "key on the source's natural key (the columns that identify a row where it comes from); if the source itself assigns this column, waive it: lint: {allow: [generated-key]}"})
		}
	}
	return fs
}

// Err returns a *job.Error listing the findings that refuse the job (so the
// command line exits 2, as for any job file error), or nil.
func Err(j *job.Job) error {
	var ps []job.Problem
	for _, f := range Check(j) {
		if !f.Refuses() {
			continue
		}
		path := f.path
		if path == "" {
			path = "source.query"
		}
		msg := fmt.Sprintf("lint %s (column %d): %s", f.Name, f.Column, f.Message)
		if f.Text != "" {
			msg += " (" + f.Text + ")"
		}
		waive := f.Name
		if f.Func != "" {
			waive = f.Name + ":" + f.Func
		}
		msg += fmt.Sprintf("; do instead: %s; or waive it with lint: {allow: [%s]}", f.Instead, waive)
		ps = append(ps, job.Problem{Path: path, Line: f.Line, Msg: msg})
	}
	if len(ps) == 0 {
		return nil
	}
	return &job.Error{File: j.Path, Problems: ps}
}

type tokFinding struct {
	Finding
	tok sqltext.Token // the token the finding points at
}

// readings tokenizes q every way the engine may read it (a rule that
// depends on a server setting is read both ways; see
// sqltext.Rules.Readings), leaving out the readings under which q leaves a
// string, a quoted identifier or a comment open: a server reading it so
// would refuse the query. The first is idem's sessions' reading when q
// lexes under it. Templates are tokens of their own.
func readings(q string, r sqltext.Rules) [][]sqltext.Token {
	r.Templates = true
	var all, closed [][]sqltext.Token
	for _, rr := range r.ReadingsOf(q) {
		toks := sqltext.Tokenize(q, rr)
		all = append(all, toks)
		if !slices.ContainsFunc(toks, func(t sqltext.Token) bool { return t.Unclosed && t.Kind != sqltext.Template }) {
			closed = append(closed, toks)
		}
	}
	if len(closed) == 0 {
		return all[:1]
	}
	return closed
}

var (
	// generators make a value per row that does not come from the row:
	// a key computed by one is no key. The engine's catalogue adds its
	// run-dependent functions.
	generators = map[string]bool{
		"row_number": true, "rank": true, "dense_rank": true, "ntile": true,
		"percent_rank": true, "cume_dist": true,
	}
	// castWords are the types a clock string like 'now' is cast to.
	castWords = map[string]bool{
		"date": true, "timestamp": true, "timestamptz": true, "time": true, "timetz": true, "datetime": true,
	}
)

// code is the tokens that are not comments, with their index in toks.
func code(toks []sqltext.Token) []int {
	var idx []int
	for i, t := range toks {
		if t.Kind != sqltext.Comment {
			idx = append(idx, i)
		}
	}
	return idx
}

func isPunct(t sqltext.Token, s string) bool { return t.Kind == sqltext.Punct && t.Text == s }
func isWord(t sqltext.Token, s string) bool {
	return t.Kind == sqltext.Word && strings.EqualFold(t.Text, s)
}

// nondeterministic finds calls of the engine's run-dependent functions
// (see sqltext.Catalogue.Calls: plain, quoted or qualified, and keyword
// forms without parentheses) and clock strings cast to a date or time
// type, under every reading of q; a call found by several readings is
// reported once.
func nondeterministic(q string, reads [][]sqltext.Token, lex *sqltext.Lexicon) []tokFinding {
	var out []tokFinding
	seen := map[int]bool{}
	for _, toks := range reads {
		for _, f := range nondeterministicIn(q, toks, lex) {
			if !seen[f.tok.Off] {
				seen[f.tok.Off] = true
				out = append(out, f)
			}
		}
	}
	return out
}

func nondeterministicIn(q string, toks []sqltext.Token, lex *sqltext.Lexicon) []tokFinding {
	var out []tokFinding
	for _, c := range lex.Funcs.Calls(toks) {
		start, end := toks[c.Start], toks[c.End]
		out = append(out, tokFinding{Finding: nondetFinding(c.Func, excerpt(q, start.Off, end.Off+len(end.Text))), tok: start})
	}
	if len(lex.ClockStrings) == 0 {
		return out
	}
	idx := code(toks)
	for n, i := range idx {
		t := toks[i]
		if t.Kind != sqltext.String {
			continue
		}
		// TIMESTAMP 'now', 'now'::timestamp, CAST('now' AS DATE).
		name, ok := lex.ClockStrings[strings.ToLower(strings.TrimSpace(t.Value()))]
		if !ok {
			continue
		}
		var prev, next sqltext.Token
		if n > 0 {
			prev = toks[idx[n-1]]
		}
		if n+1 < len(idx) {
			next = toks[idx[n+1]]
		}
		cast := (prev.Kind == sqltext.Word && castWords[strings.ToLower(prev.Text)]) || isPunct(next, "::")
		if n >= 2 && isPunct(prev, "(") && isWord(toks[idx[n-2]], "cast") {
			cast = true
		}
		if cast {
			f := nondetFinding(sqltext.Func{Name: name, Kind: sqltext.Clock}, t.Text)
			f.Message = fmt.Sprintf("the date string %s is read as the time of the run, not a fixed date: every rerun gives a different value", t.Text)
			out = append(out, tokFinding{Finding: f, tok: t})
		}
	}
	return out
}

func nondetFinding(fn sqltext.Func, text string) Finding {
	name := fn.Name
	f := Finding{Severity: SeverityError, Name: job.LintNondeterministic, Func: name, Text: text}
	switch fn.Kind {
	case sqltext.Clock:
		f.Message = fmt.Sprintf("%s is the time of the run, not of the data: every rerun gives a different value, so a rerun is not a no-op", name)
		f.Instead = "use the partition's bounds ({{ start }}, {{ end }}, {{ date }}) or a time column of the source; for a load time use loaded_at:, which idem fills and keeps out of checksums"
	case sqltext.Sequence:
		f.Message = fmt.Sprintf("%s reads or advances a sequence: a rerun numbers the same rows differently", name)
		f.Instead = "use the source's natural key, or a hash of it (md5(order_id::text)) if a number is needed"
	case sqltext.Session:
		f.Message = fmt.Sprintf("%s belongs to the session, query or transaction that reads the data, not to the data: every run gets a different one, so a rerun is not a no-op", name)
		f.Instead = "leave it out; for a load time use loaded_at:, which idem fills and keeps out of checksums"
	default:
		f.Message = fmt.Sprintf("%s gives a different value on every run, so a rerun is not a no-op", name)
		f.Instead = "derive the value from the row (a hash of its natural key, md5(order_id::text)) or leave the column out"
	}
	return f
}

// excerpt is q[from:to] shortened, read no further than shorten needs:
// calls left open run to the end of the query, and nested ones must not
// make linting quadratic.
func excerpt(q string, from, to int) string {
	if to-from > 256 {
		to = from + 256
		for to > from && !utf8.RuneStart(q[to]) {
			to--
		}
	}
	return shorten(q[from:to])
}

func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:57]) + "…"
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return shorten(s)
}

// usesWindow reports whether a template is used outside comments and
// strings: any of them ({{ date }}, {{ start }}, {{ yyyy }}, …) ties the
// query to the partition.
func usesWindow(toks []sqltext.Token) bool {
	return slices.ContainsFunc(toks, func(t sqltext.Token) bool { return t.Kind == sqltext.Template })
}

// generatedKeys finds key columns the query computes with a generator
// (row_number(), random(), uuid(), nextval(), …): "… AS key_col" whose
// select item calls one. Such a key identifies a row by its position or by
// chance, not by its content, so staging never sees two rows as one.
const maxItem = 500

func generatedKeys(q string, toks []sqltext.Token, key []string, funcs *sqltext.Catalogue) []tokFinding {
	idx := code(toks)
	var out []tokFinding
	for n := 1; n+1 < len(idx); n++ {
		if !isWord(toks[idx[n]], "as") {
			continue
		}
		alias := toks[idx[n+1]]
		col, ok := keyAlias(alias, key)
		if !ok {
			continue
		}
		t, ok := itemGenerator(toks, idx, n, funcs)
		if !ok {
			continue
		}
		name := t.Text
		if t.Kind == sqltext.QuotedIdent {
			name = t.Value()
		}
		out = append(out, tokFinding{tok: t, Finding: Finding{
			Severity: SeverityError, Name: job.LintGeneratedKey,
			Message: fmt.Sprintf("key column %s is computed by %s in the query: it numbers or draws rows rather than naming them, so a rerun (or one more input row) gives rows new keys", col, name),
			Text:    shorten(q[t.Off : alias.Off+len(alias.Text)]),
			Instead: "key on columns the source gives (its natural key); drop the generated column from key",
		}})
	}
	return out
}

// keyAlias returns the column an AS alias names, if it is a key column:
// unquoted names match the key case-insensitively, quoted ones exactly.
func keyAlias(alias sqltext.Token, key []string) (string, bool) {
	switch alias.Kind {
	case sqltext.Word:
		col := alias.Text
		return col, slices.ContainsFunc(key, func(k string) bool { return strings.EqualFold(k, col) })
	case sqltext.QuotedIdent:
		col := alias.Value()
		return col, slices.Contains(key, col)
	}
	return "", false
}

// itemGenerator walks back from the AS at code token n to the start of its
// select item (a comma or SELECT at the same parenthesis depth) and
// returns the first generator call it meets.
func itemGenerator(toks []sqltext.Token, idx []int, n int, funcs *sqltext.Catalogue) (sqltext.Token, bool) {
	depth := 0
	// The walk is bounded, so that nested parentheses (one select item
	// inside another, or hostile input) cannot make it quadratic; a
	// select item of more than maxItem tokens goes unchecked.
	for m := n - 1; m >= 0 && m >= n-maxItem; m-- {
		t := toks[idx[m]]
		switch {
		case depth == 0 && isWord(t, "as"): // the previous item: a comma is missing
			return sqltext.Token{}, false
		case isPunct(t, ")"):
			depth++
		case isPunct(t, "("):
			if depth == 0 {
				return sqltext.Token{}, false
			}
			depth--
		case depth == 0 && (isPunct(t, ",") || isWord(t, "select") || isWord(t, "distinct")):
			return sqltext.Token{}, false
		case m+1 < len(idx) && isPunct(toks[idx[m+1]], "(") && isGenerator(t, funcs):
			return t, true
		}
	}
	return sqltext.Token{}, false
}

// isGenerator reports whether t names a window function that numbers rows
// or one of the engine's run-dependent functions (quoted or not).
func isGenerator(t sqltext.Token, funcs *sqltext.Catalogue) bool {
	switch t.Kind {
	case sqltext.Word:
		return generators[strings.ToLower(t.Text)] || funcs.Has(t.Text)
	case sqltext.QuotedIdent:
		return generators[strings.ToLower(t.Value())] || funcs.Has(t.Value())
	}
	return false
}
