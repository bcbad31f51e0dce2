package job

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, and that whatever it returns is
// either a job that validates and renders, or an *Error with problems.
func FuzzParse(f *testing.F) {
	seeds := []string{
		validPartitionJob,
		validMergeJob,
		header + partitionTail,
		header + partitionTail + "  grain: hour\n  timezone: Europe/Berlin\n  lookback: 2\n  closed_after: 1d\n",
		header + "source:\n  files: data/{{ yyyy }}/{{ mm }}/*.parquet\nstrategy: partition\npartition:\n  column: d\n  grain: month\n",
		"idem: 1\njob: ${JOB:-j}\ntarget:\n  url: ${URL}\n  table: $${T}\n" + partitionTail,
		"idem: 1\njob: j\nx: &t {tabel: t}\ntarget: *t\n" + partitionTail,
		"",
		"~",
		"- a\n- b\n",
		"idem: [1\n",
		"key: {a: 1}\npartition: [x]\ntarget: 3\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	lookup := fakeEnv(map[string]string{"URL": "duckdb::memory:", "JOB": "fuzz", "EMPTY": ""})

	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := Parse(data, "/jobs", lookup)
		if err != nil {
			if j != nil {
				t.Fatalf("Parse returned both a job and an error: %v", err)
			}
			var je *Error
			if !errors.As(err, &je) {
				t.Fatalf("error %T is not a *job.Error: %v", err, err)
			}
			if len(je.Problems) == 0 {
				t.Fatalf("*job.Error without problems")
			}
			_ = je.Error()
			return
		}
		if j == nil {
			t.Fatal("Parse returned neither a job nor an error")
		}
		if ps := j.Validate(); len(ps) > 0 {
			t.Fatalf("a parsed job does not validate: %v", ps)
		}
		if !j.Partition.Grain.valid() {
			t.Fatalf("a parsed job has grain %q", j.Partition.Grain)
		}
		if len(j.DefinitionHash()) != 32 {
			t.Fatalf("definition hash %q", j.DefinitionHash())
		}
		_ = j.Table()
		_ = j.RequiredColumns()
		_ = Redact(j.Target.URL)
		w, err := j.Window(example(j.Partition.Grain))
		if err != nil {
			t.Fatalf("the example date does not parse: %v", err)
		}
		if !w.End.After(w.Start) {
			t.Fatalf("window end %s is not after start %s", w.End, w.Start)
		}
		rendered := []string{RenderSQL(j.Source.Query, w, fakeDialect{})}
		for _, f := range j.Source.Files {
			rendered = append(rendered, RenderPath(f, w))
		}
		for _, s := range rendered {
			if strings.Contains(s, "{{ date }}") {
				t.Fatalf("a template survived rendering: %q", s)
			}
		}
	})
}
