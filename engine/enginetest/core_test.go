package enginetest

import (
	"strconv"
	"testing"
)

// The quick run keeps every guarantee on every engine: each of SPEC.md's
// nine and each other promise has a core case, and every core name is a
// case of the suite (a renamed case would otherwise drop out silently).
func TestCoreCoversEveryGuarantee(t *testing.T) {
	names := map[string]bool{}
	for _, c := range allCases() {
		if names[c.name] {
			t.Errorf("two cases are named %s", c.name)
		}
		names[c.name] = true
	}
	shown := map[string]int{}
	for name, what := range core {
		if !names[name] {
			t.Errorf("core case %s is not a case of the suite", name)
		}
		shown[what]++
	}
	want := []string{readOnly, secrets, reading, ledgerOK}
	for g := 1; g <= 9; g++ {
		want = append(want, strconv.Itoa(g))
	}
	for _, w := range want {
		if shown[w] == 0 {
			t.Errorf("no core case shows %q: -short would not cover it", w)
		}
	}
	if len(shown) != len(want) {
		t.Errorf("core cases show %d guarantees and promises, want %d: %v", len(shown), len(want), shown)
	}
}
