package arrowconv

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// nonEmptyPages counts the non-empty pages of every chunk of f's devices
// of table, by walking the index and the chunk headers.
func nonEmptyPages(t *testing.T, f *tsfile.File, table string) int64 {
	t.Helper()
	devs, err := f.Devices(table)
	require.NoError(t, err)
	var n int64
	for _, d := range devs {
		ss, err := f.Series(d)
		require.NoError(t, err)
		for _, s := range ss {
			for _, cm := range s.Chunks {
				ch, err := f.ReadChunk(cm.Offset)
				require.NoError(t, err)
				for _, p := range ch.Pages {
					if !p.Header.Empty() {
						n++
					}
				}
			}
		}
	}
	return n
}

// TestPagesDecoded: a full read counts every non-empty page of the file
// once, a read of one column and a narrow time range fewer, into one
// counter shared by the readers.
func TestPagesDecoded(t *testing.T) {
	for _, tc := range []struct{ path, table string }{
		{"../testdata/sample.tsfile", "weather"},
		{"../../shared/interop/j02_table_multipage_default_encodings.tsfile", "machines"},
		{"../../shared/interop/j10_tree_nonaligned.tsfile", "root.sg1"},
	} {
		f, err := tsfile.OpenFile(tc.path, nil)
		require.NoError(t, err)
		var pages atomic.Int64
		read := func(o Options) int64 {
			before := pages.Load()
			o.PagesDecoded = &pages
			var rd *Reader
			if _, ok := f.SchemaOf(tc.table); ok {
				rd, err = NewTableReader(f, tc.table, &o)
			} else {
				rd, err = NewTreeReader(f, tc.table, &o)
			}
			require.NoError(t, err)
			for rd.Next() {
			}
			require.NoError(t, rd.Err())
			rd.Release()
			return pages.Load() - before
		}
		all := read(Options{})
		require.Equal(t, nonEmptyPages(t, f, tc.table), all, tc.path)
		sc, err := (func() (*Reader, error) {
			if _, ok := f.SchemaOf(tc.table); ok {
				return NewTableReader(f, tc.table, nil)
			}
			return NewTreeReader(f, tc.table, nil)
		})()
		require.NoError(t, err)
		last := sc.Schema().Field(sc.Schema().NumFields() - 1).Name
		sc.Release()
		some := read(Options{Columns: []string{last}, Time: &TimeRange{Start: 1700000000000, End: 1700000000000}})
		require.Positive(t, some, tc.path)
		require.Less(t, some, all, tc.path)
		f.Close()
	}
}
