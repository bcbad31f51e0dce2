package faults_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idemdata/idem/engine"
)

// Lost connections: the server ends the run's sessions
// (pg_terminate_backend, MySQL's KILL CONNECTION) at a random moment. The run exits 1 saying the
// connection was lost (not blaming the input), the table is the old or the
// new contents with a ledger that agrees, and the next run converges.
//
// IDEM_FAULT_CONNKILLS sets the terminations per strategy (default 2),
// IDEM_FAULT_FIRST the index of the first (default 0), so that a count can
// be split in parts with the generator at the same place in its sequence.
func TestLostConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("starts large runs; not with -short")
	}
	kills := envInt(t, "IDEM_FAULT_CONNKILLS", 2)
	first := envInt(t, "IDEM_FAULT_FIRST", 0)
	rows := envInt(t, "IDEM_FAULT_ROWS", 1_000_000)
	seed := uint64(envInt(t, "IDEM_FAULT_SEED", 1))
	for ei, e := range serverTargets {
		for si, strategy := range []string{"partition", "merge"} {
			t.Run(e.name+"/"+strategy, func(t *testing.T) {
				t.Parallel()
				tgt := e.make(t)
				f := newFixture(t, tgt, strategy, rows)
				rng := rand.New(rand.NewPCG(seed, uint64(100+ei*2+si)))
				var c tally
				for range first { // a count continued where an earlier one stopped
					rng.Int64N(int64(f.runTime))
				}
				for i := first; i < first+kills; i++ {
					delay := time.Duration(rng.Int64N(int64(f.runTime)))
					f.terminateOnce(t, tgt, i, delay, &c)
					if (i+1-first)%10 == 0 || i+1 == first+kills { // a long count shows where it is
						t.Logf("lost connections %s/%s: terminations %d to %d: %d tried, %d sessions ended (%d before the commit, %d during, %d after), %d runs had no session to end; left old %d, new %d; violations %d",
							e.name, strategy, first, i, i+1-first, c.get("terminated"), c.get("before"), c.get("during"), c.get("after"),
							c.get("missed"), c.get("old"), c.get("new"), c.get("violation"))
					}
				}
			})
		}
	}
}

func (f *fixture) terminateOnce(t *testing.T, tgt serverTarget, i int, delay time.Duration, c *tally) {
	t.Helper()
	u, drop := tgt.copyOf(t, f.base, f.strategy+"_conn")
	defer drop()
	var ended int
	p := runIdemIn(t, u, f.tmp, func(*os.Process) {
		time.Sleep(delay)
		ended = tgt.terminate(t, u)
	}, "run", f.jobPath, "--date", f.date, "--as-of", asOf, "--json", "-v")
	ph := f.phase(p)
	var err error
	switch {
	case ended == 0:
		c.add("missed") // not connected yet, or already gone
		if p.code != 0 {
			err = fmt.Errorf("no session was ended, yet the run exited %d", p.code)
		}
	case p.code == 0:
		// Ended after the run committed (or while it closed): it succeeded.
		c.add("terminated")
		c.add("after")
		if ph != "after" {
			err = fmt.Errorf("exit 0 without a result")
		}
	case p.code == 1:
		c.add("terminated")
		c.add(ph)
		msg := lastLine(p.stderr)
		switch {
		case !strings.Contains(msg, engine.ErrConnLost.Error()):
			err = fmt.Errorf("the error does not say the connection was lost: %s", msg)
		case strings.Contains(msg, " line "), strings.Contains(msg, "reading "):
			err = fmt.Errorf("the error blames the input: %s", msg)
		case strings.Contains(p.stderr, "idem_failures"):
			err = fmt.Errorf("it tried to record the failure over the lost connection: %s", p.stderr)
		}
	default:
		err = fmt.Errorf("exit %d (want 1, or 0 when it had finished)", p.code)
	}
	var was string
	if err == nil {
		tgt.settle(t, u)
		was, err = f.which(t, u)
	}
	if err == nil && ph == "before" && was != "old" {
		err = fmt.Errorf("ended before it sent COMMIT, yet the table holds the %s contents", was)
	}
	if err == nil {
		c.add(was)
		err = f.converge(t, u, was)
	}
	if err != nil {
		c.add("violation")
		t.Errorf("termination %d (after %v, %s the commit): %v\nstderr:\n%s", i, delay, ph, err, p.stderr)
	}
}

// lastLine is the last line of a process's stderr: idem's error.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
