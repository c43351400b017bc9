package encoding_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// Goldens, derived by hand from the Java RLBE encoders. A block is a 32-bit count, then per
// run of words of equal binary length L: L in 6 bits (7 for 64-bit types), the Fibonacci code
// of the run length (Zeckendorf digits for 1, 2, 3, 5, ... lowest first, then a closing 1:
// 1 = "11", 2 = "011", 3 = "0011", 4 = "1011"), and the words in L bits each, a word of the
// full 32 or 64 bits with its top bit written as 0. The words are the first value and the
// differences; the block is padded to a byte.

var rlbeGoldenInt32 = []srGolden[int32]{
	{
		name: "5, 10, 7",
		// words 5 (L=3), 10-5 = 5 (L=3), 7-10 = -3 = fffffffd (L=32)
		//   count  00000000 00000000 00000000 00000011
		//   run 1  000011 011 101 101
		//   run 2  100000 11 0 1111111 11111111 11111111 11111101   (top bit written as 0)
		//   pad    0
		v: []int32{5, 10, 7},
		want: cat(be32(3), []byte{
			0x0d, // 000011 01
			0xdb, // 1 101 101 1
			0x06, // 00000 11 0
			0xff, 0xff, 0xff, 0xfa,
		}),
	},
	{
		name: "repeats",
		// words 7 (L=3), then 0, 0, 0 (L=1, zero counts as one bit)
		//   run 1  000011 11 111
		//   run 2  000001 0011 0 0 0
		// 24 bits: 00001111 11100000 10011000
		v:    []int32{7, 7, 7, 7},
		want: cat(be32(4), []byte{0x0f, 0xe0, 0x98}),
	},
	{name: "empty", v: []int32{}, want: []byte{}},
}

var rlbeGoldenInt64 = []srGolden[int64]{
	{
		name: "1000..1003, -5",
		// words 1000 (L=10), 1, 1, 1 (L=1), -5-1003 = -1008 = fffffffffffffc10 (L=64)
		//   run 1  0001010 11 1111101000
		//   run 2  0000001 0011 1 1 1
		//   run 3  1000000 11 0 followed by the low 63 bits of fffffffffffffc10
		// 32 + 19 + 14 + 73 = 138 bits, 6 padding bits.
		v: []int64{1000, 1001, 1002, 1003, -5},
		want: cat(be32(5), []byte{
			0x15, // 0001010 1
			0xfd, // 1 1111101
			0x00, // 000 00000
			0x4f, // 01 0011 11
			0xc0, // 1 1000000
			0xdf, // 11 0 11111: the top bit of -1008 written as 0
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			0x04, // 111111 00 ... 0xc10 = 1100 0001 0000
			0x00, // 00 and 6 padding bits
		}),
	},
}

var rlbeGoldenFloat32 = []srGolden[float32]{
	{
		name: "1.5, 2.5, 2.5",
		// words: the bits of 1.5 = 3fc00000 (L=30), of 2.5-1.5 = 1.0 = 3f800000 (L=30), of
		// 2.5-2.5 = 0.0 (L=1); each adds back exactly, so this is also Java's output.
		//   run 1  011110 011 111111110000...0 (30 bits) 111111100000...0 (30 bits)
		//   run 2  000001 11 0
		v:    []float32{1.5, 2.5, 2.5},
		want: cat(be32(3), []byte{0x79, 0xff, 0x80, 0x00, 0x01, 0xfc, 0x00, 0x00, 0x00, 0x38}),
	},
	{
		name: "repeated +Inf",
		// Java stores Inf-Inf = NaN and so reads back NaN; -0.0 adds back to +Inf exactly:
		//   run 1  011111 11 1111111100...0 (31 bits of 7f800000)
		//   run 2  100000 11 0 and 31 zero bits (80000000 without its top bit)
		v:    []float32{float32(math.Inf(1)), float32(math.Inf(1))},
		want: cat(be32(2), []byte{0x7f, 0xff, 0x00, 0x00, 0x01, 0x06, 0x00, 0x00, 0x00, 0x00}),
	},
	{
		name: "difference that does not add back",
		// 1e-30 - 2 rounds to -2, and 2 + -2 = 0, so 1e-30 starts a block of its own:
		//   block 1  count 1, run 011111 11 and 31 bits of 40000000, padding
		//   block 2  count 1, run 011100 11 and 28 bits of 0da24260, padding
		v: []float32{2, 1e-30},
		want: cat(
			be32(1), []byte{0x7f, 0x80, 0x00, 0x00, 0x00},
			be32(1), []byte{0x73, 0xda, 0x24, 0x26, 0x00},
		),
	},
}

var rlbeGoldenFloat64 = []srGolden[float64]{
	{
		name: "1.0, -1.0",
		// words 3ff0000000000000 (L=62) and -1.0-1.0 = -2.0 = c000000000000000 (L=64):
		//   run 1  0111110 11 and 62 bits: 1111111111 and 52 zeros
		//   run 2  1000000 11 and 64 bits of c000000000000000 with the top bit as 0
		// 32 + 71 + 73 = 176 bits, no padding.
		v: []float64{1, -1},
		want: cat(be32(2), []byte{0x7d, 0xff, 0xe0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x03},
			be64(0x4000000000000000)),
	},
}

func TestRLBEGolden(t *testing.T) {
	t.Run("INT32", func(t *testing.T) { srCheckGoldens(t, encoding.RLBE, rlbeGoldenInt32) })
	t.Run("INT64", func(t *testing.T) { srCheckGoldens(t, encoding.RLBE, rlbeGoldenInt64) })
	t.Run("FLOAT", func(t *testing.T) { srCheckGoldens(t, encoding.RLBE, rlbeGoldenFloat32) })
	t.Run("DOUBLE", func(t *testing.T) { srCheckGoldens(t, encoding.RLBE, rlbeGoldenFloat64) })
}

// TestRLBEReadsJavaLossyFloats checks that Java's block for +Inf, +Inf, whose difference is
// NaN, decodes as the Java reader decodes it: +Inf + NaN is NaN.
func TestRLBEReadsJavaLossyFloats(t *testing.T) {
	// run 2 holds ffc00000, the x86 NaN that Inf-Inf gives, written without its top bit.
	src := cat(be32(2), []byte{0x7f, 0xff, 0x00, 0x00, 0x01, 0x06, 0xff, 0x80, 0x00, 0x00})
	dst := make([]float32, 2)
	require.NoError(t, encoding.DecodeFloat32(encoding.RLBE, dst, src))
	require.Equal(t, float32(math.Inf(1)), dst[0])
	require.True(t, math.IsNaN(float64(dst[1])))
}

var rlbeLengths = append([]int{encoding.RLBEBlockSize - 1, encoding.RLBEBlockSize, encoding.RLBEBlockSize + 1, 2*encoding.RLBEBlockSize + 1}, srLengths...)

func TestRLBERoundTrip(t *testing.T) {
	srRoundTripsAll(t, encoding.RLBE, rlbeLengths)
}

// TestRLBEBlocks checks the block structure: full blocks of RLBEBlockSize, and that the
// reader takes short blocks anywhere, as the Java reader does after repeated flushes.
func TestRLBEBlocks(t *testing.T) {
	v := srIntSeries[int64](encoding.RLBEBlockSize+5, 3)["random walk"]
	src, err := encoding.AppendEncodedInt64(encoding.RLBE, nil, v)
	require.NoError(t, err)
	require.Equal(t, be32(encoding.RLBEBlockSize), src[:4])
	second, err := encoding.AppendEncodedInt64(encoding.RLBE, nil, v[encoding.RLBEBlockSize:])
	require.NoError(t, err)
	require.Equal(t, second, src[len(src)-len(second):], "the second block starts afresh")

	short, err := encoding.AppendEncodedInt64(encoding.RLBE, nil, v[:3])
	require.NoError(t, err)
	joined := cat(short, src, short)
	n, err := encoding.CountInt64(encoding.RLBE, joined)
	require.NoError(t, err)
	require.Equal(t, len(v)+6, n)
	dst := make([]int64, n)
	require.NoError(t, encoding.DecodeInt64(encoding.RLBE, dst, joined))
	require.Equal(t, srCat64(v[:3], v, v[:3]), dst)
}

// TestRLBELenient checks forms the Java writer does not produce but its reader decodes, and
// which are decoded the same way here.
func TestRLBELenient(t *testing.T) {
	// 5 written in a 6-bit word, 000101, with a non-zero padding bit:
	//   count 1, 000110 11 000101 1 -> 00011011 00010110... 0001 1011 0001 0111
	dst := make([]int32, 1)
	require.NoError(t, encoding.DecodeInt32(encoding.RLBE, dst, cat(be32(1), []byte{0x1b, 0x17})))
	require.Equal(t, []int32{5}, dst)
	// A word length of 0 reads no bits: count 2, 000000 011 -> two zero words.
	dst = make([]int32, 2)
	require.NoError(t, encoding.DecodeInt32(encoding.RLBE, dst, cat(be32(2), []byte{0x01, 0x80})))
	require.Equal(t, []int32{0, 0}, dst)
	// Two runs of the same length: count 2, 000011 11 101, 000011 11 111:
	// 00001111 10100001 111111 and 2 padding bits.
	require.NoError(t, encoding.DecodeInt32(encoding.RLBE, dst, cat(be32(2), []byte{0x0f, 0xa1, 0xfc})))
	require.Equal(t, []int32{5, 12}, dst)
}

func TestRLBEErrors(t *testing.T) {
	for _, n := range []int{1, 2, 10, 300} {
		srCheckErrorsAll(t, encoding.RLBE, n, 11)
	}
}

func TestRLBEForged(t *testing.T) {
	common := []srForged{
		{"empty block", 1, cat(be32(0), []byte{0x07})},
		{"negative count", 1, cat(be32(0x80000001), []byte{0x07, 0xf8})},
		{"count above the values wanted", 1, cat(be32(2), []byte{0x0d, 0xd8})},
		{"huge count", 2, cat(be32(math.MaxInt32), []byte{0x07, 0xf8})},
		{"huge count, values wanted", math.MaxUint16, cat(be32(math.MaxInt32), []byte{0x07, 0xf8})},
		{"run overruns the block", 1, cat(be32(1), []byte{0x05, 0xe0})},    // 000001 011: run of 2
		{"run code never ends", 3, cat(be32(3), []byte{0x04, 0x00, 0x00})}, // 000001 000...
		{"truncated run code", 100, cat(be32(100), []byte{0x04})},
		{"truncated words", 2, cat(be32(2), []byte{0x21, 0xff})}, // 001000 011: 2 words of 8 bits
		{"count cut short", 1, []byte{0x00, 0x00, 0x01}},
	}
	t.Run("INT32", func(t *testing.T) {
		srCheckForged[int32](t, encoding.RLBE, append(common,
			srForged{"word length 33", 1, cat(be32(1), []byte{0x87, 0xff, 0xff, 0xff, 0xff, 0xf0})},
			srForged{"word length 63", 1, cat(be32(1), []byte{0xff}, srRep(0xff, 8))}))
	})
	t.Run("FLOAT", func(t *testing.T) {
		srCheckForged[float32](t, encoding.RLBE, append(common,
			srForged{"word length 33", 1, cat(be32(1), []byte{0x87, 0xff, 0xff, 0xff, 0xff, 0xf0})}))
	})
	// The 64-bit forms have 7-bit lengths: 0000001 then the run code.
	common64 := []srForged{
		{"empty block", 1, cat(be32(0), []byte{0x03, 0x80})},
		{"count above the values wanted", 1, cat(be32(2), []byte{0x02, 0xe0})},
		{"run overruns the block", 1, cat(be32(1), []byte{0x02, 0xc0})}, // 0000001 011
		{"truncated words", 2, cat(be32(2), []byte{0x10, 0xff})},        // 0001000 011
		{"word length 65", 1, cat(be32(1), []byte{0x83}, srRep(0xff, 9))},
		{"word length 127", 1, cat(be32(1), []byte{0xff}, srRep(0xff, 9))},
	}
	t.Run("INT64", func(t *testing.T) { srCheckForged[int64](t, encoding.RLBE, common64) })
	t.Run("DOUBLE", func(t *testing.T) { srCheckForged[float64](t, encoding.RLBE, common64) })
}

func TestRLBEDoesNotAllocate(t *testing.T) {
	srCheckNoAllocs(t, encoding.RLBE)
}

func FuzzDecodeRLBEInt32(f *testing.F)   { srFuzz[int32](f, encoding.RLBE) }
func FuzzDecodeRLBEInt64(f *testing.F)   { srFuzz[int64](f, encoding.RLBE) }
func FuzzDecodeRLBEFloat32(f *testing.F) { srFuzz[float32](f, encoding.RLBE) }
func FuzzDecodeRLBEFloat64(f *testing.F) { srFuzz[float64](f, encoding.RLBE) }

func BenchmarkDecodeInt32RLBE(b *testing.B)   { srBenchDecode(b, encoding.RLBE, srBenchInt32()) }
func BenchmarkDecodeInt64RLBE(b *testing.B)   { srBenchDecode(b, encoding.RLBE, benchTimestamps()) }
func BenchmarkDecodeFloat32RLBE(b *testing.B) { srBenchDecode(b, encoding.RLBE, srBenchFloat32()) }
func BenchmarkDecodeFloat64RLBE(b *testing.B) { srBenchDecode(b, encoding.RLBE, srBenchFloat64()) }
func BenchmarkMemcpyRLBE(b *testing.B)        { srBenchMemcpy(b) }
