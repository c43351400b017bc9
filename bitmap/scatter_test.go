package bitmap

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func refScatter[T any](dst []T, packed []T, bm []byte, n int) int {
	var zero T
	j := 0
	for i := range n {
		if refGetMSB(bm, i) {
			dst[i] = packed[j]
			j++
		} else {
			dst[i] = zero
		}
	}
	return j
}

func refScatterOffsets(out []int32, base int32, packedEnds []int32, bm []byte, n int) int {
	out[0] = base
	j := 0
	for i := range n {
		out[i+1] = out[i]
		if refGetMSB(bm, i) {
			out[i+1] = base + packedEnds[j]
			j++
		}
	}
	return j
}

// pair has a pointer, so Scatter over it goes through the write-barrier
// aware copy and clear paths rather than plain memmove.
type pair struct {
	s string
	v int32
}

// scatterCase builds a random page: a bitmap with trailing garbage, the
// packed values 1..k (never the zero value, so a missed null is visible), and
// a destination pre-filled with non-zero garbage including past n.
type scatterCase struct {
	n      int
	bm     []byte
	k      int
	packed []int64
}

func newScatterCase(r *rand.Rand, n int, kind bitmapKind) scatterCase {
	bm := randBitmap(r, Bytes(n), kind)
	k := refCountMSB(bm, n)
	packed := make([]int64, k)
	for i := range packed {
		packed[i] = int64(i + 1)
	}
	return scatterCase{n: n, bm: bm, k: k, packed: packed}
}

func garbage[T any](n int, g T) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = g
	}
	return s
}

func checkScatter[T any](t *testing.T, c scatterCase, conv func(int64) T, g T) {
	t.Helper()
	// Garbage past len(packed) but inside its capacity must never be read.
	packed := garbage(c.k+4, g)[:c.k]
	for i, v := range c.packed {
		packed[i] = conv(v)
	}

	want := garbage(c.n+5, g)
	require.Equal(t, c.k, refScatter(want, packed, c.bm, c.n))

	got := garbage(c.n+5, g)
	require.Equal(t, c.k, Scatter(got, packed, c.bm, c.n))
	require.Equal(t, want, got, "Scatter n=%d bm=%x", c.n, c.bm)

	inPlace := garbage(c.n+5, g)
	copy(inPlace, packed)
	require.Equal(t, c.k, ScatterInPlace(inPlace, c.bm, c.n))
	require.Equal(t, want, inPlace, "ScatterInPlace n=%d bm=%x", c.n, c.bm)
}

func TestScatter(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	sizes := make([]int, 0, 320)
	for n := 0; n <= 300; n++ {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, 1000, 4095, 4096, 4097, 65536)
	for kind := range numKinds {
		t.Run(fmt.Sprintf("kind=%d", kind), func(t *testing.T) {
			for _, n := range sizes {
				c := newScatterCase(r, n, kind)
				checkScatter(t, c, func(v int64) int64 { return v }, int64(-1))
				checkScatter(t, c, func(v int64) int8 { return int8(v%127 + 1) }, int8(-1))
				checkScatter(t, c, func(v int64) string { return fmt.Sprint(v) }, "garbage")
				checkScatter(t, c, func(v int64) pair { return pair{fmt.Sprint(v), int32(v)} }, pair{"g", -1})
				checkScatter(t, c, func(v int64) [3]float64 { return [3]float64{float64(v), 1, 2} }, [3]float64{-1, -1, -1})
			}
		})
	}
}

// Explicit edge cases: k=0, k=n, and bitmaps whose last byte has garbage.
func TestScatterEdges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		bm     []byte
		n      int
		packed []int64
		want   []int64
	}{
		{"empty", nil, 0, nil, []int64{}},
		{"all null", []byte{0, 0}, 10, nil, make([]int64, 10)},
		{"all null garbage tail", []byte{0, 0x3F}, 10, nil, make([]int64, 10)},
		{"all present", []byte{0xFF, 0xC0}, 10, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"all present garbage tail", []byte{0xFF, 0xFF}, 10, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		{"golden", []byte{0b10110000, 0b01000000}, 10, []int64{1, 2, 3, 4}, []int64{1, 0, 2, 3, 0, 0, 0, 0, 0, 4}},
		{"last only", []byte{0, 0, 0b00000001}, 24, []int64{7}, append(make([]int64, 23), 7)},
		{"first only", []byte{0x80, 0, 0}, 24, []int64{7}, append([]int64{7}, make([]int64, 23)...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := garbage(tc.n+2, int64(-9))
			require.Equal(t, len(tc.packed), Scatter(got, tc.packed, tc.bm, tc.n))
			require.Equal(t, tc.want, got[:tc.n])
			require.Equal(t, []int64{-9, -9}, got[tc.n:], "dst beyond n untouched")

			inPlace := garbage(tc.n+2, int64(-9))
			copy(inPlace, tc.packed)
			require.Equal(t, len(tc.packed), ScatterInPlace(inPlace, tc.bm, tc.n))
			require.Equal(t, tc.want, inPlace[:tc.n])
			require.Equal(t, []int64{-9, -9}, inPlace[tc.n:])
		})
	}
}

func TestScatterOffsets(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	sizes := make([]int, 0, 320)
	for n := 0; n <= 300; n++ {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, 4097, 65536)
	for kind := range numKinds {
		for _, n := range sizes {
			bm := randBitmap(r, Bytes(n), kind)
			k := refCountMSB(bm, n)
			ends := make([]int32, k)
			var e int32
			for i := range ends {
				e += int32(r.IntN(4)) // Empty present values are legal.
				ends[i] = e
			}
			base := int32(r.IntN(1000))
			want := garbage(n+3, int32(-1))
			require.Equal(t, k, refScatterOffsets(want, base, ends, bm, n))
			got := garbage(n+3, int32(-1))
			require.Equal(t, k, ScatterOffsets(got, base, ends, bm, n))
			require.Equal(t, want, got, "kind=%d n=%d", kind, n)
		}
	}
}

func TestScatterOffsetsGolden(t *testing.T) {
	// Present values "a", "bc", "", "def" at positions 0, 2, 3, 9, appended
	// after 5 bytes already in the builder's data buffer.
	bm := []byte{0b10110000, 0b01000000}
	out := make([]int32, 11)
	require.Equal(t, 4, ScatterOffsets(out, 5, []int32{1, 3, 3, 6}, bm, 10))
	require.Equal(t, []int32{5, 6, 6, 8, 8, 8, 8, 8, 8, 8, 11}, out)

	allNull := make([]int32, 4)
	require.Equal(t, 0, ScatterOffsets(allNull, 42, nil, []byte{0x1F}, 3))
	require.Equal(t, []int32{42, 42, 42, 42}, allNull)

	empty := []int32{-1}
	require.Equal(t, 0, ScatterOffsets(empty, 3, nil, nil, 0))
	require.Equal(t, []int32{3}, empty)
}

func TestScatterPanics(t *testing.T) {
	bm := []byte{0xFF, 0x80}
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Scatter short bits", func() { Scatter(make([]int, 9), make([]int, 9), bm[:1], 9) }},
		{"Scatter short dst", func() { Scatter(make([]int, 8), make([]int, 9), bm, 9) }},
		{"Scatter short packed", func() { Scatter(make([]int, 9), make([]int, 8), bm, 9) }},
		{"Scatter short packed spare cap", func() { Scatter(make([]int, 9), make([]int, 8, 16), bm, 9) }},
		{"Scatter negative n", func() { Scatter(make([]int, 9), make([]int, 9), bm, -1) }},
		{"ScatterInPlace short bits", func() { ScatterInPlace(make([]int, 9), bm[:1], 9) }},
		{"ScatterInPlace short dst", func() { ScatterInPlace(make([]int, 8), bm, 9) }},
		{"ScatterOffsets short out", func() { ScatterOffsets(make([]int32, 9), 0, make([]int32, 9), bm, 9) }},
		{"ScatterOffsets short ends", func() { ScatterOffsets(make([]int32, 10), 0, make([]int32, 8), bm, 9) }},
		{"ScatterOffsets short bits", func() { ScatterOffsets(make([]int32, 10), 0, make([]int32, 9), bm[:1], 9) }},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Panics(t, tc.f) })
	}
	// Nothing may be written before the length check fails.
	dst := garbage(9, -1)
	require.Panics(t, func() { Scatter(dst, make([]int, 8), bm, 9) })
	require.Equal(t, garbage(9, -1), dst)
}
