package duckdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/idemdata/idem/engine"
	"github.com/idemdata/idem/input"
)

// The reader's rows reach DuckDB through a table function: DuckDB pulls
// them a chunk at a time, typed (no value is parsed from text), within the
// statement that inserts them, so they are part of the run's transaction.
// The function is registered once per open database; each load is one
// call, its rows found by the number it is given.

// rowsFunction is the table function's name.
const rowsFunction = "idem_input_rows"

var (
	loadsMu sync.Mutex
	loads   = map[int64]*rowsSource{}
	loadSeq atomic.Int64
)

var _ engine.RowLoader = (*DB)(nil)

// LoadPath says how rows reach DuckDB.
func (*DB) LoadPath() string {
	return "the reader's typed rows, pulled by DuckDB through a table function"
}

// LoadRows inserts every row of rows into t.
func (d *DB) LoadRows(ctx context.Context, q engine.Querier, t engine.Table, cols []engine.Column, rows *input.Reader, rec func(string)) (int64, error) {
	src := &rowsSource{cols: cols, rows: rows}
	id := loadSeq.Add(1)
	loadsMu.Lock()
	loads[id] = src
	loadsMu.Unlock()
	defer func() {
		loadsMu.Lock()
		delete(loads, id)
		loadsMu.Unlock()
	}()
	dl := Dialect{}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	table := dl.Table(t)
	if t.Schema == "" {
		table = dl.Ident(t.Name)
	}
	stmt := fmt.Sprintf("INSERT INTO %s (%s) SELECT * FROM %s(%%d)", table, dl.Idents(names), rowsFunction)
	rec(fmt.Sprintf(stmt, 0))
	res, err := q.ExecContext(ctx, fmt.Sprintf(stmt, id))
	if src.err != nil { // the reader's own error, not DuckDB's account of it
		return 0, src.err
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// registerRows registers the table function on conn's database.
func registerRows(conn *sql.Conn) error {
	return duckdb.RegisterTableUDF(conn, rowsFunction, duckdb.ChunkTableFunction{
		Config: duckdb.TableFunctionConfig{Arguments: []duckdb.TypeInfo{mustType(duckdb.TYPE_BIGINT)}},
		BindArguments: func(_ map[string]any, args ...any) (duckdb.ChunkTableSource, error) {
			id, _ := args[0].(int64)
			loadsMu.Lock()
			src := loads[id]
			loadsMu.Unlock()
			if src == nil {
				return nil, fmt.Errorf("%s(%d): no load of that number is under way", rowsFunction, id)
			}
			return src, nil
		},
	})
}

func mustType(t duckdb.Type) duckdb.TypeInfo {
	info, err := duckdb.NewTypeInfo(t)
	if err != nil {
		panic(err)
	}
	return info
}

// rowsSource hands one load's batches to DuckDB a chunk at a time.
type rowsSource struct {
	cols  []engine.Column
	rows  *input.Reader
	batch *input.Batch
	at    int // the batch's next row
	err   error
}

// ColumnInfos: each column as its staged type. JSON travels as VARCHAR
// (DuckDB's JSON writer would encode the text again); the INSERT stores
// it in the JSON column as it is.
func (s *rowsSource) ColumnInfos() []duckdb.ColumnInfo {
	infos := make([]duckdb.ColumnInfo, len(s.cols))
	for i, c := range s.cols {
		info, err := typeInfo(c.Type)
		if err != nil {
			info = mustType(duckdb.TYPE_VARCHAR)
			s.err = err
		}
		infos[i] = duckdb.ColumnInfo{Name: c.Name, T: info}
	}
	return infos
}

// typeInfo is DuckDB's type info for one of ColumnType's types.
func typeInfo(sqlType string) (duckdb.TypeInfo, error) {
	rt, ok := Dialect{}.ReaderType(sqlType)
	if !ok {
		return nil, fmt.Errorf("duckdb: cannot load a column of type %s", sqlType)
	}
	switch rt.Kind {
	case input.Bool:
		return duckdb.NewTypeInfo(duckdb.TYPE_BOOLEAN)
	case input.Int:
		switch rt.Bits {
		case 8:
			return duckdb.NewTypeInfo(duckdb.TYPE_TINYINT)
		case 16:
			return duckdb.NewTypeInfo(duckdb.TYPE_SMALLINT)
		case 32:
			return duckdb.NewTypeInfo(duckdb.TYPE_INTEGER)
		}
		return duckdb.NewTypeInfo(duckdb.TYPE_BIGINT)
	case input.Decimal:
		return duckdb.NewDecimalInfo(uint8(rt.Precision), uint8(rt.Scale))
	case input.Float:
		if rt.Bits == 32 {
			return duckdb.NewTypeInfo(duckdb.TYPE_FLOAT)
		}
		return duckdb.NewTypeInfo(duckdb.TYPE_DOUBLE)
	case input.Date:
		return duckdb.NewTypeInfo(duckdb.TYPE_DATE)
	case input.Timestamp:
		return duckdb.NewTypeInfo(duckdb.TYPE_TIMESTAMP)
	case input.TimestampTZ:
		return duckdb.NewTypeInfo(duckdb.TYPE_TIMESTAMP_TZ)
	}
	return duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
}

func (s *rowsSource) Cardinality() *duckdb.CardinalityInfo { return nil }

func (s *rowsSource) Init() {}

// FillChunk copies the next rows of the current batch into chunk.
func (s *rowsSource) FillChunk(chunk duckdb.DataChunk) error {
	if s.err != nil {
		return s.err
	}
	if s.batch != nil && s.at == s.batch.Len {
		// DuckDB copied every value (strings too): the reader fills the
		// batch again rather than allocating another.
		s.rows.Release(s.batch)
		s.batch = nil
	}
	if s.batch == nil {
		b, err := s.rows.Next()
		if errors.Is(err, io.EOF) {
			return chunk.SetSize(0)
		}
		if err != nil {
			s.err = err
			return err
		}
		s.batch, s.at = b, 0
	}
	n := min(s.batch.Len-s.at, duckdb.GetDataChunkCapacity())
	for c, v := range s.batch.Cols {
		if err := fillColumn(chunk, c, v, s.at, n); err != nil {
			s.err = fmt.Errorf("loading column %q: %w", s.cols[c].Name, err)
			return s.err
		}
	}
	s.at += n
	return chunk.SetSize(n)
}

// fillColumn writes rows [from, from+n) of v into column c of chunk.
func fillColumn(chunk duckdb.DataChunk, c int, v *input.Vector, from, n int) error {
	var err error
	for i := range n {
		r := from + i
		if v.Null[r] {
			err = duckdb.SetChunkValue[any](chunk, c, i, nil)
		} else {
			switch v.Type.Kind {
			case input.Bool:
				err = duckdb.SetChunkValue(chunk, c, i, v.Bool[r])
			case input.Int:
				err = duckdb.SetChunkValue(chunk, c, i, v.Int[r])
			case input.Decimal:
				if v.Type.IsBig() {
					err = duckdb.SetChunkValue(chunk, c, i, v.Big[r])
				} else {
					err = duckdb.SetChunkValue(chunk, c, i, v.Int[r])
				}
			case input.Float:
				err = duckdb.SetChunkValue(chunk, c, i, v.Float[r])
			case input.Date:
				err = duckdb.SetChunkValue(chunk, c, i, input.DateOf(v.Int[r]))
			case input.Timestamp, input.TimestampTZ:
				err = duckdb.SetChunkValue(chunk, c, i, input.TimeOf(v.Int[r]))
			default:
				err = duckdb.SetChunkValue(chunk, c, i, v.Str[r])
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}
