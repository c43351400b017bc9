package dataset

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/tsfile"
)

// This file builds IoTDB data directories for tests: data files written
// with our tsfile writer under sequence|unsequence/{db}/{region}/{partition}/,
// each with a .resource and optional .mods/.mods2, and keeps every point it
// wrote so that the reference of refmodel_test.go can tell what a query must
// return. Values are INT64 only: the rules under test do not depend on types.
//
// IoTDB layout: TsFileNameGenerator, TsFileResource (see docs/iotdb-rules.md 7a).

// groupKind is how a chunk group is written.
type groupKind int

const (
	tableGroup   groupKind = iota // table model: aligned, all-null rows kept
	treeAligned                   // tree model aligned device: all-null rows dropped
	treeNonAlign                  // tree model non-aligned series
)

// v is a shorthand for a non-null cell.
func v(x int64) *int64 { return &x }

// specGroup is one Write call: one chunk group of one device. Cols[i].Vals
// runs parallel to Times; nil is a null cell (aligned) or no point
// (non-aligned).
type specGroup struct {
	Kind   groupKind
	Device tsfile.DeviceID
	Times  []int64
	Cols   []specCol
}

type specCol struct {
	Name string
	Vals []*int64
}

// specFile is one data file to lay out.
type specFile struct {
	Space              Space
	DB, Region, Part   string
	Time, Version      int64
	Tables             []tsfile.TableSchema
	Groups             []specGroup
	ModsV1, ModsV2     []Deletion
	WriteEmptyV2, NoV1 bool
	// Overlapping writes with tsfile.WriteOptions.Overlapping: groups of
	// one device may overlap in time (several flushes of an unsequence
	// file).
	Overlapping bool
	// V3 writes TsFile v3, as IoTDB 1.x does (tree groups only).
	V3 bool
	// NoResource leaves out the .resource; Truncate also cuts the file's
	// tail magic off, as a crash leaves a file being written.
	NoResource, Truncate bool
}

// refPoint is one written cell: for aligned groups one per column and row
// (Null for a null cell), for non-aligned ones one per point. Chunk is the
// header offset of the chunk holding it, TimeChunk that of the aligned time
// chunk (the priority offset of an aligned row; equal to Chunk otherwise).
type refPoint struct {
	Group     int // index of the chunk group in its file
	Kind      groupKind
	Device    tsfile.DeviceID
	Column    string
	Time      int64
	Value     int64
	Null      bool
	Chunk     int64
	TimeChunk int64
}

// builtFile is a file the builder wrote.
type builtFile struct {
	Spec   specFile
	Path   string
	Points []refPoint
}

// builtDir is a data directory the builder laid out.
type builtDir struct {
	Root  string
	Files []builtFile
}

// buildLayout writes the files into a new temporary data directory.
func buildLayout(t *testing.T, specs ...specFile) *builtDir {
	t.Helper()
	d := &builtDir{Root: t.TempDir()}
	for _, s := range specs {
		d.Files = append(d.Files, buildFile(t, d.Root, s))
	}
	return d
}

func buildFile(t *testing.T, root string, s specFile) builtFile {
	t.Helper()
	if s.DB == "" {
		s.DB = "root.db"
	}
	if s.Region == "" {
		s.Region = "1"
	}
	if s.Part == "" {
		s.Part = "0"
	}
	space := "sequence"
	if s.Space == Unsequence {
		space = "unsequence"
	}
	dir := filepath.Join(root, space, s.DB, s.Region, s.Part)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, Name{Time: s.Time, Version: s.Version}.String())

	var out bytes.Buffer
	wo := &tsfile.WriteOptions{Overlapping: s.Overlapping}
	if s.V3 {
		wo.Version = tsfile.VersionV3
	}
	w, err := tsfile.NewWriter(&out, wo)
	require.NoError(t, err)
	for _, ts := range s.Tables {
		require.NoError(t, w.RegisterTable(ts))
	}
	bf := builtFile{Spec: s, Path: path}
	for gi, g := range s.Groups {
		switch g.Kind {
		case tableGroup, treeAligned:
			var cols []tsfile.AlignedColumn
			for _, c := range g.Cols {
				require.Len(t, c.Vals, len(g.Times), "group %d column %s", gi, c.Name)
				vals := tsfile.Values{Type: tsfile.Int64, Int64s: make([]int64, len(g.Times)), Null: make([]bool, len(g.Times))}
				for i, x := range c.Vals {
					if x == nil {
						vals.Null[i] = true
					} else {
						vals.Int64s[i] = *x
					}
					bf.Points = append(bf.Points, refPoint{Group: gi, Kind: g.Kind, Device: g.Device, Column: c.Name, Time: g.Times[i], Value: vals.Int64s[i], Null: x == nil})
				}
				cols = append(cols, tsfile.AlignedColumn{SeriesSchema: tsfile.SeriesSchema{Name: c.Name, DataType: tsfile.Int64}, Values: vals})
			}
			require.NoError(t, w.WriteAligned(g.Device, g.Times, cols))
		case treeNonAlign:
			var series []tsfile.NonAlignedSeries
			for _, c := range g.Cols {
				require.Len(t, c.Vals, len(g.Times), "group %d column %s", gi, c.Name)
				ns := tsfile.NonAlignedSeries{SeriesSchema: tsfile.SeriesSchema{Name: c.Name, DataType: tsfile.Int64}, Values: tsfile.Values{Type: tsfile.Int64}}
				for i, x := range c.Vals {
					if x == nil {
						continue
					}
					ns.Times = append(ns.Times, g.Times[i])
					ns.Values.Int64s = append(ns.Values.Int64s, *x)
					bf.Points = append(bf.Points, refPoint{Group: gi, Kind: g.Kind, Device: g.Device, Column: c.Name, Time: g.Times[i], Value: *x})
				}
				if len(ns.Times) > 0 {
					series = append(series, ns)
				}
			}
			require.NoError(t, w.WriteNonAligned(g.Device, series))
		}
	}
	require.NoError(t, w.Close())
	data := out.Bytes()
	if s.Truncate {
		data = data[:len(data)-3]
	}
	require.NoError(t, os.WriteFile(path, data, 0o644))

	fillChunkOffsets(t, &bf, out.Bytes())
	if !s.NoResource && !s.Truncate {
		writeResource(t, &bf)
	}
	if len(s.ModsV1) > 0 {
		// A negative FileOffset -k asks for the header offset of the k-th
		// chunk (in a sorted list, cyclically): a deletion exactly at a
		// chunk, which spares that chunk (the offset rule is strict).
		var offs []int64
		for _, p := range bf.Points {
			offs = append(offs, p.Chunk, p.TimeChunk)
		}
		slices.Sort(offs)
		offs = slices.Compact(offs)
		s.ModsV1 = slices.Clone(s.ModsV1)
		for i := range s.ModsV1 {
			if k := s.ModsV1[i].FileOffset; k < 0 && len(offs) > 0 {
				s.ModsV1[i].FileOffset = offs[int(-k-1)%len(offs)]
			}
		}
		bf.Spec.ModsV1 = s.ModsV1
		b, err := AppendModsV1(nil, s.ModsV1...)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path+ModsV1Suffix, b, 0o644))
	}
	if len(s.ModsV2) > 0 || s.WriteEmptyV2 {
		b, err := AppendModsV2(nil, s.ModsV2...)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path+ModsV2Suffix, b, 0o644))
	}
	return bf
}

// fillChunkOffsets reads the written file back and gives every point the
// header offset of its chunk: the k-th chunk group of a device that wrote
// a series holds that series' k-th chunk (one chunk per series per Write).
func fillChunkOffsets(t *testing.T, bf *builtFile, data []byte) {
	t.Helper()
	f, err := tsfile.Open(bytes.NewReader(data), int64(len(data)), nil)
	require.NoError(t, err)
	defer f.Close()
	type key struct{ dev, col string }
	chunks := map[key][]int64{}
	for _, g := range bf.Spec.Groups {
		k := key{g.Device.String(), ""}
		if _, done := chunks[k]; done {
			continue
		}
		ss, err := f.Series(g.Device)
		require.NoError(t, err)
		for _, s := range ss {
			for _, c := range s.Chunks {
				kk := key{g.Device.String(), s.Measurement}
				chunks[kk] = append(chunks[kk], c.Offset)
			}
		}
		if _, ok := chunks[k]; !ok {
			chunks[k] = nil // a non-aligned device: mark as read
		}
	}
	// The index of each group among the device's groups that wrote the series.
	next := map[key]int{}
	groupChunk := map[[2]int]map[string]int64{} // (group) -> column -> offset
	for gi, g := range bf.Spec.Groups {
		m := map[string]int64{}
		groupChunk[[2]int{gi, 0}] = m
		cols := []string{}
		if g.Kind != treeNonAlign {
			cols = append(cols, "")
		}
		for _, c := range g.Cols {
			if g.Kind == treeNonAlign && !hasPoint(c.Vals) {
				continue
			}
			cols = append(cols, c.Name)
		}
		for _, c := range cols {
			k := key{g.Device.String(), c}
			i := next[k]
			require.Less(t, i, len(chunks[k]), "chunk %d of %s.%s", i, k.dev, c)
			m[c] = chunks[k][i]
			next[k] = i + 1
		}
	}
	for i := range bf.Points {
		p := &bf.Points[i]
		m := groupChunk[[2]int{p.Group, 0}]
		p.Chunk = m[p.Column]
		if p.Kind == treeNonAlign {
			p.TimeChunk = p.Chunk
		} else {
			p.TimeChunk = m[""]
		}
	}
}

func hasPoint(vals []*int64) bool {
	for _, x := range vals {
		if x != nil {
			return true
		}
	}
	return false
}

// writeResource writes the .resource of the file: each device's smallest
// and largest time, in the order the devices first appear.
func writeResource(t *testing.T, bf *builtFile) {
	t.Helper()
	r := &Resource{IndexType: IndexArray}
	idx := map[string]int{}
	for _, g := range bf.Spec.Groups {
		for i, tm := range g.Times {
			if g.Kind == treeNonAlign {
				any := false
				for _, c := range g.Cols {
					any = any || c.Vals[i] != nil
				}
				if !any {
					continue
				}
			}
			k := g.Device.String()
			j, ok := idx[k]
			if !ok {
				j = len(r.Devices)
				idx[k] = j
				r.Devices = append(r.Devices, DeviceTimes{Device: g.Device, Start: tm, End: tm})
			}
			r.Devices[j].Start = min(r.Devices[j].Start, tm)
			r.Devices[j].End = max(r.Devices[j].End, tm)
		}
	}
	b, err := r.AppendBinary(nil)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bf.Path+ResourceSuffix, b, 0o644))
}

// randomLayout returns n files of random overlapping data for the devices
// root.db.d1 (non-aligned, series s1 s2), root.db.al (tree aligned) and
// t.a, t.b (table t of tableT), sequence and unsequence mixed, file versions
// all distinct (IoTDB's are, within a region), and random v1 or v2 mods.
// Times are drawn from a small range so copies overlap in every way:
// disjoint, nested, identical.
//
// Some files share a version (told apart by the time in their names, the
// tie-break of Priority), lie in a second database "db2" (so table t is in
// two databases), are TsFile v3 with tree groups only (IoTDB 1.x), or lack
// their .resource, complete or cut short.
func randomLayout(r *rand.Rand, n int) []specFile {
	perm := r.Perm(n)
	var specs []specFile
	type name struct {
		space         Space
		version, time int64
	}
	taken := map[name]bool{}
	for i := 0; i < n; i++ {
		s := specFile{Space: Sequence, Time: int64(r.IntN(5)), Version: int64(perm[i] + 1), Tables: []tsfile.TableSchema{tableT}}
		if r.IntN(2) == 0 {
			s.Space = Unsequence
		}
		if i > 0 && r.IntN(3) == 0 {
			// The version of an earlier file: the file-name time decides.
			s.Version = specs[r.IntN(i)].Version
		}
		for taken[name{s.Space, s.Version, s.Time}] {
			s.Time++
		}
		taken[name{s.Space, s.Version, s.Time}] = true
		if r.IntN(4) == 0 {
			s.DB = "db2"
		}
		switch r.IntN(10) {
		case 0:
			s.NoResource = true
		case 1:
			s.Truncate = true
		}
		v3 := r.IntN(4) == 0
		cell := func() *int64 {
			if r.IntN(4) == 0 {
				return nil
			}
			return v(int64(r.IntN(1000)))
		}
		times := func() []int64 {
			lo := int64(r.IntN(20))
			var ts []int64
			for t := lo; t < lo+int64(1+r.IntN(10)); t++ {
				if r.IntN(3) != 0 {
					ts = append(ts, t)
				}
			}
			if len(ts) == 0 {
				ts = []int64{lo}
			}
			return ts
		}
		group := func(kind groupKind, dev tsfile.DeviceID, cols ...string) specGroup {
			g := specGroup{Kind: kind, Device: dev, Times: times()}
			for _, c := range cols {
				sc := specCol{Name: c}
				for range g.Times {
					sc.Vals = append(sc.Vals, cell())
				}
				g.Cols = append(g.Cols, sc)
			}
			return g
		}
		if r.IntN(3) != 0 {
			s.Groups = append(s.Groups, group(treeNonAlign, tsfile.ParseTreePath("root.db.d1"), "s1", "s2"))
		}
		if r.IntN(3) != 0 {
			s.Groups = append(s.Groups, group(treeAligned, tsfile.ParseTreePath("root.db.al"), "s1", "s2"))
		}
		if v3 {
			s.V3, s.Tables = true, nil
			if len(s.Groups) == 0 {
				s.Groups = append(s.Groups, group(treeNonAlign, tsfile.ParseTreePath("root.db.d1"), "s1", "s2"))
			}
		} else {
			if r.IntN(3) != 0 {
				s.Groups = append(s.Groups, group(tableGroup, tsfile.NewDeviceID("t", "a"), "s1", "s2", "s3"))
			}
			if r.IntN(2) == 0 || len(s.Groups) == 0 {
				s.Groups = append(s.Groups, group(tableGroup, tsfile.NewDeviceID("t", "b"), "s1", "s2", "s3"))
			}
		}
		if s.Space == Unsequence && r.IntN(3) == 0 {
			// A second flush into the file: groups of the same devices
			// again, overlapping the first in time.
			s.Overlapping = true
			for _, g := range append([]specGroup(nil), s.Groups...) {
				var names []string
				for _, c := range g.Cols {
					names = append(names, c.Name)
				}
				s.Groups = append(s.Groups, group(g.Kind, g.Device, names...))
			}
		}
		rng := func() (int64, int64) {
			a, b := int64(r.IntN(30)), int64(r.IntN(30))
			return min(a, b), max(a, b)
		}
		patterns := []string{"root.db.d1.s1", "root.db.**", "root.db.al.*", "root.db.*.s2", "root.db.al.s1"}
		for k := r.IntN(3); k > 0; k-- {
			lo, hi := rng()
			pat, _ := ParsePattern(patterns[r.IntN(len(patterns))])
			if r.IntN(2) == 0 && !s.Overlapping {
				// v1: a random offset, so some chunks are below it and some not.
				off := int64(r.IntN(600))
				if r.IntN(2) == 0 {
					// Exactly at a chunk (buildFile), over every time, so
					// that whether that chunk is spared shows.
					off, lo, hi = -int64(1+r.IntN(8)), 0, 30
				}
				s.ModsV1 = append(s.ModsV1, Deletion{Kind: TreeDeletion, Version: ModsV1, Pattern: pat, Start: lo, End: hi, FileOffset: off})
				continue
			}
			s.ModsV2 = append(s.ModsV2, Deletion{Kind: TreeDeletion, Pattern: pat, Start: lo, End: hi})
		}
		if r.IntN(2) == 0 {
			lo, hi := rng()
			d := Deletion{Kind: TableDeletion, Table: "t", Start: lo, End: hi}
			switch r.IntN(3) {
			case 0:
				d.Predicate = TagPredicate{Kind: PredSegmentExactMatch, Segment: 1, Value: "a"}
			case 1:
				d.Measurements = []string{"s2"}
			}
			s.ModsV2 = append(s.ModsV2, d)
		}
		specs = append(specs, s)
	}
	return specs
}
