package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// The tests of dataset mode build small IoTDB data directories as the
// dataset package's tests do (dataset/layout_builder_test.go): data files
// named {time}-{version}-0-0.tsfile under
// {sequence|unsequence}/{database}/{region}/{partition}/, each with a
// .resource, and mods files written with dataset.AppendModsV1/V2.

// dsRow is one row of a table-model device of table t or u: TAG tag,
// FIELD s1 (INT64).
type dsRow struct {
	tag  string
	time int64
	s1   int64
}

// dsTable is the schema of the test tables.
func dsTable(name string) tsfile.TableSchema {
	return tsfile.TableSchema{Name: name, Columns: []tsfile.Column{
		{Name: "tag", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "s1", DataType: tsfile.Int64, Category: tsfile.Field},
	}}
}

// writeDataFile writes the rows of table (one chunk group per tag, in the
// order the tags first appear) as a TsFile at path, with its .resource.
func writeDataFile(t *testing.T, path, table string, rows []dsRow) {
	t.Helper()
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(dsTable(table)))
	res := &dataset.Resource{IndexType: dataset.IndexArray}
	var tags []string
	for _, r := range rows {
		if !slices.Contains(tags, r.tag) {
			tags = append(tags, r.tag)
		}
	}
	for _, tag := range tags {
		var times []int64
		vals := tsfile.Values{Type: tsfile.Int64}
		for _, r := range rows {
			if r.tag == tag {
				times = append(times, r.time)
				vals.Int64s = append(vals.Int64s, r.s1)
				vals.Null = append(vals.Null, false)
			}
		}
		dev := tsfile.NewDeviceID(table, tag)
		require.NoError(t, w.WriteAligned(dev, times, []tsfile.AlignedColumn{
			{SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64}, Values: vals}}))
		res.Devices = append(res.Devices, dataset.DeviceTimes{Device: dev, Start: slices.Min(times), End: slices.Max(times)})
	}
	require.NoError(t, w.Close())
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	b, err := res.AppendBinary(nil)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path+dataset.ResourceSuffix, b, 0o644))
}

// layoutPath is where IoTDB keeps data file {tm}-{version}-0-0 of region 1,
// partition 0 of database root.db.
func layoutPath(root, space string, tm, version int64) string {
	return filepath.Join(root, space, "root.db", "1", "0", dataset.Name{Time: tm, Version: version}.String())
}

// writeModsV2 writes the .mods2 of a data file.
func writeModsV2(t *testing.T, data string, dels ...dataset.Deletion) {
	t.Helper()
	b, err := dataset.AppendModsV2(nil, dels...)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(data+dataset.ModsV2Suffix, b, 0o644))
}

// iotdbDir lays out a data directory of table t:
//
//	sequence   1-1: a@1=10 a@2=20 a@3=30 b@1=100; its .mods2 deletes t at time 3
//	unsequence 2-2: a@2=21, which overwrites a@2=20
//
// so IoTDB answers a@1=10 a@2=21 b@1=100.
func iotdbDir(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "data")
	seq := layoutPath(root, "sequence", 1, 1)
	writeDataFile(t, seq, "t", []dsRow{{"a", 1, 10}, {"a", 2, 20}, {"a", 3, 30}, {"b", 1, 100}})
	writeModsV2(t, seq, dataset.Deletion{Kind: dataset.TableDeletion, Table: "t", Start: 3, End: 3})
	writeDataFile(t, layoutPath(root, "unsequence", 2, 2), "t", []dsRow{{"a", 2, 21}})
	return root
}

// resolvedRows are the rows of iotdbDir as IoTDB returns them.
var resolvedRows = []string{"1,a,10", "1,b,100", "2,a,21"}

// csvRows runs a command writing CSV to stdout and returns the header, the
// rows sorted (the order of a merge is not what these tests check) and
// stderr.
func csvRows(t *testing.T, args ...string) (header string, rows []string, stderr string) {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"convert", "--format", "csv", "--time-format", "epoch", "-o", "-"}, args...)...)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	rows = slices.Clone(lines[1:])
	slices.Sort(rows)
	return lines[0], rows, errOut
}

func TestDatasetConvertResolved(t *testing.T) {
	root := iotdbDir(t)

	header, rows, stderr := csvRows(t, root)
	require.Equal(t, "time,tag,s1", header)
	require.Equal(t, resolvedRows, rows, "the deleted point is gone and the unsequence copy wins")
	require.True(t, strings.HasPrefix(stderr, "ts2arrow: "+root+" is an IoTDB data directory: returning rows as IoTDB does (deletions applied, unsequence over sequence, newer over older); --raw reads every file as it is\n"), stderr)
	// Then the dataset's rules, which count the files and deletions.
	require.Contains(t, stderr, "\nts2arrow: 2 data files (1 sequence, 1 unsequence)")
	require.Contains(t, stderr, "\nts2arrow: 1 mods file holds 1 deletion")
	require.Equal(t, 1, strings.Count(stderr, "returning rows as IoTDB does"), "said once")
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		require.True(t, strings.HasPrefix(l, "ts2arrow: "), "every line of the note is prefixed: %q", l)
	}

	// --raw: every file as it is, the union of today.
	_, rows, stderr = csvRows(t, root, "--raw")
	require.Equal(t, []string{"1,a,10", "1,b,100", "2,a,20", "2,a,21", "3,a,30"}, rows)
	require.Empty(t, stderr)

	// --quiet: nothing but warnings (there are none).
	_, rows, stderr = csvRows(t, root, "--quiet")
	require.Equal(t, resolvedRows, rows)
	require.Empty(t, stderr)

	// A region folder alone keeps its space: the sequence file with its
	// deletion, without the unsequence overwrite.
	region := filepath.Join(root, "sequence", "root.db", "1")
	_, rows, stderr = csvRows(t, region)
	require.Equal(t, []string{"1,a,10", "1,b,100", "2,a,20"}, rows)
	require.Contains(t, stderr, region+" is region 1 of database root.db (sequence) of an IoTDB data directory: returning rows")
	require.Contains(t, stderr, "ts2arrow: 1 data file (1 sequence, 0 unsequence)")

	// A glob over the data files of both spaces is IoTDB data too.
	_, rows, _ = csvRows(t, filepath.Join(root, "*", "root.db", "1", "0", "*.tsfile"))
	require.Equal(t, resolvedRows, rows)

	// The query flags push down as for a file.
	_, rows, _ = csvRows(t, root, "--where", "tag=a", "--quiet")
	require.Equal(t, []string{"1,a,10", "2,a,21"}, rows)
	_, rows, _ = csvRows(t, root, "--device", "t.b", "--quiet")
	require.Equal(t, []string{"1,b,100"}, rows)
	_, rows, _ = csvRows(t, root, "--start", "2", "--end", "3", "--quiet")
	require.Equal(t, []string{"2,a,21"}, rows)
	header, rows, _ = csvRows(t, root, "--columns", "s1", "--quiet")
	require.Equal(t, "time,s1", header)
	require.Equal(t, []string{"1,10", "1,100", "2,21"}, rows)
	code, _, errOut := runCLI("convert", root, "--format", "csv", "-o", "-", "--columns", "nope")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `no column "nope" (columns: time, tag, s1)`)

	// The resolved rows make a valid TsFile, one row per device and time
	// (the union of the files would not: a@2 twice).
	ts := filepath.Join(t.TempDir(), "resolved.tsfile")
	code, _, errOut = runCLI("convert", root, "-o", ts, "--quiet")
	require.Equal(t, 0, code, errOut)
	_, rows, _ = csvRows(t, ts)
	require.Equal(t, resolvedRows, rows)

	// --verbose: what the read did.
	out := filepath.Join(t.TempDir(), "x.csv")
	code, _, errOut = runCLI("convert", root, "-o", out, "--verbose")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "ts2arrow: wrote 3 rows to "+out)
	require.Regexp(t, `ts2arrow: files: 2 read, 0 pruned by their resources; rows: \d+ read, 3 written, \d+ filtered out by deletions \(and 0 cells\), 1 overwritten, \d+ merged by time; what deletions cover is skipped unread`, errOut)
}

func TestDatasetEmptyResult(t *testing.T) {
	root := iotdbDir(t)
	code, out, errOut := runCLI("convert", root, "--format", "csv", "-o", "-", "--where", "tag=zzz", "--quiet")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "time,tag,s1\n", out)
	require.Contains(t, errOut, "ts2arrow: wrote 0 rows to standard output (no row matched --where tag=zzz)")
	require.Contains(t, errOut, `tag has no value "zzz" in the inputs; values include: a, b`)

	// Every row the query matches is deleted: the note says so.
	code, _, errOut = runCLI("convert", root, "--format", "csv", "-o", "-", "--start", "3", "--end", "3", "--quiet")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "wrote 0 rows")
	require.Contains(t, errOut, "ts2arrow: the mods files deleted the rows the query matched; --raw reads them as the files hold them\n")
}

func TestDatasetHeadAndSchema(t *testing.T) {
	root := iotdbDir(t)
	code, out, stderr := runCLI("head", root, "--time-format", "raw")
	require.Equal(t, 0, code, stderr)
	header, rows := parseHead(t, out)
	require.Equal(t, []string{"time", "tag", "s1"}, header)
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join(r, ","))
	}
	slices.Sort(got)
	require.Equal(t, resolvedRows, got)
	require.Contains(t, stderr, root+" is an IoTDB data directory")

	// A data file with its mods: resolved, unless --raw.
	seq := layoutPath(root, "sequence", 1, 1)
	code, out, stderr = runCLI("head", seq, "--time-format", "raw")
	require.Equal(t, 0, code, stderr)
	_, rows = parseHead(t, out)
	require.Len(t, rows, 3, "a@3 is deleted")
	require.Contains(t, stderr, seq+" is a data file of an IoTDB data directory")
	code, out, stderr = runCLI("head", seq, "--time-format", "raw", "--raw")
	require.Equal(t, 0, code, stderr)
	_, rows = parseHead(t, out)
	require.Len(t, rows, 4, "--raw: the file as it is")
	require.Empty(t, stderr)

	code, out, _ = runCLI("head", root, "-n", "1", "--time-format", "raw")
	require.Equal(t, 0, code)
	_, rows = parseHead(t, out)
	require.Len(t, rows, 1)

	code, out, stderr = runCLI("schema", root, "--json")
	require.Equal(t, 0, code, stderr)
	var sc schemaJSON
	require.NoError(t, json.Unmarshal([]byte(out), &sc))
	var names []string
	for _, f := range sc.Fields {
		names = append(names, f.Name+":"+f.Metadata["tsfile.category"])
	}
	require.Equal(t, []string{"time:TIME", "tag:TAG", "s1:FIELD"}, names)
	require.Contains(t, stderr, root+" is an IoTDB data directory")
}

// looseWithMods writes a tree-model file outside any layout with a v1
// .mods beside it that deletes root.db.d1.s1 at time 2.
func looseWithMods(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "loose", "x.tsfile")
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	dev := tsfile.ParseTreePath("root.db.d1")
	require.NoError(t, w.WriteNonAligned(dev, []tsfile.NonAlignedSeries{{
		SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64},
		Times:        []int64{1, 2, 3},
		Values:       tsfile.Values{Type: tsfile.Int64, Int64s: []int64{10, 20, 30}},
	}}))
	require.NoError(t, w.Close())
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	pat, err := dataset.ParsePattern("root.db.d1.s1")
	require.NoError(t, err)
	b, err := dataset.AppendModsV1(nil, dataset.Deletion{Kind: dataset.TreeDeletion, Version: dataset.ModsV1, Pattern: pat, Start: 2, End: 2, FileOffset: 1 << 40})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path+dataset.ModsV1Suffix, b, 0o644))
	return path
}

func TestDatasetModsBesideLooseFiles(t *testing.T) {
	path := looseWithMods(t)
	header, rows, stderr := csvRows(t, path)
	require.Equal(t, "time,device,s1", header)
	require.Equal(t, []string{"1,root.db.d1,10", "3,root.db.d1,30"}, rows)
	require.Contains(t, stderr, path+" has a mods file beside it: returning rows as IoTDB does")
	require.Contains(t, stderr, "ts2arrow: 1 data file (0 sequence, 0 unsequence, 1 outside a data directory)")

	// The directory holding it, too.
	_, rows, stderr = csvRows(t, filepath.Dir(path))
	require.Equal(t, []string{"1,root.db.d1,10", "3,root.db.d1,30"}, rows)
	require.Contains(t, stderr, filepath.Dir(path)+" holds TsFiles with mods files beside them")

	// --device against a file without a .resource: its own index.
	_, rows, _ = csvRows(t, path, "--device", "root.db.d1", "--quiet")
	require.Equal(t, []string{"1,root.db.d1,10", "3,root.db.d1,30"}, rows)
	_, rows, _ = csvRows(t, path, "--device", "root.db.d2", "--quiet")
	require.Empty(t, rows)

	// A tree model's device column moves into the partition path.
	out := filepath.Join(t.TempDir(), "ds")
	code, _, errOut := runCLI("convert", path, "-o", out, "--partition-by", "device", "--format", "csv", "--time-format", "epoch", "--quiet")
	require.Equal(t, 0, code, errOut)
	b, err := os.ReadFile(filepath.Join(out, "table=root.db", "device=root.db.d1", "part-0.csv"))
	require.NoError(t, err)
	require.Equal(t, "time,s1\n1,10\n3,30\n", string(b))

	_, rows, stderr = csvRows(t, path, "--raw")
	require.Equal(t, []string{"1,root.db.d1,10", "2,root.db.d1,20", "3,root.db.d1,30"}, rows)
	require.Empty(t, stderr)

	// Without the mods file, the file is read as it always was: no note.
	require.NoError(t, os.Remove(path+dataset.ModsV1Suffix))
	_, rows, stderr = csvRows(t, path)
	require.Len(t, rows, 3)
	require.Empty(t, stderr)
}

func TestDatasetTableSelection(t *testing.T) {
	root := iotdbDir(t)
	writeDataFile(t, layoutPath(root, "sequence", 5, 5), "u", []dsRow{{"x", 7, 70}})

	for _, verb := range [][]string{{"convert", "--format", "csv", "-o", "-"}, {"head"}, {"schema"}} {
		code, _, stderr := runCLI(append(verb, root)...)
		require.Equal(t, 2, code, "%v: %s", verb, stderr)
		require.Contains(t, stderr, "ts2arrow: the inputs have several tables; pick one with --table (tables: t, u)\n", verb)
		code, _, stderr = runCLI(append(verb, root, "--table", "nope")...)
		require.Equal(t, 2, code, "%v: %s", verb, stderr)
		require.Contains(t, stderr, `ts2arrow: no table "nope" in the inputs (tables: t, u)`, verb)
	}
	_, rows, _ := csvRows(t, root, "--table", "u")
	require.Equal(t, []string{"7,x,70"}, rows)
	_, rows, _ = csvRows(t, root, "--table", "t")
	require.Equal(t, resolvedRows, rows)

	// --partition-by needs no --table: each table is a partition.
	out := filepath.Join(t.TempDir(), "ds")
	code, _, stderr := runCLI("convert", root, "-o", out, "--partition-by", "table", "--format", "csv", "--time-format", "epoch", "--quiet")
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(filepath.Join(out, "table=u", "part-0.csv"))
	require.NoError(t, err)
	require.Equal(t, "time,tag,s1\n7,x,70\n", string(b))
	require.FileExists(t, filepath.Join(out, "table=t", "part-0.csv"))

	// --device without --table: the device of whichever table holds it.
	out = filepath.Join(t.TempDir(), "ds")
	code, _, stderr = runCLI("convert", root, "-o", out, "--partition-by", "device", "--format", "csv", "--time-format", "epoch", "--quiet", "--device", "u.x")
	require.Equal(t, 0, code, stderr)
	b, err = os.ReadFile(filepath.Join(out, "table=u", "device=u.x", "part-0.csv"))
	require.NoError(t, err)
	require.Equal(t, "time,tag,s1\n7,x,70\n", string(b))
	require.NoDirExists(t, filepath.Join(out, "table=t"))
}

func TestDatasetPartitioned(t *testing.T) {
	root := iotdbDir(t)
	out := filepath.Join(t.TempDir(), "ds")
	code, _, stderr := runCLI("convert", root, "-o", out, "--partition-by", "device", "--format", "csv", "--time-format", "epoch", "--quiet")
	require.Equal(t, 0, code, stderr)
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(out, p))
		require.NoError(t, err)
		return string(b)
	}
	require.Equal(t, "time,tag,s1\n1,a,10\n2,a,21\n", read("table=t/device=t.a/part-0.csv"))
	require.Equal(t, "time,tag,s1\n1,b,100\n", read("table=t/device=t.b/part-0.csv"))

	out2 := filepath.Join(t.TempDir(), "ds")
	code, _, stderr = runCLI("convert", root, "-o", out2, "--partition-by", "table", "--format", "csv", "--time-format", "epoch", "--quiet")
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(filepath.Join(out2, "table=t", "part-0.csv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	slices.Sort(lines[1:])
	require.Equal(t, append([]string{"time,tag,s1"}, resolvedRows...), lines)
}

func TestDatasetRefusals(t *testing.T) {
	root := iotdbDir(t)
	// The data directory is an input: nothing is written into it, at any
	// depth, nor into the data directory around a folder given.
	for _, out := range []string{
		filepath.Join(root, "out.csv"),
		filepath.Join(root, "sequence", "root.db", "1", "0", "out.csv"),
	} {
		code, _, stderr := runCLI("convert", root, "-o", out)
		require.Equal(t, 2, code, stderr)
		require.Contains(t, stderr, "refusing to write -o "+out+": it is inside")
		_, err := os.Stat(out)
		require.True(t, errors.Is(err, os.ErrNotExist))
	}
	code, _, stderr := runCLI("convert", filepath.Join(root, "sequence", "root.db", "1"), "-o", filepath.Join(root, "unsequence", "x.csv"))
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "it is inside "+root)

	code, _, stderr = runCLI("convert", root, "--recover", "-o", "-", "--format", "csv")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "--recover")
	code, _, stderr = runCLI("convert", root, "https://example.com/x.tsfile", "-o", "-", "--format", "csv")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "https://example.com/x.tsfile is a URL")
}

func TestDatasetErrorHint(t *testing.T) {
	err := datasetError(fmt.Errorf("dataset: %s: size changed: %w", "f.tsfile", dataset.ErrChanged))
	require.ErrorIs(t, err, dataset.ErrChanged)
	require.Contains(t, err.Error(), "f.tsfile")
	require.Contains(t, err.Error(), "run the command again")
	var e bytes.Buffer
	require.Equal(t, 1, report(err, &e))
	require.Equal(t, 1, strings.Count(e.String(), "\n"), "one line: %s", e.String())
	other := errors.New("x")
	require.Equal(t, other, datasetError(other))
}

func TestDatasetNotALayout(t *testing.T) {
	// A TsFile below a folder that happens to be named sequence, but not
	// in a {database}/{region}/{partition} folder, is no IoTDB data: it
	// reads as it always did, with nothing said.
	dir := filepath.Join(t.TempDir(), "sequence")
	copyFile(t, sample, filepath.Join(dir, "x.tsfile"))
	want := sampleRows(t)
	code, out, stderr := runCLI("convert", dir, "--format", "csv", "--time-format", "epoch", "-o", "-")
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)
	require.Equal(t, want, strings.Split(strings.TrimSuffix(out, "\n"), "\n"))
	code, _, stderr = runCLI("head", filepath.Join(dir, "x.tsfile"))
	require.Equal(t, 0, code, stderr)
	require.Empty(t, stderr)
}

func TestDatasetImpossibleCast(t *testing.T) {
	// An older file holds s1 as INT64, the newer one as BOOLEAN, a type
	// change IoTDB cannot cast: one line naming both files, exit 1.
	root := iotdbDir(t)
	newer := layoutPath(root, "sequence", 9, 9)
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "tag", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "s1", DataType: tsfile.Boolean, Category: tsfile.Field},
	}}))
	dev := tsfile.NewDeviceID("t", "a")
	require.NoError(t, w.WriteAligned(dev, []int64{9}, []tsfile.AlignedColumn{{
		SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Boolean},
		Values:       tsfile.Values{Type: tsfile.Boolean, Bools: []bool{true}, Null: []bool{false}}}}))
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(newer, buf.Bytes(), 0o644))
	res := &dataset.Resource{IndexType: dataset.IndexArray, Devices: []dataset.DeviceTimes{{Device: dev, Start: 9, End: 9}}}
	b, err := res.AppendBinary(nil)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(newer+dataset.ResourceSuffix, b, 0o644))

	for _, args := range [][]string{{"convert", root, "-o", "-", "--format", "csv", "--quiet"}, {"schema", root}, {"head", root}} {
		code, out, stderr := runCLI(args...)
		require.Equal(t, 1, code, "%v: %s", args, stderr)
		require.Empty(t, out, args)
		last := stderr[strings.LastIndex(strings.TrimSuffix(stderr, "\n"), "\n")+1:]
		require.Regexp(t, `^ts2arrow: dataset: column "s1" is INT64 in \S+/[12]-[12]-0-0.tsfile but BOOLEAN in the newer \S+9-9-0-0.tsfile, and IoTDB cannot cast INT64 to BOOLEAN`, last, args)
	}
}

func TestDatasetNoTables(t *testing.T) {
	// A data file without its .resource and its tail magic is one IoTDB
	// had not finished: the dataset leaves it out, and the error says why
	// there is nothing, with --table too.
	root := iotdbDir(t)
	require.NoError(t, os.RemoveAll(filepath.Join(root, "unsequence")))
	seq := layoutPath(root, "sequence", 1, 1)
	require.NoError(t, os.Remove(seq+dataset.ResourceSuffix))
	b, err := os.ReadFile(seq)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(seq, b[:len(b)-2], 0o644))
	why := seq + ": no .resource beside it and it does not end with the TsFile magic"
	for _, args := range [][]string{{}, {"--table", "t"}} {
		code, _, stderr := runCLI(append([]string{"convert", root, "-o", "-", "--format", "csv"}, args...)...)
		require.Equal(t, 2, code, stderr)
		want := "ts2arrow: the inputs have no tables: " + why
		if len(args) > 0 {
			want = `ts2arrow: no table "t" in the inputs (tables: ): ` + why
		}
		require.True(t, strings.HasPrefix(stderr, want), stderr)
		require.Equal(t, 1, strings.Count(stderr, "\n"))
	}
}

// TestDatasetWithoutResource: a complete data file without its .resource
// is read (IoTDB rebuilds the resource from the file), and the note says
// so; it used to be skipped, leaving nothing to convert.
func TestDatasetWithoutResource(t *testing.T) {
	root := iotdbDir(t)
	require.NoError(t, os.Remove(layoutPath(root, "sequence", 1, 1)+dataset.ResourceSuffix))
	_, rows, stderr := csvRows(t, root, "--table", "t")
	require.Equal(t, resolvedRows, rows)
	require.Contains(t, stderr, "1 data file without a .resource is read by its own index")
}

// TestDatasetRawSeveralTables: --raw --table over a directory of several
// tables reads the files that hold the table and says which it left out;
// the resolved read of the bundled sample has the golden file's rows, the
// raw one every copy.
func TestDatasetRawSeveralTables(t *testing.T) {
	sample := filepath.Join("..", "..", "testdata", "iotdb")
	code, raw, errOut := runCLI("convert", sample, "--table", "weather", "--raw", "--format", "csv", "-o", "-")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, errOut, "ts2arrow: --table weather: 1 of 5 inputs do not hold it and are not read")
	code, resolved, errOut := runCLI("convert", sample, "--table", "weather", "--format", "csv", "-o", "-")
	require.Equal(t, 0, code, errOut)
	// 2 devices x (12 + 12 + 24) hours, 3 hours rewritten (6 copies), 4
	// south rows deleted.
	require.Equal(t, 1+96+6, strings.Count(raw, "\n"))
	require.Equal(t, 1+96-4, strings.Count(resolved, "\n"))
	code, _, errOut = runCLI("convert", sample, "--table", "nope", "--raw", "--format", "csv", "-o", "-")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `no input holds table "nope"`)
}

// TestDatasetMaxModsSize: a mods file past --max-mods-size stops convert,
// head and inspect with an error naming the flag; raising the flag reads
// it; the flag is refused for inputs that are no IoTDB data.
func TestDatasetMaxModsSize(t *testing.T) {
	path := looseWithMods(t)
	st, err := os.Stat(path + dataset.ModsV1Suffix)
	require.NoError(t, err)
	small := fmt.Sprint(st.Size() - 1)

	code, _, stderr := runCLI("convert", path, "-o", filepath.Join(t.TempDir(), "x.csv"), "--max-mods-size", small)
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr, "larger than the limit")
	require.Contains(t, stderr, "--max-mods-size")
	code, _, stderr = runCLI("head", path, "--max-mods-size", small)
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr, "--max-mods-size")

	_, rows, _ := csvRows(t, path, "--max-mods-size", fmt.Sprint(st.Size()), "--quiet")
	require.Equal(t, []string{"1,root.db.d1,10", "3,root.db.d1,30"}, rows)
	_, rows, _ = csvRows(t, path, "--max-mods-size", "1GiB", "--quiet")
	require.Equal(t, []string{"1,root.db.d1,10", "3,root.db.d1,30"}, rows)

	// inspect lists the file with the error, and its entries under a
	// larger limit.
	info, _, _, _ := inspectDirJSON(t, "--no-count", "--max-mods-size", small, filepath.Dir(path))
	require.Len(t, info.Mods, 1)
	require.Contains(t, info.Mods[0].Error, "--max-mods-size")
	info, _, _, _ = inspectDirJSON(t, "--no-count", filepath.Dir(path))
	require.Len(t, info.Mods, 1)
	require.Empty(t, info.Mods[0].Error)
	require.Equal(t, 1, info.Mods[0].Entries)

	code, _, stderr = runCLI("convert", path, "-o", filepath.Join(t.TempDir(), "y.csv"), "--max-mods-size", "1KiB", "--raw")
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "--max-mods-size applies to IoTDB data")
}
