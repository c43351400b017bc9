package arrowconv

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// TestDamagedNamesInFooterRefused (issue 36): single bytes of footers that
// read silently before: a TAG value in the device index of j01 ("south"
// read as "so\nth", a device of other rows), a device path segment of a
// tree-model index (j10), and the table name as a schema's key in j01 (the
// table's devices read as tree-model ones). Each is checked against the
// second place the file holds it: the Bloom filter's series paths, and the
// name of the table's index root.
func TestDamagedNamesInFooterRefused(t *testing.T) {
	good, err := os.ReadFile(interopPath(t, "j01_table_all_types_plain.tsfile"))
	require.NoError(t, err)
	f, err := tsfile.Open(bytes.NewReader(good), int64(len(good)), nil)
	require.NoError(t, err)
	footer := f.Metadata.MetaOffset

	t.Run("TAG value in the device index", func(t *testing.T) {
		// "south" is in the data section (a chunk group header) and once
		// in the index, after meta_offset.
		i := bytes.LastIndex(good, []byte("south"))
		require.Greater(t, int64(i), footer)
		b := bytes.Clone(good)
		b[i+2] = '\n'
		dev := tsfile.NewDeviceID("weather", "so\nth", "s01")

		ff, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), nil)
		require.NoError(t, err)
		_, err = NewTableReader(ff, "weather", &Options{Devices: []tsfile.DeviceID{dev}})
		require.ErrorIs(t, err, tsfile.ErrCorrupt)
		require.ErrorContains(t, err, "Bloom filter")
		require.ErrorContains(t, err, "--lenient")
		_, err = NewTableReader(ff, "weather", nil)
		require.ErrorIs(t, err, tsfile.ErrCorrupt)

		// Lenient: a warning, and the table reads whole, the device
		// under the name the index gives it.
		count := func(b []byte, ro *tsfile.ReadOptions) (int64, *tsfile.File) {
			ff, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), ro)
			require.NoError(t, err)
			r, err := NewTableReader(ff, "weather", nil)
			require.NoError(t, err)
			defer r.Release()
			var n int64
			for r.Next() {
				n += r.RecordBatch().NumRows()
			}
			require.NoError(t, r.Err())
			return n, ff
		}
		want, _ := count(good, nil)
		got, ff := count(b, &tsfile.ReadOptions{Lenient: true})
		require.Equal(t, want, got)
		require.NotEmpty(t, ff.Warnings())
	})

	t.Run("device path in a tree-model index", func(t *testing.T) {
		b, err := os.ReadFile(interopPath(t, "j10_tree_nonaligned.tsfile"))
		require.NoError(t, err)
		// root.sg1.d2 read as root.sg1.e2: the last "d2" of the file is
		// its index entry's (the index stays sorted after d1).
		i := bytes.LastIndex(b, []byte("\x04d2"))
		require.Positive(t, i)
		b[i+1] = 'e'
		read := func(ro *tsfile.ReadOptions) (*tsfile.File, error) {
			ff, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), ro)
			require.NoError(t, err)
			r, err := NewTreeReader(ff, "root.sg1", nil)
			require.NoError(t, err)
			defer r.Release()
			for r.Next() {
			}
			return ff, r.Err()
		}
		_, err = read(nil)
		require.ErrorIs(t, err, tsfile.ErrCorrupt)
		require.ErrorContains(t, err, "root.sg1.e2")
		require.ErrorContains(t, err, "Bloom filter")
		ff, err := read(&tsfile.ReadOptions{Lenient: true})
		require.NoError(t, err)
		require.NotEmpty(t, ff.Warnings())
	})

	t.Run("table name as a schema key", func(t *testing.T) {
		// Of the footer's "weather"s, the one a lenient read then finds
		// as a schema's name.
		found := false
		for at := int(footer); ; {
			k := bytes.Index(good[at:], []byte("weather"))
			if k < 0 {
				break
			}
			at += k
			b := bytes.Clone(good)
			b[at+1] = 'E' // "wEather"
			at++
			ff, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), &tsfile.ReadOptions{Lenient: true})
			if err != nil {
				continue
			}
			if _, ok := ff.Metadata.TableSchemas["wEather"]; !ok {
				continue
			}
			found = true
			require.NotEmpty(t, ff.Warnings(), "a lenient read warns")
			_, err = tsfile.Open(bytes.NewReader(b), int64(len(b)), nil)
			require.ErrorIs(t, err, tsfile.ErrCorrupt)
			require.ErrorContains(t, err, `"wEather"`)
			require.ErrorContains(t, err, `"weather"`)
			require.ErrorContains(t, err, "--lenient")
		}
		require.True(t, found, "a schema key among the footer's names")
	})
}
