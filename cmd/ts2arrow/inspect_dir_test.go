package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// dirFile is one data file of a test data directory: a tree-model
// non-aligned device with series s1 (value = 10 × time), or, with table
// set, a table-model device of dirTable with fields f1 and f2.
type dirFile struct {
	space, db, region, part string
	time, version           int64
	dev                     tsfile.DeviceID
	times                   []int64
	table                   bool
	f1, f2                  []*int64 // table rows; nil cells are null
	f1Int32                 bool     // f1 is INT32 in this file, not INT64
	s1Int32                 bool     // s1 is INT32 in this file, not INT64
	modsV1, modsV2          []dataset.Deletion
	noResource              bool
}

var dirTable = tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
	{Name: "region", DataType: tsfile.String, Category: tsfile.Tag},
	{Name: "f1", DataType: tsfile.Int64, Category: tsfile.Field},
	{Name: "f2", DataType: tsfile.Int64, Category: tsfile.Field},
}}

func ip(x int64) *int64 { return &x }

// writeDirFile lays f out under root as IoTDB does
// ({space}/{db}/{region}/{part}/{time}-{version}-0-0.tsfile with its
// .resource and mods) and returns the data file's path.
func writeDirFile(t *testing.T, root string, f dirFile) string {
	t.Helper()
	dir := filepath.Join(root, f.space, f.db, f.region, f.part)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, dataset.Name{Time: f.time, Version: f.version}.String())
	var out bytes.Buffer
	w, err := tsfile.NewWriter(&out, nil)
	require.NoError(t, err)
	if f.table {
		schema := dirTable
		f1Type := tsfile.Int64
		if f.f1Int32 {
			f1Type = tsfile.Int32
			schema.Columns = slices.Clone(schema.Columns)
			schema.Columns[1].DataType = f1Type
		}
		require.NoError(t, w.RegisterTable(schema))
		col := func(name string, typ tsfile.DataType, cells []*int64) tsfile.AlignedColumn {
			v := tsfile.Values{Type: typ, Null: make([]bool, len(cells))}
			for i, c := range cells {
				x := int64(0)
				if c == nil {
					v.Null[i] = true
				} else {
					x = *c
				}
				if typ == tsfile.Int32 {
					v.Int32s = append(v.Int32s, int32(x))
				} else {
					v.Int64s = append(v.Int64s, x)
				}
			}
			return tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: name, DataType: typ}, Values: v}
		}
		require.NoError(t, w.WriteAligned(f.dev, f.times, []tsfile.AlignedColumn{col("f1", f1Type, f.f1), col("f2", tsfile.Int64, f.f2)}))
	} else {
		s := tsfile.NonAlignedSeries{SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64}, Times: f.times, Values: tsfile.Values{Type: tsfile.Int64}}
		if f.s1Int32 {
			s.DataType, s.Values.Type = tsfile.Int32, tsfile.Int32
		}
		for _, tm := range f.times {
			if f.s1Int32 {
				s.Values.Int32s = append(s.Values.Int32s, int32(tm*10))
			} else {
				s.Values.Int64s = append(s.Values.Int64s, tm*10)
			}
		}
		require.NoError(t, w.WriteNonAligned(f.dev, []tsfile.NonAlignedSeries{s}))
	}
	require.NoError(t, w.Close())
	data := out.Bytes()
	if f.noResource {
		// Unsealed: its writer never wrote the tail (a complete file
		// without .resource is read, as IoTDB rebuilds the resource).
		data = data[:len(data)-4]
	}
	require.NoError(t, os.WriteFile(path, data, 0o644))
	if !f.noResource {
		r := &dataset.Resource{IndexType: dataset.IndexArray, Devices: []dataset.DeviceTimes{{Device: f.dev, Start: slices.Min(f.times), End: slices.Max(f.times)}}}
		b, err := r.AppendBinary(nil)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path+dataset.ResourceSuffix, b, 0o644))
	}
	if f.modsV1 != nil {
		b, err := dataset.AppendModsV1(nil, f.modsV1...)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path+dataset.ModsV1Suffix, b, 0o644))
	}
	if f.modsV2 != nil {
		b, err := dataset.AppendModsV2(nil, f.modsV2...)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path+dataset.ModsV2Suffix, b, 0o644))
	}
	return path
}

func treeDel(t *testing.T, pattern string, start, end int64) dataset.Deletion {
	t.Helper()
	p, err := dataset.ParsePattern(pattern)
	require.NoError(t, err)
	return dataset.Deletion{Kind: dataset.TreeDeletion, Pattern: p, Start: start, End: end}
}

func times(lo, hi int64) []int64 {
	var ts []int64
	for t := lo; t <= hi; t++ {
		ts = append(ts, t)
	}
	return ts
}

// buildInspectDir lays out a data directory with every case inspect
// reports; the comments give what the rules make of each file.
func buildInspectDir(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	d1 := tsfile.ParseTreePath("root.db.d1")
	// Tree database root.db, region 1, partition 0.
	// Deletions lie inside the files' time ranges: one at an edge would
	// narrow the range the reader reads, and the rows there would not be
	// counted.
	// 1-1: t 1..10; its mods2 deletes t 2..4 (3 points).
	writeDirFile(t, root, dirFile{space: "sequence", db: "root.db", region: "1", part: "0", time: 1, version: 1, dev: d1, times: times(1, 10),
		modsV2: []dataset.Deletion{treeDel(t, "root.db.d1.s1", 2, 4)}})
	// 2-2: t 20..25; v1 deletes t 21..22 (2 points, the offset is past
	// every chunk); a legacy line whose version 1 is compared as the
	// offset, below every chunk header, so it deletes nothing.
	v1 := treeDel(t, "root.db.d1.s1", 21, 22)
	v1.Version, v1.FileOffset = dataset.ModsV1, 1<<40
	legacy := treeDel(t, "root.db.d1.*", 0, 24)
	legacy.Version, legacy.FileOffset, legacy.Legacy = dataset.ModsV1, 1, true
	writeDirFile(t, root, dirFile{space: "sequence", db: "root.db", region: "1", part: "0", time: 2, version: 2, dev: d1, times: times(20, 25),
		modsV1: []dataset.Deletion{v1, legacy}})
	// 3-3 unsequence: t 5..8 overwrites 4 rows of 1-1.
	writeDirFile(t, root, dirFile{space: "unsequence", db: "root.db", region: "1", part: "0", time: 3, version: 3, dev: d1, times: times(5, 8)})
	// Partition 1: a second device, nothing deleted or overwritten.
	writeDirFile(t, root, dirFile{space: "sequence", db: "root.db", region: "1", part: "1", time: 4, version: 4, dev: tsfile.ParseTreePath("root.db.d2"), times: times(1000, 1004)})

	// Table database tdb, region 2: table t, device (t, north).
	north := tsfile.NewDeviceID("t", "north")
	// 1-5: rows 1..6; a row deletion of t=2 and a cell deletion of f2 at t=3.
	writeDirFile(t, root, dirFile{space: "sequence", db: "tdb", region: "2", part: "0", time: 1, version: 5, dev: north, table: true, times: times(1, 6),
		f1: []*int64{ip(1), ip(2), ip(3), ip(4), ip(5), ip(6)}, f2: []*int64{ip(10), ip(20), ip(30), ip(40), ip(50), ip(60)},
		modsV2: []dataset.Deletion{
			{Kind: dataset.TableDeletion, Table: "t", Start: 2, End: 2},
			{Kind: dataset.TableDeletion, Table: "t", Measurements: []string{"f2"}, Start: 3, End: 3},
		}})
	// 2-6 unsequence: rows 4..5 with f1 null overwrite two rows of 1-5
	// (f1 is filled from it, cell by cell).
	writeDirFile(t, root, dirFile{space: "unsequence", db: "tdb", region: "2", part: "0", time: 2, version: 6, dev: north, table: true, times: times(4, 5),
		f1: []*int64{nil, nil}, f2: []*int64{ip(400), ip(500)}})

	part := filepath.Join(root, "sequence", "root.db", "1", "0")
	// A compaction target being written, and its resource.
	require.NoError(t, os.WriteFile(filepath.Join(part, "1-1-1-0.inner"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(part, "1-1-1-0.inner.resource"), []byte("x"), 0o644))
	// A mods file whose data file a compaction removed.
	require.NoError(t, os.WriteFile(filepath.Join(part, "0-9-0-0.tsfile.mods2"), nil, 0o644))
	// An unsealed file: no .resource.
	writeDirFile(t, root, dirFile{space: "sequence", db: "root.db", region: "1", part: "0", time: 9, version: 9, dev: d1, times: []int64{100}, noResource: true})
	return root
}

func inspectDirJSON(t *testing.T, args ...string) (*inspectDir, map[string]any, int, string) {
	t.Helper()
	code, out, errOut := runCLI(append([]string{"inspect", "--json"}, args...)...)
	var info inspectDir
	require.NoError(t, json.Unmarshal([]byte(out), &info), "stdout: %s\nstderr: %s", out, errOut)
	var raw map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &raw))
	return &info, raw, code, errOut
}

func TestInspectDirLayout(t *testing.T) {
	root := buildInspectDir(t)
	info, _, _, errOut := inspectDirJSON(t, "--no-count", root)
	require.Contains(t, errOut, "an IoTDB data directory")

	require.Equal(t, 7, info.Files)
	require.Equal(t, 5, info.Sequence.Files) // 1-1, 2-2, 4-4, 9-9 (unsealed), 1-5
	require.Equal(t, 2, info.Unsequence.Files)
	require.Equal(t, 0, info.Loose.Files)
	require.Equal(t, 3, info.Devices) // root.db.d1, root.db.d2, t.north
	require.Equal(t, int64(1), *info.StartTime)
	require.Equal(t, int64(1004), *info.EndTime)
	var sum int64
	for _, p := range info.Partitions {
		for _, f := range p.Files {
			st, err := os.Stat(f.Path)
			require.NoError(t, err)
			require.Equal(t, st.Size(), f.Size)
			sum += f.Size
		}
	}
	require.Equal(t, sum, info.Bytes)
	require.Equal(t, info.Bytes, info.Sequence.Bytes+info.Unsequence.Bytes)

	// Partitions: root.db/1/0, root.db/1/1, tdb/2/0, both spaces together.
	var names []string
	for _, p := range info.Partitions {
		names = append(names, p.Database+"/"+p.Region+"/"+p.Partition)
	}
	require.Equal(t, []string{"root.db/1/0", "root.db/1/1", "tdb/2/0"}, names)
	p := info.Partitions[0]
	require.Equal(t, 3, p.Sequence.Files)
	require.Equal(t, 1, p.Unsequence.Files)
	require.Equal(t, 1, p.Devices)
	require.Equal(t, int64(1), *p.StartTime)
	require.Equal(t, int64(25), *p.EndTime)

	// Overlaps: 3-3 (unsequence) over 1-1 at 5..8; 2-2 meets neither, the
	// unsealed file has no resource to tell.
	require.Equal(t, 1, p.OverlapPairs)
	require.Len(t, p.Overlaps, 1)
	o := p.Overlaps[0]
	require.Equal(t, "3-3-0-0.tsfile", filepath.Base(o.Winner))
	require.Equal(t, "1-1-0-0.tsfile", filepath.Base(o.Loser))
	require.Equal(t, 1, o.Devices)
	require.Equal(t, [2]int64{5, 8}, [2]int64{o.StartTime, o.EndTime})
	require.Zero(t, info.Partitions[1].OverlapPairs)
	tdb := info.Partitions[2]
	require.Equal(t, 1, tdb.OverlapPairs)
	require.Equal(t, "2-6-0-0.tsfile", filepath.Base(tdb.Overlaps[0].Winner))
	require.Equal(t, [2]int64{4, 5}, [2]int64{tdb.Overlaps[0].StartTime, tdb.Overlaps[0].EndTime})

	// Mods: three files, five entries, one legacy line.
	require.Len(t, info.Mods, 3)
	require.Equal(t, 5, info.ModEntries)
	byBase := map[string]inspectMods{}
	for _, m := range info.Mods {
		byBase[filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(m.Path))))+"/"+filepath.Base(m.Path)] = m
	}
	m := byBase["root.db/2-2-0-0.tsfile.mods"]
	require.Equal(t, 1, m.Version)
	require.Equal(t, 2, m.Entries)
	require.Equal(t, 1, m.Legacy)
	require.Len(t, m.Deletions, 2)
	require.False(t, m.Deletions[0].Legacy)
	require.True(t, m.Deletions[1].Legacy)
	require.Equal(t, "delete root.db.d1.s1 time [21, 22] before offset 1099511627776", m.Deletions[0].Text)
	m = byBase["tdb/1-5-0-0.tsfile.mods2"]
	require.Equal(t, 2, m.Version)
	require.Equal(t, 2, m.Entries)
	require.Zero(t, m.Legacy)
	require.Contains(t, m.Deletions[1].Text, "columns f2")

	// Skipped, with their reasons.
	reasons := map[string]string{}
	for _, s := range info.Skipped {
		reasons[filepath.Base(s.Path)] = s.Reason
	}
	require.Len(t, reasons, 3)
	require.Contains(t, reasons["1-1-1-0.inner"], "inner-space compaction")
	require.Contains(t, reasons["1-1-1-0.inner.resource"], "inner-space compaction")
	require.Contains(t, reasons["0-9-0-0.tsfile.mods2"], "not there")

	// Warnings: the unsealed file.
	require.True(t, slices.ContainsFunc(info.Warnings, func(w string) bool {
		return strings.Contains(w, "9-9-0-0.tsfile: no .resource beside it")
	}), "%q", info.Warnings)

	require.True(t, p.Files[2].Unsealed)
	require.Equal(t, "9-9-0-0.tsfile", filepath.Base(p.Files[2].Path))
	require.False(t, info.Effect.Counted)
	require.Empty(t, info.Effect.Error)
	require.NotEmpty(t, info.Rules)
}

func TestInspectDirLimit(t *testing.T) {
	root := t.TempDir()
	var dels []dataset.Deletion
	for i := range 25 {
		dels = append(dels, treeDel(t, "root.db.d1.s1", int64(i), int64(i)))
	}
	writeDirFile(t, root, dirFile{space: "sequence", db: "root.db", region: "1", part: "0", time: 1, version: 1, dev: tsfile.ParseTreePath("root.db.d1"), times: times(1, 3), modsV2: dels})
	info, _, _, _ := inspectDirJSON(t, "--no-count", root)
	require.Equal(t, 25, info.Mods[0].Entries)
	require.Len(t, info.Mods[0].Deletions, 20)
	info, _, _, _ = inspectDirJSON(t, "--no-count", "--max-entries", "0", root)
	require.Len(t, info.Mods[0].Deletions, 25)

	code, out, _ := runCLI("inspect", "--no-count", root)
	require.Equal(t, 0, code)
	require.Contains(t, out, "delete root.db.d1.s1 time [19, 19]\n  ... 5 more\n")
	require.NotContains(t, out, "[20, 20]")

	// Four files over the same times: six overlapping pairs.
	for v := int64(2); v <= 4; v++ {
		writeDirFile(t, root, dirFile{space: "unsequence", db: "root.db", region: "1", part: "0", time: v, version: v, dev: tsfile.ParseTreePath("root.db.d1"), times: times(2, 3)})
	}
	info, _, _, _ = inspectDirJSON(t, "--no-count", "--max-entries", "2", root)
	require.Equal(t, 6, info.Partitions[0].OverlapPairs)
	require.Len(t, info.Partitions[0].Overlaps, 2)
	code, out, _ = runCLI("inspect", "--no-count", "--max-entries", "2", root)
	require.Equal(t, 0, code)
	require.Equal(t, 2, strings.Count(out, "  overlap: "))
	require.Contains(t, out, "\n  ... 4 more overlapping pairs\n")

	code, _, errOut := runCLI("inspect", "--max-entries", "-1", root)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--max-entries")
}

func TestInspectDirJSONShape(t *testing.T) {
	root := buildInspectDir(t)
	_, raw, _, _ := inspectDirJSON(t, "--no-count", root)
	keys := func(m map[string]any) []string {
		var ks []string
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	require.Equal(t, []string{"bytes", "compactions", "devices", "effect", "end_time", "files", "loose", "mod_entries", "mods", "partitions",
		"roots", "rules", "sequence", "skipped", "start_time", "type_changes", "unsequence", "warnings"}, keys(raw))
	part := raw["partitions"].([]any)[0].(map[string]any)
	require.Equal(t, []string{"database", "devices", "end_time", "files", "loose", "overlap_pairs", "overlaps", "partition",
		"region", "sequence", "start_time", "unsequence"}, keys(part))
	file := part["files"].([]any)[0].(map[string]any)
	require.Equal(t, []string{"devices", "end_time", "mods_v2", "path", "resource", "size", "space", "start_time", "time", "version"}, keys(file))
	require.Equal(t, []string{"devices", "end_time", "loser", "start_time", "winner"}, keys(part["overlaps"].([]any)[0].(map[string]any)))
	mods := raw["mods"].([]any)[0].(map[string]any)
	require.Equal(t, []string{"data_file", "deletions", "entries", "legacy", "path", "size", "version"}, keys(mods))
	require.Equal(t, []string{"text"}, keys(mods["deletions"].([]any)[0].(map[string]any)))
	require.Equal(t, []string{"path", "reason"}, keys(raw["skipped"].([]any)[0].(map[string]any)))
	require.Equal(t, []string{"bytes", "files"}, keys(raw["sequence"].(map[string]any)))
	require.Equal(t, []string{"counted"}, keys(raw["effect"].(map[string]any)))
	unsealed := part["files"].([]any)[2].(map[string]any)
	require.Equal(t, []string{"devices", "path", "size", "space", "time", "unsealed", "version"}, keys(unsealed))
}

func TestInspectDirWarnings(t *testing.T) {
	root := t.TempDir()
	d1 := tsfile.ParseTreePath("root.db.d1")
	// Both mods files beside one data file.
	v1 := treeDel(t, "root.db.d1.s1", 1, 1)
	v1.Version, v1.FileOffset = dataset.ModsV1, 1<<40
	both := writeDirFile(t, root, dirFile{space: "sequence", db: "root.db", region: "1", part: "0", time: 1, version: 1, dev: d1, times: times(1, 3),
		modsV1: []dataset.Deletion{v1}, modsV2: []dataset.Deletion{treeDel(t, "root.db.d1.s1", 2, 2)}})
	// A .mods beside an empty .mods2: the reader applies the .mods2 all
	// the same (dataset.OpenLayout).
	v1b := treeDel(t, "root.db.d1.s1", 7, 7)
	v1b.Version, v1b.FileOffset = dataset.ModsV1, 1<<40
	emptyV2 := writeDirFile(t, root, dirFile{space: "sequence", db: "root.db", region: "1", part: "0", time: 4, version: 4, dev: d1, times: times(6, 8),
		modsV1: []dataset.Deletion{v1b}, modsV2: []dataset.Deletion{}})
	shared := writeDirFile(t, root, dirFile{space: "sequence", db: "root.db", region: "1", part: "0", time: 2, version: 2, dev: d1, times: times(5, 6)})
	// A truncated mods2 entry.
	trunc := writeDirFile(t, root, dirFile{space: "unsequence", db: "root.db", region: "1", part: "0", time: 3, version: 3, dev: d1, times: times(1, 2),
		modsV2: []dataset.Deletion{treeDel(t, "root.db.d1.s1", 1, 1), treeDel(t, "root.db.d1.s1", 2, 2)}})
	mb, err := os.ReadFile(trunc + dataset.ModsV2Suffix)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(trunc+dataset.ModsV2Suffix, mb[:len(mb)-3], 0o644))
	// Schema evolution.
	sevo := filepath.Join(root, "sequence", "root.db", "1", "0", "filesets", "7")
	require.NoError(t, os.MkdirAll(sevo, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sevo, "12.sevo"), []byte{0}, 0o644))

	check := func(info *inspectDir) {
		t.Helper()
		has := func(parts ...string) bool {
			return slices.ContainsFunc(info.Warnings, func(w string) bool {
				for _, p := range parts {
					if !strings.Contains(w, p) {
						return false
					}
				}
				return true
			})
		}
		require.True(t, has(both+": both .mods and .mods2 exist"), "%q", info.Warnings)
		require.True(t, has(emptyV2+": both .mods and .mods2 exist"), "%q", info.Warnings)
		require.True(t, has(trunc+".mods2", "truncated"), "%q", info.Warnings)
		require.True(t, has("filesets", "renames"), "%q", info.Warnings)
		for _, m := range info.Mods {
			if m.Version == 1 {
				require.Equal(t, "a .mods2 file is beside it", m.Ignored, m.Path)
			}
		}
		// The v1 files beside a .mods2 do not count; the truncated file
		// keeps its whole first entry.
		require.Equal(t, 2, info.ModEntries)
		// Overlaps: the unsequence file over the first at 1..2; the file of
		// version 4 over that of version 2 where their ranges touch, at 6.
		require.Len(t, info.Partitions, 1)
		require.Equal(t, []inspectOverlap{
			{Winner: trunc, Loser: both, Devices: 1, StartTime: 1, EndTime: 2},
			{Winner: emptyV2, Loser: shared, Devices: 1, StartTime: 6, EndTime: 6},
		}, info.Partitions[0].Overlaps)
	}
	info, _, code, _ := inspectDirJSON(t, "--no-count", root)
	require.Equal(t, 0, code)
	// The reader refuses a directory with rename records; inspect says so
	// and still reports the rest.
	require.Contains(t, info.Effect.Error, "records table or column renames")
	check(info)
	n := len(info.Warnings)

	// A resource naming a shared mods file, by the server's absolute path
	// (the directory was copied from elsewhere): the reader refuses the
	// directory, and inspect still reports what it would have warned of.
	sharedMods := filepath.Join(filepath.Dir(shared), "0-1.mods2")
	b, err := dataset.AppendModsV2(nil, treeDel(t, "root.db.**", 0, 100))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(sharedMods, b, 0o644))
	named := "/var/lib/iotdb/data/sequence/root.db/1/0/0-1.mods2"
	r := &dataset.Resource{IndexType: dataset.IndexArray, Devices: []dataset.DeviceTimes{{Device: d1, Start: 5, End: 6}}, ModFile: named, ModFileOffset: 3}
	b, err = r.AppendBinary(nil)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(shared+dataset.ResourceSuffix, b, 0o644))

	info, _, code, _ = inspectDirJSON(t, "--no-count", root)
	require.Equal(t, 0, code, "--no-count: the refusal is reported, not an error")
	require.Contains(t, info.Effect.Error, "shared mods file")
	check(info)
	require.Len(t, info.Warnings, n+1)
	require.True(t, slices.ContainsFunc(info.Warnings, func(w string) bool {
		return strings.HasPrefix(w, shared+".resource names the shared mods file "+named+" (from offset 3)")
	}), "%q", info.Warnings)
	var sharedEntry *inspectMods
	for i := range info.Mods {
		if info.Mods[i].Shared {
			sharedEntry = &info.Mods[i]
		}
	}
	require.NotNil(t, sharedEntry)
	require.Equal(t, sharedMods, sharedEntry.Path)
	require.Equal(t, 1, sharedEntry.Entries)
	require.NotEmpty(t, sharedEntry.Ignored)
	require.Equal(t, &inspectShared{Path: named, Offset: 3}, info.Partitions[0].Files[1].SharedMods)

	// Counting, the refusal is an error.
	code, out, errOut := runCLI("inspect", root)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "the rows could not be counted")
	require.Contains(t, out, "effect: not counted: ")
}

func TestInspectDirDispatch(t *testing.T) {
	root := buildInspectDir(t)

	// --raw: every TsFile alone, as before; the unfinished file's error
	// in its place.
	code, out, _ := runCLI("inspect", "--json", "--raw", root)
	require.Equal(t, 1, code)
	var files []inspectFile
	require.NoError(t, json.Unmarshal([]byte(out), &files))
	whole := 0
	for _, f := range files {
		if !strings.HasSuffix(f.File, "9-9-0-0.tsfile") {
			whole++
		}
	}
	require.Equal(t, 6, whole)

	// --pages has no meaning for the summary.
	code, _, errOut := runCLI("inspect", "--pages", root)
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--raw")

	// A part of a layout (one region folder) is a data directory too.
	info, _, _, _ := inspectDirJSON(t, "--no-count", filepath.Join(root, "unsequence", "tdb", "2"))
	require.Equal(t, 1, info.Files)
	require.Equal(t, 1, info.Unsequence.Files)

	// A plain directory of TsFiles without companions keeps the per-file view.
	plain := t.TempDir()
	data, err := os.ReadFile(filepath.Join(root, "unsequence", "tdb", "2", "0", "2-6-0-0.tsfile"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(plain, "a.tsfile"), data, 0o644))
	code, out, _ = runCLI("inspect", "--json", plain)
	require.Equal(t, 0, code)
	require.NoError(t, json.Unmarshal([]byte(out), &files))
	require.Len(t, files, 1)
	// A .resource beside it does not make it IoTDB data (as for convert).
	res, err := os.ReadFile(filepath.Join(root, "unsequence", "tdb", "2", "0", "2-6-0-0.tsfile.resource"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(plain, "a.tsfile.resource"), res, 0o644))
	code, out, _ = runCLI("inspect", "--json", plain)
	require.Equal(t, 0, code)
	require.NoError(t, json.Unmarshal([]byte(out), &files))
	require.Len(t, files, 1)
	// Mods beside it make it one.
	require.NoError(t, os.WriteFile(filepath.Join(plain, "a.tsfile.mods2"), nil, 0o644))
	info, _, _, _ = inspectDirJSON(t, "--no-count", plain)
	require.Equal(t, 1, info.Loose.Files)
	require.Len(t, info.Mods, 1)

	// The text form.
	code, out, _ = runCLI("inspect", "--no-count", root)
	require.Equal(t, 0, code, out)
	for _, want := range []string{
		"files:       7, ",
		"partitions:  3\n",
		"mods:        3 files, 5 entries (1 legacy v1 lines)\n",
		"skipped:     3\n",
		"\npartition root.db/1/0 (sequence 3 files ",
		"  overlap: 3-3-0-0.tsfile overwrites 1-1-0-0.tsfile: 1 devices, time 5..8\n",
		"(legacy line: its version is compared as the offset)\n",
		"effect: not counted (--no-count)",
	} {
		require.Contains(t, out, want)
	}
}

// TestInspectDirEffect checks the counts the resolved reader gives
// against the rules worked out by hand in buildInspectDir.
func TestInspectDirEffect(t *testing.T) {
	root := buildInspectDir(t)
	// The .mods of 2-2 are IoTDB 1.x's, in a directory 2.x wrote to
	// (TsFile v4, .mods2): asked to read them as 1.x did.
	info, _, code, errOut := inspectDirJSON(t, "--mods-v1", "offset", root)
	require.Equal(t, 0, code, errOut)
	e := info.Effect
	require.Empty(t, e.Error)
	require.True(t, e.Counted)
	require.Len(t, e.Tables, 2)
	tree, tab := e.Tables[0], e.Tables[1]
	require.Equal(t, inspectCount{Table: "root.db", Model: "tree", Files: 4, FilesRead: 4, RowsRead: 10 + 6 + 4 + 5,
		RowsDeleted: tree.RowsDeleted, CellsDeleted: tree.CellsDeleted, RowsOverwritten: 4, RowsDropped: 5, RowsMerged: tree.RowsMerged, RowsOut: 10 + 6 + 4 + 5 - 5 - 4}, tree)
	require.Equal(t, inspectCount{Table: "t", Model: "table", Files: 2, FilesRead: 2, RowsRead: 6 + 2,
		RowsDeleted: tab.RowsDeleted, CellsDeleted: tab.CellsDeleted, RowsOverwritten: 2, RowsMerged: tab.RowsMerged, RowsOut: 8 - 1 - 2}, tab)
	// The merge takes the overlapping rows of both files, at least.
	require.GreaterOrEqual(t, tree.RowsMerged, int64(8))
	require.GreaterOrEqual(t, tab.RowsMerged, int64(4))
	require.Equal(t, inspectCount{Files: 6, FilesRead: 6, RowsRead: 33, RowsDeleted: tree.RowsDeleted + tab.RowsDeleted,
		CellsDeleted: tree.CellsDeleted + tab.CellsDeleted, RowsOverwritten: 6, RowsDropped: 5, RowsMerged: tree.RowsMerged + tab.RowsMerged, RowsOut: 21}, *e.Total)

	code, out, _ := runCLI("inspect", "--mods-v1", "offset", root)
	require.Equal(t, 0, code)
	require.Contains(t, out, "effect (counted by reading every row of every table")
	require.Regexp(t, `\n\s+t\s+table\s+2\s+8\s+\d+\s+\d+\s+2\s+0\s+\d+\s+5\s*\n`, out)
}

// TestInspectDirEffectDeleted checks what inspect says the deletions
// remove. It holds the reader to ReadStats' meaning: RowsDeleted are rows
// a mods file removed, CellsDeleted cells of rows that stayed.
func TestInspectDirEffectDeleted(t *testing.T) {
	root := buildInspectDir(t)
	info, _, code, errOut := inspectDirJSON(t, "--mods-v1", "offset", root)
	require.Equal(t, 0, code, errOut)
	e := info.Effect
	// Every row read is returned, deleted, overwritten or emptied (a tree
	// row whose values were all deleted, point by point: a non-aligned
	// device's deletions name series, not rows).
	for _, c := range append(e.Tables, *e.Total) {
		require.Equal(t, c.RowsRead-c.RowsDeleted-c.RowsOverwritten-c.RowsDropped, c.RowsOut, "%+v", c)
	}
	tree, tab := e.Tables[0], e.Tables[1]
	// 1-1 loses t 2..4 and 2-2 t 21..22, points of the device's only
	// series, so the rows go.
	require.Equal(t, int64(5), tree.RowsDeleted+tree.RowsDropped)
	require.Equal(t, int64(5), tree.CellsDeleted)
	// The row at t=2; the cell of f2 at t=3 (that row stays).
	require.Equal(t, int64(1), tab.RowsDeleted)
	require.Equal(t, int64(1), tab.CellsDeleted)
}

func TestInspectDirCompactionLog(t *testing.T) {
	root := t.TempDir()
	d1 := tsfile.ParseTreePath("root.db.d1")
	part := filepath.Join(root, "sequence", "root.db", "1", "0")
	src1 := writeDirFile(t, root, dirFile{space: "sequence", db: "root.db", region: "1", part: "0", time: 1, version: 1, dev: d1, times: times(1, 3)})
	src2 := writeDirFile(t, root, dirFile{space: "sequence", db: "root.db", region: "1", part: "0", time: 2, version: 2, dev: d1, times: times(4, 6)})
	// The target, renamed from 1-1-1-0.inner to a data file before the
	// sources were deleted.
	target := filepath.Join(part, "1-1-1-0.tsfile")
	data, err := os.ReadFile(src1)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(target, data, 0o644))
	res, err := os.ReadFile(src1 + dataset.ResourceSuffix)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(target+dataset.ResourceSuffix, res, 0o644))
	log := filepath.Join(part, "1-1-1-0.inner-compaction.log")
	require.NoError(t, os.WriteFile(log, []byte(
		"source sequence root.db 1 0 1-1-0-0.tsfile\n"+
			"source sequence root.db 1 0 2-2-0-0.tsfile\n"+
			"source sequence root.db 1 0 0-7-0-0.tsfile\n"+
			"target sequence root.db 1 0 1-1-1-0.inner\n"+
			"empty sequence root.db 1 0 1-9-1-0.inner\n"+
			"COMPACTION_FINISHED\n"), 0o644))

	info, _, _, _ := inspectDirJSON(t, "--no-count", root)
	require.Equal(t, []inspectCompaction{{
		Log: log,
		Sources: []inspectCompactFile{
			{Path: src1, Present: true, Data: true},
			{Path: src2, Present: true, Data: true},
			{Path: filepath.Join(part, "0-7-0-0.tsfile")},
		},
		Targets: []inspectCompactFile{
			{Path: filepath.Join(part, "1-1-1-0.inner"), Present: true, Data: true},
			{Path: filepath.Join(part, "1-9-1-0.inner"), Empty: true},
		},
	}}, info.Compactions)
	require.True(t, slices.ContainsFunc(info.Warnings, func(w string) bool {
		return strings.HasPrefix(w, log+": a compaction had not finished: 1 of its 2 targets are data files beside 2 of its 3 sources")
	}), "%q", info.Warnings)

	code, out, _ := runCLI("inspect", "--no-count", root)
	require.Equal(t, 0, code)
	require.Contains(t, out, "\ncompaction log "+log+"\n  source 1-1-0-0.tsfile (data file)\n  source 2-2-0-0.tsfile (data file)\n  source 0-7-0-0.tsfile (missing)\n  target 1-1-1-0.inner (data file)\n  empty target 1-9-1-0.inner (missing)\n")
}

func TestInspectDirCountFails(t *testing.T) {
	root := t.TempDir()
	a := writeDirFile(t, root, dirFile{space: "sequence", db: "root.db", region: "1", part: "0", time: 1, version: 1, dev: tsfile.ParseTreePath("root.db.d1"), times: times(1, 3)})
	// Damage the chunk's header: the file opens, its read fails.
	data, err := os.ReadFile(a)
	require.NoError(t, err)
	f, err := tsfile.Open(bytes.NewReader(data), int64(len(data)), nil)
	require.NoError(t, err)
	series, err := f.Series(tsfile.ParseTreePath("root.db.d1"))
	require.NoError(t, err)
	data[series[0].Chunks[0].Offset] = 0x7f
	require.NoError(t, os.WriteFile(a, data, 0o644))
	info, _, code, errOut := inspectDirJSON(t, root)
	require.Equal(t, 1, code)
	require.Contains(t, errOut, "the rows could not be counted: ")
	require.False(t, info.Effect.Counted)
	require.Contains(t, info.Effect.Error, a)
	require.Nil(t, info.Effect.Total)
	// The summary is all there.
	require.Equal(t, 1, info.Files)
	require.Equal(t, 1, info.Devices)
}

func TestInspectDirTypeChanges(t *testing.T) {
	root := t.TempDir()
	north := tsfile.NewDeviceID("t", "north")
	old := writeDirFile(t, root, dirFile{space: "sequence", db: "tdb", region: "2", part: "0", time: 1, version: 1, dev: north, table: true, times: times(1, 2),
		f1: []*int64{ip(1), ip(2)}, f2: []*int64{ip(10), ip(20)}, f1Int32: true})
	old2 := writeDirFile(t, root, dirFile{space: "sequence", db: "tdb", region: "2", part: "0", time: 2, version: 2, dev: north, table: true, times: times(3, 4),
		f1: []*int64{ip(3), ip(4)}, f2: []*int64{ip(30), ip(40)}, f1Int32: true})
	// The newest by version gives the type; an unsequence file flushed
	// before the ALTER outranks it in the merge, not in the schema.
	newest := writeDirFile(t, root, dirFile{space: "sequence", db: "tdb", region: "2", part: "0", time: 3, version: 3, dev: north, table: true, times: times(5, 6),
		f1: []*int64{ip(5), ip(6)}, f2: []*int64{ip(50), ip(60)}})
	writeDirFile(t, root, dirFile{space: "unsequence", db: "tdb", region: "2", part: "0", time: 1, version: 0, dev: north, table: true, times: times(7, 7),
		f1: []*int64{ip(7)}, f2: []*int64{ip(70)}, f1Int32: true})
	// A tree measurement: INT64 in the newer file, INT32 in the older.
	d1 := tsfile.ParseTreePath("root.db.d1")
	treeOld := writeDirFile(t, root, dirFile{space: "sequence", db: "root.db", region: "1", part: "0", time: 1, version: 3, dev: d1, times: times(1, 2), s1Int32: true})
	treeNew := writeDirFile(t, root, dirFile{space: "sequence", db: "root.db", region: "1", part: "0", time: 1, version: 4, dev: d1, times: times(3, 4)})
	info, _, code, errOut := inspectDirJSON(t, root)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, []inspectTypeChange{
		{Table: "root.db", Column: "s1", ReadAs: "INT64", Types: []inspectColType{{Type: "INT64", Files: 1, Newest: treeNew}, {Type: "INT32", Files: 1, Newest: treeOld}}},
		{Table: "t", Column: "f1", ReadAs: "INT64", Types: []inspectColType{{Type: "INT64", Files: 1, Newest: newest}, {Type: "INT32", Files: 3, Newest: old2}}},
	}, info.TypeChanges)
	require.NotEqual(t, old, old2)
	require.Equal(t, int64(7+4), info.Effect.Total.RowsOut)

	code, out, _ := runCLI("inspect", root)
	require.Equal(t, 0, code)
	require.Contains(t, out, "\n  t.f1: INT64 in 1 files (newest 3-3-0-0.tsfile), INT32 in 3 files (newest 2-2-0-0.tsfile)\n")

	// Counting is what opens the files.
	info, _, _, _ = inspectDirJSON(t, "--no-count", root)
	require.Empty(t, info.TypeChanges)
}
