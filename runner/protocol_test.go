package runner

import (
	"slices"
	"strings"
	"testing"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/job"
)

// stepsOf lists a run's steps as "name/phase" for a job of strategy, with
// files or a query as its source, on an engine committing by commit.
func stepsOf(t *testing.T, commit engine.Commit, strategy, source string) []string {
	t.Helper()
	j := &job.Job{Strategy: strategy}
	if source == "query" {
		j.Source.Query = "SELECT 1"
	}
	r := &run{proto: newProtocol(engine.Capabilities{Commit: commit}), job: j}
	var out []string
	for _, st := range r.steps() {
		out = append(out, st.name+"/"+[]string{"prepare", "data", "ledger", "cleanup"}[st.phase])
	}
	return out
}

// The steps of each protocol, in order: where a crash can fall, and which
// run outside the data transaction on an engine whose DDL commits. A
// change here changes the commit layer: look at it twice.
func TestProtocolSteps(t *testing.T) {
	head := []string{"check ledger/prepare", "inspect target/prepare"}
	files := []string{"fingerprint files/prepare", "decide skip/prepare", "stage files/prepare"}
	query := []string{"stage query/prepare", "fingerprint rows/prepare", "decide skip/prepare"}
	checks := []string{"check input/prepare", "de-duplicate/prepare"}
	tail := []string{"ensure ledger/prepare", "write ledger/ledger", "drop staging/cleanup"}
	merge := []string{"shape target/prepare", "plan merge/prepare", "merge matched keys/data", "merge the rest/data"}
	txWrites := []string{"shape target/prepare", "place rows/prepare",
		"delete partition/data", "insert partition/data", "checksum partition/data"}
	swapWrites := []string{"place rows/prepare", "shape target/prepare",
		"delete partition/data", "insert partition/data", "checksum partition/data"}
	xchgWrites := []string{"place rows/prepare", "shape target/prepare",
		"build partition/prepare", "replace partition/data", "checksum partition/data"}
	cat := func(parts ...[]string) []string { return slices.Concat(parts...) }
	for _, c := range []struct {
		commit           engine.Commit
		strategy, source string
		want             []string
	}{
		{engine.CommitTransaction, job.StrategyPartition, "files", cat(head, files, checks, txWrites, tail)},
		{engine.CommitTransaction, job.StrategyPartition, "query", cat(head, query, checks, txWrites, tail)},
		{engine.CommitTransaction, job.StrategyMerge, "files", cat(head, files, checks, merge, tail)},
		{engine.CommitSwap, job.StrategyPartition, "files", cat(head, files, checks, swapWrites, tail)},
		{engine.CommitSwap, job.StrategyMerge, "query", cat(head, query, checks, merge, tail)},
		{engine.CommitExchange, job.StrategyPartition, "files",
			cat(head, []string{"check partition key/prepare"}, files, checks, xchgWrites, tail)},
		{engine.CommitExchange, job.StrategyMerge, "files", cat(head, files, checks, merge, tail)},
	} {
		got := stepsOf(t, c.commit, c.strategy, c.source)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %s from %s:\n got  %s\n want %s", c.commit, c.strategy, c.source,
				strings.Join(got, ", "), strings.Join(c.want, ", "))
		}
	}
}

// On the protocols that run DDL outside the data transaction, no step
// of the data phase comes before a prepare step: the transaction holds
// DML only, and phases keeps each phase's order.
func TestPhasesKeepOrder(t *testing.T) {
	r := &run{proto: newProtocol(engine.Capabilities{Commit: engine.CommitExchange}),
		job: &job.Job{Strategy: job.StrategyPartition}}
	prepare, data, ledger, cleanup := phases(r.steps())
	if len(prepare) == 0 || len(data) == 0 || len(ledger) != 1 || len(cleanup) != 1 {
		t.Fatalf("phases: %d prepare, %d data, %d ledger, %d cleanup", len(prepare), len(data), len(ledger), len(cleanup))
	}
	if ledger[0].name != "write ledger" {
		t.Errorf("the ledger phase holds %q", ledger[0].name)
	}
	if cleanup[0].crash != "" {
		t.Errorf("a cleanup step keeps its crash point %q: it is taken before the commit", cleanup[0].crash)
	}
}

// newProtocol follows the declared commit kind and nothing else.
func TestNewProtocol(t *testing.T) {
	for commit, want := range map[engine.Commit]protocol{
		engine.CommitTransaction: transaction{},
		engine.CommitSwap:        swapping{},
		engine.CommitExchange:    exchanging{},
	} {
		if got := newProtocol(engine.Capabilities{Commit: commit}); got != want {
			t.Errorf("newProtocol(%s) = %T, want %T", commit, got, want)
		}
	}
}
