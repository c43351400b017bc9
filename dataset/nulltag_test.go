package dataset

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// tagFile is a sequence file of table t with the TAG columns tags and a
// FIELD v; each device gets the rows of its times, v = time.
type tagFile struct {
	version int64
	tags    []string
	devices map[string][]int64 // by label
	ids     map[string]tsfile.DeviceID
}

func writeTagFiles(t *testing.T, root string, files ...tagFile) {
	t.Helper()
	dir := filepath.Join(root, "sequence", "db", "1", "0")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, f := range files {
		var cols []tsfile.Column
		for _, tag := range f.tags {
			cols = append(cols, tsfile.Column{Name: tag, DataType: tsfile.String, Category: tsfile.Tag})
		}
		cols = append(cols, tsfile.Column{Name: "v", DataType: tsfile.Int64, Category: tsfile.Field})
		var buf bytes.Buffer
		w, err := tsfile.NewWriter(&buf, nil)
		require.NoError(t, err)
		require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: cols}))
		res := &Resource{IndexType: IndexArray}
		for label, times := range f.devices {
			id := f.ids[label]
			require.NoError(t, w.WriteAligned(id, times, []tsfile.AlignedColumn{
				{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Int64}, Values: tsfile.Values{Type: tsfile.Int64, Int64s: times}},
			}))
			res.Devices = append(res.Devices, DeviceTimes{Device: id, Start: times[0], End: times[len(times)-1]})
		}
		require.NoError(t, w.Close())
		path := filepath.Join(dir, Name{Time: f.version, Version: f.version}.String())
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		b, err := res.AppendBinary(nil)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path+ResourceSuffix, b, 0o644))
	}
}

// TestDatasetWhereNullTag: a file written before a TAG column was added
// has no such column, so each of its devices has a null there: a value
// matches none of them and IS NULL (arrowconv.NullTag) all of them, as
// for a device of a newer file whose TAG is null.
func TestDatasetWhereNullTag(t *testing.T) {
	root := t.TempDir()
	null := tsfile.Segment{Null: true}
	seg := func(v string) tsfile.Segment { return tsfile.Segment{Value: v} }
	writeTagFiles(t, root,
		tagFile{version: 1, tags: []string{"tag"},
			devices: map[string][]int64{"old-a": {1, 2}},
			ids:     map[string]tsfile.DeviceID{"old-a": tsfile.NewDeviceID("t", "a")}},
		tagFile{version: 2, tags: []string{"tag", "tag2"},
			devices: map[string][]int64{"a-p": {3, 4}, "b-null": {5}, "null-q": {6}},
			ids: map[string]tsfile.DeviceID{
				"a-p":    tsfile.NewDeviceID("t", "a", "p"),
				"b-null": tsfile.DeviceIDFromSegments([]tsfile.Segment{seg("t"), seg("b"), null}),
				"null-q": tsfile.DeviceIDFromSegments([]tsfile.Segment{seg("t"), null, seg("q")}),
			}},
	)
	ds, err := Open([]string{root}, nil)
	require.NoError(t, err)
	defer ds.Close()
	for _, tc := range []struct {
		name  string
		where map[string]string
		want  []string // time=tag|tag2, sorted by time
	}{
		{"all", nil, []string{"1=a|(null)", "2=a|(null)", "3=a|p", "4=a|p", "5=b|(null)", "6=(null)|q"}},
		{"tag2 is null, also in the older file", map[string]string{"tag2": arrowconv.NullTag}, []string{"1=a|(null)", "2=a|(null)", "5=b|(null)"}},
		{"tag2 is null and tag a", map[string]string{"tag2": `\N`, "tag": "a"}, []string{"1=a|(null)", "2=a|(null)"}},
		{"tag is null", map[string]string{"tag": `\N`}, []string{"6=(null)|q"}},
		{"a value of the new TAG", map[string]string{"tag2": "p"}, []string{"3=a|p", "4=a|p"}},
		{"the literal \\N", map[string]string{"tag2": `\\N`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd, err := ds.NewReader("t", &arrowconv.Options{Columns: []string{"tag", "tag2"}, Where: tc.where, PlainTags: true})
			require.NoError(t, err)
			defer rd.Release()
			var got []string
			for rd.Next() {
				rec := rd.RecordBatch()
				times := timesOf(rec)
				for i := range times {
					got = append(got, fmt.Sprintf("%d=%s|%s", times[i], rec.Column(1).ValueStr(i), rec.Column(2).ValueStr(i)))
				}
			}
			require.NoError(t, rd.Err())
			slices.Sort(got) // devices come in index order; times are one digit
			require.Equal(t, tc.want, got)
		})
	}
}
