package main

import (
	"encoding/csv"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

func TestParsePartitionBy(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want partitionSpec
		err  string
	}{
		{"table", partitionSpec{}, ""},
		{"device", partitionSpec{device: true}, ""},
		{"day", partitionSpec{period: "day"}, ""},
		{"month", partitionSpec{period: "month"}, ""},
		{"hour", partitionSpec{period: "hour"}, ""},
		{"table,day", partitionSpec{period: "day"}, ""},
		{"device,hour", partitionSpec{device: true, period: "hour"}, ""},
		{"device, month", partitionSpec{device: true, period: "month"}, ""},
		{"day,device", partitionSpec{}, "comes once, before the time"},
		{"table,device", partitionSpec{}, "comes once, before the time"},
		{"day,hour", partitionSpec{}, "one time period only"},
		{"week", partitionSpec{}, `unknown --partition-by "week"`},
		{"device,", partitionSpec{}, `unknown --partition-by "device,"`},
	} {
		got, err := parsePartitionBy(tc.in)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

// TestWindowOf holds each time's partition to a naive model: the key is
// the UTC calendar fields of the time, and the bounds are the first and
// last stored times with that key, found by stepping the stored unit.
func TestWindowOf(t *testing.T) {
	units := map[arrow.TimeUnit]time.Duration{arrow.Second: time.Second, arrow.Millisecond: time.Millisecond, arrow.Microsecond: time.Microsecond, arrow.Nanosecond: time.Nanosecond}
	times := []time.Time{
		time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2023, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(2024, 2, 29, 13, 30, 0, 5, time.UTC),
		time.Date(1969, 12, 31, 23, 0, 0, 1, time.UTC), // negative stored times
		time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2262, 4, 11, 23, 47, 16, 854775807, time.UTC), // the last ns of int64
		time.Date(1677, 9, 21, 0, 12, 43, 145224192, time.UTC),  // the first
	}
	key := func(period string, tm time.Time) string {
		switch period {
		case "day":
			return fmt.Sprintf("date=%04d-%02d-%02d", tm.Year(), tm.Month(), tm.Day())
		case "hour":
			return fmt.Sprintf("date=%04d-%02d-%02d/hour=%d", tm.Year(), tm.Month(), tm.Day(), tm.Hour())
		}
		return fmt.Sprintf("year=%d/month=%d", tm.Year(), tm.Month())
	}
	for u, d := range units {
		for _, tm := range times {
			if u != arrow.Nanosecond && (tm.Year() == 2262 || tm.Year() == 1677) {
				continue
			}
			stored := tm.Truncate(d).UnixNano() / int64(d)
			if u == arrow.Second || u == arrow.Millisecond || u == arrow.Microsecond {
				// Truncate rounds toward zero before 1970 on UnixNano; floor.
				stored = floorDiv(tm.Unix()*1e9+int64(tm.Nanosecond()), int64(d))
			}
			at := func(v int64) time.Time {
				return time.Unix(0, 0).UTC().Add(time.Duration(v) * d)
			}
			for _, period := range []string{"day", "hour", "month"} {
				w, err := partitionSpec{period: period}.windowOf(stored, u)
				require.NoError(t, err)
				name := fmt.Sprintf("%s %s %s", u, tm, period)
				require.Equal(t, key(period, tm), w.dir, name)
				require.LessOrEqual(t, w.lo, stored, name)
				require.GreaterOrEqual(t, w.hi, stored, name)
				if u == arrow.Nanosecond {
					// Bounds past int64 are clamped.
					continue
				}
				require.Equal(t, key(period, at(w.lo)), w.dir, name+" lo")
				require.NotEqual(t, key(period, at(w.lo-1)), w.dir, name+" lo-1")
				require.Equal(t, key(period, at(w.hi)), w.dir, name+" hi")
				require.NotEqual(t, key(period, at(w.hi+1)), w.dir, name+" hi+1")
			}
		}
	}
	// Nanoseconds: the first and last partitions end at int64's bounds.
	w, err := partitionSpec{period: "day"}.windowOf(maxInt64, arrow.Nanosecond)
	require.NoError(t, err)
	require.Equal(t, timeWindow{lo: time.Date(2262, 4, 11, 0, 0, 0, 0, time.UTC).UnixNano(), hi: maxInt64, dir: "date=2262-04-11"}, w)
	w, err = partitionSpec{period: "month"}.windowOf(minInt64, arrow.Nanosecond)
	require.NoError(t, err)
	require.Equal(t, timeWindow{lo: minInt64, hi: time.Date(1677, 10, 1, 0, 0, 0, 0, time.UTC).UnixNano() - 1, dir: "year=1677/month=9"}, w)
	// A year a four-digit key cannot name fails loudly.
	_, err = partitionSpec{period: "day"}.windowOf(maxInt64, arrow.Millisecond)
	require.ErrorIs(t, err, errPartitionTime)
	_, err = partitionSpec{period: "day"}.windowOf(-62167219200001, arrow.Millisecond)
	require.ErrorIs(t, err, errPartitionTime)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// TestWindowSet: one partition per run of times, in time order, within
// --start/--end, and no more than maxTimePartitions.
func TestWindowSet(t *testing.T) {
	const h = 3600
	s := newWindowSet(partitionSpec{period: "hour"}, arrow.Second, &arrowconv.TimeRange{Start: 0, End: 10 * h})
	require.NoError(t, s.addTimes([]arrow.Timestamp{5 * h, 5*h + 1, 2 * h, -1, 11 * h, 2*h + 3599, 3 * h}))
	require.Equal(t, []timeWindow{
		{2 * h, 3*h - 1, "date=1970-01-01/hour=2"},
		{3 * h, 4*h - 1, "date=1970-01-01/hour=3"},
		{5 * h, 6*h - 1, "date=1970-01-01/hour=5"},
	}, s.windows())

	s = newWindowSet(partitionSpec{period: "hour"}, arrow.Second, nil)
	ts := make([]arrow.Timestamp, maxTimePartitions+1)
	for i := range ts {
		ts[i] = arrow.Timestamp(i * h)
	}
	require.NoError(t, s.addTimes(ts[:maxTimePartitions]))
	require.NoError(t, s.addTimes(ts[:maxTimePartitions]), "the same partitions again")
	require.ErrorContains(t, s.addTimes(ts), "more than 100000 partitions")
}

// timeFile writes a table "m" of two devices whose rows span days, months
// and a gap of a year, in chunks of 40 rows, and a tree-model file of the
// same times.
func timeFile(t *testing.T, dir string) (table, tree string) {
	t.Helper()
	var times []int64
	start := time.Date(2023, 12, 30, 22, 0, 0, 0, time.UTC)
	for i := 0; i < 150; i++ {
		times = append(times, start.Add(time.Duration(i)*47*time.Minute).UnixMilli())
	}
	times = append(times, time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli())
	times = append(times, time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC).UnixMilli())
	slices.Sort(times)
	table = filepath.Join(dir, "m.tsfile")
	writeFile(t, table, func(w *tsfile.Writer) {
		require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "m", Columns: []tsfile.Column{
			{Name: "id", DataType: tsfile.String, Category: tsfile.Tag},
			{Name: "v", DataType: tsfile.Int64, Category: tsfile.Field},
		}}))
		for d, id := range []string{"a", "b"} {
			ts := times[d:] // device b lacks the first row
			for lo := 0; lo < len(ts); lo += 40 {
				hi := min(lo+40, len(ts))
				v := tsfile.Values{Type: tsfile.Int64}
				for i := lo; i < hi; i++ {
					v.Int64s = append(v.Int64s, int64(d*1000+i))
					v.Null = append(v.Null, false)
				}
				require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("m", id), ts[lo:hi], []tsfile.AlignedColumn{
					{SeriesSchema: tsfile.SeriesSchema{Name: "v", DataType: tsfile.Int64}, Values: v}}))
			}
		}
	})
	tree = filepath.Join(dir, "tree.tsfile")
	writeFile(t, tree, func(w *tsfile.Writer) {
		require.NoError(t, w.WriteNonAligned(tsfile.NewDeviceID("root.sg", "d1"), []tsfile.NonAlignedSeries{
			{SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64}, Times: times[:100], Values: i64(times[:100]...)},
			{SeriesSchema: tsfile.SeriesSchema{Name: "s2", DataType: tsfile.Int64}, Times: times[50:], Values: i64(times[50:]...)},
		}))
	})
	return table, tree
}

// readPartitioned reads every CSV part under out: the partition
// directories of each part and its rows (header dropped).
func readPartitioned(t *testing.T, out string) map[string][][]string {
	t.Helper()
	got := map[string][][]string{}
	require.NoError(t, filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(out, p)
		f, err := os.Open(p)
		require.NoError(t, err)
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		require.NoError(t, err)
		got[filepath.ToSlash(rel)] = recs[1:]
		return nil
	}))
	return got
}

// csvTime reads the time column of a CSV row: epoch milliseconds or an
// ISO-8601 time.
func csvTime(t *testing.T, s string) time.Time {
	t.Helper()
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC()
	}
	tm, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err, s)
	return tm.UTC()
}

// TestPartitionByTime converts with every time partition, alone and under
// device, and holds the dataset to the unpartitioned conversion: the same
// rows (as a multiset), each in the partition its UTC time names, no part
// without rows, and one part per partition directory.
func TestPartitionByTime(t *testing.T) {
	dir := t.TempDir()
	table, tree := timeFile(t, dir)
	keyOf := map[string]func(time.Time) string{
		"day":   func(tm time.Time) string { return tm.Format("date=2006-01-02") },
		"hour":  func(tm time.Time) string { return tm.Format("date=2006-01-02/hour=") + strconv.Itoa(tm.Hour()) },
		"month": func(tm time.Time) string { return tm.Format("year=2006/month=1") },
	}
	for _, in := range []struct {
		path, table string
		devCol      int // the device's column in the unpartitioned rows
	}{{table, "m", 1}, {tree, "root.sg", 1}} {
		whole := convertCSV(t, in.path)[1:]
		for _, by := range []string{"day", "hour", "month", "table,day", "device,day", "device,month"} {
			name := filepath.Base(in.path) + " " + by
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(filepath.Base(in.path)+by, ",", "-"))
			code, _, errOut := runCLI("convert", in.path, "-o", out, "--partition-by", by, "--format", "csv", "--time-format", "epoch", "--quiet")
			require.Equal(t, 0, code, errOut)
			require.Empty(t, errOut, name)
			period := by[strings.LastIndex(by, ",")+1:]
			var rows []string
			dirs := map[string]bool{}
			for rel, recs := range readPartitioned(t, out) {
				require.NotEmpty(t, recs, "%s: %s has no rows", name, rel)
				pdir := rel[:strings.LastIndex(rel, "/")]
				require.False(t, dirs[pdir], "%s: two parts in %s", name, pdir)
				dirs[pdir] = true
				require.Equal(t, "part-0.csv", rel[len(pdir)+1:], name)
				levels := strings.SplitN(pdir, "/", 2)
				require.Equal(t, "table="+in.table, levels[0], name)
				keys := levels[1]
				var dev string
				if strings.HasPrefix(by, "device") {
					dev, keys, _ = strings.Cut(keys, "/")
					dev = strings.TrimPrefix(dev, "device=")
				}
				for _, r := range recs {
					require.Equal(t, keyOf[period](csvTime(t, r[0])), keys, "%s: row %v in %s", name, r, rel)
					if dev != "" && in.path == tree {
						// The device column moved into the path.
						r = slices.Insert(r, 1, dev)
					}
					if dev != "" && in.path == table {
						require.Equal(t, "m."+r[1], dev, name)
					}
					rows = append(rows, strings.Join(r, ","))
				}
			}
			want := slices.Clone(whole)
			slices.Sort(want)
			slices.Sort(rows)
			require.Equal(t, want, rows, name)
		}
	}

	// --start and --end narrow the partitions too, in the stored unit.
	out := filepath.Join(dir, "narrow")
	code, _, errOut := runCLI("convert", table, "-o", out, "--partition-by", "day", "--format", "csv", "--time-format", "epoch", "--quiet",
		"--start", "2024-01-02T00:00:00Z", "--end", "2024-01-03T11:59:59Z")
	require.Equal(t, 0, code, errOut)
	got := readPartitioned(t, out)
	require.Len(t, got, 2)
	require.Contains(t, got, "table=m/date=2024-01-02/part-0.csv")
	require.Contains(t, got, "table=m/date=2024-01-03/part-0.csv")
	require.Equal(t, "2024-01-03T11:", csvTime(t, got["table=m/date=2024-01-03/part-0.csv"][len(got["table=m/date=2024-01-03/part-0.csv"])-1][0]).Format("2006-01-02T15:")[:14])

	// A dataset of time partitions is one --force replaces, by another.
	code, _, errOut = runCLI("convert", table, "-o", out, "--partition-by", "device,month", "--force", "--quiet")
	require.Equal(t, 0, code, errOut)
	code, _, errOut = runCLI("convert", table, "-o", out, "--partition-by", "hour", "--force", "--quiet")
	require.Equal(t, 0, code, errOut)
	require.NoError(t, os.WriteFile(filepath.Join(out, "table=m", "date=2024-01-02", "notes.txt"), nil, 0o644))
	code, _, errOut = runCLI("convert", table, "-o", out, "--partition-by", "day", "--force", "--quiet")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "notes.txt")
}

// TestPartitionByTimeUnit: the stored unit decides the partition, and a
// time a key cannot name fails before anything is written.
func TestPartitionByTimeUnit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.tsfile")
	day := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	writeFile(t, path, func(w *tsfile.Writer) {
		require.NoError(t, w.WriteNonAligned(tsfile.NewDeviceID("root.sg", "d1"), []tsfile.NonAlignedSeries{
			{SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64}, Times: []int64{day.Unix() - 1, day.Unix()}, Values: i64(1, 2)},
		}))
	})
	out := filepath.Join(dir, "s")
	code, _, errOut := runCLI("convert", path, "-o", out, "--partition-by", "day", "--time-unit", "s", "--format", "csv", "--time-format", "epoch", "--quiet")
	require.Equal(t, 0, code, errOut)
	got := readPartitioned(t, out)
	require.Equal(t, [][]string{{"1714521599", "root.sg.d1", "1"}}, got["table=root.sg/date=2024-04-30/part-0.csv"])
	require.Equal(t, [][]string{{"1714521600", "root.sg.d1", "2"}}, got["table=root.sg/date=2024-05-01/part-0.csv"])

	// In milliseconds the same numbers are January 1970.
	out = filepath.Join(dir, "ms")
	code, _, errOut = runCLI("convert", path, "-o", out, "--partition-by", "day", "--format", "csv", "--time-format", "epoch", "--quiet")
	require.Equal(t, 0, code, errOut)
	require.Len(t, readPartitioned(t, out), 1)
	require.Contains(t, readPartitioned(t, out), "table=root.sg/date=1970-01-20/part-0.csv")

	// Nanoseconds read as seconds are past year 9999.
	out = filepath.Join(dir, "far")
	path2 := filepath.Join(dir, "far.tsfile")
	writeFile(t, path2, func(w *tsfile.Writer) {
		require.NoError(t, w.WriteNonAligned(tsfile.NewDeviceID("root.sg", "d1"), []tsfile.NonAlignedSeries{
			{SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64}, Times: []int64{day.UnixNano()}, Values: i64(1)},
		}))
	})
	code, _, errOut = runCLI("convert", path2, "-o", out, "--partition-by", "month", "--time-unit", "s", "--quiet")
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "outside the years 0000 to 9999")
	_, err := os.Stat(out)
	require.True(t, os.IsNotExist(err))
}

// TestPartitionByTimeDataset partitions IoTDB data by day: the rows IoTDB
// answers (deletions and overwrites applied), each in its day.
func TestPartitionByTimeDataset(t *testing.T) {
	root := t.TempDir()
	const d = int64(24 * 3600 * 1000)
	writeDataFile(t, layoutPath(root, "sequence", 1, 1), "t", []dsRow{{"x", 1, 10}, {"x", d + 5, 11}, {"y", 3*d - 1, 12}})
	writeDataFile(t, layoutPath(root, "unsequence", 2, 2), "t", []dsRow{{"x", d + 5, 99}, {"y", 3 * d, 13}})
	whole := convertCSV(t, root, "--quiet")[1:]
	for _, by := range []string{"day", "device,day"} {
		out := filepath.Join(t.TempDir(), "out")
		code, _, errOut := runCLI("convert", root, "-o", out, "--partition-by", by, "--format", "csv", "--time-format", "epoch", "--quiet")
		require.Equal(t, 0, code, errOut)
		var rows []string
		for rel, recs := range readPartitioned(t, out) {
			for _, r := range recs {
				require.Contains(t, rel, csvTime(t, r[0]).Format("/date=2006-01-02/"), by)
				if by == "device,day" {
					require.Contains(t, rel, "/device=t."+r[1]+"/", by)
				}
				rows = append(rows, strings.Join(r, ","))
			}
		}
		slices.Sort(rows)
		want := slices.Clone(whole)
		slices.Sort(want)
		require.Equal(t, want, rows, by)
		require.Contains(t, rows, "86400005,x,99", "the unsequence file's row wins")
	}
}

// TestDevicePartitionWarner: more than 1000 device partitions, counted
// over the inputs by table and device, warn once.
func TestDevicePartitionWarner(t *testing.T) {
	devs := func(lo, hi int) []tsfile.DeviceID {
		var out []tsfile.DeviceID
		for i := lo; i < hi; i++ {
			out = append(out, tsfile.NewDeviceID("t", fmt.Sprintf("d%04d", i)))
		}
		return out
	}
	var b strings.Builder
	var w devicePartitionWarner
	w.note(&b, "device", "t", devs(0, 1000))
	w.note(&b, "device", "t", devs(0, 1000)) // the same partitions, another input
	require.Empty(t, b.String())
	w.note(&b, "device", "u", devs(0, 1))
	require.Equal(t, "ts2arrow: warning: --partition-by device writes 1001 device partitions (more than 1000), each at least a file per input; --partition-by table or a time partition (--partition-by day) writes fewer, larger files\n", b.String())
	w.note(&b, "device", "u", devs(0, 2000))
	require.Equal(t, 1, strings.Count(b.String(), "\n"), "said once")
}

// TestPartitionManyDevices: the CLI warns before it writes a part, and
// goes on; --device counts only the devices kept. The threshold is
// lowered to 3, so that the test writes a few files (each is synced).
func TestPartitionManyDevices(t *testing.T) {
	defer func(n int) { manyDevicePartitions = n }(manyDevicePartitions)
	manyDevicePartitions = 3
	dir := t.TempDir()
	write := func(name string, n int) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, func(w *tsfile.Writer) {
			require.NoError(t, w.RegisterTable(dsTable("t")))
			for i := 0; i < n; i++ {
				require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", fmt.Sprintf("d%04d", i)), []int64{1}, []tsfile.AlignedColumn{
					{SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64}, Values: tsfile.Values{Type: tsfile.Int64, Int64s: []int64{7}, Null: []bool{false}}}}))
			}
		})
		return p
	}
	many, few := write("many.tsfile", 4), write("few.tsfile", 3)
	code, _, errOut := runCLI("convert", few, "-o", filepath.Join(dir, "few"), "--partition-by", "device", "--format", "csv", "--time-format", "epoch", "--quiet")
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, errOut, "warning")
	code, _, errOut = runCLI("convert", many, "-o", filepath.Join(dir, "many"), "--partition-by", "device", "--format", "csv", "--time-format", "epoch", "--quiet")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "ts2arrow: warning: --partition-by device writes 4 device partitions (more than 3), each at least a file per input; --partition-by table or a time partition (--partition-by day) writes fewer, larger files\n", errOut)
	entries, err := os.ReadDir(filepath.Join(dir, "many", "table=t"))
	require.NoError(t, err)
	require.Len(t, entries, 4)
	// Two inputs of the same devices are as many partitions.
	code, _, errOut = runCLI("convert", few, few, "-o", filepath.Join(dir, "two"), "--partition-by", "device,day", "--format", "csv", "--time-format", "epoch", "--quiet")
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, errOut, "warning")
	code, _, errOut = runCLI("convert", many, "-o", filepath.Join(dir, "one"), "--partition-by", "device", "--device", "t.d0001", "--format", "csv", "--time-format", "epoch", "--quiet")
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, errOut, "warning")
	// IoTDB data: the devices of its resources, before the read.
	root := t.TempDir()
	writeDataFile(t, layoutPath(root, "sequence", 1, 1), "t", []dsRow{{"a", 1, 1}, {"b", 1, 1}, {"c", 1, 1}, {"d", 1, 1}})
	code, _, errOut = runCLI("convert", root, "-o", filepath.Join(dir, "iotdb"), "--partition-by", "device", "--format", "csv", "--time-format", "epoch", "--quiet")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "ts2arrow: warning: --partition-by device writes 4 device partitions (more than 3)")
}

// TestPartitionKeyClash warns when a column has the name of a time key.
func TestPartitionKeyClash(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.tsfile")
	writeFile(t, path, func(w *tsfile.Writer) {
		require.NoError(t, w.WriteNonAligned(tsfile.NewDeviceID("root.sg", "d1"), []tsfile.NonAlignedSeries{
			{SeriesSchema: tsfile.SeriesSchema{Name: "hour", DataType: tsfile.Int64}, Times: []int64{1, 2}, Values: i64(1, 2)},
		}))
	})
	code, _, errOut := runCLI("convert", path, "-o", filepath.Join(dir, "d"), "--partition-by", "day", "--quiet")
	require.Equal(t, 0, code, errOut)
	require.Empty(t, errOut)
	code, _, errOut = runCLI("convert", path, "-o", filepath.Join(dir, "h"), "--partition-by", "hour", "--quiet")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 1, strings.Count(errOut, "warning"), errOut)
	require.Contains(t, errOut, `table root.sg has a column "hour", the name of a --partition-by hour key`)
}
