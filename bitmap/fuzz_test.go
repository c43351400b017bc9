package bitmap

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// The seeds are committed under testdata/fuzz/<target>/ so that go test
// replays them without -fuzz; regenerate them with
//
//	go test ./bitmap -run '^Fuzz' -args -write-fuzz-corpus

var writeFuzzCorpus = flag.Bool("write-fuzz-corpus", false, "write each Fuzz target's named seeds to testdata/fuzz/<target>/")

// addSeed adds a seed to f and, with -write-fuzz-corpus, writes it to the
// target's corpus directory in the fuzzer's file format, so that the
// committed corpus and the f.Add seeds cannot drift apart.
func addSeed(f *testing.F, name string, args ...any) {
	f.Helper()
	f.Add(args...)
	if !*writeFuzzCorpus {
		return
	}
	b := []byte("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case []byte:
			b = fmt.Appendf(b, "[]byte(%q)\n", v)
		case byte:
			b = fmt.Appendf(b, "byte(%q)\n", v)
		case uint16, int32:
			b = fmt.Appendf(b, "%T(%v)\n", v, v)
		default:
			f.Fatalf("addSeed: unsupported type %T", a)
		}
	}
	dir := filepath.Join("testdata", "fuzz", f.Name())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		f.Fatal(err)
	}
}

// pageBitmap is the MSB-first present bitmap of a page of n rows where
// every third row and a run in the middle are null, as aligned value pages
// carry them.
func pageBitmap(n int) []byte {
	b := make([]byte, Bytes(n))
	for i := 0; i < n; i++ {
		if i%3 != 0 && (i < n/3 || i > n/2) {
			b[i/8] |= 0x80 >> (i % 8)
		}
	}
	return b
}

// FuzzMSBToLSB checks MSBToLSB, LSBToMSB and CountMSB against the per-bit
// references for arbitrary bitmaps, destination contents and offsets.
func FuzzMSBToLSB(f *testing.F) {
	addSeed(f, "ten", []byte{0b10110000, 0b01000000}, []byte{0, 0, 0}, uint8(0), uint16(10))
	addSeed(f, "all-set-offset", []byte{0xFF, 0xFF, 0xFF}, []byte{0xAA, 0x55, 0xAA, 0x55}, uint8(3), uint16(21))
	addSeed(f, "all-clear-offset", make([]byte, 20), []byte{0xFF}, uint8(17), uint16(150))
	addSeed(f, "page", pageBitmap(1000), []byte{0}, uint8(5), uint16(1000))
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
	addSeed(f, "ten", []byte{0b10110000, 0b01000000}, uint16(10), int32(5))
	addSeed(f, "mixed", []byte{0xFF, 0xFF, 0, 0, 0xFF, 0x12}, uint16(47), int32(0))
	addSeed(f, "last-byte", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF}, uint16(80), int32(-3))
	addSeed(f, "page", pageBitmap(1000), uint16(1000), int32(1<<19))
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
