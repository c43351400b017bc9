package dataset

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// typedFile is a one-device table file with a column v of any type.
type typedFile struct {
	space         Space
	time, version int64
	vType         tsfile.DataType
	times         []int64
	vals          tsfile.Values
}

// writeTyped lays out the files under root (table t(tag, v)) with
// resources, and returns their paths.
func writeTyped(t testing.TB, root string, files ...typedFile) []string {
	t.Helper()
	var paths []string
	dev := tsfile.NewDeviceID("t", "a")
	for _, f := range files {
		space := "sequence"
		if f.space == Unsequence {
			space = "unsequence"
		}
		dir := filepath.Join(root, space, "db", "1", "0")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		path := filepath.Join(dir, Name{Time: f.time, Version: f.version}.String())
		var buf bytes.Buffer
		w, err := tsfile.NewWriter(&buf, nil)
		require.NoError(t, err)
		require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
			{Name: "tag", DataType: tsfile.String, Category: tsfile.Tag},
			{Name: "v", DataType: f.vType, Category: tsfile.Field},
		}}))
		require.NoError(t, w.WriteAligned(dev, f.times, []tsfile.AlignedColumn{{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: f.vType}, Values: f.vals}}))
		require.NoError(t, w.Close())
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		res := &Resource{IndexType: IndexArray, Devices: []DeviceTimes{{Device: dev, Start: f.times[0], End: f.times[len(f.times)-1]}}}
		b, err := res.AppendBinary(nil)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path+ResourceSuffix, b, 0o644))
		paths = append(paths, path)
	}
	return paths
}

// readV reads column v of table t as strings ("time=value").
func readV(t *testing.T, root string) (arrow.DataType, []string, error) {
	t.Helper()
	ds, err := Open([]string{root}, nil)
	require.NoError(t, err)
	defer ds.Close()
	rd, err := ds.NewReader("t", &arrowconv.Options{Columns: []string{"v"}})
	if err != nil {
		return nil, nil, err
	}
	defer rd.Release()
	var out []string
	for rd.Next() {
		rec := rd.RecordBatch()
		times := timesOf(rec)
		for i := range times {
			out = append(out, strings.Join([]string{rec.Column(0).ValueStr(i), rec.Column(1).ValueStr(i)}, "="))
		}
	}
	return rd.Schema().Field(1).Type, out, rd.Err()
}

// TestDatasetTypeChange: a column whose type changed between files reads
// as the newest file's type, the older files' values cast as IoTDB casts
// them (docs/iotdb-rules.md 4); an impossible cast names both files.
func TestDatasetTypeChange(t *testing.T) {
	i32 := func(xs ...int32) tsfile.Values { return tsfile.Values{Type: tsfile.Int32, Int32s: xs} }
	i64 := func(xs ...int64) tsfile.Values { return tsfile.Values{Type: tsfile.Int64, Int64s: xs} }
	f64 := func(xs ...float64) tsfile.Values { return tsfile.Values{Type: tsfile.Double, Float64s: xs} }
	str := func(xs ...string) tsfile.Values {
		v := tsfile.Values{Type: tsfile.Text}
		for _, x := range xs {
			v.Binaries = append(v.Binaries, []byte(x))
		}
		return v
	}
	for _, tc := range []struct {
		name  string
		files []typedFile
		typ   arrow.DataType
		want  []string
		err   string
	}{{
		name: "INT32 then INT64",
		files: []typedFile{
			{Sequence, 1, 1, tsfile.Int32, []int64{1, 2}, i32(-7, 2147483647)},
			{Sequence, 2, 2, tsfile.Int64, []int64{3}, i64(1 << 40)},
		},
		typ:  arrow.PrimitiveTypes.Int64,
		want: []string{"1970-01-01T00:00:00.001Z=-7", "1970-01-01T00:00:00.002Z=2147483647", "1970-01-01T00:00:00.003Z=1099511627776"},
	}, {
		// The unsequence file outranks the newer sequence file for its
		// point, but the type is the newest file's.
		name: "INT32 unsequence under a newer DOUBLE",
		files: []typedFile{
			{Sequence, 5, 5, tsfile.Double, []int64{1, 2}, f64(0.5, 1.5)},
			{Unsequence, 3, 3, tsfile.Int32, []int64{2}, i32(7)},
		},
		typ:  arrow.PrimitiveTypes.Float64,
		want: []string{"1970-01-01T00:00:00.001Z=0.5", "1970-01-01T00:00:00.002Z=7"},
	}, {
		name: "numbers to TEXT",
		files: []typedFile{
			{Sequence, 1, 1, tsfile.Double, []int64{1, 2}, f64(1e10, 0.1)},
			{Sequence, 2, 2, tsfile.Text, []int64{3}, str("x")},
		},
		typ:  arrow.BinaryTypes.String,
		want: []string{"1970-01-01T00:00:00.001Z=1.0E10", "1970-01-01T00:00:00.002Z=0.1", "1970-01-01T00:00:00.003Z=x"},
	}, {
		name: "TEXT to INT64 is impossible",
		files: []typedFile{
			{Sequence, 1, 1, tsfile.Text, []int64{1}, str("x")},
			{Sequence, 2, 2, tsfile.Int64, []int64{3}, i64(3)},
		},
		err: "cannot cast TEXT to INT64",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			paths := writeTyped(t, root, tc.files...)
			typ, got, err := readV(t, root)
			if tc.err != "" {
				require.Error(t, err)
				require.ErrorIs(t, err, tsfile.ErrUnsupported)
				require.Contains(t, err.Error(), tc.err)
				for _, p := range paths {
					require.Contains(t, err.Error(), p, "the error names both files")
				}
				return
			}
			require.NoError(t, err)
			require.True(t, arrow.TypeEqual(tc.typ, typ), "type %s", typ)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestDatasetLiveDirectory: a data file replaced, grown or removed after
// Open (a compaction, a flush) fails the read with ErrChanged, never
// mixes two states; mods and resources are read once, at Open.
func TestDatasetLiveDirectory(t *testing.T) {
	i64 := func(xs ...int64) tsfile.Values { return tsfile.Values{Type: tsfile.Int64, Int64s: xs} }
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, paths []string)
	}{
		{"removed", func(t *testing.T, paths []string) { require.NoError(t, os.Remove(paths[1])) }},
		{"grown", func(t *testing.T, paths []string) {
			f, err := os.OpenFile(paths[1], os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = f.Write([]byte{0})
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}},
		{"replaced", func(t *testing.T, paths []string) {
			b, err := os.ReadFile(paths[0])
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(paths[1]+".new", b, 0o644))
			require.NoError(t, os.Rename(paths[1]+".new", paths[1]))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			paths := writeTyped(t, root,
				typedFile{Sequence, 1, 1, tsfile.Int64, []int64{1}, i64(1)},
				typedFile{Sequence, 2, 2, tsfile.Int64, []int64{5, 6, 7, 8}, i64(5, 6, 7, 8)})
			ds, err := Open([]string{root}, nil)
			require.NoError(t, err)
			defer ds.Close()
			tc.change(t, paths)
			rd, err := ds.NewReader("t", nil)
			if err == nil {
				for rd.Next() {
				}
				err = rd.Err()
				rd.Release()
			}
			require.Error(t, err)
			require.True(t, errors.Is(err, ErrChanged), "%v", err)
		})
	}
}

// TestDatasetV1OffsetAmbiguous: a v1 deletion that hits one chunk group
// of a device and spares another overlapping it in time cannot be applied
// point by point after decoding: the read fails, never guesses.
func TestDatasetV1OffsetAmbiguous(t *testing.T) {
	dev := tsfile.ParseTreePath("root.db.al")
	spec := specFile{Space: Unsequence, Time: 1, Version: 1, Overlapping: true, V3: true, Groups: []specGroup{
		{Kind: treeAligned, Device: dev, Times: []int64{1, 5}, Cols: []specCol{{Name: "s", Vals: []*int64{v(1), v(5)}}}},
		{Kind: treeAligned, Device: dev, Times: []int64{3}, Cols: []specCol{{Name: "s", Vals: []*int64{v(3)}}}},
	}}
	probe := buildLayout(t, spec)
	second := probe.Files[0].Points[2].TimeChunk
	spec.ModsV1 = []Deletion{{Kind: TreeDeletion, Version: ModsV1, Pattern: mustPattern(t, "root.db.al.s"), FileOffset: second, Start: 0, End: 10}}
	dir := buildLayout(t, spec)
	ds, err := Open([]string{dir.Root}, nil)
	require.NoError(t, err)
	defer ds.Close()
	rd, err := ds.NewReader("root.db", nil)
	require.NoError(t, err)
	for rd.Next() {
	}
	require.ErrorIs(t, rd.Err(), tsfile.ErrUnsupported)
	require.Contains(t, rd.Err().Error(), "applies to some chunks")
	rd.Release()
}

// TestDatasetCompactionLogWarns: a running compaction's log is named in the
// warnings (its log is not replayed, docs/iotdb-rules.md 7b).
func TestDatasetCompactionLogWarns(t *testing.T) {
	root := t.TempDir()
	writeTyped(t, root, typedFile{Sequence, 1, 1, tsfile.Int64, []int64{1}, tsfile.Values{Type: tsfile.Int64, Int64s: []int64{1}}})
	log := filepath.Join(root, "sequence", "db", "1", "0", "1-1-1-0.inner-compaction.log")
	require.NoError(t, os.WriteFile(log, []byte("source sequence db 1 0 1-1-0-0.tsfile\n"), 0o644))
	ds, err := Open([]string{root}, nil)
	require.NoError(t, err)
	defer ds.Close()
	require.Len(t, ds.Warnings(), 1)
	require.Contains(t, ds.Warnings()[0], log+": a compaction is running")
}

// TestDatasetStaleResource: a .resource that disagrees with its TsFile (a
// device's points outside the range it gives, or a device the file lacks)
// stops the read rather than prune by it and miss points: Open's check
// names the difference; trusted (Options.TrustResources), the read's own
// check of each device it reads still stops it.
func TestDatasetStaleResource(t *testing.T) {
	i64 := tsfile.Values{Type: tsfile.Int64, Int64s: []int64{1, 2, 3}}
	for _, tc := range []struct {
		name          string
		dev           tsfile.DeviceID
		lo            int64
		want, trusted string
	}{
		{"range too narrow", tsfile.NewDeviceID("t", "a"), 2, "it says device t.a spans [2, 3], but the file holds it over [1, 3]", "holds points over [1, 3]"},
		{"device not in the file", tsfile.NewDeviceID("t", "zz"), 1, "it does not list device t.a, which the file holds over [1, 3]", "does not hold it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			// Two files overlapping, so that the file is read device by
			// device; and a lone file, read whole.
			paths := writeTyped(t, root,
				typedFile{Sequence, 1, 1, tsfile.Int64, []int64{1, 2, 3}, i64},
				typedFile{Unsequence, 2, 2, tsfile.Int64, []int64{1, 2, 3}, i64})
			res := &Resource{IndexType: IndexArray, Devices: []DeviceTimes{{Device: tc.dev, Start: tc.lo, End: 3}}}
			b, err := res.AppendBinary(nil)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(paths[0]+ResourceSuffix, b, 0o644))
			_, err = Open([]string{root}, nil)
			require.ErrorIs(t, err, ErrResourceMismatch)
			require.ErrorIs(t, err, tsfile.ErrCorrupt)
			require.Contains(t, err.Error(), paths[0]+ResourceSuffix+" does not match the index of its data file: "+tc.want)

			ds, err := Open([]string{root}, &Options{TrustResources: true})
			require.NoError(t, err)
			defer ds.Close()
			rd, err := ds.NewReader("t", nil)
			if err == nil {
				for rd.Next() {
				}
				err = rd.Err()
				rd.Release()
			}
			require.ErrorIs(t, err, tsfile.ErrCorrupt)
			require.Contains(t, err.Error(), tc.trusted)
		})
	}
}

// TestDatasetDevices: the devices of a table come from the resources,
// each once, sorted; those of other tables are left out.
func TestDatasetDevices(t *testing.T) {
	ds, err := Open([]string{sampleDir}, nil)
	require.NoError(t, err)
	defer ds.Close()
	devs, err := ds.Devices("weather")
	require.NoError(t, err)
	var names []string
	for _, d := range devs {
		names = append(names, d.String())
	}
	require.Equal(t, []string{"weather.north.p1", "weather.south.p2"}, names)
	devs, err = ds.Devices("root.sg")
	require.NoError(t, err)
	require.Len(t, devs, 1)
	require.Equal(t, "root.sg.d1", devs[0].TreePath())
}
