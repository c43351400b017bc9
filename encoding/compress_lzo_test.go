package encoding_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// The LZO golden vectors in testdata/lzo were made by testdata/lzo/gen.c (its comment says
// how) with liblzo2's lzo1x_1 and lzo1x_999 compressors and with lzokay, the compressor of
// the C++ TsFile writer. lzoVectorInput rebuilds each input exactly as gen.c does, and
// testdata/lzo/manifest.txt holds each input's length and CRC-32 so that a drift between
// the two is caught before any decoding is compared.

var lzoMethods = []string{"1", "999", "lzokay"}

// lzoRand is gen.c's xorshift32 generator.
type lzoRand uint32

func (r *lzoRand) next() uint32 {
	x := uint32(*r)
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	*r = lzoRand(x)
	return x
}

func lzoRandBytes(b []byte, n int, seed uint32) []byte {
	r := lzoRand(seed)
	for range n {
		b = append(b, byte(r.next()))
	}
	return b
}

var lzoWords = []string{"time", "series", "root", "sg1", "device", "temperature",
	"humidity", "tsfile", "page", "chunk", "the", "of",
	"a", "value", "north", "south", "sensor", "42", "3.14", "\n"}

func lzoText(b []byte, k int, seed uint32, mutate bool) []byte {
	start := len(b)
	r := lzoRand(seed)
	for len(b)-start < k {
		w := lzoWords[r.next()%20]
		if len(b)-start+len(w)+1 > k {
			break
		}
		b = append(append(b, w...), ' ')
		if mutate && r.next()%4 == 0 {
			at := len(b) - 1 - int(r.next()%uint32(len(w)+1))
			b[at] = byte(r.next())
		}
	}
	for len(b)-start < k {
		b = append(b, '.')
	}
	return b
}

// lzoVectorInput is gen.c's build.
func lzoVectorInput(t testing.TB, name string) []byte {
	var b []byte
	switch {
	case name == "empty":
		return []byte{}
	case name == "one":
		return []byte("A")
	case name == "hello":
		return []byte("hello, hello, hello, tsfile")
	case strings.HasPrefix(name, "rand-"):
		k, err := strconv.Atoi(strings.TrimPrefix(name, "rand-"))
		require.NoError(t, err)
		return lzoRandBytes(nil, k, uint32(k))
	case name == "zeros-70000":
		return make([]byte, 70000)
	case name == "runs":
		b = append(b, bytes.Repeat([]byte("abc"), 1700)...)
		b = append(b, 'x')
		b = append(b, bytes.Repeat([]byte("ab"), 1500)...)
		return append(b, bytes.Repeat([]byte("z"), 3000)...)
	case name == "text-8192":
		return lzoText(nil, 8192, 5, false)
	case name == "mutated-text-20000":
		return lzoText(nil, 20000, 6, true)
	case name == "far":
		b = lzoRandBytes(b, 3000, 11)
		a := len(b)
		b = lzoText(b, 1000, 12, true)
		b = append(b, b[:a]...)
		b = lzoText(b, 20000, 13, true)
		b = append(b, b[:a]...)
		b = lzoText(b, 30000, 14, true)
		return append(b, b[:2500]...)
	case name == "near3":
		b = lzoRandBytes(b, 3000, 21)
		r := lzoRand(22)
		for range 300 {
			for range 6 {
				b = append(b, byte(r.next()))
			}
			for range 3 {
				b = append(b, b[len(b)-2500])
			}
			for range 16 {
				b = append(b, b[len(b)-64])
			}
		}
		return b
	case name == "page-106496":
		r := lzoRand(7)
		ts, v := int64(1700000000000), int64(2000)
		for range 6656 {
			ts += 1000
			if r.next()%8 == 0 {
				ts += int64(r.next() % 3)
			}
			b = binary.LittleEndian.AppendUint64(b, uint64(ts))
		}
		for range 6656 {
			if r.next()%4 == 0 {
				v += int64(r.next()%21) - 10
			}
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
		return b
	}
	t.Fatalf("no input named %q", name)
	return nil
}

type lzoVector struct {
	name, method string
	src, want    []byte
}

// lzoVectors reads the manifest and every vector, checking each rebuilt input against it.
func lzoVectors(t testing.TB) []lzoVector {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "lzo", "manifest.txt"))
	require.NoError(t, err)
	defer f.Close()
	var vs []lzoVector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var name string
		var n int
		var sum uint32
		_, err := fmt.Sscanf(sc.Text(), "%s %d %x", &name, &n, &sum)
		require.NoError(t, err, sc.Text())
		want := lzoVectorInput(t, name)
		require.Len(t, want, n, "%s: input rebuilt at another length than gen.c's", name)
		require.Equal(t, sum, crc32.ChecksumIEEE(want), "%s: input rebuilt differently from gen.c's", name)
		for _, m := range lzoMethods {
			src, err := os.ReadFile(filepath.Join("testdata", "lzo", name+"."+m+".lzo"))
			if os.IsNotExist(err) && name == "empty" && m == "lzokay" {
				continue // lzokay cannot compress empty input; see TestLZOCorruptVectors
			}
			require.NoError(t, err)
			vs = append(vs, lzoVector{name, m, src, want})
		}
	}
	require.NoError(t, sc.Err())
	require.Len(t, vs, 25*3-1)
	return vs
}

func lzoVectorNamed(t testing.TB, name, method string) lzoVector {
	for _, v := range lzoVectors(t) {
		if v.name == name && v.method == method {
			return v
		}
	}
	t.Fatalf("no vector %s.%s", name, method)
	return lzoVector{}
}

func TestLZOVectors(t *testing.T) {
	codec := compressCodec(t, encoding.LZO)
	for _, v := range lzoVectors(t) {
		t.Run(v.name+"."+v.method, func(t *testing.T) {
			// Into nil, into too little and into exactly enough capacity.
			for _, dst := range [][]byte{nil, make([]byte, 3), make([]byte, 0, len(v.want))} {
				got, err := codec.Decompress(dst, v.src, len(v.want))
				require.NoError(t, err)
				require.True(t, bytes.Equal(v.want, got), "decodes differently")
				if cap(dst) >= len(v.want) && len(v.want) > 0 {
					require.Same(t, &dst[:1][0], &got[0], "Decompress should reuse dst's capacity")
				}
			}
			// The page header's size must be exact.
			for _, size := range []int{len(v.want) - 1, len(v.want) + 1, 2*len(v.want) + 1} {
				if size < 0 {
					continue
				}
				got, err := codec.Decompress(nil, v.src, size)
				require.ErrorIs(t, err, encoding.ErrCorrupt, "size %d", size)
				require.Nil(t, got)
			}
		})
	}
}

// TestLZOCorruptVectors are hand-made malformed blocks, each with the reason it is refused.
func TestLZOCorruptVectors(t *testing.T) {
	codec := compressCodec(t, encoding.LZO)
	for _, tc := range []struct {
		name, src string
		size      int
		msg       string
	}{
		{"empty block", "", 1, "empty block"},
		{"no end marker", "\x16hello", 5, "without its end marker"},
		{"end marker cut", "\x16hello\x11\x00", 5, "inside a match"},
		{"bytes after the end marker", "\x16hello\x11\x00\x00\x00", 5, "1 byte(s) after the end marker"},
		{"end marker of another length", "\x16hello\x12\x00\x00", 5, "not 0x11"},
		{"first literal run past the block", "\x16hel", 5, "past the end of the block"},
		{"first literal run past the page", "\x16hello\x11\x00\x00", 4, "past the page size"},
		{"literal run past the block", "\x01hel", 4, "past the end of the block"},
		{"literal run past the page", "\x01hello\x11\x00\x00", 3, "past the page size"},
		{"length bytes cut", "\x00\x00\x00", 1000, "inside a length"},
		{"M1 distance before the start", "\x13ab\x09\x00\x11\x00\x00", 4, "reaches before the start"},
		{"M2 distance before the start", "\x14abc\xac\x00\x11\x00\x00", 9, "match distance 4 reaches before the start"},
		{"M3 distance before the start", "\x14abc\x24\x0c\x00\x11\x00\x00", 9, "match distance 4 reaches before the start"},
		{"M4 distance before the start", "\x14abc\x19\x00\x00\x11\x00\x00", 9, "match distance 32768 reaches before the start"},
		{"state 4 M1 distance before the start", "\x15abcd\x00\x00\x11\x00\x00", 7, "match distance 2049 reaches before the start"},
		{"match past the page", "\x14abc\xa8\x00\x11\x00\x00", 8, "match past the page size"},
		{"trailing literals past the block", "\x14abc\xa9\x00", 10, "literals past the end of the block"},
		{"trailing literals past the page", "\x14abc\xa9\x00d\x11\x00\x00", 9, "match past the page size"},
		{"match cut", "\x14abc\xa8", 9, "inside a match"},
		{"long M3 past the page", "\x12a\x20\x00\x00\x00\x05\x00\x00\x11\x00\x00", 300, "length runs past the page size"},
		// lzokay::compress of empty input: its own decoder refuses it as well.
		{"lzokay's empty block", "\x11\x11\x00\x00", 0, "match distance 16388 reaches before the start"},
		{"decodes short", "\x16hello\x11\x00\x00", 6, "decodes to 5 bytes, page header says 6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := codec.Decompress(nil, []byte(tc.src), tc.size)
			require.ErrorIs(t, err, encoding.ErrCorrupt)
			compressRequireSentinel(t, err)
			require.ErrorContains(t, err, "encoding: LZO page payload: ")
			require.ErrorContains(t, err, tc.msg)
			require.Nil(t, got)
		})
	}
}

// TestLZOSweep cuts vectors at every length and flips every byte of them (to several
// values): each must fail with ErrCorrupt or decode to exactly the declared size, and
// a cut can never decode, since the end marker is the block's last three bytes.
func TestLZOSweep(t *testing.T) {
	t.Parallel()
	codec := compressCodec(t, encoding.LZO)
	r := rand.New(rand.NewPCG(5, 6))
	cases := 0
	for _, nm := range [][2]string{{"hello", "999"}, {"runs", "lzokay"}, {"text-8192", "lzokay"}, {"near3", "lzokay"}, {"mutated-text-20000", "999"}, {"rand-300", "1"}, {"far", "1"}} {
		v := lzoVectorNamed(t, nm[0], nm[1])
		dst := make([]byte, 0, len(v.want))
		// far, the one with long-distance matches, is large: its cuts are sampled and
		// its bytes are not flipped.
		far := v.name == "far"
		step := 1
		if far {
			step = len(v.src)/500 + 1
		}
		for n := 0; n < len(v.src); n += step {
			got, err := codec.Decompress(dst, v.src[:n], len(v.want))
			require.ErrorIs(t, err, encoding.ErrCorrupt, "%s.%s cut to %d bytes", v.name, v.method, n)
			require.Nil(t, got)
			cases++
		}
		if far {
			continue
		}
		flips := []byte{1, 0x80, 0xff}
		rejected, accepted := 0, 0
		bad := bytes.Clone(v.src)
		for i := range v.src {
			for _, x := range append(flips, byte(1+r.IntN(255))) {
				bad[i] = v.src[i] ^ x
				got, err := codec.Decompress(dst, bad, len(v.want))
				if err != nil {
					require.ErrorIs(t, err, encoding.ErrCorrupt, "%s.%s byte %d ^ %#x", v.name, v.method, i, x)
					rejected++
				} else {
					require.Len(t, got, len(v.want))
					accepted++
				}
				cases++
			}
			bad[i] = v.src[i]
		}
		t.Logf("%s.%s: %d of %d flips rejected", v.name, v.method, rejected, rejected+accepted)
	}
	t.Logf("%d cases", cases)
}

// TestLZOCompressRefuses: the codec is decode-only, and says so.
func TestLZOCompressRefuses(t *testing.T) {
	codec := compressCodec(t, encoding.LZO)
	z, err := codec.Compress(nil, []byte("page"))
	require.ErrorIs(t, err, encoding.ErrUnsupported)
	require.ErrorContains(t, err, "LZO page payload: tsarrow reads LZO pages but does not write them")
	require.Nil(t, z)
}

// TestLZOHostile: declared sizes that the block cannot reach are refused before anything is
// allocated, negative ones too, and a valid block decodes without allocating.
func TestLZOHostile(t *testing.T) {
	codec := compressCodec(t, encoding.LZO)
	allocated := func(f func()) uint64 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	for _, size := range []int{-1, math.MinInt, 1 << 40, math.MaxInt} {
		var err error
		n := allocated(func() { _, err = codec.Decompress(nil, []byte("\x11\x00\x00"), size) })
		require.ErrorIs(t, err, encoding.ErrCorrupt, "size %d", size)
		require.Less(t, n, uint64(64<<10), "size %d", size)
	}
	// A maximal run of zero length bytes: far under 255 output bytes per input byte.
	bomb := append([]byte("\x12a\x20"), make([]byte, 4000)...)
	bomb = append(bomb, 0xff, 0x00, 0x00, 0x11, 0x00, 0x00)
	want := 1 + 2 + 31 + 255*4000 + 255
	require.Less(t, want, 255*len(bomb))
	got, err := codec.Decompress(nil, bomb, want)
	require.NoError(t, err)
	require.Equal(t, bytes.Repeat([]byte("a"), want), got)
	n := allocated(func() { _, err = codec.Decompress(nil, bomb, 100<<20) })
	require.ErrorIs(t, err, encoding.ErrCorrupt)
	require.Less(t, n, uint64(64<<10))

	if raceEnabled || testing.Short() {
		return
	}
	v := lzoVectorNamed(t, "page-106496", "lzokay")
	dst := make([]byte, len(v.want))
	require.Zero(t, testing.AllocsPerRun(20, func() {
		if _, err := codec.Decompress(dst, v.src, len(v.want)); err != nil {
			panic(err)
		}
	}))
}

// FuzzDecompressLZO feeds arbitrary blocks and sizes. The decoder must never panic, must
// fail with ErrCorrupt or decode in place to exactly the declared size, and since an LZO1X
// block fills its page exactly, a block accepted at one size is refused at any other.
func FuzzDecompressLZO(f *testing.F) {
	codec := compressCodec(f, encoding.LZO)
	for _, v := range lzoVectors(f) {
		if len(v.src) < 2000 {
			f.Add(v.src, uint32(len(v.want)))
		}
	}
	addGoldenSeeds(f, encoding.LZO)
	f.Fuzz(func(t *testing.T, src []byte, size uint32) {
		n := int(size % compressFuzzMaxSize)
		dst := make([]byte, 0, n)
		out, err := codec.Decompress(dst, src, n)
		if err != nil {
			require.ErrorIs(t, err, encoding.ErrCorrupt)
			compressRequireSentinel(t, err)
			require.Nil(t, out)
			return
		}
		require.Len(t, out, n)
		if n > 0 {
			require.Same(t, &dst[:1][0], &out[0], "decoded outside the given capacity")
		}
		for _, other := range []int{n - 1, n + 1} {
			if other >= 0 {
				_, err := codec.Decompress(nil, src, other)
				require.ErrorIs(t, err, encoding.ErrCorrupt, "accepted at %d bytes and at %d", n, other)
			}
		}
	})
}

// BenchmarkDecompressLZO decodes the page-like vector as each compressor wrote it; with no
// encoder of ours the input cannot be compressPage as for the other codecs.
func BenchmarkDecompressLZO(b *testing.B) {
	for _, m := range lzoMethods {
		b.Run(m, func(b *testing.B) {
			v := lzoVectorNamed(b, "page-106496", m)
			codec := compressCodec(b, encoding.LZO)
			dst := make([]byte, len(v.want))
			b.SetBytes(int64(len(v.want)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := codec.Decompress(dst, v.src, len(v.want)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(v.want))/float64(len(v.src)), "ratio")
		})
	}
}
