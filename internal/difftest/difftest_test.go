package difftest_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/engine/enginetest"
	"github.com/idemdata/idem/input"
	"github.com/idemdata/idem/internal/difftest"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// SeedEnv sets the generator's seed (a new one each run otherwise);
// CaseEnv runs one case of it; FilesEnv sets how many files the cases
// hold at least (200 with -short, 2,000 without); EnginesEnv names the
// engines to load into (default: every one present).
const (
	SeedEnv    = "IDEM_DIFF_SEED"
	CaseEnv    = "IDEM_DIFF_CASE"
	FilesEnv   = "IDEM_DIFF_FILES"
	EnginesEnv = "IDEM_DIFF_ENGINES"
)

// engineSpec is an engine the test loads into, registered by a file
// that its build tag leaves out with the engine.
type engineSpec struct {
	name string
	// target returns the URL of an empty target for the whole test; it
	// skips t (a subtest) when the engine's server or library is absent,
	// and registers its cleanups on parent.
	target func(parent, t *testing.T) string
	// keepOpen: the test holds a handle on the target while it runs, for
	// its dumps; on an embedded engine the runs then find the database
	// open (DuckDB's instance, cached by path, and chDB's one session per
	// process), rather than open and close it each time.
	keepOpen bool
	// workers is how many cases run at once (a server's runs spend most
	// of their time waiting for it); 0 is one.
	workers int
}

var engines []engineSpec

// target is one engine's target for the test.
type target struct {
	name    string
	url     string
	limits  *input.Limits
	held    engine.DB
	mu      sync.Mutex // held's one connection
	root    string     // the folder of its cases' files
	workers int
}

// outcome is what one step did on one engine.
type outcome struct {
	// class: 0 loaded (or skipped), 1 bad input (exit 1: the input, or
	// a key the target holds twice), 2 the job (exit 2), 3 any other
	// failure.
	class int
	// file, line and column locate bad input, file relative to the case's
	// folder; for a key held twice, file names the key and line counts
	// its rows.
	file   string
	line   int
	column string
	msg    string
	// problems are the paths of a job error's problems (source.files,
	// columns.x, …).
	problems []string
	dump     *enginetest.Dump // the table after the step; nil if none
}

func (o outcome) String() string {
	switch o.class {
	case 0:
		return "loaded"
	case 2:
		return fmt.Sprintf("job error at %q: %s", o.problems, o.msg)
	}
	return fmt.Sprintf("class %d at %s line %d column %q: %s", o.class, o.file, o.line, o.column, o.msg)
}

// TestEnginesAgree loads every generated file with its job into every
// engine present: either every engine refuses it alike (the same exit
// class, file, line and column, and an unchanged table), or every engine
// loads it and the tables dump alike. An engine whose documented range
// does not hold a case's edge value must refuse it, naming the value.
func TestEnginesAgree(t *testing.T) {
	seed, err := seedOf(os.Getenv(SeedEnv))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seed %d: %s=%d reproduces this run", seed, SeedEnv, seed)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("seed %d: rerun with %s=%d (and %s=N for case N alone)", seed, SeedEnv, seed, CaseEnv)
		}
	})
	cases, files := generate(t, seed)
	targets := openTargets(t)
	names := make([]string, len(targets))
	for i, tg := range targets {
		names[i] = tg.name
	}
	t.Logf("%d cases, %d files, on %s", len(cases), files, strings.Join(names, ", "))

	results := runAll(t, targets, cases)
	if os.Getenv(CaseEnv) != "" {
		for ei, tg := range targets {
			for si, o := range results[ei][0] {
				t.Logf("%s step %d: %s", tg.name, si+1, o)
			}
		}
	}
	// What the steps did, on the first engine: a generator that made
	// only refusals would compare little.
	did := map[string]int{}
	for _, steps := range results[0] {
		for _, o := range steps {
			did[[]string{"loaded", "refused (exit 1)", "job error (exit 2)", "failed"}[o.class]]++
		}
	}
	t.Logf("steps on %s: %v", targets[0].name, did)

	// The first cases that differ in full, then a line for each other.
	shown := 0
	var more []string
	for ci, c := range cases {
		outs := make([][]outcome, len(targets))
		for ei := range targets {
			outs[ei] = results[ei][ci]
		}
		problem := agree(c, targets, outs)
		switch {
		case problem == "":
		case shown < 10:
			shown++
			t.Errorf("seed %d case %d (%s): %s\n%s", seed, c.Index, c.Name, problem, describe(c))
		default:
			first, _, _ := strings.Cut(problem, "\n")
			more = append(more, fmt.Sprintf("case %d (%s): %s", c.Index, c.Name, first))
		}
	}
	if len(more) > 0 {
		t.Errorf("and %d more cases differ:\n%s", len(more), strings.Join(more, "\n"))
	}
}

// generate draws the cases: case CaseEnv alone, or the first ones that
// hold FilesEnv files (200 with -short, 2,000 without).
func generate(t *testing.T, seed uint64) (cases []difftest.Case, files int) {
	add := func(c difftest.Case) {
		cases = append(cases, c)
		for _, s := range c.Steps {
			files += len(s.Files)
		}
	}
	if s := os.Getenv(CaseEnv); s != "" {
		i, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("%s=%q: %v", CaseEnv, s, err)
		}
		add(difftest.Generate(seed, i))
		t.Logf("case %d (%s):\n%s", i, cases[0].Name, describe(cases[0]))
		return cases, files
	}
	n := 2000
	if testing.Short() {
		n = 200
	}
	if s := os.Getenv(FilesEnv); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("%s=%q: %v", FilesEnv, s, err)
		}
	}
	for i := 0; files < n; i++ {
		add(difftest.Generate(seed, i))
	}
	return cases, files
}

// openTargets makes a target on every engine present (EnginesEnv's).
func openTargets(t *testing.T) []*target {
	root := t.TempDir()
	only := os.Getenv(EnginesEnv)
	var targets []*target
	for _, e := range engines {
		if only != "" && !slices.Contains(strings.Split(only, ","), e.name) {
			continue
		}
		var url string
		t.Run("target/"+e.name, func(st *testing.T) { url = e.target(t, st) })
		if url == "" {
			continue
		}
		tg := &target{name: e.name, url: url, root: filepath.Join(root, e.name), workers: max(e.workers, 1)}
		db, err := idem.Open(context.Background(), url, tg.root, time.Minute)
		if err != nil {
			t.Fatalf("%s: %v", e.name, err)
		}
		tg.limits = db.SQL().Types.Limits()
		if e.keepOpen {
			tg.held = db
			t.Cleanup(func() { db.Close() })
		} else {
			db.Close()
		}
		targets = append(targets, tg)
	}
	if len(targets) == 0 {
		t.Fatal("no engine to load into")
	}
	return targets
}

// runAll runs every case on every target, engines at once, and returns
// the outcomes by engine, case and step.
func runAll(t *testing.T, targets []*target, cases []difftest.Case) [][][]outcome {
	results := make([][][]outcome, len(targets))
	took := make([]time.Duration, len(targets))
	var wg sync.WaitGroup
	for ei, tg := range targets {
		results[ei] = make([][]outcome, len(cases))
		next := make(chan int)
		go func() {
			for ci := range cases {
				next <- ci
			}
			close(next)
		}()
		var engineWG sync.WaitGroup
		for range tg.workers {
			engineWG.Add(1)
			go func() {
				defer engineWG.Done()
				for ci := range next {
					results[ei][ci] = tg.run(cases[ci])
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			began := time.Now()
			engineWG.Wait()
			took[ei] = time.Since(began)
		}()
	}
	wg.Wait()
	for ei, tg := range targets {
		t.Logf("%s: %s", tg.name, took[ei].Round(time.Millisecond))
	}
	return results
}

// seedOf reads the seed, or draws one.
func seedOf(s string) (uint64, error) {
	if s == "" {
		return rand.Uint64() >> 11, nil // short enough to copy
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s=%q: %w", SeedEnv, s, err)
	}
	return v, nil
}

// run runs every step of c on the target, in the case's own folder.
func (tg *target) run(c difftest.Case) []outcome {
	dir := filepath.Join(tg.root, fmt.Sprintf("c%d", c.Index))
	var outs []outcome
	for si, s := range c.Steps {
		o := tg.step(dir, si, s)
		outs = append(outs, o)
		if o.class == 3 {
			break
		}
	}
	return outs
}

func (tg *target) step(dir string, si int, s difftest.Step) outcome {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return outcome{class: 3, msg: err.Error()}
	}
	for _, name := range s.Remove {
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return outcome{class: 3, msg: err.Error()}
		}
	}
	for name, b := range s.Files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return outcome{class: 3, msg: err.Error()}
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return outcome{class: 3, msg: err.Error()}
		}
	}
	jobPath := filepath.Join(dir, fmt.Sprintf("job%d.yaml", si))
	if err := os.WriteFile(jobPath, []byte(strings.Replace(s.Job, "@URL@", strconv.Quote(tg.url), 1)), 0o644); err != nil {
		return outcome{class: 3, msg: err.Error()}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var o outcome
	j, err := job.Load(jobPath)
	if err == nil {
		now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
		_, err = idem.Run(ctx, j, idem.Options{Date: s.Date, AsOf: now, Now: func() time.Time { return now }, LockTimeout: time.Minute})
	}
	o = classify(err, dir)
	table := engine.Table{Name: fmt.Sprintf("d%d", indexOf(dir))}
	if j != nil {
		table = engine.Table(j.Table())
	}
	d, err := tg.dump(ctx, table)
	switch {
	case errors.Is(err, enginetest.ErrNoTable):
	case err != nil:
		o.class, o.msg = 3, "dumping the table: "+err.Error()
	default:
		o.dump = d
	}
	return o
}

// indexOf is the case number of a case's folder (c12: 12).
func indexOf(dir string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "c"))
	return n
}

func (tg *target) dump(ctx context.Context, t engine.Table) (*enginetest.Dump, error) {
	db := tg.held
	if db != nil {
		// One connection: the workers take turns.
		tg.mu.Lock()
		defer tg.mu.Unlock()
	} else {
		var err error
		if db, err = idem.Open(ctx, tg.url, tg.root, time.Minute); err != nil {
			return nil, err
		}
		defer db.Close()
	}
	return enginetest.DumpTable(ctx, db, t)
}

// classify reads a run's error as its exit class and where it points.
func classify(err error, dir string) outcome {
	if err == nil {
		return outcome{}
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return p
	}
	var ie *runner.InputError
	var ke *runner.RepeatedKeyError
	var je *job.Error
	switch {
	case errors.As(err, &ie):
		return outcome{class: 1, file: rel(ie.File), line: ie.Line, column: ie.Column, msg: err.Error()}
	case errors.As(err, &ke):
		return outcome{class: 1, file: "key " + strings.Join(ke.Value, ", "), line: int(ke.Rows), msg: err.Error()}
	case errors.As(err, &je):
		o := outcome{class: 2, msg: err.Error()}
		// Their paths: the messages spell types as each engine does.
		for _, p := range je.Problems {
			o.problems = append(o.problems, p.Path)
		}
		return o
	}
	return outcome{class: 3, msg: err.Error()}
}

// agree says how the engines' outcomes of a case differ ("" when they
// agree).
func agree(c difftest.Case, targets []*target, outs [][]outcome) string {
	// Engines whose range does not hold the edge value refuse it, naming
	// it, and are compared no further.
	in := make([]int, 0, len(targets))
	var b strings.Builder
	for ei, tg := range targets {
		if c.Edge != nil && outside(tg.limits, c.Edge) {
			o := outs[ei][0]
			if o.class != 1 || !strings.Contains(o.msg, c.Edge.Value) || !strings.Contains(o.msg, "is outside the") || o.dump != nil {
				fmt.Fprintf(&b, "%s's range does not hold %s: want a refusal naming it, got %s\n", tg.name, c.Edge.Value, o)
			}
			continue
		}
		in = append(in, ei)
	}
	for ei, tg := range targets {
		for _, o := range outs[ei] {
			if o.class == 3 {
				fmt.Fprintf(&b, "%s failed: %s\n", tg.name, o.msg)
			}
		}
	}
	if b.Len() > 0 || len(in) < 2 {
		return b.String()
	}
	for si := range c.Steps {
		dumps := make([]*enginetest.Dump, 0, len(in))
		for _, ei := range in {
			if d := outs[ei][si].dump; d != nil {
				dumps = append(dumps, d)
			}
		}
		if len(dumps) > 0 {
			enginetest.AlignJSON(dumps...)
		}
		first := outs[in[0]][si]
		for _, ei := range in[1:] {
			o := outs[ei][si]
			if why := differ(first, o); why != "" {
				return fmt.Sprintf("step %d: %s and %s differ: %s\n  %s: %s\n  %s: %s", si+1, targets[in[0]].name, targets[ei].name, why,
					targets[in[0]].name, first, targets[ei].name, o)
			}
		}
	}
	return ""
}

// differ says how two outcomes of one step differ.
func differ(a, b outcome) string {
	switch {
	case a.class != b.class:
		return "the outcome"
	case a.class == 1 && (a.file != b.file || a.line != b.line || a.column != b.column):
		return "where the input is refused"
	case a.class == 2 && !slices.Equal(a.problems, b.problems):
		return "the job's problems"
	case (a.dump == nil) != (b.dump == nil):
		return "whether the table exists"
	}
	if a.dump == nil {
		return ""
	}
	la, lb := a.dump.Lines(), b.dump.Lines()
	if slices.Equal(la, lb) {
		return ""
	}
	onlyA, onlyB := lineDiff(la, lb)
	return fmt.Sprintf("the tables:\n    only in the first: %q\n    only in the second: %q", onlyA, onlyB)
}

func lineDiff(a, b []string) (onlyA, onlyB []string) {
	count := map[string]int{}
	for _, l := range a {
		count[l]++
	}
	for _, l := range b {
		count[l]--
	}
	for l, n := range count {
		for ; n > 0; n-- {
			onlyA = append(onlyA, l)
		}
		for ; n < 0; n++ {
			onlyB = append(onlyB, l)
		}
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	return onlyA, onlyB
}

// outside reports an edge value the engine's limits exclude.
func outside(l *input.Limits, e *difftest.Edge) bool {
	if l == nil {
		return false
	}
	switch e.Kind {
	case input.Date:
		return l.HasDates && (e.At < l.MinDate || e.At > l.MaxDate)
	case input.Timestamp:
		return l.HasTimes && (e.At < l.MinTime || e.At > l.MaxTime)
	}
	return l.HasInstants && (e.At < l.MinInstant || e.At > l.MaxInstant)
}

// describe prints a case: each step's job and files, for reproducing it
// by hand.
func describe(c difftest.Case) string {
	var b strings.Builder
	for si, s := range c.Steps {
		fmt.Fprintf(&b, "--- step %d, %s:\n%s", si+1, s.Date, s.Job)
		names := make([]string, 0, len(s.Files))
		for n := range s.Files {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			content := string(s.Files[n])
			if strings.HasSuffix(n, ".gz") || strings.HasSuffix(n, ".parquet") {
				content = fmt.Sprintf("(%d bytes)", len(content))
			} else if len(content) > 1500 {
				content = content[:1500] + fmt.Sprintf("… (%d bytes)", len(content))
			}
			fmt.Fprintf(&b, "--- %s:\n%q\n", n, content)
		}
	}
	return b.String()
}
