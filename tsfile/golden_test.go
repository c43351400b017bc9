package tsfile

import (
	"errors"
	"math"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/testkit/need"
)

// The byte strings in this file are assembled by hand from the spec text
// (Binary-Representation.md, Chunks.md, Metadata.md), not produced by our
// writer, so they check the writer and reader against the document.

func h(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func be64(v int64) []byte { return appendInt64(nil, v) }
func be32(v int32) []byte { return appendInt32(nil, v) }

func TestGoldenVarints(t *testing.T) {
	// Binary-Representation.md: 300 -> ac 02; ZigZag 0,-1,1,-2 -> 00,01,02,03.
	require.Equal(t, []byte{0xac, 0x02}, appendUVarint(nil, 300))
	for v, b := range map[int32]byte{0: 0, -1: 1, 1: 2, -2: 3} {
		require.Equal(t, []byte{b}, appendVarint(nil, v))
		d := newBuf([]byte{b}, 0, "t")
		require.Equal(t, v, d.varint("v"))
	}
	d := newBuf([]byte{0xac, 0x02}, 0, "t")
	require.Equal(t, uint32(300), d.uvarint("v"))
	for _, bad := range [][]byte{{0x80}, {0xff, 0xff, 0xff, 0xff, 0x7f}, {0xff, 0xff, 0xff, 0xff, 0x8f, 0x01}} {
		d := newBuf(bad, 100, "t")
		d.uvarint("v")
		require.ErrorIs(t, d.err, ErrCorrupt, "% x", bad)
	}
}

func TestGoldenDeviceID(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bytes []byte
		want  []Segment
	}{
		// segment_count 3: "weather", "north", "s01" (VarString length = ZigZag).
		{"table", h([]byte{3, 14}, []byte("weather"), []byte{10}, []byte("north"), []byte{6}, []byte("s01")), []Segment{{Value: "weather"}, {Value: "north"}, {Value: "s01"}}},
		// A null middle segment is VarInt(-1) = 01.
		{"null-middle", h([]byte{3, 2, 't', 1, 2, 'x'}), []Segment{{Value: "t"}, {Null: true}, {Value: "x"}}},
		// Trailing nulls are stripped on read.
		{"null-trailing", h([]byte{3, 2, 't', 1, 1}), []Segment{{Value: "t"}}},
		// segment_count 0 reads as one empty segment.
		{"zero", []byte{0}, []Segment{{Value: ""}}},
		// Dots inside segments are not separators.
		{"dotted", h([]byte{2, 16}, []byte("root.sg1"), []byte{4, 'd', '1'}), []Segment{{Value: "root.sg1"}, {Value: "d1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newBuf(tc.bytes, 0, "t")
			id := d.deviceID(0)
			require.NoError(t, d.err)
			require.Zero(t, d.remaining())
			require.Equal(t, tc.want, id.Segments())
		})
	}
	// All-null is invalid; a truncated segment reports its offset.
	d := newBuf([]byte{1, 1}, 0, "t")
	d.deviceID(0)
	require.ErrorIs(t, d.err, ErrCorrupt)
	d = newBuf([]byte{1, 10, 'a'}, 50, "t")
	d.deviceID(0)
	require.ErrorContains(t, d.err, "at offset 52")

	// Writer side: the table example serializes to exactly its bytes.
	require.Equal(t, h([]byte{3, 14}, []byte("weather"), []byte{10}, []byte("north"), []byte{6}, []byte("s01")), appendDeviceID(nil, NewDeviceID("weather", "north", "s01")))
	require.Equal(t, []byte{3, 2, 't', 1, 2, 'x'}, appendDeviceID(nil, DeviceIDFromSegments([]Segment{{Value: "t"}, {Null: true}, {Value: "x"}, {Null: true}})))
}

// TestGoldenDeviceIDNullMarker pins the bytes of null and `\N` segments as
// upstream serializes a device ID: StringArrayDeviceID.serialize writes
// each segment with ReadWriteIOUtils.writeVar, a null as VarInt(-1) = 01
// (apache/tsfile java/.../file/metadata/StringArrayDeviceID.java); the C++
// writer does the same with write_var_char_ptr (cpp/src/common/device_id.cc).
// PR #848 left these bytes alone: its `\N` marks a null tag in the Python
// layer's logical series paths (python/tsfile/dataset/metadata.py), never in
// a file. So a stored `\N` is a two-character value, and files from before
// and after the PR read alike.
func TestGoldenDeviceIDNullMarker(t *testing.T) {
	null := Segment{Null: true}
	v := func(s string) Segment { return Segment{Value: s} }
	for _, tc := range []struct {
		name  string
		segs  []Segment
		bytes []byte
	}{
		{"null then the value \\N", []Segment{v("t"), null, v(`\N`)}, []byte{3, 2, 't', 1, 4, '\\', 'N'}},
		// Were \N read as a null, this trailing segment would be dropped.
		{"trailing \\N is a value", []Segment{v("t"), v(`\N`)}, []byte{2, 2, 't', 4, '\\', 'N'}},
		{"the string null", []Segment{v("t"), v("null"), v("x")}, []byte{3, 2, 't', 8, 'n', 'u', 'l', 'l', 2, 'x'}},
		{"empty is not null", []Segment{v("t"), v(""), v("x")}, []byte{3, 2, 't', 0, 2, 'x'}},
		{"null", []Segment{v("t"), null, v("x")}, []byte{3, 2, 't', 1, 2, 'x'}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := DeviceIDFromSegments(tc.segs)
			require.Equal(t, tc.bytes, appendDeviceID(nil, id))
			d := newBuf(tc.bytes, 0, "t")
			got := d.deviceID(0)
			require.NoError(t, d.err)
			require.Zero(t, d.remaining())
			require.Equal(t, tc.segs, got.Segments())
			require.True(t, got.Equal(id))
		})
	}
	// The four spellings of the middle TAG are four devices; only String,
	// the display form and Bloom filter path, writes a null as "null" (as
	// upstream's toString and get_device_name do).
	ids := []DeviceID{
		DeviceIDFromSegments([]Segment{v("t"), null, v("x")}),
		NewDeviceID("t", `\N`, "x"),
		NewDeviceID("t", "null", "x"),
		NewDeviceID("t", "", "x"),
	}
	keys := map[string]bool{}
	for i, a := range ids {
		keys[a.Key()] = true
		for j, b := range ids {
			require.Equal(t, i == j, a.Equal(b), "%d %d", i, j)
		}
	}
	require.Len(t, keys, len(ids))
	require.Equal(t, "t.null.x", ids[0].String())
}

func TestDeviceIDCompare(t *testing.T) {
	null := DeviceIDFromSegments([]Segment{{Value: "t"}, {Null: true}, {Value: "a"}})
	ordered := []DeviceID{
		NewDeviceID("a"),
		NewDeviceID("t"),
		null,                 // null < non-null
		NewDeviceID("t", ""), // a shorter tuple first
		NewDeviceID("t", "", "a"),
		NewDeviceID("t", "a"),
		NewDeviceID("t", "a", "b"),
		NewDeviceID("t", "b"),
		// UTF-16 order, as the reference writer sorts: U+1F600 is the
		// surrogate pair D83D DE00, which sorts before U+FFFF although
		// its UTF-8 bytes sort after.
		NewDeviceID("t", "\U0001F600"),
		NewDeviceID("t", "\uffff"),
	}
	for i := range ordered {
		for j := range ordered {
			c := ordered[i].Compare(ordered[j])
			switch {
			case i < j:
				require.Negative(t, c, "%v < %v", ordered[i], ordered[j])
			case i > j:
				require.Positive(t, c, "%v > %v", ordered[i], ordered[j])
			default:
				require.Zero(t, c)
			}
		}
	}
	require.Equal(t, "t.null.a", null.String())
}

func TestGoldenStatistics(t *testing.T) {
	common := h([]byte{3}, be64(10), be64(30)) // count 3, start 10, end 30
	for _, tc := range []struct {
		typ   DataType
		bytes []byte
		want  Statistics
	}{
		{Boolean, h(common, []byte{1, 0}, be64(2)), Statistics{FirstBool: true, TrueCount: 2}},
		{Int32, h(common, be32(-5), be32(7), be32(1), be32(7), be64(3)), Statistics{MinInt: -5, MaxInt: 7, FirstInt: 1, LastInt: 7, SumInt: 3}},
		{Date, h(common, be32(20240101), be32(20241231), be32(20240101), be32(20241231), be64(40485332)), Statistics{MinInt: 20240101, MaxInt: 20241231, FirstInt: 20240101, LastInt: 20241231, SumInt: 40485332}},
		{Int64, h(common, be64(math.MinInt64), be64(math.MaxInt64), be64(0), be64(1), be64(int64(math.Float64bits(1.5)))), Statistics{MinInt: math.MinInt64, MaxInt: math.MaxInt64, LastInt: 1, Sum: 1.5}},
		{Timestamp, h(common, be64(1), be64(2), be64(1), be64(2), be64(int64(math.Float64bits(3)))), Statistics{MinInt: 1, MaxInt: 2, FirstInt: 1, LastInt: 2, Sum: 3}},
		{Float, h(common, be32(int32(math.Float32bits(-1.5))), be32(int32(math.Float32bits(2.25))), be32(int32(math.Float32bits(2.25))), be32(int32(math.Float32bits(-1.5))), be64(int64(math.Float64bits(0.75)))), Statistics{MinFloat: -1.5, MaxFloat: 2.25, FirstFloat: 2.25, LastFloat: -1.5, Sum: 0.75}},
		{Double, h(common, be64(int64(math.Float64bits(-1))), be64(int64(math.Float64bits(1e300))), be64(int64(math.Float64bits(0.5))), be64(int64(math.Float64bits(1e300))), be64(int64(math.Float64bits(1e300)))), Statistics{MinFloat: -1, MaxFloat: 1e300, FirstFloat: 0.5, LastFloat: 1e300, Sum: 1e300}},
		{Text, h(common, be32(1), []byte("a"), be32(2), []byte("zz")), Statistics{First: []byte("a"), Last: []byte("zz")}},
		{String, h(common, be32(1), []byte("m"), be32(1), []byte("b"), be32(1), []byte("a"), be32(1), []byte("z")), Statistics{First: []byte("m"), Last: []byte("b"), Min: []byte("a"), Max: []byte("z")}},
		{Blob, common, Statistics{}},
		{Object, common, Statistics{}},
		{Vector, common, Statistics{}},
	} {
		t.Run(tc.typ.String(), func(t *testing.T) {
			want := tc.want
			want.Type, want.Count, want.StartTime, want.EndTime = tc.typ, 3, 10, 30
			d := newBuf(tc.bytes, 0, "statistics")
			got := d.statistics(tc.typ)
			require.NoError(t, d.err)
			require.Zero(t, d.remaining())
			require.Equal(t, want, got)
			require.Equal(t, tc.bytes, want.AppendTo(nil))
			// Every truncation is an error, never a panic.
			for n := 0; n < len(tc.bytes); n++ {
				d := newBuf(tc.bytes[:n], 0, "statistics")
				d.statistics(tc.typ)
				require.ErrorIs(t, d.err, ErrCorrupt, "prefix %d", n)
			}
		})
	}
}

func TestGoldenChunkAndPageHeaders(t *testing.T) {
	// 0x85, measurement "" (VarString 00), data_size 0x4a, VECTOR,
	// UNCOMPRESSED, TS_2DIFF: the time chunk header of the upstream j01 file.
	b := []byte{0x85, 0x00, 0x4a, 0x06, 0x00, 0x04}
	d := newBuf(b, 24, "chunk header")
	ch := d.chunkHeader()
	require.NoError(t, d.err)
	require.Equal(t, ChunkHeader{Offset: 24, Marker: 0x85, DataSize: 0x4a, DataType: Vector, Compression: encoding.Uncompressed, Encoding: encoding.TS2Diff, HeaderSize: 6}, ch)
	require.True(t, ch.IsTimeChunk() && ch.SinglePage() && !ch.IsValueChunk())
	require.Equal(t, b, appendChunkHeader(nil, &ch))

	// Multi-page value chunk: 0x41 "s" data_size 300 (ac 02) INT32 SNAPPY RLE.
	b = []byte{0x41, 0x02, 's', 0xac, 0x02, 0x01, 0x01, 0x02}
	d = newBuf(b, 0, "chunk header")
	ch = d.chunkHeader()
	require.NoError(t, d.err)
	require.Equal(t, int64(300), ch.DataSize)
	require.True(t, ch.IsValueChunk() && !ch.SinglePage())
	require.Equal(t, encoding.Snappy, ch.Compression)
	require.Equal(t, encoding.RLE, ch.Encoding)

	// Its page header carries INT32 Statistics after the two sizes.
	st := h([]byte{2}, be64(5), be64(6), be32(1), be32(2), be32(1), be32(2), be64(3))
	pb := h([]byte{0x10, 0x0c}, st)
	pd := newBuf(pb, 8, "page header")
	ph := pd.pageHeader(&ch)
	require.NoError(t, pd.err)
	require.Equal(t, 16, ph.UncompressedSize)
	require.Equal(t, 12, ph.CompressedSize)
	require.Equal(t, len(pb), ph.HeaderSize)
	require.Equal(t, int64(2), ph.Statistics.Count)
	require.Equal(t, pb, appendPageHeader(nil, &ph))

	// An empty value page is a lone UVarInt 0.
	pd = newBuf([]byte{0x00}, 0, "page header")
	ph = pd.pageHeader(&ch)
	require.NoError(t, pd.err)
	require.True(t, ph.Empty())
	require.Equal(t, 1, ph.HeaderSize)

	// ...and is not valid in a time chunk or a non-aligned chunk.
	for _, m := range []byte{0x81, 0x01} {
		c := ChunkHeader{Marker: m, DataType: Int32}
		pd = newBuf([]byte{0x00}, 0, "page header")
		pd.pageHeader(&c)
		require.ErrorIs(t, pd.err, ErrCorrupt)
	}

	// Invalid headers.
	for name, bad := range map[string][]byte{
		"marker":        {0x07, 0x00, 0x00, 0x01, 0x00, 0x00},
		"time-not-vec":  {0x85, 0x00, 0x00, 0x02, 0x00, 0x04},
		"time-named":    {0x85, 0x02, 'x', 0x00, 0x06, 0x00, 0x04},
		"value-vector":  {0x45, 0x02, 'x', 0x00, 0x06, 0x00, 0x00},
		"type-unknown":  {0x05, 0x02, 'x', 0x00, 0x0d, 0x00, 0x00},
		"truncated":     {0x05, 0x02, 'x', 0x00},
		"name-too-long": {0x05, 0x7f, 'x'},
	} {
		d := newBuf(bad, 0, "chunk header")
		d.chunkHeader()
		require.ErrorIs(t, d.err, ErrCorrupt, name)
	}
}

func TestGoldenIndexNode(t *testing.T) {
	// LEAF_MEASUREMENT node: 2 children "a"@100, "b"@150, end 200, type 3.
	b := h([]byte{2, 2, 'a'}, be64(100), []byte{2, 'b'}, be64(150), be64(200), []byte{3})
	opts := (&ReadOptions{}).withDefaults()
	d := newBuf(b, 0, "index node")
	n := d.indexNode(&opts, false)
	require.NoError(t, d.err)
	require.Zero(t, d.remaining())
	require.Equal(t, LeafMeasurement, n.Type)
	require.Equal(t, []IndexEntry{{Measurement: "a", Offset: 100, End: 150}, {Measurement: "b", Offset: 150, End: 200}}, n.Entries)
	require.Equal(t, 0, n.findMeasurement("a"))
	require.Equal(t, 0, n.findMeasurement("az"))
	require.Equal(t, 1, n.findMeasurement("c"))
	require.Equal(t, -1, n.findMeasurement("0"))
	require.Equal(t, b, appendIndexNode(nil, &n))

	// LEAF_DEVICE node with DeviceID keys.
	db := h([]byte{2}, []byte{2, 2, 't', 2, 'a'}, be64(10), []byte{2, 2, 't', 2, 'b'}, be64(20), be64(30), []byte{1})
	d = newBuf(db, 0, "index node")
	n = d.indexNode(&opts, true)
	require.NoError(t, d.err)
	require.Equal(t, LeafDevice, n.Type)
	require.Equal(t, 1, n.findDevice(NewDeviceID("t", "c")))
	require.Equal(t, db, appendIndexNode(nil, &n))

	for name, bad := range map[string][]byte{
		"unsorted":      h([]byte{2, 2, 'b'}, be64(100), []byte{2, 'a'}, be64(150), be64(200), []byte{3}),
		"duplicate":     h([]byte{2, 2, 'a'}, be64(100), []byte{2, 'a'}, be64(150), be64(200), []byte{3}),
		"non-monotonic": h([]byte{2, 2, 'a'}, be64(150), []byte{2, 'b'}, be64(100), be64(200), []byte{3}),
		"past-end":      h([]byte{2, 2, 'a'}, be64(100), []byte{2, 'b'}, be64(250), be64(200), []byte{3}),
		"wrong-family":  h([]byte{2, 2, 'a'}, be64(100), []byte{2, 'b'}, be64(150), be64(200), []byte{1}),
		"bad-type":      h([]byte{2, 2, 'a'}, be64(100), []byte{2, 'b'}, be64(150), be64(200), []byte{9}),
		"empty":         h([]byte{0}, be64(200), []byte{3}),
		"huge-count":    h([]byte{0xff, 0xff, 0x03, 2, 'a'}, be64(100), be64(200), []byte{3}),
		"truncated":     h([]byte{2, 2, 'a'}, be64(100), []byte{2, 'b'}),
	} {
		d := newBuf(bad, 0, "index node")
		d.indexNode(&opts, false)
		require.ErrorIs(t, d.err, ErrCorrupt, name)
	}
}

func TestGoldenTsFileMetadata(t *testing.T) {
	// One table "t" whose device index root is a LEAF_DEVICE node with one
	// device ("t","x") at offset 9 ending at 20; a schema with a TAG and a
	// FIELD column; meta_offset 8; no Bloom filter; two properties, one
	// of them null and one holding non-UTF-8 bytes (Metadata.md example).
	node := h([]byte{1}, []byte{2, 2, 't', 2, 'x'}, be64(9), be64(20), []byte{1})
	col := func(name string, dt DataType, cat int32) []byte {
		return h(be32(int32(len(name))), []byte(name), []byte{byte(dt), 0, 0}, be32(0), be32(cat))
	}
	b := h(
		[]byte{1, 2, 't'}, node,
		[]byte{1, 2, 't', 2}, col("x", String, 0), col("v", Double, 1),
		be64(8),
		[]byte{0},
		[]byte{4}, // VarInt(2)
		[]byte{2, 'k'}, []byte{8, 0xff, 0xfe, 0x00, 0x80},
		[]byte{2, 'n'}, []byte{1},
	)
	opts := (&ReadOptions{}).withDefaults()
	d := newBuf(b, 0, "TsFileMetadata")
	m := d.fileMetadata(&opts)
	require.NoError(t, d.err)
	require.Zero(t, d.remaining())
	require.Equal(t, []string{"t"}, m.TableNames)
	require.Equal(t, int64(8), m.MetaOffset)
	require.Nil(t, m.Bloom)
	s := m.TableSchemas["t"]
	require.Equal(t, []Column{{Name: "x", DataType: String, Category: Tag}, {Name: "v", DataType: Double, Category: Field}}, s.Columns)
	v, ok := m.Property("k")
	require.True(t, ok)
	require.Equal(t, []byte{0xff, 0xfe, 0x00, 0x80}, v)
	_, ok = m.Property("n")
	require.False(t, ok)
	require.Equal(t, b, appendFileMetadata(nil, m))

	// A Bloom filter of 2 bytes, 16 bits, 3 hashes.
	bf := newBuf([]byte{2, 0x01, 0x80, 16, 3}, 0, "bloom")
	f := bf.bloomFilter()
	require.NoError(t, bf.err)
	require.Equal(t, 16, f.BitCount)
	require.Equal(t, 3, f.HashCount)
	for name, bad := range map[string][]byte{
		"zero-bits": {1, 0x01, 0, 3},
		"hashes":    {1, 0x01, 8, 9},
		"too-long":  {3, 1, 2, 3, 8, 1},
		"truncated": {4, 1, 2},
	} {
		bf := newBuf(bad, 0, "bloom")
		bf.bloomFilter()
		require.ErrorIs(t, bf.err, ErrCorrupt, name)
	}
}

func TestBloomHashMatchesReference(t *testing.T) {
	// Murmur3 x64-128 of the empty input with seed 0 is (0, 0).
	require.Equal(t, uint64(0), murmur3Sum(nil, 0))
	// A filter built by the upstream Java writer (j01) reports its own
	// series present; absence of random paths is reported for most.
	f, err := OpenFile("../../shared/interop/j01_table_all_types_plain.tsfile", nil)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			need.Skipf(t, "shared interop files not present")
		}
		t.Fatal(err)
	}
	defer f.Close()
	require.NotNil(t, f.Metadata.Bloom)
	for _, c := range []string{"c_bool", "c_int32", "c_text", "c_blob", "c_timestamp"} {
		for _, dev := range []DeviceID{NewDeviceID("weather", "north", "s01"), NewDeviceID("weather", "south", "s01")} {
			require.True(t, f.Metadata.Bloom.MayContain(seriesPath(dev, c)), "%s.%s", dev, c)
		}
	}
	absent := 0
	for i := 0; i < 100; i++ {
		if !f.Metadata.Bloom.MayContain(seriesPath(NewDeviceID("weather", "east", string(rune('a'+i%26))), "x"+string(rune('a'+i/26)))) {
			absent++
		}
	}
	require.Greater(t, absent, 80)
}
