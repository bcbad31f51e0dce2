package duckdb

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"
	"time"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/idemdata/idem/input"
)

// A source's values are read out of DuckDB's vectors here, as the driver
// reads them (its vector getters), into input.Rows' plain types: the same
// values, so the same fingerprint, as when the driver's rows were read.

// vector is one result column in the current chunk: flat (the C API
// flattens what it returns), its values at data, its NULLs in a validity
// mask (nil: none).
type vector struct {
	get   func(data unsafe.Pointer, row int) any // nil: a type sourceType refuses
	data  unsafe.Pointer
	valid unsafe.Pointer
}

func (v *vector) value(row int) any {
	if v.valid != nil && *(*uint64)(unsafe.Add(v.valid, row/64*8))&(1<<(row%64)) == 0 {
		return nil
	}
	return v.get(v.data, row)
}

// at is the row'th T of a flat vector.
func at[T any](data unsafe.Pointer, row int) T {
	var zero T
	return *(*T)(unsafe.Add(data, uintptr(row)*unsafe.Sizeof(zero)))
}

// getter reads the values of a column of type lt, for the types sourceType
// takes.
func getter(lt mapping.LogicalType) func(unsafe.Pointer, int) any {
	switch mapping.GetTypeId(lt) {
	case mapping.TypeBoolean:
		return func(p unsafe.Pointer, i int) any { return at[bool](p, i) }
	case mapping.TypeTinyInt:
		return func(p unsafe.Pointer, i int) any { return int64(at[int8](p, i)) }
	case mapping.TypeSmallInt:
		return func(p unsafe.Pointer, i int) any { return int64(at[int16](p, i)) }
	case mapping.TypeInteger:
		return func(p unsafe.Pointer, i int) any { return int64(at[int32](p, i)) }
	case mapping.TypeBigInt:
		return func(p unsafe.Pointer, i int) any { return at[int64](p, i) }
	case mapping.TypeUTinyInt:
		return func(p unsafe.Pointer, i int) any { return uint64(at[uint8](p, i)) }
	case mapping.TypeUSmallInt:
		return func(p unsafe.Pointer, i int) any { return uint64(at[uint16](p, i)) }
	case mapping.TypeUInteger:
		return func(p unsafe.Pointer, i int) any { return uint64(at[uint32](p, i)) }
	case mapping.TypeUBigInt:
		return func(p unsafe.Pointer, i int) any { return at[uint64](p, i) }
	case mapping.TypeHugeInt:
		return func(p unsafe.Pointer, i int) any { return hugeInt(at[mapping.HugeInt](p, i)) }
	case mapping.TypeFloat:
		return func(p unsafe.Pointer, i int) any { return at[float32](p, i) }
	case mapping.TypeDouble:
		return func(p unsafe.Pointer, i int) any { return at[float64](p, i) }
	case mapping.TypeVarchar:
		return func(p unsafe.Pointer, i int) any { return strings.Clone(borrowedString(p, i)) }
	case mapping.TypeDate:
		return func(p unsafe.Pointer, i int) any { return date(at[mapping.Date](p, i)) }
	case mapping.TypeUUID:
		return func(p unsafe.Pointer, i int) any { return uuidText(at[mapping.HugeInt](p, i)) }
	case mapping.TypeDecimal:
		return decimalGetter(lt)
	case mapping.TypeEnum:
		return enumGetter(lt)
	}
	return timestampGetter(mapping.GetTypeId(lt))
}

// timestampGetter reads a timestamp as the driver does: its instant, in UTC.
func timestampGetter(t mapping.Type) func(unsafe.Pointer, int) any {
	switch t {
	case mapping.TypeTimestamp, mapping.TypeTimestampTZ:
		return func(p unsafe.Pointer, i int) any { return time.UnixMicro(at[int64](p, i)).UTC() }
	case mapping.TypeTimestampS:
		return func(p unsafe.Pointer, i int) any { return time.Unix(at[int64](p, i), 0).UTC() }
	case mapping.TypeTimestampMS:
		return func(p unsafe.Pointer, i int) any { return time.UnixMilli(at[int64](p, i)).UTC() }
	case mapping.TypeTimestampNS:
		return func(p unsafe.Pointer, i int) any { return time.Unix(0, at[int64](p, i)).UTC() }
	}
	return nil
}

// decimalGetter reads a DECIMAL as its exact text, from the integer
// DuckDB holds it in (by its width).
func decimalGetter(lt mapping.LogicalType) func(unsafe.Pointer, int) any {
	scale := int(mapping.DecimalScale(lt))
	switch mapping.DecimalInternalType(lt) {
	case mapping.TypeSmallInt:
		return func(p unsafe.Pointer, i int) any { return input.FormatDecimal64(int64(at[int16](p, i)), scale) }
	case mapping.TypeInteger:
		return func(p unsafe.Pointer, i int) any { return input.FormatDecimal64(int64(at[int32](p, i)), scale) }
	case mapping.TypeBigInt:
		return func(p unsafe.Pointer, i int) any { return input.FormatDecimal64(at[int64](p, i), scale) }
	case mapping.TypeHugeInt:
		return func(p unsafe.Pointer, i int) any {
			return input.FormatDecimal(hugeInt(at[mapping.HugeInt](p, i)), scale)
		}
	}
	return nil
}

// enumGetter reads an ENUM as its label, from the index DuckDB holds (by
// the number of labels).
func enumGetter(lt mapping.LogicalType) func(unsafe.Pointer, int) any {
	labels := make([]string, mapping.EnumDictionarySize(lt))
	for i := range labels {
		labels[i] = mapping.EnumDictionaryValue(lt, mapping.IdxT(i))
	}
	switch mapping.EnumInternalType(lt) {
	case mapping.TypeUTinyInt:
		return func(p unsafe.Pointer, i int) any { return labels[at[uint8](p, i)] }
	case mapping.TypeUSmallInt:
		return func(p unsafe.Pointer, i int) any { return labels[at[uint16](p, i)] }
	case mapping.TypeUInteger:
		return func(p unsafe.Pointer, i int) any { return labels[at[uint32](p, i)] }
	}
	return nil
}

func hugeInt(h mapping.HugeInt) *big.Int {
	lower, upper := mapping.HugeIntMembers(&h)
	i := big.NewInt(upper)
	i.Lsh(i, 64)
	return i.Add(i, new(big.Int).SetUint64(lower))
}

// uuidText is a UUID's canonical text: DuckDB holds it as a HUGEINT whose
// sign bit is flipped.
func uuidText(h mapping.HugeInt) string {
	lower, upper := mapping.HugeIntMembers(&h)
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(upper)^1<<63)
	binary.BigEndian.PutUint64(b[8:], lower)
	x := hex.EncodeToString(b[:])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

// date is a DATE at midnight UTC: its days since 1970 count in the
// proleptic Gregorian calendar, as Go's do (±infinity too are the dates
// DuckDB's own conversion, which the driver calls, gives).
func date(d mapping.Date) time.Time {
	return time.Date(1970, 1, 1+int(mapping.DateMembers(&d)), 0, 0, 0, 0, time.UTC)
}

// borrowedString is the row'th string of a VARCHAR vector, pointing into
// the chunk: a duckdb_string_t is 16 bytes, its length first, then the
// string itself up to 12 bytes, or a pointer to it at offset 8.
func borrowedString(data unsafe.Pointer, row int) string {
	s := unsafe.Add(data, uintptr(row)*16)
	n := *(*uint32)(s)
	if n <= 12 {
		return unsafe.String((*byte)(unsafe.Add(s, 4)), int(n))
	}
	return unsafe.String(*(**byte)(unsafe.Add(s, 8)), int(n))
}

// typeNames name DuckDB's types as the driver does (its
// DatabaseTypeName), for sourceType.
var typeNames = map[mapping.Type]string{
	mapping.TypeBoolean: "BOOLEAN", mapping.TypeTinyInt: "TINYINT", mapping.TypeSmallInt: "SMALLINT",
	mapping.TypeInteger: "INTEGER", mapping.TypeBigInt: "BIGINT", mapping.TypeUTinyInt: "UTINYINT",
	mapping.TypeUSmallInt: "USMALLINT", mapping.TypeUInteger: "UINTEGER", mapping.TypeUBigInt: "UBIGINT",
	mapping.TypeFloat: "FLOAT", mapping.TypeDouble: "DOUBLE", mapping.TypeTimestamp: "TIMESTAMP",
	mapping.TypeDate: "DATE", mapping.TypeTime: "TIME", mapping.TypeInterval: "INTERVAL",
	mapping.TypeHugeInt: "HUGEINT", mapping.TypeUHugeInt: "UHUGEINT", mapping.TypeVarchar: "VARCHAR",
	mapping.TypeBlob: "BLOB", mapping.TypeTimestampS: "TIMESTAMP_S", mapping.TypeTimestampMS: "TIMESTAMP_MS",
	mapping.TypeTimestampNS: "TIMESTAMP_NS", mapping.TypeEnum: "ENUM", mapping.TypeStruct: "STRUCT",
	mapping.TypeMap: "MAP", mapping.TypeUUID: "UUID", mapping.TypeUnion: "UNION", mapping.TypeBit: "BIT",
	mapping.TypeTimeTZ: "TIMETZ", mapping.TypeTimestampTZ: "TIMESTAMPTZ", mapping.TypeBigNum: "BIGNUM",
	mapping.TypeSQLNull: "SQLNULL", mapping.TypeTimeNS: "TIME_NS", mapping.TypeGeometry: "GEOMETRY",
	mapping.TypeVariant: "VARIANT",
}

// typeName names type lt: JSON (a VARCHAR's alias), DECIMAL(p,s), a
// list or an array by its element's type, another type by its name.
func typeName(lt mapping.LogicalType) string {
	if mapping.LogicalTypeGetAlias(lt) == "JSON" {
		return "JSON"
	}
	t := mapping.GetTypeId(lt)
	switch t {
	case mapping.TypeDecimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", mapping.DecimalWidth(lt), mapping.DecimalScale(lt))
	case mapping.TypeList:
		child := mapping.ListTypeChildType(lt)
		defer mapping.DestroyLogicalType(&child)
		return typeName(child) + "[]"
	case mapping.TypeArray:
		child := mapping.ArrayTypeChildType(lt)
		defer mapping.DestroyLogicalType(&child)
		return fmt.Sprintf("%s[%d]", typeName(child), mapping.ArrayTypeArraySize(lt))
	}
	if n, ok := typeNames[t]; ok {
		return n
	}
	return fmt.Sprintf("a type of DuckDB's (%d)", t)
}
