package dataset

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

var update = flag.Bool("update", false, "rewrite testdata/iotdb and its golden rows")

// sampleDir is the bundled IoTDB data directory the README and the
// examples read.
const sampleDir = "../testdata/iotdb"

// writeSample lays out a small data directory of an IoTDB 2.x server with
// a table-model database "weather" and a tree-model database "root.sg":
// two time partitions of sequence files, an unsequence file that rewrites
// a few rows of the first partition (some cells null, filled from the
// sequence copy), deletions in a .mods2 (table) and a .mods (tree, 1.x
// format), and a compaction temporary that is not data.
func writeSample(t *testing.T, root string) {
	t.Helper()
	schema := tsfile.TableSchema{Name: "weather", Columns: []tsfile.Column{
		{Name: "region", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "plant", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "temperature", DataType: tsfile.Double, Category: tsfile.Field},
		{Name: "humidity", DataType: tsfile.Float, Category: tsfile.Field},
		{Name: "status", DataType: tsfile.Text, Category: tsfile.Field},
	}}
	devices := []tsfile.DeviceID{tsfile.NewDeviceID("weather", "north", "p1"), tsfile.NewDeviceID("weather", "south", "p2")}
	const hour = int64(3_600_000)
	const day = 24 * hour
	base := int64(1_767_225_600_000) // 2026-01-01T00:00:00Z
	type rowsOf func(dev int, tm int64) (float64, float32, string, bool)
	write := func(space, part string, version int64, times []int64, vals rowsOf, mods []Deletion) {
		dir := filepath.Join(root, space, "weather", "1", part)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		path := filepath.Join(dir, Name{Time: times[0], Version: version}.String())
		var buf bytes.Buffer
		w, err := tsfile.NewWriter(&buf, nil)
		require.NoError(t, err)
		require.NoError(t, w.RegisterTable(schema))
		res := &Resource{IndexType: IndexArray}
		for d, dev := range devices {
			temp := tsfile.NewValues(tsfile.Double, len(times))
			hum := tsfile.NewValues(tsfile.Float, len(times))
			st := tsfile.NewValues(tsfile.Text, len(times))
			temp.Null, hum.Null = make([]bool, len(times)), make([]bool, len(times))
			for i, tm := range times {
				a, b, c, humNull := vals(d, tm)
				temp.Float64s[i], hum.Float32s[i], st.Binaries[i] = a, b, []byte(c)
				hum.Null[i] = humNull
			}
			require.NoError(t, w.WriteAligned(dev, times, []tsfile.AlignedColumn{
				{SeriesSchema: tsfile.SeriesSchema{Name: "temperature", DataType: tsfile.Double}, Values: temp},
				{SeriesSchema: tsfile.SeriesSchema{Name: "humidity", DataType: tsfile.Float}, Values: hum},
				{SeriesSchema: tsfile.SeriesSchema{Name: "status", DataType: tsfile.Text}, Values: st},
			}))
			res.Devices = append(res.Devices, DeviceTimes{Device: dev, Start: times[0], End: times[len(times)-1]})
		}
		require.NoError(t, w.Close())
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		rb, err := res.AppendBinary(nil)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path+ResourceSuffix, rb, 0o644))
		if mods != nil {
			mb, err := AppendModsV2(nil, mods...)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path+ModsV2Suffix, mb, 0o644))
		}
	}
	hours := func(from, n int64) []int64 {
		var ts []int64
		for i := int64(0); i < n; i++ {
			ts = append(ts, base+from+i*hour)
		}
		return ts
	}
	first := func(d int, tm int64) (float64, float32, string, bool) {
		h := (tm - base) / hour
		return 10 + float64(d*5) + float64(h%24)/4, 60 + float32(h%10), "ok", false
	}
	// Partition 0 (day one), two flushes; partition 1 (day two).
	write("sequence", "0", 1, hours(0, 12), first, nil)
	write("sequence", "0", 2, hours(12*hour, 12), first, []Deletion{
		// DELETE FROM weather WHERE region = 'south' AND time <= 15:00
		{Kind: TableDeletion, Table: "weather", Predicate: TagPredicate{Kind: PredSegmentExactMatch, Segment: 1, Value: "south"}, Start: math.MinInt64, End: base + 15*hour},
	})
	write("sequence", "1", 4, hours(day, 24), first, []Deletion{
		// The status column of the second day, dropped for every device.
		{Kind: TableDeletion, Table: "weather", Measurements: []string{"status"}, Start: base + day, End: base + 2*day - 1},
	})
	// Late corrections of hours 3..5 of day one: new temperatures, a
	// humidity the sensor did not send (null: the sequence value stays).
	write("unsequence", "0", 3, hours(3*hour, 3), func(d int, tm int64) (float64, float32, string, bool) {
		return -1 - float64(d), 0, "corrected", true
	}, nil)

	// Tree model: root.sg.d1 (non-aligned) in one file with a 1.x mods.
	dir := filepath.Join(root, "sequence", "root.sg", "1", "0")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, Name{Time: base, Version: 1}.String())
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	dev := tsfile.ParseTreePath("root.sg.d1")
	times := hours(0, 6)
	s1 := tsfile.NewValues(tsfile.Int64, len(times))
	for i := range times {
		s1.Int64s[i] = int64(i * 100)
	}
	require.NoError(t, w.WriteNonAligned(dev, []tsfile.NonAlignedSeries{{SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64}, Times: times, Values: s1}}))
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	rb, err := (&Resource{IndexType: IndexArray, Devices: []DeviceTimes{{Device: dev, Start: times[0], End: times[len(times)-1]}}}).AppendBinary(nil)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path+ResourceSuffix, rb, 0o644))
	pat, err := ParsePattern("root.sg.**")
	require.NoError(t, err)
	mb, err := AppendModsV1(nil, Deletion{Kind: TreeDeletion, Version: ModsV1, Pattern: pat, FileOffset: int64(buf.Len()), Start: times[1], End: times[2]})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path+ModsV1Suffix, mb, 0o644))
	// A target of a compaction still running: not data.
	target := strings.TrimSuffix(Name{Time: base, Version: 9, Inner: 1}.String(), TsFileSuffix) + ".inner"
	require.NoError(t, os.WriteFile(filepath.Join(dir, target), buf.Bytes(), 0o644))
}

// writeTableRows writes table ref of ds to b as text, a "# ref" line
// then one line per row, cells as Arrow spells them, and returns the
// read's counts for the caller to add in its own form.
func writeTableRows(t *testing.T, b *strings.Builder, ds *Dataset, ref string) ReadStats {
	t.Helper()
	rd, err := ds.NewReader(ref, &arrowconv.Options{PlainTags: true})
	require.NoError(t, err)
	defer rd.Release()
	fmt.Fprintf(b, "# %s\n", ref)
	for rd.Next() {
		rec := rd.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			var cells []string
			for _, c := range rec.Columns() {
				cells = append(cells, c.ValueStr(i))
			}
			b.WriteString(strings.Join(cells, ",") + "\n")
		}
	}
	require.NoError(t, rd.Err())
	return rd.Stats()
}

// sampleRows reads every table of a data directory as text, one line per
// row, for the golden file.
func sampleRows(t *testing.T, root string) string {
	t.Helper()
	ds, err := Open([]string{root}, nil)
	require.NoError(t, err)
	defer ds.Close()
	tables, err := ds.Tables()
	require.NoError(t, err)
	var b strings.Builder
	for _, tb := range tables {
		st := writeTableRows(t, &b, ds, tb.Name)
		fmt.Fprintf(&b, "# rows %d, deleted %d, cells deleted %d, overwritten %d\n", st.RowsOut, st.RowsDeleted, st.CellsDeleted, st.RowsOverwritten)
	}
	return b.String()
}

// TestSampleDataDir: the bundled data directory is what writeSample
// writes, and it reads as the golden rows say (checked by hand: the
// corrected hours, the deleted south rows, the nulled status column, the
// tree deletion, the skipped .inner file).
func TestSampleDataDir(t *testing.T) {
	golden := filepath.Join(sampleDir, "..", "golden", "iotdb-sample.txt")
	if *update {
		require.NoError(t, os.RemoveAll(sampleDir))
		writeSample(t, sampleDir)
		require.NoError(t, os.WriteFile(golden, []byte(sampleRows(t, sampleDir)), 0o644))
	}
	fresh := t.TempDir()
	writeSample(t, fresh)
	want, err := os.ReadFile(golden)
	require.NoError(t, err)
	require.Equal(t, string(want), sampleRows(t, fresh), "the writer and the golden rows disagree; go test ./dataset -run TestSampleDataDir -update")
	require.Equal(t, string(want), sampleRows(t, sampleDir))
}
