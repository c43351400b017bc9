package bitmap

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Naive per-bit references. They deliberately share no code with the package.

func refGetMSB(b []byte, i int) bool { return b[i/8]>>(7-uint(i%8))&1 == 1 }
func refGetLSB(b []byte, i int) bool { return b[i/8]>>uint(i%8)&1 == 1 }

func refPutLSB(b []byte, i int, v bool) {
	if v {
		b[i/8] |= 1 << uint(i%8)
	} else {
		b[i/8] &^= 1 << uint(i%8)
	}
}

func refPutMSB(b []byte, i int, v bool) {
	if v {
		b[i/8] |= 0x80 >> uint(i%8)
	} else {
		b[i/8] &^= 0x80 >> uint(i%8)
	}
}

func refCountMSB(src []byte, n int) int {
	c := 0
	for i := range n {
		if refGetMSB(src, i) {
			c++
		}
	}
	return c
}

func refMSBToLSB(dst []byte, dstOff int, src []byte, n int) int {
	c := 0
	for i := range n {
		v := refGetMSB(src, i)
		refPutLSB(dst, dstOff+i, v)
		if v {
			c++
		}
	}
	return c
}

func refLSBToMSB(dst []byte, src []byte, srcOff, n int) int {
	c := 0
	nb := (n + 7) / 8
	for i := range nb {
		dst[i] = 0
	}
	for i := range n {
		v := refGetLSB(src, srcOff+i)
		refPutMSB(dst, i, v)
		if v {
			c++
		}
	}
	return c
}

// bitmapKind names a way of filling a random bitmap, so that runs of 0x00 and
// 0xFF bytes (the fast paths) are exercised as well as mixed bytes.
type bitmapKind int

const (
	kindRandom bitmapKind = iota
	kindZeros
	kindOnes
	kindSparse
	kindDense
	kindRuns
	numKinds
)

func randBitmap(r *rand.Rand, nbytes int, kind bitmapKind) []byte {
	b := make([]byte, nbytes)
	switch kind {
	case kindRandom:
		for i := range b {
			b[i] = byte(r.Uint32())
		}
	case kindZeros:
	case kindOnes:
		for i := range b {
			b[i] = 0xFF
		}
	case kindSparse, kindDense:
		for i := range nbytes * 8 {
			set := r.IntN(10) == 0
			if kind == kindDense {
				set = !set
			}
			if set {
				b[i/8] |= 0x80 >> uint(i%8)
			}
		}
	case kindRuns:
		for i := 0; i < nbytes; {
			l := 1 + r.IntN(20)
			var v byte
			switch r.IntN(3) {
			case 0:
				v = 0xFF
			case 1:
				v = 0
			default:
				v = byte(r.Uint32())
			}
			for ; l > 0 && i < nbytes; l-- {
				b[i] = v
				i++
			}
		}
	}
	return b
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestBytes(t *testing.T) {
	for _, tc := range []struct{ n, want int }{
		{0, 0}, {1, 1}, {7, 1}, {8, 1}, {9, 2}, {10, 2}, {16, 2}, {17, 3}, {65536, 8192},
	} {
		require.Equal(t, tc.want, Bytes(tc.n), "n=%d", tc.n)
	}
}

func TestSingleBitHelpers(t *testing.T) {
	for i := range 24 {
		lsb := make([]byte, 3)
		SetLSB(lsb, i)
		want := make([]byte, 3)
		want[i/8] = 1 << uint(i%8)
		require.Equal(t, want, lsb, "SetLSB(%d)", i)
		for j := range 24 {
			require.Equal(t, i == j, GetLSB(lsb, j), "GetLSB(%d) after SetLSB(%d)", j, i)
		}
		full := []byte{0xFF, 0xFF, 0xFF}
		ClearLSB(full, i)
		for j := range 24 {
			require.Equal(t, i != j, GetLSB(full, j), "GetLSB(%d) after ClearLSB(%d)", j, i)
		}

		msb := make([]byte, 3)
		SetMSB(msb, i)
		want = make([]byte, 3)
		want[i/8] = 0x80 >> uint(i%8)
		require.Equal(t, want, msb, "SetMSB(%d)", i)
		for j := range 24 {
			require.Equal(t, i == j, GetMSB(msb, j), "GetMSB(%d) after SetMSB(%d)", j, i)
		}
	}
}

func TestReverseEachByte(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		x := r.Uint64()
		require.Equal(t, bits.ReverseBytes64(bits.Reverse64(x)), reverseEachByte(x), "x=%#x", x)
	}
}

// The worked example of the TsFile spec (FileFormat/Nulls.md), with the Arrow
// bytes derived by hand: positions 0, 2, 3 -> 0b00001101, position 9 -> 0b10.
func TestGoldenNullsExample(t *testing.T) {
	src := []byte{0b10110000, 0b01000000}
	const n = 10

	require.Equal(t, 4, CountMSB(src, n))
	require.False(t, AllSetMSB(src, n))

	dst := make([]byte, 2)
	require.Equal(t, 4, MSBToLSB(dst, 0, src, n))
	require.Equal(t, []byte{0x0d, 0x02}, dst)

	var got []int
	for i := range n {
		if GetMSB(src, i) {
			got = append(got, i)
		}
	}
	require.Equal(t, []int{0, 2, 3, 9}, got)

	back := []byte{0xEE, 0xEE, 0xEE}
	require.Equal(t, 4, LSBToMSB(back, dst, 0, n))
	require.Equal(t, []byte{0b10110000, 0b01000000, 0xEE}, back, "trailing bits zero, byte past Bytes(n) untouched")

	vals := make([]int64, n)
	require.Equal(t, 4, Scatter(vals, []int64{10, 12, 13, 19}, src, n))
	require.Equal(t, []int64{10, 0, 12, 13, 0, 0, 0, 0, 0, 19}, vals)

	// The same page appended after 3 earlier positions in an Arrow buffer.
	dst = []byte{0b101, 0}
	require.Equal(t, 4, MSBToLSB(dst, 3, src, n))
	require.Equal(t, []byte{0x0d<<3 | 0b101, 0x02 << 3}, dst)
}

// Unused low-order bits of the last source byte must never leak into counts
// or converted output.
func TestTrailingGarbageIgnored(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  []byte
		n    int
		want int
		all  bool
	}{
		{"n=1 rest set", []byte{0xFF}, 1, 1, true},
		{"n=1 only garbage", []byte{0x7F}, 1, 0, false},
		{"n=10 garbage", []byte{0b10110000, 0b01111111}, 10, 4, false},
		{"n=10 all set", []byte{0xFF, 0b11011111}, 10, 10, true},
		{"n=7 garbage lsb", []byte{0xFF}, 7, 7, true},
		{"n=71", append(ones(8), 0b11111110|0x01), 71, 71, true},
		{"n=0", []byte{0xFF}, 0, 0, true},
		{"n=0 empty", nil, 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, CountMSB(tc.src, tc.n))
			require.Equal(t, tc.all, AllSetMSB(tc.src, tc.n))
			for off := range 9 {
				dst := make([]byte, Bytes(off+tc.n)+1)
				require.Equal(t, tc.want, MSBToLSB(dst, off, tc.src, tc.n))
				for i := off + tc.n; i < len(dst)*8; i++ {
					require.False(t, refGetLSB(dst, i), "off=%d: bit %d beyond n set", off, i)
				}
			}
		})
	}
}

func ones(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xFF
	}
	return b
}

func TestCountAndAllSet(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 300; n++ {
		for kind := range numKinds {
			src := randBitmap(r, Bytes(n), kind)
			want := refCountMSB(src, n)
			require.Equal(t, want, CountMSB(src, n), "n=%d kind=%d", n, kind)
			require.Equal(t, want == n, AllSetMSB(src, n), "n=%d kind=%d", n, kind)
		}
		// A single clear bit anywhere must defeat AllSetMSB.
		for i := range n {
			src := ones(Bytes(n))
			src[i/8] &^= 0x80 >> uint(i%8)
			require.False(t, AllSetMSB(src, n), "n=%d clear at %d", n, i)
			require.Equal(t, n-1, CountMSB(src, n))
		}
	}
}

// TestMSBToLSBExhaustive checks every dstOff in 0..17 and n in 0..200 against
// the per-bit reference, with random destination contents so that the
// preservation of bits outside [dstOff, dstOff+n) is checked too, and with
// destination slices both exactly as long as required and longer.
func TestMSBToLSBExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for dstOff := 0; dstOff <= 17; dstOff++ {
		for n := 0; n <= 200; n++ {
			for _, extra := range []int{0, 3} {
				kind := bitmapKind((dstOff + n + extra) % int(numKinds))
				src := randBitmap(r, Bytes(n), kind)
				dst := randBytes(r, Bytes(dstOff+n)+extra)
				want := slices.Clone(dst)
				wantC := refMSBToLSB(want, dstOff, src, n)
				gotC := MSBToLSB(dst, dstOff, src, n)
				require.Equal(t, wantC, gotC, "count dstOff=%d n=%d", dstOff, n)
				require.Equal(t, want, dst, "dstOff=%d n=%d extra=%d kind=%d", dstOff, n, extra, kind)
			}
		}
	}
}

func TestLSBToMSBExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for srcOff := 0; srcOff <= 17; srcOff++ {
		for n := 0; n <= 200; n++ {
			for _, extra := range []int{0, 3} {
				kind := bitmapKind((srcOff + n + extra) % int(numKinds))
				src := randBitmap(r, Bytes(srcOff+n), kind)
				dst := randBytes(r, Bytes(n)+extra)
				want := slices.Clone(dst)
				wantC := refLSBToMSB(want, src, srcOff, n)
				gotC := LSBToMSB(dst, src, srcOff, n)
				require.Equal(t, wantC, gotC, "count srcOff=%d n=%d", srcOff, n)
				require.Equal(t, want, dst, "srcOff=%d n=%d extra=%d kind=%d", srcOff, n, extra, kind)
				if n%8 != 0 {
					require.Zero(t, dst[n/8]&lowMask(uint(8-n%8)), "unused trailing bits must be zero")
				}
			}
		}
	}
}

// Converting to Arrow at some offset and back must reproduce the page bitmap
// with its trailing garbage removed.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 2000 {
		n := r.IntN(3000)
		off := r.IntN(130)
		src := randBitmap(r, Bytes(n), bitmapKind(r.IntN(int(numKinds))))
		arrow := randBytes(r, Bytes(off+n))
		c := MSBToLSB(arrow, off, src, n)
		back := make([]byte, Bytes(n))
		require.Equal(t, c, LSBToMSB(back, arrow, off, n))
		want := slices.Clone(src)
		if n%8 != 0 {
			want[n/8] &= highMask(n % 8)
		}
		require.Equal(t, want, back, "n=%d off=%d", n, off)
		require.Equal(t, refCountMSB(src, n), c)
	}
}

func TestLargeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for range 200 {
		n := r.IntN(1 << 16)
		off := r.IntN(1 << 10)
		src := randBitmap(r, Bytes(n), bitmapKind(r.IntN(int(numKinds))))
		dst := randBytes(r, Bytes(off+n))
		want := slices.Clone(dst)
		require.Equal(t, refMSBToLSB(want, off, src, n), MSBToLSB(dst, off, src, n))
		require.Equal(t, want, dst)
	}
}

func TestConvertPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"CountMSB short", func() { CountMSB(make([]byte, 1), 9) }},
		{"CountMSB negative", func() { CountMSB(nil, -1) }},
		{"AllSetMSB short", func() { AllSetMSB(make([]byte, 1), 9) }},
		{"MSBToLSB short src", func() { MSBToLSB(make([]byte, 8), 0, make([]byte, 1), 9) }},
		{"MSBToLSB short dst", func() { MSBToLSB(make([]byte, 2), 8, make([]byte, 2), 9) }},
		{"MSBToLSB negative off", func() { MSBToLSB(make([]byte, 2), -1, make([]byte, 2), 1) }},
		{"LSBToMSB short dst", func() { LSBToMSB(make([]byte, 1), make([]byte, 8), 0, 9) }},
		{"LSBToMSB short src", func() { LSBToMSB(make([]byte, 2), make([]byte, 2), 8, 9) }},
		{"LSBToMSB negative off", func() { LSBToMSB(make([]byte, 2), make([]byte, 2), -1, 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Panics(t, tc.f) })
	}
}

func TestZeroAllocs(t *testing.T) {
	const n = 4099
	r := rand.New(rand.NewPCG(13, 14))
	src := randBitmap(r, Bytes(n), kindRuns)
	dst := make([]byte, Bytes(n+5))
	back := make([]byte, Bytes(n))
	k := refCountMSB(src, n)
	packed := make([]int64, k)
	vals := make([]int64, n)
	strs := make([]string, n)
	packedStrs := make([]string, k)
	ends := make([]int32, k)
	offs := make([]int32, n+1)

	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"CountMSB", func() { CountMSB(src, n) }},
		{"AllSetMSB", func() { AllSetMSB(src, n) }},
		{"MSBToLSB aligned", func() { MSBToLSB(dst, 0, src, n) }},
		{"MSBToLSB offset", func() { MSBToLSB(dst, 5, src, n) }},
		{"LSBToMSB aligned", func() { LSBToMSB(back, dst, 0, n) }},
		{"LSBToMSB offset", func() { LSBToMSB(back, dst, 5, n) }},
		{"Scatter int64", func() { Scatter(vals, packed, src, n) }},
		{"Scatter string", func() { Scatter(strs, packedStrs, src, n) }},
		{"ScatterInPlace int64", func() { ScatterInPlace(vals, src, n) }},
		{"ScatterInPlace string", func() { ScatterInPlace(strs, src, n) }},
		{"ScatterOffsets", func() { ScatterOffsets(offs, 7, ends, src, n) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Zero(t, testing.AllocsPerRun(50, tc.f))
		})
	}
}
