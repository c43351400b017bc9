package bitmap

import (
	"math/rand/v2"
	"testing"
)

const benchN = 65536

// naiveMSBToLSB is the obvious per-bit loop, kept as a baseline so the
// benchmark output shows the word-at-a-time speedup as a ratio.
func naiveMSBToLSB(dst []byte, dstOff int, src []byte, n int) int {
	c := 0
	for i := range n {
		p := dstOff + i
		if src[i>>3]&(0x80>>uint(i&7)) != 0 {
			dst[p>>3] |= 1 << uint(p&7)
			c++
		} else {
			dst[p>>3] &^= 1 << uint(p&7)
		}
	}
	return c
}

// naiveScatter is the obvious per-position loop baseline.
func naiveScatter[T any](dst []T, packed []T, bm []byte, n int) int {
	var zero T
	j := 0
	for i := range n {
		if bm[i>>3]&(0x80>>uint(i&7)) != 0 {
			dst[i] = packed[j]
			j++
		} else {
			dst[i] = zero
		}
	}
	return j
}

var sink int

func BenchmarkMSBToLSB(b *testing.B) {
	r := rand.New(rand.NewPCG(31, 32))
	src := randBitmap(r, Bytes(benchN), kindRandom)
	dst := make([]byte, Bytes(benchN+8))
	for _, bc := range []struct {
		name string
		off  int
		f    func([]byte, int, []byte, int) int
	}{
		{"aligned", 0, MSBToLSB},
		{"offset3", 3, MSBToLSB},
		{"naive/aligned", 0, naiveMSBToLSB},
		{"naive/offset3", 3, naiveMSBToLSB},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				sink += bc.f(dst, bc.off, src, benchN)
			}
		})
	}
}

func BenchmarkLSBToMSB(b *testing.B) {
	r := rand.New(rand.NewPCG(33, 34))
	src := randBitmap(r, Bytes(benchN+8), kindRandom)
	dst := make([]byte, Bytes(benchN))
	for _, off := range []int{0, 3} {
		b.Run(map[int]string{0: "aligned", 3: "offset3"}[off], func(b *testing.B) {
			b.SetBytes(int64(len(dst)))
			for b.Loop() {
				sink += LSBToMSB(dst, src, off, benchN)
			}
		})
	}
}

func BenchmarkCountMSB(b *testing.B) {
	src := randBitmap(rand.New(rand.NewPCG(35, 36)), Bytes(benchN), kindRandom)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		sink += CountMSB(src, benchN)
	}
}

// benchPages builds pages of benchN positions with bitmaps of the given kind
// and their packed values. Benchmarks cycle through several pages because a
// modern branch predictor learns a single repeated 65536-bit bitmap and makes
// branchy code look far faster than it is on real data.
func benchPages(kind bitmapKind) (bms [8][]byte, packs [8][]int64) {
	r := rand.New(rand.NewPCG(37, uint64(kind)))
	for t := range bms {
		bms[t] = randBitmap(r, Bytes(benchN), kind)
		packs[t] = make([]int64, refCountMSB(bms[t], benchN))
		for i := range packs[t] {
			packs[t][i] = int64(i)
		}
	}
	return bms, packs
}

var benchShapes = []struct {
	name string
	kind bitmapKind
}{
	{"random50", kindRandom},
	{"dense90", kindDense},
	{"sparse10", kindSparse},
	{"runs", kindRuns},
	{"allPresent", kindOnes},
}

// BenchmarkScatterInt64 scatters 65536-position int64 pages for bitmaps of
// different shapes; the naive/ variants run the per-position loop on the same
// inputs, and inPlace/ includes the copy that puts the packed values at the
// front of dst. Bytes are counted as output values written.
func BenchmarkScatterInt64(b *testing.B) {
	dst := make([]int64, benchN)
	for _, sh := range benchShapes {
		bms, packs := benchPages(sh.kind)
		b.Run(sh.name, func(b *testing.B) {
			b.SetBytes(benchN * 8)
			t := 0
			for b.Loop() {
				sink += Scatter(dst, packs[t&7], bms[t&7], benchN)
				t++
			}
		})
		b.Run("naive/"+sh.name, func(b *testing.B) {
			b.SetBytes(benchN * 8)
			t := 0
			for b.Loop() {
				sink += naiveScatter(dst, packs[t&7], bms[t&7], benchN)
				t++
			}
		})
		b.Run("inPlace/"+sh.name, func(b *testing.B) {
			b.SetBytes(benchN * 8)
			t := 0
			for b.Loop() {
				copy(dst, packs[t&7])
				sink += ScatterInPlace(dst, bms[t&7], benchN)
				t++
			}
		})
	}
}

func naiveScatterOffsets(out []int32, base int32, packedEnds []int32, bm []byte, n int) int {
	out[0] = base
	j := 0
	for i := range n {
		out[i+1] = out[i]
		if bm[i>>3]&(0x80>>uint(i&7)) != 0 {
			out[i+1] = base + packedEnds[j]
			j++
		}
	}
	return j
}

func BenchmarkScatterOffsets(b *testing.B) {
	out := make([]int32, benchN+1)
	for _, sh := range benchShapes[:4] {
		bms, packs := benchPages(sh.kind)
		var ends [8][]int32
		for t := range ends {
			ends[t] = make([]int32, len(packs[t]))
			for i := range ends[t] {
				ends[t][i] = int32(i * 5)
			}
		}
		for _, impl := range []struct {
			name string
			f    func([]int32, int32, []int32, []byte, int) int
		}{{"", ScatterOffsets}, {"naive/", naiveScatterOffsets}} {
			b.Run(impl.name+sh.name, func(b *testing.B) {
				b.SetBytes(benchN * 4)
				t := 0
				for b.Loop() {
					sink += impl.f(out, 100, ends[t&7], bms[t&7], benchN)
					t++
				}
			})
		}
	}
}
