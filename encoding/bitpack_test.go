package encoding

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// bitAt returns bit i of b, counting from the high bit of b[0].
func bitAt(b []byte, i uint) uint64 { return uint64(b[i/8]>>(7-i%8)) & 1 }

func TestReadBitsMatchesBitByBit(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for size := 1; size <= 20; size++ {
		src := make([]byte, size)
		for i := range src {
			src[i] = byte(r.Uint32())
		}
		total := uint(8 * size)
		for width := uint(1); width <= 64 && width <= total; width++ {
			for pos := uint(0); pos+width <= total; pos++ {
				var want uint64
				for i := range width {
					want = want<<1 | bitAt(src, pos+i)
				}
				require.Equal(t, want, readBits(src, pos, width), "size %d pos %d width %d", size, pos, width)
			}
		}
	}
}

func TestBitWriterMatchesBitByBit(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for width := uint(1); width <= 64; width++ {
		for _, n := range []int{1, 2, 7, 8, 9, 33} {
			vals := make([]uint64, n)
			w := bitWriter{buf: []byte{0xaa}} // must append, not overwrite
			for i := range vals {
				vals[i] = r.Uint64() >> (64 - width)
				w.write(vals[i], width)
			}
			got := w.finish()
			require.Equal(t, byte(0xaa), got[0])
			got = got[1:]
			require.Len(t, got, (n*int(width)+7)/8)
			for i, v := range vals {
				for b := range width {
					require.Equal(t, v>>(width-1-b)&1, bitAt(got, uint(i)*width+b), "width %d value %d bit %d", width, i, b)
				}
			}
			for b := uint(n) * width; b < uint(8*len(got)); b++ {
				require.Zero(t, bitAt(got, b), "padding bit %d", b)
			}
			for i, v := range vals {
				require.Equal(t, v, readBits(got, uint(i)*width, width))
			}
		}
	}
}

func TestUvarint32(t *testing.T) {
	tests := []struct {
		v    uint32
		want []byte
	}{
		{0, []byte{0x00}},
		{1, []byte{0x01}},
		{127, []byte{0x7f}},
		{128, []byte{0x80, 0x01}},
		{300, []byte{0xac, 0x02}}, // the example in Binary-Representation.md
		{1<<28 - 1, []byte{0xff, 0xff, 0xff, 0x7f}},
		{1 << 28, []byte{0x80, 0x80, 0x80, 0x80, 0x01}},
		{math.MaxUint32, []byte{0xff, 0xff, 0xff, 0xff, 0x0f}},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, appendUvarint32(nil, tt.v), "%d", tt.v)
		v, n := uvarint32(append(tt.want, 0x55)) // trailing bytes are not consumed
		require.Equal(t, tt.v, v)
		require.Equal(t, len(tt.want), n)
	}
	for _, bad := range [][]byte{{}, {0x80}, {0xff, 0xff, 0xff, 0xff}} {
		_, n := uvarint32(bad)
		require.Zero(t, n, "% x is truncated", bad)
	}
	for _, bad := range [][]byte{{0xff, 0xff, 0xff, 0xff, 0x10}, {0x80, 0x80, 0x80, 0x80, 0x80, 0x00}} {
		_, n := uvarint32(bad)
		require.Negative(t, n, "% x overflows", bad)
	}
}

func TestZigZag32(t *testing.T) {
	// Table from Binary-Representation.md.
	for _, tt := range []struct {
		v int32
		u uint32
	}{{0, 0}, {-1, 1}, {1, 2}, {-2, 3}, {math.MaxInt32, math.MaxUint32 - 1}, {math.MinInt32, math.MaxUint32}} {
		require.Equal(t, tt.u, zigzag32(tt.v))
		require.Equal(t, tt.v, unzigzag32(tt.u))
	}
}
