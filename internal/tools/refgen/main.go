// Command refgen writes docs/reference.md, the reference of every job file
// field and every command and flag, from the code: the job file's fields
// from package job's struct tags and doc comments, the commands and flags
// from the CLI's cobra tree, the environment variables from the flags
// that take one and from the IDEM_* names the binary's packages read.
//
//	go run ./internal/tools/refgen > docs/reference.md
//
// Its test fails when docs/reference.md differs from what it writes.
package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/idemdata/idem/internal/cli"
)

func main() {
	var b bytes.Buffer
	if err := generate(&b, "."); err != nil {
		fmt.Fprintln(os.Stderr, "refgen:", err)
		os.Exit(1)
	}
	os.Stdout.Write(b.Bytes())
}

// generate writes the reference; root is the repository's folder.
func generate(w io.Writer, root string) error {
	fmt.Fprint(w, `# Reference

Every job file field, command, flag and environment variable of idem. This file is generated
from the code (`+"`go run ./internal/tools/refgen > docs/reference.md`"+`): the fields from
package job's struct tags and doc comments, the commands and flags from the command line's own
definitions. A test fails when it is stale. The README explains the concepts; this file lists.

`)
	if err := jobFields(w, filepath.Join(root, "job")); err != nil {
		return err
	}
	commands(w, cli.Command())
	return environment(w, cli.Command(), root)
}

// jobFields lists the job file's fields, from type Job down.
func jobFields(w io.Writer, dir string) error {
	types, err := structTypes(dir)
	if err != nil {
		return err
	}
	if types["Job"] == nil {
		return fmt.Errorf("no type Job in %s", dir)
	}
	fmt.Fprint(w, `## Job file

One YAML file per job. Unknown keys are errors. `+"`${VAR}` and `${VAR:-default}`"+` are expanded in every
value. A section (`+"`target`, `source`, …"+`) is a map of the fields under it.

| field | value | what |
|---|---|---|
`)
	if err := fieldRows(w, "", types["Job"], types); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}

// structTypes are the struct types declared in the non-test Go files of
// dir, by name.
func structTypes(dir string) (map[string]*ast.StructType, error) {
	fset := token.NewFileSet()
	types := map[string]*ast.StructType{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, spec := range g.Specs {
				ts := spec.(*ast.TypeSpec)
				if st, ok := ts.Type.(*ast.StructType); ok {
					types[ts.Name.Name] = st
				}
			}
		}
	}
	return types, nil
}

// fieldRows writes one row per YAML field of st, each section's fields
// after it under its name.
func fieldRows(w io.Writer, prefix string, st *ast.StructType, types map[string]*ast.StructType) error {
	for _, f := range st.Fields.List {
		if f.Tag == nil || len(f.Names) != 1 {
			continue
		}
		tag, _ := strconv.Unquote(f.Tag.Value)
		name, _, _ := strings.Cut(reflect.StructTag(tag).Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		doc := describe(f.Names[0].Name, f.Doc.Text())
		if doc == "" {
			return fmt.Errorf("job field %s%s (%s) has no doc comment", prefix, name, f.Names[0].Name)
		}
		typ, nested := valueOf(f.Type, types)
		fmt.Fprintf(w, "| `%s%s` | %s | %s |\n", prefix, name, typ, doc)
		if nested != nil {
			if err := fieldRows(w, prefix+name+".", nested, types); err != nil {
				return err
			}
		}
	}
	return nil
}

// describe turns a field's doc comment ("URL is the target database: …")
// into the reference's text ("The target database: …"), on one line.
func describe(goName, doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	if rest, ok := strings.CutPrefix(doc, goName+" "); ok {
		for _, verb := range []string{"is ", "are "} {
			rest = strings.TrimPrefix(rest, verb)
		}
		doc = rest
	}
	if doc == "" {
		return ""
	}
	r := []rune(doc)
	r[0] = unicode.ToUpper(r[0])
	return strings.NewReplacer("|", `\|`, "<", "&lt;").Replace(string(r))
}

// valueOf is how a field's value is written, and the struct of a section.
func valueOf(e ast.Expr, types map[string]*ast.StructType) (string, *ast.StructType) {
	switch t := e.(type) {
	case *ast.StarExpr:
		return valueOf(t.X, types)
	case *ast.MapType:
		return "map: name → text", nil
	case *ast.Ident:
		switch t.Name {
		case "string":
			return "text", nil
		case "int":
			return "integer", nil
		case "bool":
			return "`true` or `false`", nil
		case "StringList":
			return "text, or a list of texts", nil
		case "Duration":
			return "duration (`90m`, `6h`, `2d`)", nil
		case "Percent":
			return "percentage (`20%`)", nil
		case "Grain":
			return "`hour`, `day` or `month`", nil
		}
		if st, ok := types[t.Name]; ok {
			return "section", st
		}
		return t.Name, nil
	}
	return fmt.Sprintf("%T", e), nil
}

// commands lists every command with its help and flags.
func commands(w io.Writer, root *cobra.Command) {
	fmt.Fprint(w, "## Commands\n\n")
	fmt.Fprintf(w, "`idem --help`:\n\n```text\n%s\n```\n\n", strings.TrimSpace(root.Long))
	fmt.Fprint(w, "Every command also takes these flags:\n\n")
	flagTable(w, root.PersistentFlags())
	var all []*cobra.Command
	var collect func(c *cobra.Command)
	collect = func(c *cobra.Command) {
		for _, s := range c.Commands() {
			if s.Hidden || s.Name() == "help" {
				continue
			}
			all = append(all, s)
			collect(s)
		}
	}
	collect(root)
	for _, c := range all {
		fmt.Fprintf(w, "### `%s`\n\n%s.\n\n", strings.TrimSpace(c.CommandPath()+strings.TrimPrefix(c.Use, c.Name())), strings.TrimSuffix(c.Short, "."))
		if c.Long != "" && c.Long != c.Short {
			fmt.Fprintf(w, "```text\n%s\n```\n\n", strings.TrimSpace(c.Long))
		}
		if c.LocalNonPersistentFlags().HasAvailableFlags() {
			flagTable(w, c.LocalNonPersistentFlags())
		}
	}
}

func flagTable(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, "| flag | value | default | environment | what |\n|---|---|---|---|---|\n")
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		name := "`--" + f.Name + "`"
		if f.Shorthand != "" {
			name = "`-" + f.Shorthand + "`, " + name
		}
		def := f.DefValue
		switch {
		case f.Value.Type() == "bool" && def == "false", def == "", def == "[]":
			def = ""
		default:
			def = "`" + def + "`"
		}
		env := cli.EnvVar(f.Name)
		if env != "" {
			env = "`" + env + "`"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", name, f.Value.Type(), def, env, strings.ReplaceAll(f.Usage, "|", `\|`))
	})
	fmt.Fprintln(w)
}

// others describes the IDEM_* variables the binary reads that are not
// flags; the scan of the code below fails the generation when one is read
// and not described here, or described and no longer read.
var others = map[string]string{
	"IDEM_DUCKDB_MEMORY_LIMIT": "DuckDB's `memory_limit` for every run (a DuckDB size: `2GB`), in place of idem's choice (256 MB for a load, 384 MB for a merge, or 64 MB a core where that is more).",
	"IDEM_CHDB_LIB":            "The path of `libchdb.so`, the library `chdb:` targets need (`scripts/fetch-chdb.sh` fetches it and prints the path).",
	"IDEM_CRASH_AT":            "Tests: the point of a run at which the process kills itself, as `kill -9` would: `after_stage`, `after_delete`, `after_write`, `before_commit`, `after_commit`.",
	"IDEM_WAIT_AT":             "Tests: the point at which a run waits until it is signalled (the same points, and `before_build`).",
	"IDEM_WAIT_FOR":            "Tests: with `IDEM_WAIT_AT`, the run goes on once this file exists.",
}

var envName = regexp.MustCompile(`^IDEM_[A-Z][A-Z_]*$`)

// environment lists the variables: the flags' and the others, checked
// against the string literals of the packages the binary is built from.
func environment(w io.Writer, root *cobra.Command, dir string) error {
	fmt.Fprint(w, `## Environment variables

A flag given on the command line wins over its variable, which wins over the flag's default
(no job file field gives a flag's value). An empty variable counts as unset. The flags that
name what to act on (`+"`--date`, `--from`, `--to`, `--where`, `--exclude`, `lint --target`"+`) and
`+"`--force` and `--history`"+` take no variable: a variable left in a shell would load a partition
nobody named, or turn every skip into a reload.

| variable | flag | of |
|---|---|---|
`)
	vars, byVar := flagVars(root)
	for _, v := range vars {
		flag := "--" + strings.ReplaceAll(strings.ToLower(strings.TrimPrefix(v, "IDEM_")), "_", "-")
		of := byVar[v]
		if slices.Contains(of, "idem") {
			of = []string{"every command"}
		}
		fmt.Fprintf(w, "| `%s` | `%s` | %s |\n", v, flag, strings.Join(of, ", "))
	}
	return otherVars(w, dir, vars)
}

// flagVars are the variables that give a flag, sorted, and for each the
// commands whose flag it gives.
func flagVars(root *cobra.Command) ([]string, map[string][]string) {
	byVar := map[string][]string{}
	var vars []string
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if v := cli.EnvVar(f.Name); v != "" {
				if byVar[v] == nil {
					vars = append(vars, v)
				}
				if name := c.Name(); !slices.Contains(byVar[v], name) {
					byVar[v] = append(byVar[v], name)
				}
			}
		})
		for _, s := range c.Commands() {
			visit(s)
		}
	}
	visit(root)
	slices.Sort(vars)
	return vars, byVar
}

// otherVars lists the variables in others, after checking that they and
// the flags' vars are exactly the IDEM_* names the code in dir reads.
func otherVars(w io.Writer, dir string, vars []string) error {
	read, err := readVars(dir)
	if err != nil {
		return err
	}
	for _, v := range read {
		if _, ok := others[v]; !ok && !slices.Contains(vars, v) {
			return fmt.Errorf("the code reads %s, which refgen does not describe: add it to others", v)
		}
	}
	fmt.Fprint(w, "\nOther variables idem reads:\n\n| variable | what |\n|---|---|\n")
	var names []string
	for v := range others {
		if !slices.Contains(read, v) {
			return fmt.Errorf("refgen describes %s, which no code reads any more", v)
		}
		names = append(names, v)
	}
	slices.Sort(names)
	for _, v := range names {
		fmt.Fprintf(w, "| `%s` | %s |\n", v, others[v])
	}
	fmt.Fprintln(w, "\nA job file's `${VAR}` reads any variable, `IDEM_TARGET` in the examples among them; those are the job's, not idem's.")
	return nil
}

// readVars are the IDEM_* string literals of the non-test Go files the
// binary is built from: every package but the test helpers and tools.
func readVars(dir string) ([]string, error) {
	skip := []string{"engine/enginetest", "internal/faults", "internal/benchcli", "internal/tools", "cmd/idem-bench", "engine/bench", "idemtest", "examples"}
	var out []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." || slices.Contains(skip, rel) || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && envName.MatchString(s) && !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
			return true
		})
		return nil
	})
	slices.Sort(out)
	return out, err
}
