package tsfile

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/aead"
	"github.com/tsarrow/tsarrow/encoding"
)

// The golden bytes of this file are assembled by hand from the reference
// implementation's v3 layout (apache/tsfile at 5be27377, the commit before
// TsFile v4, and the v3 compatibility path of later commits: PlainDeviceID,
// ChunkGroupHeader, MetadataIndexNode, TsFileMetadata, BloomFilter), not
// produced by our writer.

// asV3 is a sweepLayoutsWith wrapper that writes TsFile v3.
func asV3(o *WriteOptions) *WriteOptions {
	var cp WriteOptions
	if o != nil {
		cp = *o
	}
	cp.Version = VersionV3
	return &cp
}

// v3Layouts returns the tree-model layouts written as v3 and their v4
// twins (the same rows and devices), in the same order.
func v3Layouts(t testing.TB) (v3, v4 []sweepFile) {
	v3 = sweepLayoutsWith(t, asV3)
	v4 = sweepLayoutsTree(t, nil)
	require.Equal(t, len(v3), len(v4))
	return v3, v4
}

func TestV3GoldenMinimalFile(t *testing.T) {
	b := readHexFixture(t, "../testdata/golden/minimal_tree_v3.hex")
	require.Len(t, b, 208)
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	require.Equal(t, VersionV3, f.Version)
	require.Equal(t, int64(58), f.Metadata.MetaOffset)
	require.Nil(t, f.Metadata.Bloom)
	require.Empty(t, f.Metadata.TableSchemas)
	require.Empty(t, f.Metadata.Properties)
	require.Len(t, f.Metadata.V3Root.Entries, 1)
	require.Equal(t, LeafDevice, f.Metadata.V3Root.Type)
	require.Equal(t, []string{"root.sg"}, f.Tables())
	_, ok := f.SchemaOf("root.sg")
	require.False(t, ok)
	devs, err := f.Devices("root.sg")
	require.NoError(t, err)
	require.Len(t, devs, 1)
	require.Equal(t, NewDeviceID("root.sg", "d1").Segments(), devs[0].Segments())
	require.Equal(t, "root.sg.d1", devs[0].TreePath())
	// A caller's DeviceID without the path finds the device too.
	series, err := f.Series(NewDeviceID("root.sg", "d1"))
	require.NoError(t, err)
	require.Len(t, series, 2)
	require.True(t, series[0].IsTimeColumn())
	require.Equal(t, Statistics{Type: Int32, Count: 1, StartTime: 1, EndTime: 1, MinInt: 5, MaxInt: 5, FirstInt: 5, LastInt: 5, SumInt: 5}, series[1].Statistics)
	cols, err := f.ReadAligned(series)
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2}, cols.Times)
	require.Equal(t, &Values{Type: Int32, Int32s: []int32{5, 0}, Null: []bool{false, true}}, cols.Columns["v"])
	one, err := f.SeriesByName(devs[0], "v")
	require.NoError(t, err)
	require.Equal(t, series[1].Offset, one.Offset)

	// The Scanner reads the v3 chunk group header.
	s, err := NewScanner(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	require.True(t, s.Next())
	require.Equal(t, ChunkGroupRecord, s.Record().Kind)
	require.Equal(t, int64(19), s.Record().End)
	require.Equal(t, "root.sg.d1", s.Record().Device.TreePath())
	for s.Next() {
	}
	require.NoError(t, s.Err())

	// Our v3 writer produces the same bytes from the same rows.
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{Version: VersionV3, ConfiguredTimeEncoding: true, TimeEncoding: TimeEncodingOf(encoding.Plain), NoBloomFilter: true})
	require.NoError(t, err)
	require.NoError(t, w.WriteAligned(ParseTreePath("root.sg.d1"), []int64{1, 2}, []AlignedColumn{{SeriesSchema: SeriesSchema{Name: "v", DataType: Int32}, Values: Values{Type: Int32, Int32s: []int32{5, 0}, Null: []bool{false, true}}}}))
	require.NoError(t, w.Close())
	require.Equal(t, hex.Dump(b), hex.Dump(out.Bytes()))
}

func TestV3GoldenEmptyFile(t *testing.T) {
	// PRE TsFileIOWriter with no chunk groups: magic, version 3, separator
	// at 7; MetadataIndexConstructor.checkAndBuildLevelIndex of no devices
	// returns a LEAF_DEVICE node with no children whose end_offset is the
	// position after the separator (8); meta_offset 7; the Bloom filter of
	// no paths: BloomFilter.getEmptyBloomFilter(0.05, 0) has
	// max(256, 0+1) = 256 bits and int(-ln 0.05 / ln 2) + 1 = 5 hashes,
	// BitSet.toByteArray() of no set bits is empty, and
	// serializeBloomFilter writes UVarInt 0, UVarInt 256 = 80 02 and
	// UVarInt 5 all the same. Footer: 1 + 8 + 1 + 8 + 4 = 22 bytes.
	want := h([]byte("TsFile"), []byte{3, 2},
		[]byte{0}, be64(8), []byte{1}, // root: no children, end_offset 8, LEAF_DEVICE
		be64(7),                        // meta_offset
		[]byte{0x00, 0x80, 0x02, 0x05}, // v3 Bloom filter without bits
		be32(22), []byte("TsFile"))
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{Version: VersionV3})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.Equal(t, hex.Dump(want), hex.Dump(out.Bytes()))

	f, err := Open(bytes.NewReader(want), int64(len(want)), nil)
	require.NoError(t, err)
	require.Equal(t, VersionV3, f.Version)
	require.Empty(t, f.Tables())
	require.NotNil(t, f.Metadata.Bloom)
	require.Equal(t, 256, f.Metadata.Bloom.BitCount)
	require.Equal(t, 5, f.Metadata.Bloom.HashCount)
	require.False(t, f.Metadata.Bloom.MayContain("root.sg.d1.s"))
	require.False(t, f.MayContainSeries(NewDeviceID("root.sg", "d1"), "s"))
	series, err := f.Series(NewDeviceID("root.sg", "d1"))
	require.NoError(t, err)
	require.Nil(t, series)
}

func TestV3GoldenDevicePath(t *testing.T) {
	// PlainDeviceID.serialize = ReadWriteIOUtils.writeVar: ZigZag VarInt
	// length (10 -> 0x14) and the UTF-8 bytes.
	b := h([]byte{0x14}, []byte("root.sg.d1"))
	d := newBuf(b, 0, "t")
	id := d.v3DeviceID(0)
	require.NoError(t, d.err)
	require.Zero(t, d.remaining())
	require.Equal(t, []Segment{{Value: "root.sg"}, {Value: "d1"}}, id.Segments())
	require.Equal(t, b, appendV3Device(nil, id))
	require.Equal(t, b, appendV3Device(nil, NewDeviceID("root.sg", "d1")))

	for _, tc := range []struct {
		name  string
		bytes []byte
		msg   string
		off   int64
	}{
		{"null", []byte{1}, "is null", 100},           // VarInt -1
		{"empty", []byte{0}, "is empty", 100},         // ChunkGroupHeader refuses it
		{"short", []byte{0x14, 'r'}, "needs 10", 101}, // runs past the bytes
		{"negative", []byte{3}, "negative", 100},      // VarInt -2
		{"bad utf-8", []byte{2, 0xff}, "UTF-8", 100},
	} {
		d := newBuf(tc.bytes, 100, "t")
		d.v3DeviceID(0)
		require.ErrorIs(t, d.err, ErrCorrupt, tc.name)
		require.ErrorContains(t, d.err, tc.msg, tc.name)
		require.Equal(t, tc.off, d.err.(*FormatError).Offset, tc.name)
	}
	// MaxDeviceSegments applies to the split.
	d = newBuf(h([]byte{24}, []byte("root.a.b.c.d")), 0, "t")
	d.v3DeviceID(2)
	require.ErrorContains(t, d.err, "more than the limit of 2")
}

func TestParseTreePath(t *testing.T) {
	for _, tc := range []struct {
		path string
		want []string
	}{
		// StringArrayDeviceID.splitDeviceIdString's own examples.
		{"root", []string{"root"}},
		{"root.a", []string{"root", "a"}},
		{"root.a.b", []string{"root.a", "b"}},
		{"root.a.b.c", []string{"root.a.b", "c"}},
		{"root.a.b.c.d", []string{"root.a.b", "c", "d"}},
		{"", []string{""}}, // PathNodesGenerator: "" is one empty node
		// Backquotes: a dot inside them does not split; redundant ones go;
		// numbers and names with other characters keep theirs.
		{"root.sg.`d.1`", []string{"root.sg", "`d.1`"}},
		{"root.sg.`d1`", []string{"root.sg", "d1"}},
		{"root.sg.`123`", []string{"root.sg", "`123`"}},
		{"root.sg.`1e5`", []string{"root.sg", "`1e5`"}},
		{"root.sg.`007L`", []string{"root.sg", "`007L`"}},
		{"root.sg.`e5`", []string{"root.sg", "e5"}},
		{"root.sg.`1eL`", []string{"root.sg", "1eL"}},
		{"root.sg.`a``b`.c", []string{"root.sg.`a``b`", "c"}},
		{"root.sg.`温度`", []string{"root.sg", "温度"}},
		{"root.sg.`a b`", []string{"root.sg", "`a b`"}},
		// Blanks between tokens are skipped by the reference's lexer.
		{"root. sg .d1", []string{"root.sg", "d1"}},
		// What the reference's parser rejects is kept as written.
		{"root.sg.d-1", []string{"root.sg", "d-1"}},
		{"root..d1", []string{"root.", "d1"}},
		{"root.sg.`open", []string{"root.sg", "`open"}},
	} {
		id := ParseTreePath(tc.path)
		require.Equal(t, NewDeviceID(tc.want...).Segments(), id.Segments(), tc.path)
		require.Equal(t, tc.path, id.TreePath())
	}
	for s, want := range map[string]bool{
		"0": true, "000": true, "1": true, "0011": true, "1e5": true, "000e38": true, "011e3": true,
		"1d": true, "1F": true, "12L": true, "1e5f": true,
		"1e5L": false, "e5": false, "1e": false, "1x": false, "0x1F": false, "abc": false, "1_0": false, "1dd": false,
	} {
		require.Equal(t, want, isRealNumber(s), s)
	}
}

func TestV3GoldenIndexNode(t *testing.T) {
	// MetadataIndexNode as v3 writes it: UVarInt child_count, entries of
	// a PlainDeviceID VarString and an int64 offset, int64 end_offset,
	// node_type. Keys ascend by the path string (PlainDeviceID.compareTo
	// is String.compareTo), which is not the order of the split segments:
	// ("root.a", "bb") sorts before ("root.a.b", "c").
	keys := []string{"root.a.b", "root.a.b.c", "root.a.bb"}
	b := []byte{3}
	for i, k := range keys {
		b = append(b, byte(2*len(k)))
		b = append(b, k...)
		b = append(b, be64(int64(100+10*i))...)
	}
	b = append(b, be64(130)...)
	b = append(b, byte(LeafDevice))
	d := newBuf(b, 0, "t")
	d.v3 = true
	n := d.indexNode(&ReadOptions{}, true)
	require.NoError(t, d.err)
	require.Zero(t, d.remaining())
	require.Len(t, n.Entries, 3)
	for i, k := range keys {
		require.Equal(t, k, n.Entries[i].Device.TreePath())
		require.Equal(t, int64(100+10*i), n.Entries[i].Offset)
	}
	require.Equal(t, []Segment{{Value: "root.a.b"}, {Value: "c"}}, n.Entries[1].Device.Segments())
	require.Equal(t, b, appendIndexNodeV(nil, &n, true))
	// The v4 grammar does not read it, and the keys out of path order are
	// refused.
	d = newBuf(b, 0, "t")
	d.indexNode(&ReadOptions{}, true)
	require.ErrorIs(t, d.err, ErrCorrupt)
	n.Entries[1], n.Entries[2] = n.Entries[2], n.Entries[1]
	n.Entries[1].Offset, n.Entries[2].Offset = 110, 120
	d = newBuf(appendIndexNodeV(nil, &n, true), 0, "t")
	d.v3 = true
	d.indexNode(&ReadOptions{}, true)
	require.ErrorContains(t, d.err, "entry 2 key is not greater")
}

func TestV3GoldenBloomFilter(t *testing.T) {
	// The filter of one path as PRE TsFileIOWriter builds it:
	// getEmptyBloomFilter(0.05, 1) has max(256, int(-ln 0.05/ln²2)+1 = 7)
	// = 256 bits and 5 hashes; add() sets bit hash(path, 256, seed) for
	// seeds 5, 7, 11, 19, 31 (the hash is checked against the reference by
	// TestBloomHashMatchesReference). The path is the device string, ".",
	// the measurement (Path(device, measurement).getFullPath()).
	const path = "root.sg.d1.v"
	bits := make([]byte, 32)
	for _, seed := range []uint64{5, 7, 11, 19, 31} {
		p := bloomHash([]byte(path), seed, 256)
		bits[p/8] |= 1 << (p % 8) // BitSet.toByteArray: little-endian, LSB first
	}
	for len(bits) > 0 && bits[len(bits)-1] == 0 {
		bits = bits[:len(bits)-1]
	}
	want := h(appendUVarint(nil, uint32(len(bits))), bits, []byte{0x80, 0x02, 0x05})
	f := newBloomFilter(1, 0.05)
	f.Add(path)
	require.Equal(t, want, f.appendToV3(nil))
	d := newBuf(want, 0, "t")
	g := d.bloomFilterV3()
	require.NoError(t, d.err)
	require.Zero(t, d.remaining())
	require.True(t, g.MayContain(path))

	for _, tc := range []struct {
		name  string
		bytes []byte
	}{
		{"no bit_count", []byte{0}},
		{"zero bits", []byte{0, 0, 5}},
		{"nine hashes", []byte{0, 0x80, 0x02, 9}},
		{"too many bytes", []byte{2, 1, 1, 8, 1}},
	} {
		d := newBuf(tc.bytes, 0, "t")
		d.bloomFilterV3()
		require.ErrorIs(t, d.err, ErrCorrupt, tc.name)
	}
}

// TestV3RoundTrip writes every tree-model layout (every data type,
// encoding, compression and time encoding, aligned and non-aligned
// devices, nulls, multi-page chunks, internal index nodes, no Bloom
// filter) as v3 and as v4, and requires the same content, devices and
// tables from both.
func TestV3RoundTrip(t *testing.T) {
	v3, v4 := v3Layouts(t)
	for i := range v3 {
		t.Run(v3[i].name, func(t *testing.T) {
			require.Equal(t, v4[i].name, v3[i].name)
			require.Equal(t, VersionV3, v3[i].data[6])
			require.NoError(t, fullScan(v3[i].data, nil))
			a, err := dumpContent(v3[i].data, nil)
			require.NoError(t, err)
			b, err := dumpContent(v4[i].data, nil)
			require.NoError(t, err)
			require.NotEmpty(t, a)
			require.Equal(t, b, a)
			f3, err := Open(bytes.NewReader(v3[i].data), int64(len(v3[i].data)), nil)
			require.NoError(t, err)
			f4, err := Open(bytes.NewReader(v4[i].data), int64(len(v4[i].data)), nil)
			require.NoError(t, err)
			require.Equal(t, f4.Tables(), f3.Tables())
			for _, tb := range f3.Tables() {
				d3, err := f3.Devices(tb)
				require.NoError(t, err)
				d4, err := f4.Devices(tb)
				require.NoError(t, err)
				require.Equal(t, len(d4), len(d3))
				for j := range d3 {
					require.True(t, d3[j].Equal(d4[j]), "%s %s", d3[j], d4[j])
					s3, err := f3.Series(d3[j])
					require.NoError(t, err)
					for _, s := range s3 {
						require.True(t, f3.MayContainSeries(d4[j], s.Measurement))
					}
				}
			}
			if v3[i].name == "properties" {
				require.Nil(t, f3.Metadata.Bloom)
			} else {
				require.NotNil(t, f3.Metadata.Bloom)
			}
		})
	}
}

func TestV3DeviceOrderAndSpelling(t *testing.T) {
	// Path order and segment order disagree, and MaxDegree 2 puts the
	// devices under INTERNAL_DEVICE nodes keyed by path.
	paths := []string{"root.a.bb", "root.a.b.c", "root.a.b", "root.sg.`d1`", "root.x.y.z.w", "root.a.b.d"}
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{Version: VersionV3, MaxDegree: 2})
	require.NoError(t, err)
	v := SeriesSchema{Name: "v", DataType: Int64}
	for i, p := range paths {
		require.NoError(t, w.WriteNonAligned(ParseTreePath(p), []NonAlignedSeries{{SeriesSchema: v, Times: []int64{int64(i)}, Values: Values{Type: Int64, Int64s: []int64{int64(i)}}}}))
	}
	require.NoError(t, w.Close())
	b := out.Bytes()
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	require.Equal(t, InternalDevice, f.Metadata.V3Root.Type)
	require.Equal(t, []string{"root.a", "root.a.b", "root.sg", "root.x.y"}, f.Tables())
	devs, err := f.Devices("root.a")
	require.NoError(t, err)
	require.Equal(t, []string{"root.a.b", "root.a.bb"}, treePaths(devs))
	devs, err = f.Devices("root.a.b")
	require.NoError(t, err)
	require.Equal(t, []string{"root.a.b.c", "root.a.b.d"}, treePaths(devs))
	devs, err = f.Devices("root.x.y")
	require.NoError(t, err)
	require.Equal(t, []Segment{{Value: "root.x.y"}, {Value: "z"}, {Value: "w"}}, devs[0].Segments())
	for i, p := range paths {
		id := ParseTreePath(p)
		plain := NewDeviceID(segmentValues(id)...) // without the stored spelling
		for _, d := range []DeviceID{id, plain} {
			_, vals, err := f.ReadNonAligned(mustSeries(t, f, d, "v"))
			require.NoError(t, err)
			require.Equal(t, []int64{int64(i)}, vals.Int64s)
			require.True(t, f.MayContainSeries(d, "v"))
		}
	}
	require.False(t, f.MayContainSeries(NewDeviceID("root.a", "zz"), "v"))
	// The stored spelling is what the file keeps: "root.sg.`d1`".
	devs, err = f.Devices("root.sg")
	require.NoError(t, err)
	require.Equal(t, "root.sg.`d1`", devs[0].TreePath())
	require.Equal(t, "root.sg.d1", devs[0].String())

	// Two spellings of one device in one file are refused on read; the
	// writer files them under one device.
	out.Reset()
	w, err = NewWriter(&out, &WriteOptions{Version: VersionV3})
	require.NoError(t, err)
	require.NoError(t, w.WriteNonAligned(ParseTreePath("root.sg.d1"), []NonAlignedSeries{{SeriesSchema: v, Times: []int64{1}, Values: Values{Type: Int64, Int64s: []int64{1}}}}))
	require.NoError(t, w.WriteNonAligned(ParseTreePath("root.sg.`d1`"), []NonAlignedSeries{{SeriesSchema: v, Times: []int64{2}, Values: Values{Type: Int64, Int64s: []int64{2}}}}))
	require.NoError(t, w.Close())
	f, err = Open(bytes.NewReader(out.Bytes()), int64(out.Len()), nil)
	require.NoError(t, err)
	_, vals, err := f.ReadNonAligned(mustSeries(t, f, NewDeviceID("root.sg", "d1"), "v"))
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2}, vals.Int64s)
	// Hand-made: two root entries "root.sg.`d1`" < "root.sg.d1" pointing
	// at copies of the same measurement root.
	dup := twoSpellings(t)
	_, err = Open(bytes.NewReader(dup), int64(len(dup)), nil)
	require.ErrorIs(t, err, ErrUnsupported)
	require.ErrorContains(t, err, "name the same device")
}

// twoSpellings returns a v3 file whose index lists "root.sg.`d1`" and
// "root.sg.d1", both with the series of the single chunk group.
func twoSpellings(t *testing.T) []byte {
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{Version: VersionV3, NoBloomFilter: true})
	require.NoError(t, err)
	require.NoError(t, w.WriteNonAligned(ParseTreePath("root.sg.d1"), []NonAlignedSeries{{SeriesSchema: SeriesSchema{Name: "v", DataType: Int64}, Times: []int64{1}, Values: Values{Type: Int64, Int64s: []int64{1}}}}))
	require.NoError(t, w.Close())
	b := out.Bytes()
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	root := f.Metadata.V3Root
	e := root.Entries[0]
	mroot := append([]byte(nil), b[e.Offset:e.End]...)
	// Keep everything before the footer, add a second copy of the
	// measurement root, then a footer with both entries.
	body := append([]byte(nil), b[:f.metaPos]...)
	second := int64(len(body))
	body = append(body, mroot...)
	n := IndexNode{Type: LeafDevice, EndOffset: int64(len(body)), Entries: []IndexEntry{
		{Device: ParseTreePath("root.sg.`d1`"), Offset: e.Offset},
		{Device: ParseTreePath("root.sg.d1"), Offset: second},
	}}
	foot := appendFileMetadataV3(nil, &FileMetadata{V3Root: &n, MetaOffset: f.Metadata.MetaOffset})
	body = append(body, foot...)
	body = append(body, be32(int32(len(foot)))...)
	return append(body, Magic...)
}

func treePaths(devs []DeviceID) []string {
	var out []string
	for _, d := range devs {
		out = append(out, d.TreePath())
	}
	return out
}

func mustSeries(t *testing.T, f *File, d DeviceID, m string) *TimeseriesMetadata {
	t.Helper()
	s, err := f.SeriesByName(d, m)
	require.NoError(t, err)
	require.NotNil(t, s, "%s.%s", d, m)
	return s
}

func TestV3WriterRefuses(t *testing.T) {
	reg := testKeys(t)
	for name, o := range map[string]*WriteOptions{
		"page aead":  {Version: VersionV3, Encryption: &aead.WriterConfig{ProviderID: aead.KeyFileProviderID, KeyID: "k256", KeyVersion: "7"}, Keys: reg},
		"legacy":     {Version: VersionV3, LegacyEncryption: &aead.LegacyProperties{}},
		"properties": {Version: VersionV3, Properties: []Property{{Key: "k", Value: []byte("v")}}},
		"version 5":  {Version: 5},
		"version 2":  {Version: 2},
	} {
		_, err := NewWriter(&bytes.Buffer{}, o)
		require.Error(t, err, name)
	}
	w, err := NewWriter(&bytes.Buffer{}, &WriteOptions{Version: VersionV3})
	require.NoError(t, err)
	require.ErrorContains(t, w.RegisterTable(TableSchema{Name: "t", Columns: []Column{{Name: "v", DataType: Int32, Category: Field}}}), "no table model")
	one := func(s SeriesSchema, v Values) []AlignedColumn { return []AlignedColumn{{SeriesSchema: s, Values: v}} }
	require.ErrorContains(t, w.WriteAligned(NewDeviceID("root.sg", "d"), []int64{1}, one(SeriesSchema{Name: "o", DataType: Object}, Values{Type: Object, Binaries: [][]byte{{1}}})), "OBJECT")
	require.ErrorContains(t, w.WriteAligned(NewDeviceID("root.sg", "d"), []int64{1}, one(SeriesSchema{Name: "c", DataType: Double, Encoding: encoding.Camel}, Values{Type: Double, Float64s: []float64{1}})), "CAMEL")
	for _, e := range []Encoding{encoding.DescendingBitPacking, encoding.SeparateStorage, encoding.Laminar} {
		// TsFile 2.3 encodings: no v3 reader decodes them, as values or as times.
		require.ErrorContains(t, w.WriteAligned(NewDeviceID("root.sg", "d"), []int64{1}, one(SeriesSchema{Name: "i", DataType: Int64, Encoding: e}, Values{Type: Int64, Int64s: []int64{1}})), e.String())
		_, err := NewWriter(&bytes.Buffer{}, &WriteOptions{Version: VersionV3, ConfiguredTimeEncoding: true, TimeEncoding: TimeEncodingOf(e)})
		require.ErrorContains(t, err, e.String())
	}
	require.ErrorContains(t, w.WriteAligned(DeviceIDFromSegments([]Segment{{Value: "root.sg"}, {Null: true}, {Value: "d"}}), []int64{1}, nil), "null segment")
	require.ErrorContains(t, w.WriteAligned(NewDeviceID(""), []int64{1}, nil), "empty")
	i32 := one(SeriesSchema{Name: "v", DataType: Int32}, Values{Type: Int32, Int32s: []int32{1}})
	require.NoError(t, w.WriteAligned(NewDeviceID("root.a", "b.c"), []int64{1}, i32))
	require.ErrorContains(t, w.WriteAligned(NewDeviceID("root.a.b", "c"), []int64{1}, i32), "same TsFile v3 path")
	require.NoError(t, w.Close())
}

func TestV3PrefixAndMarkers(t *testing.T) {
	v3, _ := v3Layouts(t)
	b := v3[0].data
	// A v3 file has no encryption header: 0x06 at offset 7 is an unknown
	// data-section marker, as in the reference's v3 reader.
	bad := append([]byte(nil), b...)
	bad[7] = MarkerEncryptionHeader
	s, err := NewScanner(bytes.NewReader(bad), int64(len(bad)), nil)
	require.NoError(t, err)
	require.False(t, s.Next())
	require.ErrorIs(t, s.Err(), ErrCorrupt)
	require.ErrorContains(t, s.Err(), "unknown top-level marker 0x06")
	f, err := Open(bytes.NewReader(bad), int64(len(bad)), nil)
	require.NoError(t, err) // the index does not go through offset 7
	require.Nil(t, f.Encryption())
	// A v3 file labelled v4 fails to parse as v4 rather than being probed.
	bad = append([]byte(nil), b...)
	bad[6] = Version
	_, err = Open(bytes.NewReader(bad), int64(len(bad)), nil)
	require.ErrorIs(t, err, ErrCorrupt)
}

func TestV3Recover(t *testing.T) {
	v3, _ := v3Layouts(t)
	for _, sf := range v3 {
		if sf.name != "tree-nonaligned" && sf.name != "table-multipage-nulls" && sf.name != "deep-index" {
			continue
		}
		t.Run(sf.name, func(t *testing.T) {
			b := sf.data
			f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
			want, err := dumpContent(b, nil)
			require.NoError(t, err)
			// Cut right after the separator: every group is complete.
			cut := b[:f.metaOffset+1]
			rec, err := Recover(bytes.NewReader(cut), int64(len(cut)), nil)
			require.NoError(t, err)
			require.NoError(t, rec.Cause)
			require.Equal(t, f.metaOffset, rec.ValidEnd)
			var fixed bytes.Buffer
			_, err = rec.Rebuild(&fixed, bytes.NewReader(cut), nil)
			require.NoError(t, err)
			require.Equal(t, VersionV3, fixed.Bytes()[6])
			got, err := dumpContent(fixed.Bytes(), nil)
			require.NoError(t, err)
			require.Equal(t, want, got)
			if sf.name != "deep-index" { // written with MaxDegree 2
				// The rebuilt index and footer are the writer's, byte
				// for byte.
				require.Equal(t, hex.Dump(b[f.metaOffset:]), hex.Dump(fixed.Bytes()[f.metaOffset:]))
			}
			// A v4 footer cannot follow a v3 data section.
			_, err = rec.Rebuild(&bytes.Buffer{}, bytes.NewReader(cut), &WriteOptions{Version: Version})
			require.ErrorContains(t, err, "format version 3")
		})
	}
}

// TestV3Sweeps runs the truncation and corruption sweeps over the v3
// layouts of structures v3 changes (device strings, one device index
// with internal nodes, the v3 footer with and without a Bloom filter).
func TestV3Sweeps(t *testing.T) {
	t.Parallel()
	v3, _ := v3Layouts(t)
	keep := map[string]bool{"tree-nonaligned": true, "mixed": true, "table-multipage-nulls": true, "deep-index": true, "properties": true}
	var files []sweepFile
	for _, sf := range v3 {
		if keep[sf.name] {
			files = append(files, sweepFile{name: "v3-" + sf.name, data: sf.data})
		}
	}
	require.Len(t, files, len(keep))
	t.Run("truncation", func(t *testing.T) {
		t.Logf("v3 truncation sweep: %s", truncationSweep(t, files))
	})
	t.Run("corruption", func(t *testing.T) {
		total, _ := corruptionSweep(t, files)
		t.Logf("v3 corruption sweep: %s", total)
	})
}

// TestV3FormatErrors damages the v3-specific structures of the golden file:
// the errors are FormatErrors naming the structure at its offset.
func TestV3FormatErrors(t *testing.T) {
	b := readHexFixture(t, "../testdata/golden/minimal_tree_v3.hex")
	for _, tc := range []struct {
		name    string
		off     int
		val     byte
		msg     string
		wantOff int64
	}{
		{"device path length in the footer", 162, 0x7f, "v3 device path", 162},
		{"root end_offset", 188, 0xff, "outside the index region", 161},
		{"root node type", 189, 0x03, "device index node is required", 189},
		{"chunk group device length", 8, 0x00, "v3 device path is empty", 8},
		{"chunk group device null", 8, 0x01, "v3 device path is null", 8},
	} {
		bad := append([]byte(nil), b...)
		bad[tc.off] = tc.val
		err := readAll(bad)
		if tc.off < 58 {
			s, serr := NewScanner(bytes.NewReader(bad), int64(len(bad)), nil)
			require.NoError(t, serr)
			for s.Next() {
			}
			err = s.Err()
		}
		var fe *FormatError
		require.True(t, errors.As(err, &fe), "%s: %v", tc.name, err)
		require.ErrorIs(t, err, ErrCorrupt, tc.name)
		require.ErrorContains(t, err, tc.msg, tc.name)
		require.Equal(t, tc.wantOff, fe.Offset, "%s: %v", tc.name, err)
	}
}
