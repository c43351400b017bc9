package encoding_test

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/testkit/need"
	"github.com/tsarrow/tsarrow/tsfile"
)

// The goldens are derived by hand from the Java DictionaryEncoder: ZigZag VarInt entry count,
// the entries in order of first appearance as ZigZag VarInt length and bytes, then the
// indices as one IntRleEncoder package: UVarInt package length, bit width (the widest
// index, at least 1), then runs. Fewer than eight indices make one bit-packed run: header
// (groups<<1)|1, the count of real values in the last group, and the group of eight
// width-bit fields (zero filled), most significant bit first. Eight or more equal values
// make a repeated run: header count<<1 and the value in ceil(width/8) little-endian bytes.
var dictGolden = []struct {
	name string
	v    []string
	want []byte
}{
	{
		name: "two entries",
		v:    []string{"a", "bb", "a"},
		want: []byte{
			0x04,      // 2 entries
			0x02, 'a', // length 1
			0x04, 'b', 'b', // length 2
			0x04,             // index package: 4 bytes
			0x01,             // width 1
			0x03, 0x03, 0x40, // one group, 3 real values: 0,1,0 = 0100_0000
		},
	},
	{
		name: "repeated value",
		v:    []string{"x", "x", "x", "x", "x", "x", "x", "x", "x", "x"},
		want: []byte{
			0x02, 0x02, 'x', // 1 entry of length 1
			0x03, 0x01, // 3 bytes, width 1
			0x14, 0x00, // ten zeros: header 10<<1, value 0 in one byte
		},
	},
	{
		name: "empty string",
		v:    []string{""},
		want: []byte{0x02, 0x00, 0x04, 0x01, 0x03, 0x01, 0x00},
	},
	{
		name: "width 2",
		v:    []string{"a", "bb", "a", ""},
		// indices 0,1,0,2 at 2 bits: 00 01 00 10 | 00 00 00 00
		want: []byte{0x06, 0x02, 'a', 0x04, 'b', 'b', 0x00, 0x05, 0x02, 0x03, 0x04, 0x12, 0x00},
	},
	{
		name: "non-UTF-8 bytes",
		v:    []string{"\xff\xfe", "\x00"},
		want: []byte{0x04, 0x04, 0xff, 0xfe, 0x02, 0x00, 0x04, 0x01, 0x03, 0x02, 0x40},
	},
	{
		name: "no values",
		v:    []string{},
		want: []byte{0x00, 0x00}, // an empty dictionary and an empty index package
	},
}

func dictBytes(v []string) [][]byte {
	out := make([][]byte, len(v))
	for i, s := range v {
		out[i] = []byte(s)
	}
	return out
}

// dictSplit turns Arrow-style offsets and data back into values.
func dictSplit(offsets []int32, data []byte) []string {
	out := make([]string, len(offsets)-1)
	for i := range out {
		out[i] = string(data[offsets[i]:offsets[i+1]])
	}
	return out
}

func TestDictionaryGolden(t *testing.T) {
	for _, g := range dictGolden {
		t.Run(g.name, func(t *testing.T) {
			got, err := encoding.AppendEncodedBinary(encoding.Dictionary, []byte{}, dictBytes(g.v))
			require.NoError(t, err)
			require.Equal(t, g.want, got)
			offsets, data, err := encoding.AppendBinary(encoding.Dictionary, []int32{0}, nil, len(g.v), g.want)
			require.NoError(t, err)
			require.Equal(t, g.v, dictSplit(offsets, data))
		})
	}
}

func TestDictionaryAppendsToExisting(t *testing.T) {
	offsets, data, err := encoding.AppendBinary(encoding.Dictionary, []int32{0, 3}, []byte("pre"), 3, dictGolden[0].want)
	require.NoError(t, err)
	require.Equal(t, []int32{0, 3, 4, 6, 7}, offsets)
	require.Equal(t, "preabba", string(data))
	// No values: nothing at all, or what the writer emits for an empty page.
	for _, src := range [][]byte{nil, {0, 0}} {
		offsets, data, err = encoding.AppendBinary(encoding.Dictionary, []int32{0}, nil, 0, src)
		require.NoError(t, err)
		require.Equal(t, []int32{0}, offsets)
		require.Empty(t, data)
	}
}

func dictSeries(r *rand.Rand, kind string, n int) [][]byte {
	v := make([][]byte, n)
	for i := range v {
		switch kind {
		case "few":
			v[i] = []byte([]string{"alpha", "beta", "gamma", "delta"}[r.IntN(4)])
		case "distinct":
			v[i] = fmt.Appendf(nil, "value-%d", i)
		case "empty strings":
			if r.IntN(3) > 0 {
				v[i] = []byte{}
			} else {
				v[i] = []byte("x")
			}
		case "long":
			v[i] = []byte(strings.Repeat(string(rune('a'+r.IntN(3))), 200+r.IntN(5000)))
		case "binary":
			b := make([]byte, r.IntN(12))
			for j := range b {
				b[j] = byte(r.Uint32()) | 0x80 // never valid UTF-8 on its own
			}
			v[i] = b
		case "constant":
			v[i] = []byte("same")
		default:
			panic(kind)
		}
	}
	return v
}

func TestDictionaryRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for _, kind := range []string{"few", "distinct", "empty strings", "long", "binary", "constant"} {
		for _, n := range regularLengths {
			v := dictSeries(r, kind, n)
			src, err := encoding.AppendEncodedBinary(encoding.Dictionary, nil, v)
			require.NoError(t, err)
			offsets, data, err := encoding.AppendBinary(encoding.Dictionary, []int32{0}, nil, n, src)
			require.NoError(t, err, "%s %d", kind, n)
			require.Len(t, offsets, n+1)
			for i := range v {
				require.Equal(t, string(v[i]), string(data[offsets[i]:offsets[i+1]]), "%s %d [%d]", kind, n, i)
			}
		}
	}
}

func TestDictionaryErrors(t *testing.T) {
	valid := dictGolden[0].want // 04 02 61 04 62 62 | 04 01 03 03 40
	tests := []struct {
		name string
		n    int
		src  []byte
	}{
		{"empty stream", 1, nil},
		{"negative size", 1, []byte{0x01, 0x02, 'a', 0x04, 0x01, 0x03, 0x01, 0x00}},
		{"huge size", 1, []byte{0xfe, 0xff, 0xff, 0xff, 0x0f, 0x02, 'a'}},
		{"size overflows 32 bits", 1, []byte{0xfe, 0xff, 0xff, 0xff, 0x1f, 0x02, 'a'}},
		{"negative entry length", 1, []byte{0x02, 0x01, 'a', 0x04, 0x01, 0x03, 0x01, 0x00}},
		{"huge entry length", 1, []byte{0x02, 0xfe, 0xff, 0xff, 0xff, 0x0f, 'a'}},
		{"entry overruns", 1, []byte{0x02, 0x06, 'a', 'b'}},
		// indices 0,1,0 but a dictionary of one entry.
		{"index out of range", 3, []byte{0x02, 0x02, 'a', 0x04, 0x01, 0x03, 0x03, 0x40}},
		// index 2 (width 2: 10 then padding) among two entries.
		{"index at size", 1, []byte{0x04, 0x02, 'a', 0x02, 'b', 0x05, 0x02, 0x03, 0x01, 0x80, 0x00}},
		// a negative index: width 32, value 0xffffffff repeated eight times.
		{"negative index", 8, []byte{0x02, 0x02, 'a', 0x06, 0x20, 0x10, 0xff, 0xff, 0xff, 0xff}},
		{"trailing garbage", 3, append(append([]byte{}, valid...), 0)},
		{"too many values", 4, valid},
		{"too few values", 2, valid},
		{"no indices", 1, []byte{0x02, 0x02, 'a'}},
		{"indices of nothing", 1, []byte{0x00, 0x04, 0x01, 0x03, 0x01, 0x00}},
	}
	for i := range len(valid) {
		tests = append(tests, struct {
			name string
			n    int
			src  []byte
		}{"truncated", 3, valid[:i]})
	}
	for _, tt := range tests {
		offsets, data := make([]int32, 1, 16), make([]byte, 2, 64)
		gotOffsets, gotData, err := encoding.AppendBinary(encoding.Dictionary, offsets, data, tt.n, tt.src)
		require.ErrorIs(t, err, encoding.ErrCorrupt, "%s: %x", tt.name, tt.src)
		require.NotErrorIs(t, err, encoding.ErrUnsupported, tt.name)
		require.Contains(t, err.Error(), "DICTIONARY BINARY ", tt.name)
		require.Len(t, gotOffsets, 1, tt.name)
		require.Len(t, gotData, 2, tt.name)
	}
	_, _, err := encoding.AppendBinary(encoding.Dictionary, nil, nil, -1, valid)
	require.ErrorIs(t, err, encoding.ErrCorrupt)
}

func TestDictionaryDataLimit(t *testing.T) {
	restore := encoding.SetMaxBinaryData(5)
	defer restore()
	// The values are "a", "bb", "a": four bytes.
	_, _, err := encoding.AppendBinary(encoding.Dictionary, []int32{0}, []byte("ab"), 3, dictGolden[0].want)
	require.ErrorIs(t, err, encoding.ErrUnsupported)
	require.NotErrorIs(t, err, encoding.ErrCorrupt)
	_, _, err = encoding.AppendBinary(encoding.Dictionary, []int32{0}, []byte("a"), 3, dictGolden[0].want)
	require.NoError(t, err) // exactly 5 bytes
}

func TestDictionaryUnsupportedTypes(t *testing.T) {
	require.ErrorIs(t, encoding.DecodeInt32(encoding.Dictionary, make([]int32, 1), []byte{0}), encoding.ErrUnsupported)
	_, err := encoding.AppendEncodedInt64(encoding.Dictionary, nil, []int64{1})
	require.ErrorIs(t, err, encoding.ErrUnsupported)
}

func dictBenchValues() [][]byte {
	r := rand.New(rand.NewPCG(53, 54))
	words := make([]string, 50)
	for i := range words {
		words[i] = fmt.Sprintf("device-%02d-status-%d", i, r.IntN(1000))
	}
	v := make([][]byte, benchValues)
	for i := range v {
		v[i] = []byte(words[r.IntN(len(words))])
	}
	return v
}

func TestDictionaryDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	v := dictBenchValues()
	src, err := encoding.AppendEncodedBinary(encoding.Dictionary, nil, v)
	require.NoError(t, err)
	offsets, data := make([]int32, 1, len(v)+1), make([]byte, 0, 32*len(v))
	require.Zero(t, testing.AllocsPerRun(20, func() {
		if _, _, err := encoding.AppendBinary(encoding.Dictionary, offsets, data, len(v), src); err != nil {
			panic(err)
		}
	}))
	buf := make([]byte, 0, 2*len(src))
	require.Zero(t, testing.AllocsPerRun(20, func() {
		if _, err := encoding.AppendEncodedBinary(encoding.Dictionary, buf, v); err != nil {
			panic(err)
		}
	}))
}

// TestDictionaryInteropFile reads the DICTIONARY/LZ4 column s_string of a file the Java writer
// produced and compares it with the file's expected rows.
func TestDictionaryInteropFile(t *testing.T) {
	const dir = "../../shared/interop/"
	f, err := tsfile.OpenFile(dir+"j10_tree_nonaligned.tsfile", nil)
	if errors.Is(err, os.ErrNotExist) {
		need.Skipf(t, "interop files not present")
	}
	require.NoError(t, err)
	defer f.Close()

	want := map[string]map[int64]string{} // device -> time -> s_string
	fh, err := os.Open(dir + "j10_tree_nonaligned.expected.csv.gz")
	require.NoError(t, err)
	defer fh.Close()
	gz, err := gzip.NewReader(fh)
	require.NoError(t, err)
	rows, err := csv.NewReader(bufio.NewReader(gz)).ReadAll()
	require.NoError(t, err)
	col := -1
	for i, name := range rows[0] {
		if name == "s_string" {
			col = i
		}
	}
	require.NotEqual(t, -1, col)
	for _, row := range rows[1:] {
		if row[col] == "" {
			continue // null: no point in a non-aligned series
		}
		if want[row[1]] == nil {
			want[row[1]] = map[int64]string{}
		}
		var ts int64
		_, err := fmt.Sscan(row[0], &ts)
		require.NoError(t, err)
		want[row[1]][ts] = row[col]
	}

	devices := map[string]tsfile.DeviceID{}
	for _, tb := range f.Tables() {
		devs, err := f.Devices(tb)
		require.NoError(t, err)
		for _, d := range devs {
			devices[d.String()] = d
		}
	}
	checked := 0
	for dev, points := range want {
		id, ok := devices[dev]
		require.True(t, ok, dev)
		ts, err := f.SeriesByName(id, "s_string")
		require.NoError(t, err, dev)
		require.NotNil(t, ts, dev)
		h, err := f.ReadChunkHeader(ts.Chunks[0].Offset)
		require.NoError(t, err, dev)
		require.Equal(t, encoding.Dictionary, h.Encoding, dev)
		times, vals, err := f.ReadNonAligned(ts)
		if errors.Is(err, encoding.ErrUnsupported) {
			t.Skipf("reading %s needs a codec not present in this build: %v", dev, err)
		}
		require.NoError(t, err, dev)
		require.Len(t, times, len(points), dev)
		for i, tm := range times {
			require.Equal(t, points[tm], string(vals.Binaries[i]), "%s at %d", dev, tm)
			checked++
		}
	}
	require.Greater(t, checked, 20000)
}

// FuzzDecodeBinaryDictionary takes the value count from the input's first two bytes.
func FuzzDecodeBinaryDictionary(f *testing.F) {
	for _, g := range dictGolden {
		f.Add(append([]byte{0, byte(len(g.v))}, g.want...))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		n, src := int(in[0])<<8|int(in[1]), in[2:]
		offsets, data, err := encoding.AppendBinary(encoding.Dictionary, []int32{0}, nil, n, src)
		requireSentinel(t, err)
		if err != nil {
			require.Equal(t, []int32{0}, offsets)
			require.Empty(t, data)
			return
		}
		require.Len(t, offsets, n+1)
		vals := make([][]byte, n)
		for i := range vals {
			vals[i] = data[offsets[i]:offsets[i+1]]
		}
		re, err := encoding.AppendEncodedBinary(encoding.Dictionary, nil, vals)
		require.NoError(t, err)
		offsets2, data2, err := encoding.AppendBinary(encoding.Dictionary, []int32{0}, nil, n, re)
		require.NoError(t, err)
		require.Equal(t, offsets, offsets2)
		require.Equal(t, data, data2)
	})
}

func BenchmarkDecodeBinaryDictionary(b *testing.B) {
	v := dictBenchValues()
	src, err := encoding.AppendEncodedBinary(encoding.Dictionary, nil, v)
	require.NoError(b, err)
	offsets, data := make([]int32, 1, len(v)+1), make([]byte, 0, 32*len(v))
	out, _, err := encoding.AppendBinary(encoding.Dictionary, offsets, data, len(v), src)
	require.NoError(b, err)
	// The decoded output: the values' bytes and one int32 offset per value.
	b.SetBytes(int64(out[len(out)-1]) + 4*int64(len(v)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := encoding.AppendBinary(encoding.Dictionary, offsets, data, len(v), src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMemcpyDictionaryBaseline copies as many bytes as BenchmarkDecodeBinaryDictionary
// produces.
func BenchmarkMemcpyDictionaryBaseline(b *testing.B) {
	n := 4 * len(dictBenchValues())
	for _, x := range dictBenchValues() {
		n += len(x)
	}
	src, dst := make([]byte, n), make([]byte, n)
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		copy(dst, src)
	}
}
