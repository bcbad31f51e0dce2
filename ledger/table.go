package ledger

import (
	"time"

	"github.com/idemdata/idem/engine"
)

// field is one column of a table the ledger owns, bound to the field of
// the row type R that holds it. The constructors below tie the column's
// logical type to the Go field's type, so every value a row binds or scans
// has the type its column declares.
type field[R any] struct {
	def engine.ColumnDef
	ptr func(*R) any // where a scan stores the column
	val func(*R) any // what a write binds
}

func text[R any](name string, f func(*R) *string) field[R] {
	return field[R]{
		def: engine.ColumnDef{Name: name, Type: engine.TypeText},
		ptr: func(r *R) any { return f(r) },
		val: func(r *R) any { return *f(r) },
	}
}

// nullText is a text column that may hold NULL; it reads as "" (see
// engine.Records.Select). Only text columns may be nullable.
func nullText[R any](name string, f func(*R) *string) field[R] {
	c := text(name, f)
	c.def.Nullable = true
	return c
}

func integer[R any](name string, f func(*R) *int64) field[R] {
	return field[R]{
		def: engine.ColumnDef{Name: name, Type: engine.TypeInt64},
		ptr: func(r *R) any { return f(r) },
		val: func(r *R) any { return *f(r) },
	}
}

func boolean[R any](name string, f func(*R) *bool) field[R] {
	return field[R]{
		def: engine.ColumnDef{Name: name, Type: engine.TypeBool},
		ptr: func(r *R) any { return f(r) },
		val: func(r *R) any { return *f(r) },
	}
}

// instant is a TIMESTAMPTZ column; values are written in UTC.
func instant[R any](name string, f func(*R) *time.Time) field[R] {
	return field[R]{
		def: engine.ColumnDef{Name: name, Type: engine.TypeInstant},
		ptr: func(r *R) any { return f(r) },
		val: func(r *R) any { return f(r).UTC() },
	}
}

// added marks a column a later version brought (see engine.ColumnDef).
func (c field[R]) added(version int, note string) field[R] {
	c.def.Added, c.def.Note = version, note
	return c
}

// defaultZero gives an integer column DEFAULT 0.
func (c field[R]) defaultZero() field[R] {
	c.def.DefaultZero = true
	return c
}

// table is the one definition of a ledger table: its DDL (through each
// dialect), the columns it reads and the values it writes come from it.
type table[R any] struct {
	fields []field[R]
	key    []string
}

func (t table[R]) def() engine.TableDef {
	d := engine.TableDef{Key: append([]string(nil), t.key...)}
	for _, f := range t.fields {
		d.Columns = append(d.Columns, f.def)
	}
	return d
}

func (t table[R]) names() []string {
	out := make([]string, len(t.fields))
	for i, f := range t.fields {
		out[i] = f.def.Name
	}
	return out
}

// dest is what a scan of the table's columns (in order) stores into.
func (t table[R]) dest(r *R) []any {
	out := make([]any, len(t.fields))
	for i, f := range t.fields {
		out[i] = f.ptr(r)
	}
	return out
}

// values are r's columns, in order, to bind.
func (t table[R]) values(r *R) []any {
	out := make([]any, len(t.fields))
	for i, f := range t.fields {
		out[i] = f.val(r)
	}
	return out
}

// runs is idem_runs. A forced rerun rewrites its own row: the key has the
// run id.
var runs = table[Entry]{
	key: []string{"job", "partition", "run_id"},
	fields: []field[Entry]{
		text("job", func(e *Entry) *string { return &e.Job }),
		text("partition", func(e *Entry) *string { return &e.Partition }),
		text("run_id", func(e *Entry) *string { return &e.RunID }),
		integer("seq", func(e *Entry) *int64 { return &e.Seq }),
		text("input_fingerprint", func(e *Entry) *string { return &e.InputFingerprint }),
		text("definition_hash", func(e *Entry) *string { return &e.DefinitionHash }),
		text("strategy", func(e *Entry) *string { return &e.Strategy }),
		integer("rows_in", func(e *Entry) *int64 { return &e.RowsIn }),
		integer("rows_deduped", func(e *Entry) *int64 { return &e.RowsDeduped }),
		integer("rows_out_of_window", func(e *Entry) *int64 { return &e.RowsOutOfWindow }),
		integer("inserted", func(e *Entry) *int64 { return &e.Inserted }),
		integer("updated", func(e *Entry) *int64 { return &e.Updated }),
		integer("deleted", func(e *Entry) *int64 { return &e.Deleted }),
		integer("deleted_absent", func(e *Entry) *int64 { return &e.DeletedAbsent }).defaultZero().added(2, ""),
		integer("skipped_older", func(e *Entry) *int64 { return &e.SkippedOlder }),
		integer("row_count", func(e *Entry) *int64 { return &e.RowCount }),
		text("checksum", func(e *Entry) *string { return &e.Checksum }),
		boolean("partition_closed", func(e *Entry) *bool { return &e.PartitionClosed }),
		instant("started_at", func(e *Entry) *time.Time { return &e.StartedAt }),
		instant("finished_at", func(e *Entry) *time.Time { return &e.FinishedAt }),
		text("idem_version", func(e *Entry) *string { return &e.IdemVersion }),
		nullText("target_table", func(e *Entry) *string { return &e.TargetTable }).
			added(1, "Ledgers written by idem 0.1 lack the column (NULL: owner unknown)."),
		integer("table_rows", func(e *Entry) *int64 { return &e.TableRows }).defaultZero().
			added(3, "A merge run's target row count after it; 0 where not recorded."),
		integer("kept_on_tie", func(e *Entry) *int64 { return &e.KeptOnTie }).defaultZero().
			added(4, "Staged rows a merge run did not write: an equal version, the table's row first by content."),
		nullText("input_objects", func(e *Entry) *string { return &e.InputObjects }).
			added(5, "Ledgers written before inputs could be objects lack the column (NULL: local files or a query)."),
		integer("job_seq", func(e *Entry) *int64 { return &e.JobSeq }).defaultZero().
			added(6, "The job's runs in the order they were recorded, across partitions; 0 where not recorded."),
	},
}

// failures is idem_failures. A retry that fails again overwrites its own
// row: the key has the run id.
var failures = table[Failure]{
	key: []string{"job", "partition", "run_id"},
	fields: []field[Failure]{
		text("job", func(f *Failure) *string { return &f.Job }),
		text("partition", func(f *Failure) *string { return &f.Partition }),
		text("run_id", func(f *Failure) *string { return &f.RunID }),
		integer("seq", func(f *Failure) *int64 { return &f.Seq }),
		integer("after_run_seq", func(f *Failure) *int64 { return &f.AfterRunSeq }),
		text("error", func(f *Failure) *string { return &f.Error }),
		instant("failed_at", func(f *Failure) *time.Time { return &f.FailedAt }),
		text("idem_version", func(f *Failure) *string { return &f.IdemVersion }),
	},
}

// Runs is the shape of idem_runs, from which each engine renders its DDL.
func Runs() engine.TableDef { return runs.def() }

// Failures is the shape of idem_failures.
func Failures() engine.TableDef { return failures.def() }
