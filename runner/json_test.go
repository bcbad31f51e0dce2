package runner

import (
	"encoding/json"
	"testing"
)

// Result and VerifyReport group their fields into embedded structs (issue
// 34); their JSON forms, the contracts of `run --json` and `verify
// --json`, are those of the flat structs they were, byte for byte.
func TestJSONFormsAreFlat(t *testing.T) {
	t.Parallel()
	res := Result{Job: "j", Partition: "p", RunID: "r", Action: ActionLoaded,
		InputRows:  InputRows{RowsIn: 1, RowsDeduped: 2, RowsOutOfWindow: 3},
		Writes:     Writes{Inserted: 4, Updated: 5, Deleted: 6, DeletedAbsent: 7, SkippedOlder: 8, KeptOnTie: 12},
		Sums:       Sums{RowCount: 9, Checksum: "c", InputFingerprint: "f"},
		DurationMS: 10, Error: "e",
		Notes: Notes{OutOfWindow: []PartitionRows{{Partition: "q", Rows: 11}}, ClosesAt: "t", Reloaded: "why"}}
	const want = `{"job":"j","partition":"p","run_id":"r","action":"loaded","rows_in":1,"rows_deduped":2,"rows_out_of_window":3,` +
		`"inserted":4,"updated":5,"deleted":6,"deleted_absent":7,"skipped_older":8,"kept_on_tie":12,"row_count":9,"checksum":"c",` +
		`"input_fingerprint":"f","duration_ms":10,"error":"e","out_of_window":[{"partition":"q","rows":11}],"closes_at":"t","reloaded":"why"}`
	if got, _ := json.Marshal(res); string(got) != want {
		t.Errorf("Result:\n got  %s\n want %s", got, want)
	}
	if got, _ := json.Marshal(Result{}); string(got) != `{"job":"","partition":"","run_id":"","action":"","rows_in":0,"rows_deduped":0,`+
		`"rows_out_of_window":0,"inserted":0,"updated":0,"deleted":0,"deleted_absent":0,"skipped_older":0,"kept_on_tie":0,"row_count":0,`+
		`"checksum":"","input_fingerprint":"","duration_ms":0}` {
		t.Errorf("empty Result: %s", got)
	}

	n := int64(0)
	rep := VerifyReport{Job: "j", Partition: "p", Strategy: "merge", Verdict: VerdictFail,
		First: Figures{1, "a"}, Second: Figures{2, "b"}, RerunWritten: &n,
		Why:    Why{Reason: "r", Columns: []ColumnDiff{{Column: "c", Rows: 1}}, Rows: []string{"x"}},
		Change: &ChangeCheck{Verdict: VerdictPass}, Runs: []Result{res}, Cleanup: Cleanup{CleanupErr: errSkipped}}
	wantRep := `{"job":"j","partition":"p","strategy":"merge","verdict":"fail","first":` + mustJSON(t, rep.First) +
		`,"second":` + mustJSON(t, rep.Second) + `,"rerun_written":0,"reason":"r","columns":` + mustJSON(t, rep.Columns) +
		`,"rows":["x"],"change_one_row":` + mustJSON(t, rep.Change) + `}`
	if got := mustJSON(t, rep); got != wantRep {
		t.Errorf("VerifyReport:\n got  %s\n want %s", got, wantRep)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
