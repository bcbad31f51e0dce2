package job

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/idemdata/idem/engine"
)

// Lint is the job file's `lint:` section: the lint findings its author
// waives, by name. The checks themselves live in package lint; the names
// are listed here so that a misspelt waiver is a job file error like any
// other unknown key, reported with its path and line.
type Lint struct {
	// Allow names findings that do not refuse the job: a check name
	// ("nondeterministic") waives every finding of that check, and
	// "nondeterministic:NAME" waives only the function NAME, so waiving
	// one deliberate random() does not hide a now() added later.
	Allow StringList `yaml:"allow"`
}

// Lint check names, as `lint.allow` and `idem lint` spell them.
const (
	LintNondeterministic    = "nondeterministic"
	LintQueryWithoutWindow  = "query-without-window"
	LintFilesWithoutDate    = "files-without-date"
	LintPartitionWithoutKey = "partition-without-key"
	LintGeneratedKey        = "generated-key"
)

// LintChecks lists every check name, in the order they are documented.
var LintChecks = []string{
	LintNondeterministic, LintQueryWithoutWindow, LintFilesWithoutDate,
	LintPartitionWithoutKey, LintGeneratedKey,
}

// checkLint reports waivers that name no check or function.
func (l Lint) check() []Problem {
	var ps []Problem
	for i, a := range l.Allow {
		path := fmt.Sprintf("lint.allow[%d]", i)
		name, fn, hasFn := strings.Cut(a, ":")
		switch {
		case !isOneOf(name, LintChecks):
			msg := fmt.Sprintf("%q is not a lint check (checks: %s)", a, strings.Join(LintChecks, ", "))
			if s := closest(name, LintChecks); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			ps = append(ps, Problem{Path: path, Msg: msg})
		case hasFn && name != LintNondeterministic:
			ps = append(ps, Problem{Path: path, Msg: fmt.Sprintf("%q: only %s takes a function name (%s:now)", a, LintNondeterministic, LintNondeterministic)})
		case hasFn && !engine.ReportsFunc(fn):
			// The functions are the engines' (each registers its own): a
			// name no linked engine lists is a misspelling.
			ps = append(ps, Problem{Path: path, Msg: fmt.Sprintf("%q: %q is not a function lint reports", a, fn)})
		}
	}
	return ps
}

// Allows reports whether the job waives check name for function fn ("" for
// findings that are not about a function).
func (l Lint) Allows(name, fn string) bool {
	for _, a := range l.Allow {
		if a == name || (fn != "" && strings.EqualFold(a, name+":"+fn)) {
			return true
		}
	}
	return false
}

// Pos is where a value starts in the job file, and how to find a place
// inside it.
type Pos struct {
	Line, Column int // 1-based; 0 when unknown (a job parsed without a file position)
	// Block is true for a literal block scalar (`|`): its text starts on
	// the next line, each line indented by Indent spaces, so an offset in
	// the text maps to an exact line and column.
	Block  bool
	Indent int
	// Exact is true when offsets inside the value map onto the file one to
	// one: a literal block, or a plain or quoted one-line value without
	// escapes, and no ${VAR} expanded inside it. Otherwise an offset maps
	// to the value's start.
	Exact bool
	// Quoted is 1 when the value starts after a quote character.
	Quoted int
}

// At maps a (0-based) line and byte column inside the value to a 1-based
// line and column in the job file.
func (p Pos) At(line, col int) (int, int) {
	switch {
	case p.Line == 0:
		return line + 1, col + 1
	case !p.Exact:
		return p.Line, p.Column
	case p.Block:
		return p.Line + 1 + line, p.Indent + col + 1
	case line == 0:
		return p.Line, p.Column + p.Quoted + col
	}
	return p.Line, p.Column
}

// Positions records where the values lint reports on start in the job file.
type Positions struct {
	Query, Files, Strategy, Key Pos
	// Timezone is partition.timezone's, named when the target database
	// does not know the zone.
	Timezone Pos
	// Columns is the line of each key under columns:, so a problem found
	// at run time (a typo'd column) names its line.
	Columns map[string]int
}

// recordPositions finds the lint-relevant values in the document before
// ${VAR} expansion rewrites them. data is the file, to read a block's
// indentation, which yaml's nodes do not keep.
func recordPositions(doc *yaml.Node, data []byte) Positions {
	lines := strings.Split(string(data), "\n")
	pos := func(path ...string) Pos {
		n := lookupNode(doc, path...)
		if n == nil {
			return Pos{}
		}
		p := Pos{Line: n.Line, Column: n.Column}
		if n.Kind != yaml.ScalarNode {
			return p
		}
		expanded := strings.Contains(n.Value, "${") || strings.Contains(n.Value, "$${")
		switch n.Style {
		case yaml.LiteralStyle:
			// Indentation is that of the first non-blank line of the block.
			for i := n.Line; i < len(lines); i++ { // lines[n.Line] is the line after the `|`
				if t := strings.TrimLeft(lines[i], " "); t != "" {
					p.Block, p.Indent, p.Exact = true, len(lines[i])-len(t), !expanded
					break
				}
			}
		case 0, yaml.TaggedStyle:
			p.Exact = !expanded && !strings.Contains(n.Value, "\n")
		case yaml.SingleQuotedStyle, yaml.DoubleQuotedStyle:
			p.Quoted = 1
			// An escape ('' or \n) makes the text shorter than its source.
			p.Exact = !expanded && !strings.ContainsAny(n.Value, "\n'\\\"")
		}
		return p
	}
	var cols map[string]int
	if n := lookupNode(doc, "columns"); n != nil && n.Kind == yaml.MappingNode {
		cols = map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			cols[n.Content[i].Value] = n.Content[i].Line
		}
	}
	return Positions{
		Query:    pos("source", "query"),
		Files:    pos("source", "files"),
		Strategy: pos("strategy"),
		Key:      pos("key"),
		Timezone: pos("partition", "timezone"),
		Columns:  cols,
	}
}

// lookupNode follows mapping keys from n.
func lookupNode(n *yaml.Node, path ...string) *yaml.Node {
	for _, k := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// lintAllowLines gives problems with lint.allow entries the line of the
// entry, which Validate, working on the decoded job, does not know.
func lintAllowLines(ps []Problem, doc *yaml.Node) []Problem {
	allow := lookupNode(doc, "lint", "allow")
	for i, p := range ps {
		var k int
		if _, err := fmt.Sscanf(p.Path, "lint.allow[%d]", &k); err != nil || allow == nil {
			continue
		}
		switch {
		case allow.Kind == yaml.SequenceNode && k < len(allow.Content):
			ps[i].Line = allow.Content[k].Line
		case allow.Kind == yaml.ScalarNode:
			ps[i].Line = allow.Line
		}
	}
	return ps
}

// LooksGenerated reports whether a column is named like a surrogate key
// (order_sk, row_id, …), which the loading database, not the source, mints.
func LooksGenerated(col string) bool { return surrogateRE.MatchString(strings.ToLower(col)) }
