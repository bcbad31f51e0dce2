package job

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// jobSchema is the shape checkKeys walks: the Job struct's yaml tags.
var jobSchema = reflect.TypeFor[Job]()

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// checkKeys walks a YAML node against a Go type and reports unknown keys and
// values of the wrong type, each with its path. yaml's own KnownFields
// reports only a line, and stops at the first problem.
func checkKeys(n *yaml.Node, t reflect.Type, path string) []Problem {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(unmarshalerType) {
		if n.Kind != yaml.MappingNode {
			if isNull(n) {
				return nil
			}
			return []Problem{{Path: path, Line: n.Line, Msg: "must be a mapping"}}
		}
		fields := map[string]reflect.StructField{}
		var known []string
		for i := range t.NumField() {
			f := t.Field(i)
			tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
			if tag == "" || tag == "-" {
				continue
			}
			fields[tag] = f
			known = append(known, tag)
		}
		var ps []Problem
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := join(path, k.Value)
			if seen[k.Value] {
				ps = append(ps, Problem{Path: p, Line: k.Line, Msg: "given twice"})
				continue
			}
			seen[k.Value] = true
			f, ok := fields[k.Value]
			if !ok {
				msg := "unknown key"
				if s := closest(k.Value, known); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				ps = append(ps, Problem{Path: p, Line: k.Line, Msg: msg})
				continue
			}
			ps = append(ps, checkKeys(v, f.Type, p)...)
		}
		return ps
	}
	if isNull(n) {
		return nil
	}
	// A leaf (or a map/list of leaves): decode it alone to find type errors
	// with their path.
	if err := n.Decode(reflect.New(t).Interface()); err != nil {
		msg := err.Error()
		if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
			msg = te.Errors[0]
		}
		msg = lineRE.ReplaceAllString(strings.TrimPrefix(msg, "yaml: "), "")
		return []Problem{{Path: path, Line: n.Line, Msg: msg}}
	}
	return nil
}

var lineRE = regexp.MustCompile(`^line \d+: `)

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Closest suggests, among known, the name a typo meant, or "" when none is
// near enough.
func Closest(s string, known []string) string { return closest(s, known) }

// closest suggests a known key for a typo, when one is near enough.
func closest(s string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
