package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Parquet carries its own types, which map to the reader's one to one:
// integers (unsigned ones to the signed type that holds them, 8-bit ones
// to SMALLINT), floats,
// decimals of up to 38 digits, booleans, dates, timestamps (with
// isAdjustedToUTC an instant, without it a wall clock; digits past the
// microsecond dropped), strings, and nested values (lists, structs, maps)
// as JSON. A time of day is text (13:45:00), as in CSV. Bytes without a
// string type are refused. A column the target has, or the job declares,
// takes each value converted exactly (or refused), by the same rules as
// text. Every file must have the same columns; types that differ between
// files must be integers or floats of different widths.

// parquetMagic starts and ends every Parquet file.
var parquetMagic = []byte("PAR1")

// checkParquet refuses a file that is not a whole Parquet file.
func checkParquet(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	n := int64(len(parquetMagic))
	if st.Size() < 2*n+4 {
		return &Error{File: path, Msg: fmt.Sprintf("is not a Parquet file: it has %d bytes, fewer than any Parquet file", st.Size())}
	}
	head, tail := make([]byte, n), make([]byte, n)
	if _, err := f.ReadAt(head, 0); err != nil {
		return err
	}
	if _, err := f.ReadAt(tail, st.Size()-n); err != nil {
		return err
	}
	switch {
	case !bytes.Equal(head, parquetMagic):
		return &Error{File: path, Msg: "is not a Parquet file: it does not start with PAR1"}
	case !bytes.Equal(tail, parquetMagic):
		return &Error{File: path, Msg: "is not a whole Parquet file: it does not end with PAR1 (truncated?)"}
	}
	return nil
}

// parquetFile is one open Parquet file.
type parquetFile struct {
	rdr *file.Reader
	fr  *pqarrow.FileReader
}

func openParquet(path string) (*parquetFile, error) {
	if err := checkParquet(path); err != nil {
		return nil, err
	}
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot be read as Parquet: " + err.Error(), Err: err}
	}
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: BatchRows, Parallel: true}, memory.DefaultAllocator)
	if err != nil {
		rdr.Close()
		return nil, &Error{File: path, Msg: "cannot be read as Parquet: " + err.Error(), Err: err}
	}
	return &parquetFile{rdr: rdr, fr: fr}, nil
}

func (p *parquetFile) Close() { p.rdr.Close() }

// records calls fn with each record batch of the file's leaf columns
// (nil: all).
func (p *parquetFile) records(ctx context.Context, path string, leaves []int, fn func(arrow.RecordBatch) error) error {
	rr, err := p.fr.GetRecordReader(ctx, leaves, nil)
	if err != nil {
		return &Error{File: path, Msg: "cannot be read as Parquet: " + err.Error(), Err: err}
	}
	defer rr.Release()
	for rr.Next() {
		if err := fn(rr.RecordBatch()); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil && !errors.Is(err, errStop) {
		return &Error{File: path, Msg: "cannot be read as Parquet: " + err.Error(), Err: err}
	}
	return nil
}

var errStop = errors.New("stop")

// naturalType is the reader's type for an Arrow type read from Parquet.
func naturalType(t arrow.DataType) (Type, error) {
	switch t.ID() {
	case arrow.BOOL:
		return BoolType, nil
	case arrow.INT8, arrow.INT16, arrow.UINT8:
		// SMALLINT for INT8 too: PostgreSQL has no one-byte integer, so a
		// new column of one would take other values there than elsewhere.
		return Type{Kind: Int, Bits: 16}, nil
	case arrow.INT32, arrow.UINT16:
		return Type{Kind: Int, Bits: 32}, nil
	case arrow.INT64, arrow.UINT32:
		return BigIntType, nil
	case arrow.UINT64:
		return DecimalType(20, 0), nil
	case arrow.FLOAT16, arrow.FLOAT32:
		return Type{Kind: Float, Bits: 32}, nil
	case arrow.FLOAT64:
		return DoubleType, nil
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		d := t.(arrow.DecimalType)
		if d.GetPrecision() > MaxPrecision {
			return Type{}, fmt.Errorf("is DECIMAL(%d,%d): no engine's numbers hold more than %d digits", d.GetPrecision(), d.GetScale(), MaxPrecision)
		}
		return DecimalType(int(d.GetPrecision()), int(d.GetScale())), nil
	case arrow.DATE32, arrow.DATE64:
		return DateType, nil
	case arrow.TIMESTAMP:
		if t.(*arrow.TimestampType).TimeZone != "" {
			return TimestampTZType, nil
		}
		return TimestampType, nil
	case arrow.TIME32, arrow.TIME64, arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW, arrow.NULL:
		return TextType, nil
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.STRUCT, arrow.MAP, arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW:
		return JSONType, nil
	case arrow.DICTIONARY:
		return naturalType(t.(*arrow.DictionaryType).ValueType)
	}
	return Type{}, fmt.Errorf("is %s: Parquet bytes without a string type are not loaded (convert them to text)", t)
}

// joinTypes is the type that holds values of both a and b, when both are
// integers or both floats of different widths.
func joinTypes(a, b Type) (Type, bool) {
	switch {
	case a == b:
		return a, true
	case a.Kind == Int && b.Kind == Int, a.Kind == Float && b.Kind == Float:
		a.Bits = max(a.Bits, b.Bits)
		return a, true
	}
	return Type{}, false
}

// parquetScan is what scanParquet learns across an input's files.
type parquetScan struct {
	natural   []Type // per column: the type its values have in the files
	firstFile string
}

// scanParquet is Scan for Parquet files: types from the files' schemas;
// the values read only where they could be refused (text, times, a given
// type, the target's limits), while the files are hashed beside.
func (in *Input) scanParquet(ctx context.Context) error {
	hashed := hashFiles(in.spec.Paths)
	err := in.scanParquetFiles(ctx)
	sums, herr := hashed() // waited for even on a refusal: no read outlives Scan
	if err != nil {
		return err
	}
	in.Fingerprint = combine(sums)
	return herr
}

func (in *Input) scanParquetFiles(ctx context.Context) error {
	s := &parquetScan{}
	for fi, path := range in.spec.Paths {
		fs, err := stat(path)
		if err != nil {
			return err
		}
		pf, err := openParquet(path)
		if err != nil {
			return err
		}
		err = in.scanParquetFile(s, fi, path, pf, &fs)
		pf.Close()
		if err != nil {
			return err
		}
		in.files = append(in.files, fs)
	}
	for i := range in.Columns {
		if !in.Columns[i].Fixed {
			in.Columns[i].Type = s.natural[i]
		}
	}
	// Every value is checked where its column's type, or the target's
	// limits, could refuse it: the load itself then meets no bad value.
	b := in.newBatch()
	for _, fs := range in.files {
		if err := in.checkParquetFile(ctx, fs, b); err != nil {
			return err
		}
	}
	return nil
}

// hashFiles hashes the files beside the caller's work; the function it
// returns waits for their hashes.
func hashFiles(paths []string) func() ([]string, error) {
	sums := make([]string, len(paths))
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i, p := range paths {
			if sums[i], err = hashFile(p); err != nil {
				return
			}
		}
	}()
	return func() ([]string, error) {
		<-done
		return sums, err
	}
}

// checkParquetFile reads the fields of a file whose values could be
// refused (none when every field is integers or booleans of the column's
// type) into b, reused, as the load would read them.
func (in *Input) checkParquetFile(ctx context.Context, fs fileState, b *Batch) error {
	if err := fs.unchanged(); err != nil {
		return err
	}
	pf, err := openParquet(fs.path)
	if err != nil {
		return err
	}
	defer pf.Close()
	schema, err := pf.fr.Schema()
	if err != nil {
		return &Error{File: fs.path, Msg: "cannot be read as Parquet: " + err.Error(), Err: err}
	}
	var fields, leaves []int
	for i, f := range schema.Fields() {
		if !cannotRefuse(f.Type, in.Columns[fs.cols[i]].Type) {
			fields = append(fields, i)
			leaves = leafColumns(&pf.fr.Manifest.Fields[i], leaves)
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return in.readParquetFile(ctx, fs, pf, leaves, fields, func() (*Batch, *arena) {
		b.reset()
		return b, b.ar
	}, func(*Batch) error { return nil })
}

// leafColumns appends the Parquet leaf columns of field f.
func leafColumns(f *pqarrow.SchemaField, out []int) []int {
	if f.IsLeaf() {
		return append(out, f.ColIndex)
	}
	for i := range f.Children {
		out = leafColumns(&f.Children[i], out)
	}
	return out
}

// scanParquetFile reads the schema of file fi: the first file's columns
// are the input's, every other file must have the same ones.
func (in *Input) scanParquetFile(s *parquetScan, fi int, path string, pf *parquetFile, fs *fileState) error {
	schema, err := pf.fr.Schema()
	if err != nil {
		return &Error{File: path, Msg: "cannot be read as Parquet: " + err.Error(), Err: err}
	}
	names := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		names[i] = f.Name
	}
	if bad := headerProblem(path, names, ','); bad != nil {
		return withoutLine(bad)
	}
	if fi == 0 {
		s.firstFile = path
		for _, n := range names {
			in.addColumn(n)
			s.natural = append(s.natural, Type{})
		}
	}
	cols, err := in.mapHeader(path, s.firstFile, names)
	if err != nil {
		return withoutLine(err)
	}
	fs.cols = cols
	if err := s.joinFileTypes(fi, path, schema.Fields(), cols); err != nil {
		return err
	}
	fs.rows = pf.rdr.NumRows()
	in.Rows += fs.rows
	return nil
}

// withoutLine drops the line from err's location: a Parquet file's
// columns are on no line.
func withoutLine(err error) error {
	var e *Error
	if errors.As(err, &e) {
		e.Line = 0
	}
	return err
}

// joinFileTypes joins the types of file fi's fields, which are columns
// cols, into the columns' natural types.
func (s *parquetScan) joinFileTypes(fi int, path string, fields []arrow.Field, cols []int) error {
	for i, f := range fields {
		t, err := naturalType(f.Type)
		if err != nil {
			return &Error{File: path, Column: f.Name, Msg: err.Error()}
		}
		ci := cols[i]
		if fi == 0 {
			s.natural[ci] = t
			continue
		}
		j, ok := joinTypes(s.natural[ci], t)
		if !ok {
			return &Error{File: path, Column: f.Name, Msg: fmt.Sprintf("is %s here and %s in %s: every file must give a column one type", t, s.natural[ci], baseName(s.firstFile))}
		}
		s.natural[ci] = j
	}
	return nil
}

// readParquet is Read for Parquet files: a batch per record batch.
func (in *Input) readParquet(ctx context.Context, out *sink) error {
	for _, fs := range in.files {
		if err := fs.unchanged(); err != nil {
			return err
		}
		pf, err := openParquet(fs.path)
		if err != nil {
			return err
		}
		err = in.readParquetFile(ctx, fs, pf, nil, nil, out.batch, out.send)
		pf.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// readParquetFile reads a file's leaf columns (nil: all), which are its
// fields (nil: all), into batches that batch gives, sending each.
func (in *Input) readParquetFile(ctx context.Context, fs fileState, pf *parquetFile, leaves, fields []int, batch func() (*Batch, *arena), send func(*Batch) error) error {
	lim := in.spec.Limits
	row := int64(0)
	err := pf.records(ctx, fs.path, leaves, func(rec arrow.RecordBatch) error {
		b, ar := batch()
		n := int(rec.NumRows())
		for i, col := range rec.Columns() {
			if fields != nil {
				i = fields[i]
			}
			ci := fs.cols[i]
			if err := putArrow(b.Cols[ci], col, ar, lim); err != nil {
				var pe *parquetValueErr
				if errors.As(err, &pe) {
					return &Error{File: fs.path, Line: int(row) + pe.row + 1, Unit: "row", Column: in.Columns[ci].Name, Value: pe.value, Msg: pe.msg}
				}
				return err
			}
		}
		row += int64(n)
		b.Len = n
		return send(b)
	})
	if err != nil {
		return err
	}
	if row != fs.rows {
		return fmt.Errorf("%w: %s has %d rows, not the %d it had", ErrChanged, fs.path, row, fs.rows)
	}
	return nil
}

// parquetValueErr is a refused value at a row of a record batch.
type parquetValueErr struct {
	row   int
	value string
	msg   string
}

func (e *parquetValueErr) Error() string { return e.msg }

// putArrow appends every value of arr to v, converted to v's type.
func putArrow(v *Vector, arr arrow.Array, ar *arena, lim *Limits) error {
	if d, ok := arr.(*array.Dictionary); ok {
		return putDictionary(v, d, ar, lim)
	}
	if putColumn(v, arr, lim) {
		return nil
	}
	return putValues(v, arr, ar, lim)
}

// putValues appends every value of arr to v one at a time.
func putValues(v *Vector, arr arrow.Array, ar *arena, lim *Limits) error {
	nat, err := naturalType(arr.DataType())
	if err != nil {
		return err
	}
	fast := nat == v.Type || nat.Kind == v.Type.Kind && (nat.Kind == Text || nat.Kind == JSON) && v.Type.MaxChars == 0
	for i := 0; i < arr.Len(); i++ {
		if arr.IsNull(i) {
			v.appendNull()
			continue
		}
		var err error
		if fast {
			err = putNatural(v, arr, i, ar, lim)
		} else {
			f, ferr := arrowField(arr, i)
			if ferr == nil {
				err = put(v, f, ar, lim)
			} else {
				err = ferr
			}
		}
		if err != nil {
			value := ""
			if f, ferr := arrowField(arr, i); ferr == nil {
				value = string(f.b)
			}
			return &parquetValueErr{row: i, value: value, msg: err.Error()}
		}
	}
	return nil
}

func putDictionary(v *Vector, d *array.Dictionary, ar *arena, lim *Limits) error {
	dict := d.Dictionary()
	for i := 0; i < d.Len(); i++ {
		if d.IsNull(i) {
			v.appendNull()
			continue
		}
		f, err := arrowField(dict, d.GetValueIndex(i))
		if err == nil {
			err = put(v, f, ar, lim)
		}
		if err != nil {
			return &parquetValueErr{row: i, value: string(f.b), msg: err.Error()}
		}
	}
	return nil
}

// putNatural appends value i of arr, whose type is v's own.
func putNatural(v *Vector, arr arrow.Array, i int, ar *arena, lim *Limits) error {
	var err error
	switch a := arr.(type) {
	case *array.Boolean:
		v.Bool = append(v.Bool, a.Value(i))
	case *array.Int8:
		v.Int = append(v.Int, int64(a.Value(i)))
	case *array.Int16:
		v.Int = append(v.Int, int64(a.Value(i)))
	case *array.Int32:
		v.Int = append(v.Int, int64(a.Value(i)))
	case *array.Int64:
		v.Int = append(v.Int, a.Value(i))
	case *array.Uint8:
		v.Int = append(v.Int, int64(a.Value(i)))
	case *array.Uint16:
		v.Int = append(v.Int, int64(a.Value(i)))
	case *array.Uint32:
		v.Int = append(v.Int, int64(a.Value(i)))
	case *array.Float32:
		err = appendFinite(v, float64(a.Value(i)))
	case *array.Float64:
		err = appendFinite(v, a.Value(i))
	case *array.Date32:
		err = appendWithin(v, int64(a.Value(i)), lim)
	case *array.Date64:
		err = appendWithin(v, floorDiv(int64(a.Value(i)), 86_400_000), lim)
	case *array.Timestamp:
		x := timestampMicros(int64(a.Value(i)), a.DataType().(*arrow.TimestampType).Unit)
		if err = checkYears(x); err == nil {
			err = appendWithin(v, x, lim)
		}
	case *array.String, *array.LargeString, *array.StringView:
		s := []byte(a.(interface{ Value(int) string }).Value(i))
		if err = checkText(s); err == nil {
			v.Str = append(v.Str, ar.str(s))
		}
	default:
		// Decimals, unsigned 64-bit integers, times and nested values go
		// through their text.
		f, err := arrowField(arr, i)
		if err != nil {
			return err
		}
		return put(v, f, ar, lim)
	}
	if err != nil {
		return err
	}
	v.Null = append(v.Null, false)
	return nil
}

// appendFinite appends f to v's floats, refusing infinity and NaN.
func appendFinite(v *Vector, f float64) error {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return reasonf("is not a number: infinity and NaN are not stored (MariaDB has neither)")
	}
	v.Float = append(v.Float, f+0) // -0 is 0
	return nil
}

// appendWithin appends x, a day or a time, to v's integers when the
// target's limits for v's type allow it.
func appendWithin(v *Vector, x int64, lim *Limits) error {
	if err := lim.check(v.Type, x); err != nil {
		return err
	}
	v.Int = append(v.Int, x)
	return nil
}

// timestampMicros converts a timestamp of unit to microseconds, digits
// past the microsecond dropped (toward the earlier time).
func timestampMicros(x int64, unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return x * 1_000_000
	case arrow.Millisecond:
		return x * 1_000
	case arrow.Nanosecond:
		return floorDiv(x, 1_000)
	}
	return x
}

// checkYears refuses a time outside years 1 to 9999, which the text form
// cannot spell.
func checkYears(micros int64) error {
	lo := daysFromCivil(1, 1, 1) * microsPerDay
	hi := (daysFromCivil(9999, 12, 31)+1)*microsPerDay - 1
	if micros < lo || micros > hi {
		return reasonf("is outside years 1 to 9999")
	}
	return nil
}

// arrowField is value i of arr as the reader reads text or JSON: numbers
// and booleans as JSON scalars, dates and times as text, nested values as
// canonical JSON, strings as strings.
func arrowField(arr arrow.Array, i int) (field, error) {
	switch a := arr.(type) {
	case *array.Boolean:
		if a.Value(i) {
			return field{b: []byte("true"), json: jsonBool}, nil
		}
		return field{b: []byte("false"), json: jsonBool}, nil
	case *array.Float32:
		return floatField(float64(a.Value(i)), 32)
	case *array.Float16:
		return floatField(float64(a.Value(i).Float32()), 32)
	case *array.Float64:
		return floatField(a.Value(i), 64)
	case *array.String, *array.LargeString, *array.StringView:
		return field{b: []byte(a.(interface{ Value(int) string }).Value(i)), json: jsonString}, nil
	case *array.Date32:
		return field{b: AppendDate(nil, int64(a.Value(i))), json: jsonString}, nil
	case *array.Date64:
		return field{b: AppendDate(nil, floorDiv(int64(a.Value(i)), 86_400_000)), json: jsonString}, nil
	case *array.Timestamp:
		tt := a.DataType().(*arrow.TimestampType)
		x := timestampMicros(int64(a.Value(i)), tt.Unit)
		if err := checkYears(x); err != nil {
			return field{}, err
		}
		b := AppendTimestamp(nil, x)
		if tt.TimeZone != "" {
			b = append(b, 'Z')
		}
		return field{b: b, json: jsonString}, nil
	case *array.Time32:
		unit := a.DataType().(*arrow.Time32Type).Unit
		return field{b: []byte(timeOfDay(int64(a.Value(i)), unit)), json: jsonString}, nil
	case *array.Time64:
		unit := a.DataType().(*arrow.Time64Type).Unit
		return field{b: []byte(timeOfDay(int64(a.Value(i)), unit)), json: jsonString}, nil
	case *array.Dictionary:
		return arrowField(a.Dictionary(), a.GetValueIndex(i))
	}
	t := arr.DataType()
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		return field{b: []byte(arr.ValueStr(i)), json: jsonNumber}, nil
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.STRUCT, arrow.MAP, arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW:
		b, err := appendArrowJSON(nil, arr, i)
		return field{b: b, json: jsonNested}, err
	}
	return field{}, reasonf("is %s, which idem does not load", t)
}

func floatField(f float64, bits int) (field, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return field{}, reasonf("is not a number: infinity and NaN are not stored (MariaDB has neither)")
	}
	return field{b: strconv.AppendFloat(nil, f+0, 'g', -1, bits), json: jsonNumber}, nil
}

// timeOfDay is a time of day's text, HH:MM:SS[.ffffff].
func timeOfDay(x int64, unit arrow.TimeUnit) string {
	micros := timestampMicros(x, unit)
	b := AppendTimestamp(nil, micros)
	return string(b[len("1970-01-01 "):])
}

// appendArrowJSON appends value i of arr as canonical JSON: objects' keys
// in their order, numbers as their shortest exact text.
func appendArrowJSON(b []byte, arr arrow.Array, i int) ([]byte, error) {
	if arr.IsNull(i) {
		return append(b, "null"...), nil
	}
	switch a := arr.(type) {
	case *array.Struct:
		return appendArrowStruct(b, a, i)
	case *array.Map:
		return appendArrowMap(b, a, i)
	case array.ListLike:
		return appendArrowList(b, a, i)
	}
	f, err := arrowField(arr, i)
	if err != nil {
		return nil, err
	}
	switch f.json {
	case jsonString:
		if err := checkText(f.b); err != nil {
			return nil, err
		}
		return appendJSONString(b, f.b), nil
	case jsonNested, jsonNumber, jsonBool:
		return append(b, f.b...), nil
	}
	return append(b, "null"...), nil
}

// appendArrowStruct appends struct i of a as a JSON object, its fields in
// their order.
func appendArrowStruct(b []byte, a *array.Struct, i int) ([]byte, error) {
	st := a.DataType().(*arrow.StructType)
	b = append(b, '{')
	for k, f := range st.Fields() {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, []byte(f.Name))
		b = append(b, ':')
		var err error
		if b, err = appendArrowJSON(b, a.Field(k), i); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendArrowMap appends map i of a as a JSON object, its keys as text.
func appendArrowMap(b []byte, a *array.Map, i int) ([]byte, error) {
	start, end := a.ValueOffsets(i)
	keys, items := a.Keys(), a.Items()
	b = append(b, '{')
	for k := start; k < end; k++ {
		if k > start {
			b = append(b, ',')
		}
		kf, err := arrowField(keys, int(k))
		if err != nil {
			return nil, err
		}
		b = appendJSONString(b, kf.b)
		b = append(b, ':')
		if b, err = appendArrowJSON(b, items, int(k)); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendArrowList appends list i of a as a JSON array.
func appendArrowList(b []byte, a array.ListLike, i int) ([]byte, error) {
	start, end := a.ValueOffsets(i)
	values := a.ListValues()
	b = append(b, '[')
	for k := start; k < end; k++ {
		if k > start {
			b = append(b, ',')
		}
		var err error
		if b, err = appendArrowJSON(b, values, int(k)); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}
