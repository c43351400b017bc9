package bitmap

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzMSBToLSB checks MSBToLSB, LSBToMSB and CountMSB against the per-bit
// references for arbitrary bitmaps, destination contents and offsets.
func FuzzMSBToLSB(f *testing.F) {
	f.Add([]byte{0b10110000, 0b01000000}, []byte{0, 0, 0}, uint8(0), uint16(10))
	f.Add([]byte{0xFF, 0xFF, 0xFF}, []byte{0xAA, 0x55, 0xAA, 0x55}, uint8(3), uint16(21))
	f.Add(make([]byte, 20), []byte{0xFF}, uint8(17), uint16(150))
	f.Fuzz(func(t *testing.T, src, dstSeed []byte, off uint8, n16 uint16) {
		n := int(n16) % (len(src)*8 + 1)
		off1 := int(off) % 80
		src = src[:Bytes(n)]

		dst := make([]byte, Bytes(off1+n)+int(off)%3)
		for i := range dst {
			if len(dstSeed) > 0 {
				dst[i] = dstSeed[i%len(dstSeed)]
			}
		}
		want := slices.Clone(dst)
		wantC := refMSBToLSB(want, off1, src, n)
		require.Equal(t, wantC, MSBToLSB(dst, off1, src, n))
		require.Equal(t, want, dst)
		require.Equal(t, wantC, CountMSB(src, n))
		require.Equal(t, wantC == n, AllSetMSB(src, n))

		back := make([]byte, Bytes(n))
		wantBack := make([]byte, Bytes(n))
		require.Equal(t, refLSBToMSB(wantBack, dst, off1, n), LSBToMSB(back, dst, off1, n))
		require.Equal(t, wantBack, back)
	})
}

// FuzzScatter checks Scatter, ScatterInPlace and ScatterOffsets against the
// naive references for arbitrary bitmaps.
func FuzzScatter(f *testing.F) {
	f.Add([]byte{0b10110000, 0b01000000}, uint16(10), int32(5))
	f.Add([]byte{0xFF, 0xFF, 0, 0, 0xFF, 0x12}, uint16(47), int32(0))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF}, uint16(80), int32(-3))
	f.Fuzz(func(t *testing.T, bm []byte, n16 uint16, base int32) {
		n := int(n16) % (len(bm)*8 + 1)
		k := refCountMSB(bm, n)
		packed := make([]int64, k)
		ends := make([]int32, k)
		for i := range packed {
			packed[i] = int64(i) + 1
			ends[i] = int32(i * 3 % 7 * i) // Any values; monotonicity is not assumed.
		}
		base %= 1 << 20

		want := garbage(n+2, int64(-1))
		refScatter(want, packed, bm, n)

		got := garbage(n+2, int64(-1))
		require.Equal(t, k, Scatter(got, packed, bm, n))
		require.Equal(t, want, got)

		inPlace := garbage(n+2, int64(-1))
		copy(inPlace, packed)
		require.Equal(t, k, ScatterInPlace(inPlace, bm, n))
		require.Equal(t, want, inPlace)

		wantOff := garbage(n+2, int32(-1))
		refScatterOffsets(wantOff, base, ends, bm, n)
		gotOff := garbage(n+2, int32(-1))
		require.Equal(t, k, ScatterOffsets(gotOff, base, ends, bm, n))
		require.Equal(t, wantOff, gotOff)
	})
}
