package job

import (
	"fmt"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// envRE matches $${...} (an escaped, literal "${"), ${VAR} and ${VAR:-default}.
var envRE = regexp.MustCompile(`\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}|\$\{[^}]*\}?`)

// Expand replaces ${VAR} and ${VAR:-default} in s. A variable that is unset
// (or empty, for the :- form) and has no default is an error.
func Expand(s string, lookup func(string) (string, bool)) (string, error) {
	var err error
	out := envRE.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$${" {
			return "${"
		}
		sub := envRE.FindStringSubmatch(m)
		name := sub[1]
		if name == "" {
			if err == nil {
				err = fmt.Errorf("%q is not a variable reference (use ${NAME} or ${NAME:-default})", m)
			}
			return m
		}
		v, ok := lookup(name)
		if sub[2] != "" && (!ok || v == "") {
			return sub[3]
		}
		if !ok {
			if err == nil {
				err = fmt.Errorf("environment variable %s is not set (give a default with ${%s:-value})", name, name)
			}
			return m
		}
		return v
	})
	return out, err
}

// expandNode expands variables in every scalar value below n, in place.
func expandNode(n *yaml.Node, path string, lookup func(string) (string, bool)) []Problem {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		var ps []Problem
		for i, c := range n.Content {
			p := path
			if n.Kind == yaml.SequenceNode {
				p = path + "[" + strconv.Itoa(i) + "]"
			}
			ps = append(ps, expandNode(c, p, lookup)...)
		}
		return ps
	case yaml.MappingNode:
		var ps []Problem
		for i := 0; i+1 < len(n.Content); i += 2 {
			ps = append(ps, expandNode(n.Content[i+1], join(path, n.Content[i].Value), lookup)...)
		}
		return ps
	case yaml.ScalarNode:
		v, err := Expand(n.Value, lookup)
		if err != nil {
			return []Problem{{Path: path, Line: n.Line, Msg: err.Error()}}
		}
		if v != n.Value {
			n.Value = v
			// An expanded value is data, not YAML: keep "123" a string
			// where a string is expected by letting the decoder re-resolve.
			n.Tag = ""
			n.Style = 0
		}
	}
	return nil
}
