package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// twoDatabases lays out table t in databases dbA and dbB, both with a row
// of device (t, d1) at time 5.
func twoDatabases(t *testing.T) string {
	root := filepath.Join(t.TempDir(), "data")
	at := func(db string, tm, version int64) string {
		return filepath.Join(root, "sequence", db, "1", "0", dataset.Name{Time: tm, Version: version}.String())
	}
	writeDataFile(t, at("dbA", 1, 1), "t", []dsRow{{"d1", 4, 40}, {"d1", 5, 50}})
	writeDataFile(t, at("dbB", 2, 2), "t", []dsRow{{"d1", 5, -5}, {"d1", 6, -6}})
	return root
}

// TestDatasetTwoDatabases: a table name in two databases is never read as
// one table (it used to be, and dbB's row at time 5 replaced dbA's):
// without a choice the command lists the databases and exits 2;
// --database or --table DATABASE.TABLE picks one, in convert, head and
// schema; --partition-by keeps them apart.
func TestDatasetTwoDatabases(t *testing.T) {
	root := twoDatabases(t)
	for _, args := range [][]string{
		{"convert", root, "--table", "t", "--format", "csv", "-o", "-"},
		{"convert", root, "--format", "csv", "-o", "-"},
		{"head", root, "--table", "t"},
		{"head", root},
		{"schema", root, "--table", "t"},
	} {
		code, out, stderr := runCLI(args...)
		require.Equal(t, 2, code, "%v: %s", args, stderr)
		require.Empty(t, out, args)
		require.Contains(t, stderr, `table "t" is in databases dbA, dbB, which IoTDB never reads as one table; pick one with --database`, args)
	}

	_, rows, stderr := csvRows(t, root, "--table", "t", "--database", "dbA")
	require.Equal(t, []string{"4,d1,40", "5,d1,50"}, rows)
	// The banner counts the files of the table read, not the directory.
	require.Contains(t, stderr, "ts2arrow: 1 data file (1 sequence, 0 unsequence); copies of a point in several files resolve as IoTDB does: unsequence over sequence, then the higher file version, then the higher file-name time, then the later write in the file\n")
	_, rows, _ = csvRows(t, root, "--table", "dbB.t")
	require.Equal(t, []string{"5,d1,-5", "6,d1,-6"}, rows)
	_, rows, _ = csvRows(t, root, "--database", "dbB")
	require.Equal(t, []string{"5,d1,-5", "6,d1,-6"}, rows)

	code, out, stderr := runCLI("head", root, "--database", "dbA", "--time-format", "raw")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "50")
	require.NotContains(t, out, "-5")
	code, _, stderr = runCLI("schema", root, "--table", "t", "--database", "dbB")
	require.Equal(t, 0, code, stderr)

	code, _, stderr = runCLI("convert", root, "--database", "dbC", "--format", "csv", "--time-format", "epoch", "-o", "-")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `no database "dbC" in the inputs (databases: dbA, dbB)`)

	// Several tables asked for: each database apart.
	out = filepath.Join(t.TempDir(), "parts")
	code, _, stderr = runCLI("convert", root, "--partition-by", "table", "--format", "csv", "--time-format", "epoch", "-o", out)
	require.Equal(t, 0, code, stderr)
	for part, want := range map[string]string{"table=dbA.t": "5,d1,50", "table=dbB.t": "5,d1,-5"} {
		b, err := os.ReadFile(filepath.Join(out, part, "part-0.csv"))
		require.NoError(t, err, part)
		require.Contains(t, string(b), want)
	}

	// inspect counts each database's table apart.
	code, txt, stderr := runCLI("inspect", root)
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `\n\s+dbA\.t\s+table\s+1\s+2\s`, txt)
	require.Regexp(t, `\n\s+dbB\.t\s+table\s+1\s+2\s`, txt)

	// --database means nothing for plain TsFiles.
	plain := filepath.Join(t.TempDir(), "a.tsfile")
	writeDataFile(t, plain, "t", []dsRow{{"d1", 1, 1}})
	code, _, stderr = runCLI("convert", plain, "--database", "dbA", "--format", "csv", "-o", "-")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--database picks a database of IoTDB data")
}

// TestDatasetModsV1Flag: --mods-v1 chooses how a .mods deletion applies.
// The file is TsFile v3 (IoTDB 1.x) and its deletion's offset 0 lies below
// every chunk: 1.x applies it to nothing; 2.x, which converts .mods and
// drops the offset, to the whole file. auto follows 1.x here, 2.x once a
// .mods2 lies in the directory.
func TestDatasetModsV1Flag(t *testing.T) {
	root := filepath.Join(t.TempDir(), "data")
	path := layoutPath(root, "sequence", 1, 1)
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, &tsfile.WriteOptions{Version: tsfile.VersionV3})
	require.NoError(t, err)
	dev := tsfile.ParseTreePath("root.db.d1")
	require.NoError(t, w.WriteNonAligned(dev, []tsfile.NonAlignedSeries{{SeriesSchema: tsfile.SeriesSchema{Name: "s", DataType: tsfile.Int64},
		Times: []int64{1, 2}, Values: tsfile.Values{Type: tsfile.Int64, Int64s: []int64{10, 20}}}}))
	require.NoError(t, w.Close())
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	res := &dataset.Resource{IndexType: dataset.IndexArray, Devices: []dataset.DeviceTimes{{Device: dev, Start: 1, End: 2}}}
	b, err := res.AppendBinary(nil)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path+dataset.ResourceSuffix, b, 0o644))
	p, err := dataset.ParsePattern("root.db.d1.s")
	require.NoError(t, err)
	b, err = dataset.AppendModsV1(nil, dataset.Deletion{Kind: dataset.TreeDeletion, Version: dataset.ModsV1, Pattern: p, FileOffset: 0, Start: math.MinInt64, End: 1})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path+dataset.ModsV1Suffix, b, 0o644))

	kept, gone := []string{"1,root.db.d1,10", "2,root.db.d1,20"}, []string{"2,root.db.d1,20"}
	for _, tc := range []struct {
		flag   string
		want   []string
		banner string
	}{
		{"auto", kept, "applied only to chunks written before them, as IoTDB 1.x does"},
		{"offset", kept, "applied only to chunks written before them"},
		{"whole", gone, "applied to the whole data file, as IoTDB 2.x does"},
	} {
		_, rows, stderr := csvRows(t, root, "--mods-v1", tc.flag)
		require.Equal(t, tc.want, rows, tc.flag)
		require.Contains(t, stderr, tc.banner, tc.flag)
	}
	code, _, stderr := runCLI("convert", root, "--mods-v1", "later", "--format", "csv", "-o", "-")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, `unknown --mods-v1 "later"`)

	// A .mods2 in the directory: IoTDB 2.x has run on it.
	other := layoutPath(root, "unsequence", 2, 2)
	require.NoError(t, os.MkdirAll(filepath.Dir(other), 0o755))
	require.NoError(t, os.WriteFile(other, buf.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(other+dataset.ModsV2Suffix, nil, 0o644))
	_, rows, _ := csvRows(t, root)
	require.Equal(t, []string{"1,root.db.d1,10", "2,root.db.d1,20"}, rows, "the unsequence copy (no deletion) fills t=1")
	_, rows, stderr = csvRows(t, root, "--mods-v1", "auto")
	require.Contains(t, stderr, "as IoTDB 2.x does")
	require.True(t, strings.Contains(strings.Join(rows, " "), "1,root.db.d1,10"))
}

// TestTreeTableBelow: --table names a tree table, the devices whose path up
// to its third node is the name (root.sg.d1 is in root.sg, root.sg.x.y in
// root.sg.x), as the help says; the devices of tree tables below it are
// not read, and standard error says which tables hold them.
func TestTreeTableBelow(t *testing.T) {
	var buf bytes.Buffer
	w, err := tsfile.NewWriter(&buf, nil)
	require.NoError(t, err)
	for i, dev := range []string{"root.sg.d1", "root.sg.x.y"} {
		require.NoError(t, w.WriteNonAligned(tsfile.ParseTreePath(dev), []tsfile.NonAlignedSeries{{SeriesSchema: tsfile.SeriesSchema{Name: "s", DataType: tsfile.Int64},
			Times: []int64{int64(i + 1)}, Values: tsfile.Values{Type: tsfile.Int64, Int64s: []int64{int64(10 * (i + 1))}}}}))
	}
	require.NoError(t, w.Close())
	path := filepath.Join(t.TempDir(), "tree.tsfile")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))

	code, out, stderr := runCLI("convert", path, "--table", "root.sg", "--format", "csv", "--time-format", "epoch", "-o", "-")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "time,device,s\n1,root.sg.d1,10\n", out)
	require.Contains(t, stderr, "--table root.sg reads the devices of tree table root.sg only; devices deeper below root.sg are in tree tables root.sg.x")
	code, out, stderr = runCLI("convert", path, "--table", "root.sg.x", "--format", "csv", "--time-format", "epoch", "-o", "-")
	require.Equal(t, 0, code, stderr)
	require.Equal(t, "time,device,s\n2,root.sg.x.y,20\n", out)
	require.NotContains(t, stderr, "deeper")
	code, out, _ = runCLI("convert", path, "--format", "csv", "--time-format", "epoch", "-o", "-")
	require.Equal(t, 0, code)
	require.Equal(t, "time,device,s\n1,root.sg.d1,10\n2,root.sg.x.y,20\n", out)
	for _, cmd := range []string{"head", "schema"} {
		code, _, stderr = runCLI(cmd, path, "--table", "root.sg")
		require.Equal(t, 0, code, stderr)
		require.Contains(t, stderr, "devices deeper below root.sg are in tree tables root.sg.x", cmd)
	}
	code, out, _ = runCLI("convert", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "root.sg.x.y in table root.sg.x), so\n--table root.sg does not read root.sg.x.y")
	require.NotContains(t, out, "path prefixes")
}

// TestInspectWithoutResource: inspect does not call a complete file
// without .resource unsealed, and counts its rows as the reader reads them.
func TestInspectWithoutResource(t *testing.T) {
	root := iotdbDir(t)
	require.NoError(t, os.Remove(layoutPath(root, "sequence", 1, 1)+dataset.ResourceSuffix))
	info, _, code, errOut := inspectDirJSON(t, root)
	require.Equal(t, 0, code, errOut)
	for _, w := range info.Warnings {
		require.NotContains(t, w, "no .resource")
	}
	require.Equal(t, int64(len(resolvedRows)), info.Effect.Total.RowsOut)
	_, raw, _, _ := inspectDirJSON(t, root)
	require.NotContains(t, fmt.Sprint(raw), "unsealed")
}
