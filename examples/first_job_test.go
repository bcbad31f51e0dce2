package examples_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idemdata/idem/engine/enginetest"
)

// update is the -update flag enginetest defines for its golden files:
// here it rewrites the outputs in the README's "Your first job".
func update() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// firstJob is the README's "Your first job" section.
var firstJob = regexp.MustCompile("(?s)\n## Your first job\n.*?\n## ")

// console is one console block: its command lines start with "$ ".
var console = regexp.MustCompile("(?s)```console\n(.*?)```\n")

// volatile is what may differ from run to run: run ids, durations, times.
var volatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`run [0-9a-f]{12}`), "run RUN"},
	{regexp.MustCompile(`\d+ ms\)`), "MS ms)"},
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`), "TIME"},
}

func stable(s string) string {
	for _, v := range volatile {
		s = v.re.ReplaceAllString(s, v.with)
	}
	return s
}

// TestFirstJob runs the commands of the README's "Your first job", in
// order, in a copy of examples/first-job, and compares what each prints
// (stderr and stdout as a terminal shows them) with what the README says.
// -update rewrites the README's outputs instead.
func TestFirstJob(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	loc := firstJob.FindIndex(readme)
	if loc == nil {
		t.Fatal(`the README has no "## Your first job" section`)
	}
	section := string(readme[loc[0]:loc[1]])
	// The jobs shown are the jobs run: each yaml block is one of the
	// files, but for its opening comment.
	var jobs []string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```\n").FindAllStringSubmatch(section, -1) {
		jobs = append(jobs, m[1])
	}
	for i, name := range []string{"daily.yaml", "events.yaml"} {
		b, err := os.ReadFile(filepath.Join("first-job", name))
		if err != nil {
			t.Fatal(err)
		}
		body := regexp.MustCompile(`(?m)\A(#.*\n)*`).ReplaceAllString(string(b), "")
		if i >= len(jobs) || jobs[i] != body {
			t.Errorf("the README's job %d is not first-job/%s as it is:\n%s", i+1, name, body)
		}
	}
	bin := enginetest.Binary(t)
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("first-job")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "warehouse.duckdb")) // left by someone's walk-through
	var commands int
	section = console.ReplaceAllStringFunc(section, func(block string) string {
		var out strings.Builder
		out.WriteString("```console\n")
		for _, step := range steps(console.FindStringSubmatch(block)[1]) {
			cmdline, want := step[0], step[1]
			got := runLine(t, bin, dir, cmdline)
			commands++
			if update() {
				want = got
			} else if stable(got) != stable(want) {
				t.Errorf("$ %s\nthe README shows:\n%s\nit printed:\n%s", cmdline, want, got)
			}
			out.WriteString("$ " + cmdline + "\n" + want)
		}
		out.WriteString("```\n")
		return out.String()
	})
	if commands < 8 {
		t.Fatalf("found %d commands in the section", commands)
	}
	if update() {
		updated := append(append(append([]byte{}, readme[:loc[0]]...), section...), readme[loc[1]:]...)
		if err := os.WriteFile("../README.md", updated, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// "Loading the deliveries in the other order gives the same table."
	other := t.TempDir()
	if err := os.CopyFS(other, os.DirFS("first-job")); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(other, "warehouse.duckdb"))
	runLine(t, bin, other, "idem run examples/first-job/events.yaml --date 2026-08-20")
	runLine(t, bin, other, "idem run examples/first-job/events.yaml --date 2026-08-19")
	show := "idem show examples/first-job/events.yaml --limit 100 --json"
	if a, b := runLine(t, bin, dir, show), runLine(t, bin, other, show); a != b || strings.Count(a, "\n") != 30 {
		t.Errorf("the deliveries in file order and reversed gave different tables:\n%s\n%s", a, b)
	}
}

// steps splits a console block into its commands (the lines after "$ ")
// and what each prints (the lines up to the next command).
func steps(block string) [][2]string {
	var out [][2]string
	for _, line := range strings.SplitAfter(block, "\n") {
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			out = append(out, [2]string{strings.TrimSuffix(cmd, "\n"), ""})
		} else if len(out) > 0 {
			out[len(out)-1][1] += line
		}
	}
	return out
}

// runLine runs one README command line (idem and its arguments, paths
// under examples/first-job/) in dir, and returns stderr and stdout as one
// terminal would show them. Every command must succeed.
func runLine(t *testing.T, bin, dir, line string) string {
	t.Helper()
	args := strings.Fields(line)
	if args[0] != "idem" {
		t.Fatalf("not an idem command: %s", line)
	}
	for i, a := range args {
		args[i] = strings.Replace(a, "examples/first-job/", dir+"/", 1)
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, args[1:]...)
	// One pipe for both, so they come in the order they were written in.
	cmd.Stdout, cmd.Stderr = &out, &out
	// The partitions are closed whatever the clock says.
	cmd.Env = append(os.Environ(), "IDEM_AS_OF=2026-12-01")
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("$ %s: exit %d\n%s", line, ee.ExitCode(), out.String())
		}
		t.Fatal(err)
	}
	return out.String()
}
