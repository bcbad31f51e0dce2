package input

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"weak"

	"github.com/stretchr/testify/require"
)

// TestReleasedBatchesRefilled: batches the caller releases are filled
// again, so a read holds as few as it fills and hands over at once (a
// file's two halves, the one waiting, the one loaded), whatever the rows;
// every row arrives once, its text intact; batches not released are never
// written again.
func TestReleasedBatchesRefilled(t *testing.T) {
	defer func(m int64) { minHalves = m }(minHalves)
	minHalves = 1
	path := filepath.Join(t.TempDir(), "rows.csv")
	const rows = 7*BatchRows + 5
	writeRows(t, path, rows)
	in, err := Scan(context.Background(), Spec{Paths: []string{path}, Format: "csv"})
	require.NoError(t, err)
	require.Positive(t, in.files[0].half, "the file is read in halves")

	for _, tc := range []struct {
		name    string
		release bool
		read    func() *Reader
		most    int
	}{
		{"a file's halves", true, func() *Reader { return in.Read(context.Background()) }, maxFilling + 2},
		{"a source's rows", true, func() *Reader {
			return ReadRows(context.Background(), &genRows{cols: in.Columns, n: rows}, []Type{in.Columns[0].Type, in.Columns[1].Type}, nil)
		}, 3},
		{"not released", false, func() *Reader { return in.Read(context.Background()) }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.read()
			defer r.Close()
			seen, batches := map[*Batch]bool{}, 0
			ids := make([]bool, rows+1)
			var held []*Batch
			for {
				b, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				batches++
				seen[b] = true
				for i := range b.Len {
					id := b.Cols[0].Int[i]
					require.False(t, ids[id], "row %d arrives once", id)
					ids[id] = true
					require.Equal(t, rowName(id), b.Cols[1].Str[i])
				}
				if tc.release {
					r.Release(b)
				} else {
					held = append(held, b)
				}
			}
			require.NotContains(t, ids[1:], false, "every row arrives")
			require.Greater(t, batches, 7)
			if tc.release {
				require.LessOrEqual(t, len(seen), tc.most, "batches in memory")
				return
			}
			require.Len(t, seen, batches, "a batch not released is not filled again")
			for _, b := range held {
				for i := range b.Len {
					require.Equal(t, rowName(b.Cols[0].Int[i]), b.Cols[1].Str[i], "a held batch keeps its text")
				}
			}
		})
	}
}

// rowName is row id's text: long enough to fill an arena's chunks.
func rowName(id int64) string { return fmt.Sprintf("name %d of a row in a batch", id) }

func writeRows(t *testing.T, path string, n int64) {
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "id,name")
	for id := int64(1); id <= n; id++ {
		fmt.Fprintf(w, "%d,%s\n", id, rowName(id))
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
}

// genRows are the file's rows as a source database would hand them over.
type genRows struct {
	cols  []Column
	id, n int64
}

func (r *genRows) Columns() []Column { return r.cols }
func (r *genRows) Err() error        { return nil }
func (r *genRows) Next(dest []any) bool {
	if r.id == r.n {
		return false
	}
	r.id++
	dest[0], dest[1] = r.id, rowName(r.id)
	return true
}

// TestClosedReaderKeepsNoBatch: once closed, a Reader holds none of the
// batches it handed over, released or not: they are garbage when the
// caller drops them, though the Reader is still referenced.
func TestClosedReaderKeepsNoBatch(t *testing.T) {
	const rows = 4*BatchRows + 1
	types := []Type{{Kind: Int, Bits: 64}, {Kind: Text}}
	r := ReadRows(context.Background(), &genRows{cols: []Column{{Name: "id", Type: types[0]}, {Name: "name", Type: types[1]}}, n: rows}, types, nil)
	var seen []weak.Pointer[Batch]
	for {
		b, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		seen = append(seen, weak.Make(b))
		r.Release(b)
	}
	r.Close()
	runtime.GC()
	for i, w := range seen {
		require.Nil(t, w.Value(), "batch %d is kept", i)
	}
	runtime.KeepAlive(r)
}
