package idem_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The layers, highest first: a package imports only its own layer's or
// lower ones (docs/architecture.md). Engines implement the contract, so
// they sit above it; the reader is below everything that writes.
var layers = []struct {
	name string
	in   func(pkg string) bool
}{
	{"cmd", func(p string) bool { return strings.HasPrefix(p, "cmd/") }},
	{"cli", func(p string) bool { return p == "internal/cli" }},
	{"root package", func(p string) bool { return p == "" }},
	{"runner", func(p string) bool { return p == "runner" }},
	{"engines", func(p string) bool { return engineOf(p) != "" }},
	{"engine contract", func(p string) bool {
		return p == "engine" || p == "engine/dsn" || p == "engine/sqltext" || p == "engine/bench" || p == "engine/stdsql"
	}},
	{"input", func(p string) bool { return p == "input" || strings.HasPrefix(p, "input/") }},
}

// engineOf is the engine a package belongs to (engine/mysql/baseline:
// mysql), or "".
func engineOf(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, "engine/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	switch name {
	case "dsn", "sqltext", "bench", "enginetest", "stdsql":
		return ""
	}
	return name
}

func layerOf(pkg string) int {
	for i, l := range layers {
		if l.in(pkg) {
			return i
		}
	}
	return -1
}

// No arrow runs from a lower layer to a higher one, and no engine package
// imports job, the runner, the ledger, lint or another engine (what
// engine/bench shares is SQL text of no engine). Test files are not read:
// the conformance suite drives engines through the runner.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, "./...").CombinedOutput()
	require.NoError(t, err, "%s", out)
	const mod = "github.com/idemdata/idem"
	local := func(p string) (string, bool) {
		if p == mod {
			return "", true
		}
		rest, ok := strings.CutPrefix(p, mod+"/")
		return rest, ok
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkgPath, imports, _ := strings.Cut(line, ":")
		pkg, _ := local(pkgPath)
		for _, imp := range strings.Fields(imports) {
			dep, ok := local(imp)
			if !ok {
				continue
			}
			checked++
			if from, to := layerOf(pkg), layerOf(dep); from >= 0 && to >= 0 && to < from {
				t.Errorf("%s (%s) imports %s (%s): an arrow up", pkgPath, layers[from].name, imp, layers[to].name)
			}
			if e := engineOf(pkg); e != "" {
				if other := engineOf(dep); other != "" && other != e {
					t.Errorf("%s imports another engine, %s", pkgPath, imp)
				}
				for _, above := range []string{"job", "runner", "ledger", "lint", "source"} {
					if dep == above || strings.HasPrefix(dep, above+"/") {
						t.Errorf("%s imports %s", pkgPath, imp)
					}
				}
			}
		}
	}
	require.Greater(t, checked, 50, "go list found too few imports to check")
}
