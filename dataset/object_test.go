package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// writeObjectFile writes a data file of table t (TAG dev, FIELD o OBJECT)
// into space of data directory root, one device d1, a row per time with
// the OBJECT reference paths[i] of size sizes[i].
func writeObjectFile(t *testing.T, root, space string, version int64, times []int64, paths []string, sizes []int64) {
	t.Helper()
	dir := filepath.Join(root, space, "db", "1", "0")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "o", DataType: tsfile.Object, Category: tsfile.Field},
	}}))
	vals := tsfile.Values{Type: tsfile.Object}
	for i, p := range paths {
		vals.Binaries = append(vals.Binaries, tsfile.AppendObjectCell(nil, sizes[i], p))
	}
	id := tsfile.NewDeviceID("t", "d1")
	require.NoError(t, w.WriteAligned(id, times, []tsfile.AlignedColumn{
		{SeriesSchema: tsfile.SeriesSchema{Name: "o", DataType: tsfile.Object}, Values: vals},
	}))
	require.NoError(t, w.Close())
	putDataFile(t, dir, version, buf.Bytes(), DeviceTimes{Device: id, Start: times[0], End: times[len(times)-1]})
}

// TestDatasetObjects: a data directory's OBJECT columns read as
// references by default, and as bytes from the directory's object/
// folder with ObjectBytes, after the merge: the object of a row an
// unsequence file overwrote is never read, so its missing file is no
// error; a missing file of a row returned is.
func TestDatasetObjects(t *testing.T) {
	root := t.TempDir()
	objs := filepath.Join(root, ObjectFolder)
	put := func(p, data string) {
		full := filepath.Join(objs, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(data), 0o644))
	}
	// Time 2 of the sequence file is overwritten; its object is gone.
	writeObjectFile(t, root, "sequence", 1, []int64{1, 2}, []string{"1/OQ/MQYQ/N4/1.bin", "1/OQ/MQYQ/N4/2.bin"}, []int64{3, 3})
	writeObjectFile(t, root, "unsequence", 2, []int64{2, 3}, []string{"1/OQ/MQYQ/N4/2_2.bin", "1/OQ/MQYQ/N4/3.bin"}, []int64{4, 5})
	put("1/OQ/MQYQ/N4/1.bin", "one")
	put("1/OQ/MQYQ/N4/2_2.bin", "two!")
	put("1/OQ/MQYQ/N4/3.bin", "three")

	d, err := Open([]string{root}, nil)
	require.NoError(t, err)
	defer d.Close()

	read := func(o *arrowconv.Options) ([]string, *arrow.Schema, error) {
		r, err := d.NewReader("t", o)
		if err != nil {
			return nil, nil, err
		}
		defer r.Release()
		var got []string
		for r.Next() {
			rec := r.RecordBatch()
			require.True(t, rec.Schema().Equal(r.Schema()))
			for i := 0; i < int(rec.NumRows()); i++ {
				switch c := rec.Column(2).(type) {
				case *array.Struct:
					got = append(got, c.Field(1).(*array.String).Value(i))
				case *array.LargeBinary:
					got = append(got, string(c.Value(i)))
				}
			}
		}
		return got, r.Schema(), r.Err()
	}

	got, sc, err := read(nil)
	require.NoError(t, err)
	require.True(t, arrow.TypeEqual(arrowconv.ObjectType, sc.Field(2).Type))
	require.Equal(t, []string{"1/OQ/MQYQ/N4/1.bin", "1/OQ/MQYQ/N4/2_2.bin", "1/OQ/MQYQ/N4/3.bin"}, got)

	got, sc, err = read(&arrowconv.Options{ObjectBytes: true})
	require.NoError(t, err)
	require.Equal(t, []string{"one", "two!", "three"}, got)
	ds, err := d.Schema("t", &arrowconv.Options{ObjectBytes: true})
	require.NoError(t, err)
	require.True(t, ds.Equal(sc))
	require.True(t, arrow.TypeEqual(arrowconv.ObjectBytesType, sc.Field(2).Type))

	require.NoError(t, os.Remove(filepath.Join(objs, "1", "OQ", "MQYQ", "N4", "3.bin")))
	_, _, err = read(&arrowconv.Options{ObjectBytes: true})
	require.ErrorIs(t, err, os.ErrNotExist)
	require.ErrorContains(t, err, "object file 1/OQ/MQYQ/N4/3.bin is missing")

	_, _, err = read(&arrowconv.Options{ObjectBytes: true, MaxObjectSize: 4})
	var oe *arrowconv.OptionError
	require.ErrorAs(t, err, &oe)
	require.Equal(t, "MaxObjectSize", oe.Option)
}
