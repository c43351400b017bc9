package arrowconv

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// readAllRows reads the weather table of a file as text rows, or the
// first error.
func readAllRows(b []byte, lenient bool) ([]string, error) {
	f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), &tsfile.ReadOptions{Lenient: lenient})
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tables := f.Tables()
	if len(tables) != 1 {
		return nil, errors.New("tables changed")
	}
	var rd *Reader
	if _, ok := f.SchemaOf(tables[0]); ok {
		rd, err = NewTableReader(f, tables[0], nil)
	} else {
		rd, err = NewTreeReader(f, "", nil)
	}
	if err != nil {
		return nil, err
	}
	defer rd.Release()
	var out []string
	for rd.Next() {
		rec := rd.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			var s string
			for k, c := range rec.Columns() {
				s += rec.Schema().Field(k).Name + "=" + c.ValueStr(i) + ","
			}
			out = append(out, s)
		}
	}
	return out, rd.Err()
}

// TestNameDamageIsNoSilentChange: a NUL written into any occurrence of a
// column name in the file (the table schema, the series' metadata, the
// index) either leaves the rows as they were or fails the read; it never
// empties a column with no error (issue 29: the index and the schema must
// agree).
func TestNameDamageIsNoSilentChange(t *testing.T) {
	orig, err := os.ReadFile("../testdata/sample.tsfile")
	require.NoError(t, err)
	want, err := readAllRows(orig, false)
	require.NoError(t, err)
	for _, name := range []string{"humidity", "temperature", "pressure", "label", "region", "station", "weather"} {
		for at, n := 0, 0; ; n++ {
			i := bytes.Index(orig[at:], []byte(name))
			if i < 0 {
				require.Greater(t, n, 0, "%s occurs in the file", name)
				break
			}
			pos := at + i + 2
			at = pos
			b := bytes.Clone(orig)
			b[pos] = 0
			got, err := readAllRows(b, false)
			if err == nil {
				require.Equal(t, want, got, "%s: a NUL at %d changed the rows without an error", name, pos)
				continue
			}
			require.True(t, errors.Is(err, tsfile.ErrCorrupt), "%s at %d: %v", name, pos, err)
		}
	}
}
