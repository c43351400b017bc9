package encoding

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

type xorField struct {
	v uint64
	k uint
}

// xorRandomFields returns fields of random widths 0..64 with random values of that width.
func xorRandomFields(r *rand.Rand, n int) []xorField {
	fs := make([]xorField, n)
	for i := range fs {
		k := uint(r.IntN(65))
		if r.IntN(3) == 0 {
			k = uint(57 + r.IntN(8)) // the two-load case of the reader
		}
		fs[i] = xorField{r.Uint64() & (^uint64(0) >> (64 - k)), k}
		if k == 0 {
			fs[i].v = 0
		}
	}
	return fs
}

func TestXORWriterReaderRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		fs := xorRandomFields(r, r.IntN(100))
		prefix := []byte{0xaa, 0xbb}[:trial%3%2] // the writer appends to what dst holds
		w := xorWriter{buf: prefix}
		total := 0
		for _, f := range fs {
			// Bits above the width must be ignored.
			w.write(f.v|^(^uint64(0)>>(64-f.k))&r.Uint64(), f.k)
			total += int(f.k)
		}
		w.padToByte()
		buf := w.finish()
		require.Len(t, buf, len(prefix)+(total+7)/8)
		require.Equal(t, prefix, buf[:len(prefix)])

		rd := newXORReader(buf, len(prefix))
		for i, f := range fs {
			require.Equal(t, f.v, rd.read(f.k), "trial %d field %d width %d", trial, i, f.k)
		}
		require.Equal(t, 8*len(prefix)+total, rd.consumed())
		require.False(t, rd.overrun())
		// The padding reads as zeros, and so does everything past the end.
		rd.read(uint((8 - total%8) % 8))
		require.False(t, rd.overrun())
		if len(fs) > 0 {
			require.Equal(t, uint64(0), rd.read(64))
			require.True(t, rd.overrun())
		}
	}
}

func TestXORReaderSingleBits(t *testing.T) {
	src := []byte{0b1010_0000, 0xff, 0x01}
	rd := newXORReader(src, 0)
	var got []uint64
	for range 24 {
		got = append(got, rd.read(1))
	}
	require.Equal(t, []uint64{1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1}, got)
	require.False(t, rd.overrun())
	require.Equal(t, uint64(0), rd.read(1))
	require.True(t, rd.overrun())
}

func TestXORWriterFlipAndPad(t *testing.T) {
	tests := []struct {
		name      string
		bits      uint
		flip, pad []byte
	}{
		{"aligned", 8, []byte{0xff, 0x00}, []byte{0xff}},
		{"one bit", 1, []byte{0x80}, []byte{0x80}},
		{"seven bits", 7, []byte{0xfe}, []byte{0xfe}},
		{"nothing", 0, []byte{0x00}, []byte{}},
		{"64 bits", 64, append(make([]byte, 0, 9), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := xorWriter{buf: []byte{}}
			w.write(math.MaxUint64, tt.bits)
			w.flip()
			require.Equal(t, tt.flip, w.finish())
			w = xorWriter{buf: []byte{}}
			w.write(math.MaxUint64, tt.bits)
			w.padToByte()
			require.Equal(t, tt.pad, w.finish())
		})
	}
}

func TestXORCheckPadding(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
		c    int
		size int
		off  int
		ok   bool
	}{
		{"exact", []byte{0xf0}, 4, 1, 0, true},
		{"zero padding byte", []byte{0xff, 0x00}, 8, 2, 0, true},
		{"no padding", []byte{0xff}, 8, 1, 0, true},
		{"set padding bit", []byte{0xf8}, 4, 1, 0, false},
		{"set low bit", []byte{0xff, 0x01}, 8, 2, 1, false},
		{"too short", []byte{0xff}, 8, 2, 1, false},
		{"too long", []byte{0xff, 0, 0}, 8, 2, 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			off, what, ok := xorCheckPadding(tt.src, tt.c, tt.size)
			require.Equal(t, tt.ok, ok, what)
			if !ok {
				require.Equal(t, tt.off, off)
				require.NotEmpty(t, what)
			}
		})
	}
}

func TestXORBitsViews(t *testing.T) {
	f32 := []float32{math.Float32frombits(0x7fc00001), float32(math.Copysign(0, -1)), float32(math.Inf(-1))}
	require.Equal(t, []uint32{0x7fc00001, 0x80000000, 0xff800000}, xorBitsFloat32(f32))
	f64 := []float64{math.Float64frombits(0x7ff0000000000001), math.Copysign(0, -1)}
	require.Equal(t, []uint64{0x7ff0000000000001, 1 << 63}, xorBitsFloat64(f64))
	require.Equal(t, []uint32{0xffffffff, 1 << 31}, xorBitsInt32([]int32{-1, math.MinInt32}))
	require.Equal(t, []uint64{math.MaxUint64, 1 << 63}, xorBitsInt64([]int64{-1, math.MinInt64}))
	// Writes through a view land in the original slice.
	xorBitsFloat64(f64)[1] = 0x3ff0000000000000
	require.Equal(t, 1.0, f64[1])
	require.Empty(t, xorBitsFloat32(nil))
	require.Empty(t, xorBitsInt64([]int64{}))
	require.Equal(t, uint(32), xorWidth[uint32]())
	require.Equal(t, uint(64), xorWidth[uint64]())
}

func TestChimpLeadTables(t *testing.T) {
	for n := range 65 {
		l := chimpRound[n]
		require.LessOrEqual(t, int(l), n)
		require.Equal(t, l, chimpLeads[chimpCode[n]])
		for _, other := range chimpLeads {
			if int(other) <= n {
				require.LessOrEqual(t, other, l, "%d rounds to the largest lead not above it", n)
			}
		}
	}
	require.Equal(t, uint8(18), chimpRound[19])
	require.Equal(t, uint8(24), chimpRound[64])
	require.Equal(t, uint8(0), chimpRound[7])
}
