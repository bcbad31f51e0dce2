// Command testprogress reads `go test -json` on stdin and prints progress:
// a line per finished package, a status line while tests run, the output
// of failed tests only, and a summary. It exits 1 if any test or build
// failed, so it can stand at the end of a pipe:
//
//	go test -json ./... | go run ./internal/tools/testprogress
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

func main() {
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	os.Exit(run(os.Stdin, os.Stdout, tick.C, time.Now))
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	ImportPath  string // build-output and build-fail
	FailedBuild string
}

type pkgState struct {
	started  time.Time
	running  map[string]time.Time // tests running (not paused), since
	output   map[string][]string  // per test ("" for the package), until it ends
	done     int
	failed   []string
	skipped  int
	skipNote string // why the first top-level test skipped
}

type printer struct {
	out      io.Writer
	now      func() time.Time
	start    time.Time
	pkgs     map[string]*pkgState
	order    []string // packages in the order they started
	tests    int
	failed   []string
	skipped  int
	packages int
	badBuild bool
}

func run(in io.Reader, out io.Writer, tick <-chan time.Time, now func() time.Time) int {
	p := &printer{out: out, now: now, start: now(), pkgs: map[string]*pkgState{}}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				return p.summary()
			}
			p.line(l)
		case <-tick:
			p.status()
		}
	}
}

func (p *printer) pkg(name string) *pkgState {
	s := p.pkgs[name]
	if s == nil {
		s = &pkgState{started: p.now(), running: map[string]time.Time{}, output: map[string][]string{}}
		p.pkgs[name] = s
		p.order = append(p.order, name)
	}
	return s
}

func (p *printer) line(l string) {
	var e event
	if !strings.HasPrefix(l, "{") || json.Unmarshal([]byte(l), &e) != nil {
		fmt.Fprintln(p.out, l) // not from test2json: the go command's own words
		return
	}
	switch e.Action {
	case "build-output":
		fmt.Fprint(p.out, e.Output)
		return
	case "build-fail":
		p.badBuild = true
		return
	}
	s := p.pkg(e.Package)
	switch e.Action {
	case "output":
		s.output[e.Test] = append(s.output[e.Test], e.Output)
	case "run", "cont":
		if e.Test != "" {
			s.running[e.Test] = p.now()
		}
	case "pause":
		delete(s.running, e.Test)
	case "pass", "fail", "skip":
		if e.Test == "" {
			p.pkgDone(e, s)
			return
		}
		delete(s.running, e.Test)
		out := s.output[e.Test]
		delete(s.output, e.Test)
		p.tests++
		s.done++
		switch e.Action {
		case "fail":
			s.failed = append(s.failed, e.Test)
			p.failed = append(p.failed, short(e.Package)+" "+e.Test)
			fmt.Fprintf(p.out, "--- FAIL: %s %s (%.2fs)\n%s", short(e.Package), e.Test, e.Elapsed, strings.Join(out, ""))
		case "skip":
			s.skipped++
			p.skipped++
			if s.skipNote == "" {
				s.skipNote = skipReason(out)
			}
		}
	}
}

// skipReason is the message of a skipped test's t.Skip, from its output.
func skipReason(out []string) string {
	for _, l := range out {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- ") {
			continue
		}
		return l
	}
	return ""
}

func (p *printer) pkgDone(e event, s *pkgState) {
	p.packages++
	name := short(e.Package)
	// The result line is go test's own (tab-separated, full import path), so
	// whatever reads go test's output reads this; the counts follow it.
	switch e.Action {
	case "skip":
		fmt.Fprintf(p.out, "?   \t%s\t[no test files]\n", e.Package)
	case "pass":
		fmt.Fprintf(p.out, "ok  \t%s\t%.3fs\n", e.Package, e.Elapsed)
		fmt.Fprintf(p.out, "      %s: %d tests%s\n", name, s.done, skipText(s))
	case "fail":
		if len(s.failed) == 0 { // a failure outside any test: show the package's output
			fmt.Fprint(p.out, strings.Join(s.output[""], ""))
			p.failed = append(p.failed, name+" (package)")
		}
		fmt.Fprintf(p.out, "FAIL\t%s\t%.3fs\n", e.Package, e.Elapsed)
		fmt.Fprintf(p.out, "      %s: %d tests, %d failed%s\n", name, s.done, len(s.failed), skipText(s))
	}
	delete(p.pkgs, e.Package)
	p.order = slices.DeleteFunc(p.order, func(n string) bool { return n == e.Package })
}

func skipText(s *pkgState) string {
	if s.skipped == 0 {
		return ""
	}
	if s.skipNote != "" {
		return fmt.Sprintf(", %d skipped (%s)", s.skipped, s.skipNote)
	}
	return fmt.Sprintf(", %d skipped", s.skipped)
}

// status prints what is running now, and for how long.
func (p *printer) status() {
	if len(p.order) == 0 {
		return
	}
	now := p.now()
	var parts []string
	for _, name := range p.order {
		s := p.pkgs[name]
		part := fmt.Sprintf("%s (%d done", short(name), s.done)
		if len(s.failed) > 0 {
			part += fmt.Sprintf(", %d failed", len(s.failed))
		}
		part += ")"
		// The longest-running test says what the package waits on; a
		// parent that only waits for its subtests says nothing.
		longest, since := "", now
		for t, at := range s.running {
			if hasChild(s.running, t) {
				continue
			}
			if at.Before(since) || at.Equal(since) && t < longest {
				longest, since = t, at
			}
		}
		if longest != "" {
			part += fmt.Sprintf(" %s %ds", longest, int(now.Sub(since).Seconds()))
		}
		parts = append(parts, part)
	}
	fmt.Fprintf(p.out, "... %3ds  %d tests done; running: %s\n", int(now.Sub(p.start).Seconds()), p.tests, strings.Join(parts, "; "))
}

// hasChild reports whether a subtest of test is running.
func hasChild(running map[string]time.Time, test string) bool {
	for t := range running {
		if strings.HasPrefix(t, test+"/") {
			return true
		}
	}
	return false
}

func (p *printer) summary() int {
	took := p.now().Sub(p.start).Round(100 * time.Millisecond)
	for _, name := range p.order { // started, never finished: the stream broke off
		p.failed = append(p.failed, short(name)+" (did not finish)")
	}
	switch {
	case len(p.failed) > 0 || p.badBuild:
		fmt.Fprintf(p.out, "FAIL: %d failed; %d tests run in %d packages, %v\n", len(p.failed), p.tests, p.packages, took)
		for _, f := range p.failed {
			fmt.Fprintf(p.out, "  %s\n", f)
		}
		if p.badBuild {
			fmt.Fprintln(p.out, "  (and a build failed)")
		}
		return 1
	case p.packages == 0:
		fmt.Fprintln(p.out, "FAIL: no test results read (pipe `go test -json` into this)")
		return 1
	}
	fmt.Fprintf(p.out, "PASS: %d tests in %d packages (%d skipped), %v\n", p.tests, p.packages, p.skipped, took)
	return 0
}

// short drops the module path from a package's import path.
func short(pkg string) string {
	const mod = "github.com/idemdata/idem"
	if pkg == mod {
		return "."
	}
	return strings.TrimPrefix(pkg, mod+"/")
}
