package enginetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idemdata/idem"
	"github.com/idemdata/idem/job"
	"github.com/idemdata/idem/runner"
)

// sameKindsCases: `idem plan` and `idem verify -v` show the kinds of
// statement a run executes (`run -v`), in its order (issue 34).
var sameKindsCases = []testCase{
	{"PlanAndVerifyRunWhatARunRuns", testSameKinds},
}

// kindOf is what a recorded text is: its first keyword, and the second
// for DDL and comments (CREATE TABLE, DROP TABLE, -- partition): the
// text without the names, which verify's scratch tables change.
func kindOf(text string) string {
	f := strings.Fields(text)
	if len(f) == 0 {
		return ""
	}
	k := strings.ToUpper(f[0])
	if len(f) > 1 && slices.Contains([]string{"CREATE", "DROP", "ALTER", "--"}, k) {
		k += " " + strings.ToUpper(strings.TrimSuffix(f[1], ":"))
	}
	return k
}

func kindsOf(texts []string) []string {
	out := make([]string, len(texts))
	for i, t := range texts {
		out[i] = kindOf(t)
	}
	return out
}

// recording is an option recording every text a run, plan or verify
// records (what -v logs) into rec.
func recording(rec *[]string) func(*idem.Options) {
	return func(o *idem.Options) { o.Record = func(q string) { *rec = append(*rec, q) } }
}

// runs splits a verify's record into its scratch runs: each begins with
// its partition marker (and holds, after the run's own texts, verify's
// statements up to the next run).
func runs(rec []string) [][]string {
	var out [][]string
	for _, t := range rec {
		if kindOf(t) == "-- PARTITION" {
			out = append(out, nil)
		}
		if len(out) > 0 {
			out[len(out)-1] = append(out[len(out)-1], t)
		}
	}
	return out
}

// For a partition job's first load, its rerun with changed input and a
// rerun whose input has a new column (on_schema_change: add_columns):
// the plan's statement kinds are the run's (-v), in order; and verify's
// scratch runs execute the kinds a run executes on the same input: its
// first, those of a first load, its second, those of a forced rerun.
// Verify's scratch runs always start from an empty scratch table: they
// show neither a rerun with changed input nor a schema change of the
// real target, which the plan shows.
func testSameKinds(t *testing.T, h Harness) {
	body := filesJob + "on_schema_change: add_columns\n"
	changed := strings.Replace(orders, "6,15,2026-11-28 15:00:00,completed,1.00,2026-11-28 15:00:00",
		"6,15,2026-11-28 15:00:00,returned,1.00,2026-11-28 18:00:00", 1)
	var withNote strings.Builder
	for i, line := range strings.Split(strings.TrimSuffix(orders, "\n"), "\n") {
		note := fmt.Sprintf("n%d", i)
		if i == 0 {
			note = "note"
		}
		withNote.WriteString(line + "," + note + "\n")
	}
	for _, c := range []struct{ name, before, input string }{
		{"first load", "", orders},
		{"rerun", orders, changed},
		{"schema change", orders, withNote.String()},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			e := NewEnv(t, h)
			j := e.Job(body)
			if c.before != "" {
				e.Write("in/orders.csv", c.before)
				e.MustRun(j, "2026-11-28")
			}
			e.Write("in/orders.csv", c.input)

			var verified []string
			rep := e.verify(j, "2026-11-28", recording(&verified))
			require.Equal(t, runner.VerdictPass, rep.Verdict, rep.Reason)
			planSameAsRun(t, e, j)
			verifySameAsRun(t, h, body, c.input, verified)
		})
	}
}

// planSameAsRun: the plan's statement kinds are the run's, in order.
func planSameAsRun(t *testing.T, e *Env, j *job.Job) {
	plans, err := e.Plan(j, "2026-11-28")
	stopped := errors.Is(err, runner.ErrPlanNeedsDDL)
	if !stopped {
		require.NoError(t, err)
	}
	var planned []string
	for _, p := range plans {
		for _, s := range p.Steps {
			planned = append(planned, s.Text)
		}
	}
	var ran []string
	_, err = e.Run(j, "2026-11-28", recording(&ran))
	require.NoError(t, err)
	if stopped { // the plan stops before DDL it cannot roll back
		planned = untilDDL(planned)
		ran = ran[:min(len(planned), len(ran))]
	}
	requireSameKinds(t, "plan", kindsOf(planned), kindsOf(ran), planned, ran)
}

// verifySameAsRun: verify's first two scratch runs execute the kinds of
// what a run executes on the same input: a first load, then a forced
// rerun (in a subtest: an Env of its own on engines that give each test
// its own schema).
func verifySameAsRun(t *testing.T, h Harness, body, input string, verified []string) {
	var first, forced []string
	t.Run("reference", func(t *testing.T) {
		ref := NewEnv(t, h)
		rj := ref.Job(body)
		ref.Write("in/orders.csv", input)
		_, err := ref.Run(rj, "2026-11-28", recording(&first))
		require.NoError(t, err)
		_, err = ref.Run(rj, "2026-11-28", recording(&forced), func(o *idem.Options) { o.Force = true })
		require.NoError(t, err)
	})
	scratch := runs(verified)
	require.GreaterOrEqual(t, len(scratch), 2, "verify's record:\n%s", strings.Join(verified, "\n"))
	for i, want := range [][]string{first, forced} {
		got := scratch[i][:min(len(want), len(scratch[i]))]
		requireSameKinds(t, fmt.Sprintf("verify's scratch run %d", i+1), kindsOf(got), kindsOf(want), got, want)
	}
}

// untilDDL is a stopped plan's texts up to where it stopped: without the
// drops of its temporary tables and its end (see planEqualsRun).
func untilDDL(planned []string) []string {
	n := len(planned)
	for n > 0 && (strings.HasPrefix(kindOf(planned[n-1]), "DROP ") || kindOf(planned[n-1]) == "ROLLBACK") {
		n--
	}
	return planned[:n]
}

// requireSameKinds fails, showing both lists side by side, when got's
// kinds are not want's.
func requireSameKinds(t *testing.T, what string, got, want, gotTexts, wantTexts []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	var b strings.Builder
	for i := range max(len(got), len(want)) {
		g, w, gt, wt := "", "", "", ""
		if i < len(got) {
			g, gt = got[i], firstLine(gotTexts[i])
		}
		if i < len(want) {
			w, wt = want[i], firstLine(wantTexts[i])
		}
		mark := "  "
		if g != w {
			mark = "≠ "
		}
		fmt.Fprintf(&b, "%s%-20s %-20s | %.90s | %.90s\n", mark, g, w, gt, wt)
	}
	t.Fatalf("%s: the kinds of statement differ from a run's (-v):\n%s", what, b.String())
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
