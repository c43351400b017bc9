package encoding_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// naiveTS2Diff decodes a TS_2DIFF stream of values of size (4 or 8) bytes one bit at a time,
// straight from the layout in ../shared/spec/FileFormat/DataPages (the Java
// DeltaBinaryDecoder's): per block a big-endian int32 packNum and int32 packWidth, minDelta
// and first at the value's width, then packNum fields of packWidth bits, most significant bit
// first, padded to a byte. Each value is the previous plus minDelta plus its field, wrapping
// at the value's width. It shares no code with the decoder under test and takes no shortcut.
func naiveTS2Diff(t *testing.T, src []byte, size int) []uint64 {
	t.Helper()
	bitsOf := uint(8 * size)
	wrap := func(v uint64) uint64 { // truncate to the value's width, as Java's int arithmetic does
		if size == 4 {
			return uint64(uint32(v))
		}
		return v
	}
	field := func(b []byte) uint64 { // big-endian, size bytes
		var v uint64
		for _, c := range b[:size] {
			v = v<<8 | uint64(c)
		}
		return v
	}
	var out []uint64
	for off := 0; off < len(src); {
		require.GreaterOrEqual(t, len(src)-off, 8+2*size, "naive: header at %d", off)
		packNum := int(binary.BigEndian.Uint32(src[off:]))
		width := uint(binary.BigEndian.Uint32(src[off+4:]))
		require.LessOrEqual(t, width, bitsOf, "naive: width at %d", off)
		minDelta := field(src[off+8:])
		prev := field(src[off+8+size:])
		out = append(out, prev)
		pos := uint(8 * (off + 8 + 2*size)) // bit position in src
		for range packNum {
			var d uint64
			for range width {
				bit := src[pos/8] >> (7 - pos%8) & 1
				d = d<<1 | uint64(bit)
				pos++
			}
			prev = wrap(prev + minDelta + d)
			out = append(out, prev)
		}
		off = int((pos + 7) / 8)
	}
	return out
}

// msbWriter appends fields most significant bit first, one bit at a time.
type msbWriter struct {
	buf []byte
	n   uint // bits used in the last byte, 0 when it is full or absent
}

func (w *msbWriter) put(v uint64, width uint) {
	for i := int(width) - 1; i >= 0; i-- {
		if w.n == 0 {
			w.buf = append(w.buf, 0)
		}
		w.buf[len(w.buf)-1] |= byte(v>>uint(i)&1) << (7 - w.n)
		w.n = (w.n + 1) % 8
	}
}

// widthBlock builds one TS_2DIFF block of values of size bytes with packNum random fields of
// exactly width bits (the first field has its top bit set, so the block is as wide as it says)
// and random minDelta and first, with random bits in the padding of the last byte, which
// readers must ignore.
func widthBlock(r *rand.Rand, size int, width uint, packNum int) []byte {
	var hdr []byte
	hdr = binary.BigEndian.AppendUint32(hdr, uint32(packNum))
	hdr = binary.BigEndian.AppendUint32(hdr, uint32(width))
	if size == 4 {
		hdr = binary.BigEndian.AppendUint32(hdr, r.Uint32())
		hdr = binary.BigEndian.AppendUint32(hdr, r.Uint32())
	} else {
		hdr = binary.BigEndian.AppendUint64(hdr, r.Uint64())
		hdr = binary.BigEndian.AppendUint64(hdr, r.Uint64())
	}
	w := msbWriter{buf: hdr}
	for i := range packNum {
		var v uint64
		if width > 0 {
			v = r.Uint64() >> (64 - width)
			if i == 0 {
				v |= 1 << (width - 1)
			}
		}
		w.put(v, width)
	}
	if w.n != 0 {
		w.buf[len(w.buf)-1] |= byte(r.Uint32()) & (0xff >> w.n)
	}
	return w.buf
}

// TestTS2DiffEveryWidth decodes blocks of every bit width the value type allows (0-32 for
// INT32/DATE/FLOAT bits, 0-64 for INT64/TIMESTAMP/DOUBLE bits), of delta counts that end on
// and off the decoder's eight-byte fast-path boundary, and checks every decoder that shares
// the TS_2DIFF block reader against naiveTS2Diff. Widths above the fast path's limit
// (57-64) get the same coverage as the rest.
func TestTS2DiffEveryWidth(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 5))
	counts := []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 127, 128}
	for _, size := range []int{4, 8} {
		for width := uint(0); width <= uint(8*size); width++ {
			t.Run(fmt.Sprintf("size%d/width%d", size, width), func(t *testing.T) {
				// One stream per count, and one of all the counts' blocks in a row, so
				// blocks also start at every offset their predecessors leave.
				var all []byte
				streams := [][]byte{}
				for _, n := range counts {
					for range 3 {
						b := widthBlock(r, size, width, n)
						streams = append(streams, b)
						all = append(all, b...)
					}
				}
				streams = append(streams, all)
				for _, src := range streams {
					checkTS2DiffDecoders(t, src, size, naiveTS2Diff(t, src, size))
				}
			})
		}
	}
}

// checkTS2DiffDecoders decodes src with each exported decoder of TS_2DIFF blocks of values of
// size bytes and compares their bits with want: INT32/INT64, the C++ writer's raw-bits
// FLOAT/DOUBLE, and the Java FLOAT/DOUBLE layout (max_point_number 2, then the same blocks of
// the values times 100, each read back as Java does, value / 10^2).
func checkTS2DiffDecoders(t *testing.T, src []byte, size int, want []uint64) {
	t.Helper()
	n := len(want)
	if n == 0 {
		return
	}
	scaled := append([]byte{2}, src...) // UVarInt max_point_number 2
	if size == 4 {
		got := make([]int32, n)
		require.NoError(t, encoding.DecodeInt32(encoding.TS2Diff, got, src))
		gotF := make([]float32, n)
		require.NoError(t, encoding.DecodeTS2DiffFloat32Bits(gotF, src))
		gotS := make([]float32, n)
		require.NoError(t, encoding.DecodeFloat32(encoding.TS2Diff, gotS, scaled))
		for i := range want {
			require.Equal(t, uint32(want[i]), uint32(got[i]), "INT32 value %d of %d", i, n)
			require.Equal(t, uint32(want[i]), math.Float32bits(gotF[i]), "FLOAT bits value %d of %d", i, n)
			require.Equal(t, float32(float64(int32(want[i]))/100), gotS[i], "FLOAT scaled value %d of %d", i, n)
		}
		return
	}
	got := make([]int64, n)
	require.NoError(t, encoding.DecodeInt64(encoding.TS2Diff, got, src))
	all, err := encoding.AppendAllInt64(encoding.TS2Diff, nil, src)
	require.NoError(t, err)
	require.Len(t, all, n)
	gotF := make([]float64, n)
	require.NoError(t, encoding.DecodeTS2DiffFloat64Bits(gotF, src))
	gotS := make([]float64, n)
	require.NoError(t, encoding.DecodeFloat64(encoding.TS2Diff, gotS, scaled))
	for i := range want {
		require.Equal(t, want[i], uint64(got[i]), "INT64 value %d of %d", i, n)
		require.Equal(t, want[i], uint64(all[i]), "INT64 (AppendAll) value %d of %d", i, n)
		require.Equal(t, want[i], math.Float64bits(gotF[i]), "DOUBLE bits value %d of %d", i, n)
		require.Equal(t, float64(int64(want[i]))/100, gotS[i], "DOUBLE scaled value %d of %d", i, n)
	}
}

// TestTS2DiffWidthAboveType: a block wider than its value type is refused, never read.
func TestTS2DiffWidthAboveType(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 6))
	for _, size := range []int{4, 8} {
		for _, width := range []uint{uint(8*size) + 1, 65, 127} {
			b := widthBlock(r, size, min(width, 64), 3)
			binary.BigEndian.PutUint32(b[4:], uint32(width))
			b = append(b, make([]byte, 64)...) // room for the fields a wider block would claim
			var err error
			if size == 4 {
				err = encoding.DecodeInt32(encoding.TS2Diff, make([]int32, 4), b)
			} else {
				err = encoding.DecodeInt64(encoding.TS2Diff, make([]int64, 4), b)
			}
			require.ErrorContains(t, err, "bit width", "size %d width %d", size, width)
		}
	}
}

// TestNaiveTS2DiffSelfCheck keeps the naive decoder honest: it must give back what the
// encoder was given, including the hand-derived goldens.
func TestNaiveTS2DiffSelfCheck(t *testing.T) {
	for _, g := range ts2diffGolden64 {
		got := naiveTS2Diff(t, g.want, 8)
		require.Len(t, got, len(g.v), g.name)
		for i := range g.v {
			require.Equal(t, uint64(g.v[i]), got[i], "%s value %d", g.name, i)
		}
	}
	r := rand.New(rand.NewPCG(35, 7))
	for mode := range 6 {
		v := randomSeries(r, 300, mode)
		enc, err := encoding.AppendEncodedInt64(encoding.TS2Diff, nil, v)
		require.NoError(t, err)
		got := naiveTS2Diff(t, enc, 8)
		for i := range v {
			require.Equal(t, uint64(v[i]), got[i], "mode %d value %d", mode, i)
		}
	}
}
