package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const pkgA = "github.com/idemdata/idem/engine/duckdb"

func stream(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func runOn(t *testing.T, in string) (int, string) {
	t.Helper()
	var out strings.Builder
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	code := run(strings.NewReader(in), &out, nil, func() time.Time { return clock })
	return code, out.String()
}

func TestPassingRunHidesOutput(t *testing.T) {
	code, out := runOn(t, stream(
		`{"Action":"start","Package":"`+pkgA+`"}`,
		`{"Action":"run","Package":"`+pkgA+`","Test":"TestA"}`,
		`{"Action":"output","Package":"`+pkgA+`","Test":"TestA","Output":"chatty log line\n"}`,
		`{"Action":"pass","Package":"`+pkgA+`","Test":"TestA","Elapsed":0.5}`,
		`{"Action":"run","Package":"`+pkgA+`","Test":"TestB"}`,
		`{"Action":"output","Package":"`+pkgA+`","Test":"TestB","Output":"    x_test.go:9: no server answers\n"}`,
		`{"Action":"skip","Package":"`+pkgA+`","Test":"TestB"}`,
		`{"Action":"pass","Package":"`+pkgA+`","Elapsed":1.5}`,
	))
	require.Equal(t, 0, code, out)
	require.NotContains(t, out, "chatty")
	require.Contains(t, out, "ok  \t"+pkgA+"\t")
	require.Contains(t, out, "engine/duckdb: ")
	require.Contains(t, out, "2 tests, 1 skipped (x_test.go:9: no server answers)")
	require.Contains(t, out, "PASS: 2 tests in 1 packages (1 skipped)")
}

func TestFailedTestShowsItsOutputAndFails(t *testing.T) {
	code, out := runOn(t, stream(
		`{"Action":"start","Package":"`+pkgA+`"}`,
		`{"Action":"run","Package":"`+pkgA+`","Test":"TestA"}`,
		`{"Action":"output","Package":"`+pkgA+`","Test":"TestA","Output":"    a_test.go:3: want 1, got 2\n"}`,
		`{"Action":"fail","Package":"`+pkgA+`","Test":"TestA","Elapsed":0.5}`,
		`{"Action":"fail","Package":"`+pkgA+`","Elapsed":1.5}`,
	))
	require.Equal(t, 1, code)
	require.Contains(t, out, "--- FAIL: engine/duckdb TestA (0.50s)\n    a_test.go:3: want 1, got 2\n")
	require.Contains(t, out, "FAIL: 1 failed; 1 tests run in 1 packages")
}

func TestBuildFailureFails(t *testing.T) {
	code, out := runOn(t, stream(
		`{"ImportPath":"`+pkgA+` [`+pkgA+`.test]","Action":"build-output","Output":"# `+pkgA+`\n"}`,
		`{"ImportPath":"`+pkgA+` [`+pkgA+`.test]","Action":"build-output","Output":"x.go:1: undefined: y\n"}`,
		`{"ImportPath":"`+pkgA+` [`+pkgA+`.test]","Action":"build-fail"}`,
		`{"Action":"start","Package":"`+pkgA+`"}`,
		`{"Action":"output","Package":"`+pkgA+`","Output":"FAIL\t`+pkgA+` [build failed]\n"}`,
		`{"Action":"fail","Package":"`+pkgA+`","Elapsed":0,"FailedBuild":"`+pkgA+` [`+pkgA+`.test]"}`,
	))
	require.Equal(t, 1, code)
	require.Contains(t, out, "x.go:1: undefined: y")
	require.Contains(t, out, "FAIL\t"+pkgA+"\t")
}

// A stream that breaks off (go test killed) or never came is a failure.
func TestNoOrUnfinishedResultsFail(t *testing.T) {
	code, out := runOn(t, "")
	require.Equal(t, 1, code)
	require.Contains(t, out, "no test results")

	code, out = runOn(t, stream(
		`{"Action":"start","Package":"`+pkgA+`"}`,
		`{"Action":"run","Package":"`+pkgA+`","Test":"TestA"}`,
	))
	require.Equal(t, 1, code)
	require.Contains(t, out, "engine/duckdb (did not finish)")
}

func TestStatusNamesTheLongestRunningTest(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var out strings.Builder
	p := &printer{out: &out, now: func() time.Time { return clock }, start: clock, pkgs: map[string]*pkgState{}}
	p.line(`{"Action":"start","Package":"` + pkgA + `"}`)
	p.line(`{"Action":"run","Package":"` + pkgA + `","Test":"TestSuite"}`)
	p.line(`{"Action":"run","Package":"` + pkgA + `","Test":"TestSuite/Slow"}`)
	clock = clock.Add(20 * time.Second)
	p.line(`{"Action":"run","Package":"` + pkgA + `","Test":"TestQuick"}`)
	clock = clock.Add(5 * time.Second)
	p.status()
	require.Equal(t, "...  25s  0 tests done; running: engine/duckdb (0 done) TestSuite/Slow 25s\n", out.String())
}
