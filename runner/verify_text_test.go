package runner

import (
	"strings"
	"testing"
)

// TestWriteText pins each section of `idem verify`'s text: the verdict
// line, the differing columns and the clock hint, the rows, and the
// change-one-row check in each of its verdicts.
func TestWriteText(t *testing.T) {
	t.Parallel()
	written := int64(2)
	figs := "run 1: 3 rows, checksum aa; run 2: 3 rows, checksum bb"
	fail := VerifyReport{Job: "orders", Partition: "2024-01-02", Verdict: VerdictFail, Why: Why{Reason: "the two runs left different tables"},
		First: Figures{3, "aa"}, Second: Figures{3, "bb"}}
	for _, c := range []struct {
		name string
		rep  VerifyReport
		want []string
	}{
		{"pass merge", VerifyReport{Job: "orders", Partition: "2024-01-02", Verdict: VerdictPass,
			First: Figures{3, "aa"}, Second: Figures{3, "aa"}, RerunWritten: new(int64)},
			[]string{"orders 2024-01-02: PASS: two runs gave the same table (run 1: 3 rows, checksum aa; run 2: 3 rows, checksum aa; the same snapshot merged again changed 0 rows)"}},
		{"fail rerun wrote", func() VerifyReport { r := fail; r.RerunWritten = &written; return r }(),
			[]string{"orders 2024-01-02: FAIL: the two runs left different tables (" + figs + "; the same snapshot merged again changed 2 rows)"}},
		{"columns", func() VerifyReport {
			r := fail
			r.Columns = []ColumnDiff{{Column: "r", Rows: 3, Of: 3, Key: "id=1", First: "0.1", Second: "0.2"}, {Column: "n", Rows: 1, Of: 3, First: "1", Second: "(none)"}}
			return r
		}(), []string{"orders 2024-01-02: FAIL: the two runs left different tables (" + figs + ")",
			"  column r differs in 3 of 3 rows; e.g. at id=1: run 1 0.1, run 2 0.2",
			"  column n differs in 1 of 3 rows; e.g. run 1 1, run 2 (none)",
			"  a column that changes on every run points at a clock (now(), current_timestamp) or a random value (random(), uuid()) in the transform"}},
		{"rows", func() VerifyReport {
			r := fail
			r.Rows = []string{"first run only: 1, a", "second run only: 1, b"}
			return r
		}(),
			[]string{"orders 2024-01-02: FAIL: the two runs left different tables (" + figs + ")", "  first run only: 1, a", "  second run only: 1, b"}},
		{"change skipped", VerifyReport{Job: "o", Partition: "p", Verdict: VerdictPass, Change: &ChangeCheck{Verdict: ChangeSkipped, Note: "the input loaded no rows"}},
			[]string{"o p: PASS: two runs gave the same table (run 1: 0 rows, checksum ; run 2: 0 rows, checksum )", "  change one row: not checked: the input loaded no rows"}},
		{"change pass", VerifyReport{Job: "o", Partition: "p", Verdict: VerdictPass,
			Change: &ChangeCheck{Verdict: VerdictPass, File: "in.csv", Line: 4, Column: "note", From: "hi", To: "hi~", Key: "id=2", Note: "lost"}},
			[]string{"o p: PASS: two runs gave the same table (run 1: 0 rows, checksum ; run 2: 0 rows, checksum )", `  change one row (in.csv line 4, note "hi" -> "hi~"): only the rows of id=2 changed (lost)`}},
		{"change fail", VerifyReport{Job: "o", Partition: "p", Verdict: VerdictFail, Why: Why{Reason: "changing one input row changed other rows too"},
			Change: &ChangeCheck{Verdict: VerdictFail, File: "in.csv", Line: 4, Column: "n", From: "1", To: "2", Removed: []string{"1, a"}, Added: []string{"1, b", "2, b"}}},
			[]string{"o p: FAIL: changing one input row changed other rows too (run 1: 0 rows, checksum ; run 2: 0 rows, checksum )",
				`  change one row (in.csv line 4, n "1" -> "2"): more than that row changed:`, "    - 1, a", "    + 1, b", "    + 2, b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			c.rep.WriteText(&b)
			if want := strings.Join(c.want, "\n") + "\n"; b.String() != want {
				t.Errorf("WriteText:\n%s\nwant:\n%s", b.String(), want)
			}
		})
	}
}
