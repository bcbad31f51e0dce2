package difftest

import (
	"reflect"
	"strings"
	"testing"
)

// A case is the same for a seed and an index, wherever it is drawn: a
// seed printed by a failed run reproduces it.
func TestGenerateIsDeterministic(t *testing.T) {
	differs := 0
	for i := range 80 {
		a, b := Generate(42, i), Generate(42, i)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("case %d differs between two draws", i)
		}
		if !reflect.DeepEqual(a, Generate(43, i)) {
			differs++
		}
		for si, s := range a.Steps {
			if !strings.Contains(s.Job, "url: @URL@") || len(s.Files) == 0 {
				t.Errorf("case %d step %d: a job without target or files:\n%s", i, si+1, s.Job)
			}
		}
	}
	if differs < 40 {
		t.Errorf("only %d of 80 cases differ between seeds 42 and 43", differs)
	}
}

// Every observation of the issue is a named case, drawn by every run.
func TestNamedCasesCoverTheObservations(t *testing.T) {
	names := Named()
	for _, want := range []string{"clock-words", "glob-names", "truncated-gzip", "two-digit-years", "long-names",
		"blank-fields", "space-around-quotes", "nested-json-numbers", "inexact-either-order", "bare-numeric",
		"key-held-twice", "lint-generated-key", "delete-when-yes-no", "json-keys-differing-in-case", "line-ends",
		"blank-lines", "tiny-exponent"} {
		i := -1
		for k, n := range names {
			if n == want {
				i = k
			}
		}
		if i < 0 {
			t.Errorf("no named case %s", want)
			continue
		}
		if got := Generate(7, i).Name; got != want {
			t.Errorf("case %d is %s, want %s", i, got, want)
		}
	}
	if e := Generate(7, len(names)); e.Name != "edge" || e.Edge == nil {
		t.Errorf("case %d is %s, want the first edge", len(names), e.Name)
	}
}
