package faults_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"
)

// Random kills: a run of a million rows, killed with SIGKILL after a delay
// a fixed-seed generator draws from [0, the measured length of a run),
// leaves the table exactly the old or the new contents, with a ledger that
// agrees, and the next run converges. Every engine × strategy, and a
// merge's first load (mergefirst: the old contents are no table) and a
// merge into an empty table (mergeempty).
//
// IDEM_FAULT_KILLS sets the kills per engine × strategy (default 2),
// IDEM_FAULT_FIRST the index of the first (default 0), so that a count can
// be split in parts (kills 0-99, then 100-199) with the generator at the
// same place in its sequence,
// IDEM_FAULT_ROWS the input's rows (default 1000000), IDEM_FAULT_SEED the
// generator's seed (default 1).
func TestRandomKills(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills large runs; not with -short")
	}
	kills := envInt(t, "IDEM_FAULT_KILLS", 2)
	first := envInt(t, "IDEM_FAULT_FIRST", 0)
	rows := envInt(t, "IDEM_FAULT_ROWS", 1_000_000)
	seed := uint64(envInt(t, "IDEM_FAULT_SEED", 1))
	engines := []struct {
		name string
		tgt  func(t *testing.T) target
	}{
		{"duckdb", func(t *testing.T) target { return duckTarget{dir: t.TempDir()} }},
		{"postgres", func(t *testing.T) target { return newPGTarget(t) }},
		{"mysql", func(t *testing.T) target { return newMySQLTarget(t) }},
		{"clickhouse", func(t *testing.T) target { return newCHDBTarget(t) }},
	}
	for ei, e := range engines {
		for si, strategy := range []string{"partition", "merge", "mergefirst", "mergeempty"} {
			t.Run(e.name+"/"+strategy, func(t *testing.T) {
				t.Parallel()
				f := newFixture(t, e.tgt(t), strategy, rows)
				stream := uint64(ei*2 + si) // the first two strategies' as before a merge's first load was added
				switch strategy {
				case "mergefirst":
					stream = uint64(100 + ei)
				case "mergeempty":
					stream = uint64(200 + ei)
				}
				rng := rand.New(rand.NewPCG(seed, stream))
				var c tally
				for range first { // a count continued where an earlier one stopped
					rng.Int64N(int64(f.runTime))
				}
				for i := first; i < first+kills; i++ {
					delay := time.Duration(rng.Int64N(int64(f.runTime)))
					f.killOnce(t, i, delay, &c)
					if (i+1-first)%10 == 0 || i+1 == first+kills { // a long count shows where it is
						t.Logf("random kills %s/%s: kills %d to %d: %d tried, %d killed (%d before the commit, %d during, %d after), %d finished before the kill; left old %d, new %d, new but not yet recorded %d; violations %d",
							e.name, strategy, first, i, i+1-first, c.get("killed"), c.get("before"), c.get("during"), c.get("after"),
							c.get("finished"), c.get("old"), c.get("new"), c.get(unrecorded), c.get("violation"))
					}
				}
			})
		}
	}
}

// killOnce runs the new input on a copy of the old contents, kills it after
// delay, checks what it left, and reruns.
func (f *fixture) killOnce(t *testing.T, i int, delay time.Duration, c *tally) {
	t.Helper()
	u, drop := f.tgt.copyOf(t, f.base, f.strategy+"_kill")
	defer drop()
	p := runIdemIn(t, u, f.tmp, func(proc *os.Process) {
		time.Sleep(delay)
		_ = proc.Kill() // SIGKILL; an error only means it had finished
	}, "run", f.jobPath, "--date", f.date, "--as-of", asOf, "--json", "-v")
	ph := f.phase(p)
	switch {
	case p.killed:
		c.add("killed")
		c.add(ph)
	case p.code == 0:
		c.add("finished")
	default:
		c.add("violation")
		t.Errorf("kill %d (after %v): the run failed by itself, exit %d: %s", i, delay, p.code, p.stderr)
		return
	}
	f.tgt.settle(t, u)
	was, err := f.which(t, u)
	if err == nil && ph == "before" && was != "old" {
		err = fmt.Errorf("killed before it sent COMMIT, yet the table holds the %s contents", was)
	}
	if err == nil && ph == "after" && was != "new" {
		err = fmt.Errorf("killed after it printed its result, yet the table holds the %s contents", was)
	}
	if err == nil {
		c.add(was)
		err = f.converge(t, u, was)
	}
	if err != nil {
		c.add("violation")
		t.Errorf("kill %d (after %v, %s the commit): %v\nstderr of the killed run:\n%s", i, delay, ph, err, p.stderr)
	}
}
