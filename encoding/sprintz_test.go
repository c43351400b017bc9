package encoding_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// The helpers below are shared by the SPRINTZ and RLBE tests. Values are compared as bit
// patterns, so that NaN payloads and signed zeros count.

// srValue is a value type of the 4 families the codecs here support.
type srValue interface {
	int32 | int64 | float32 | float64
}

// srBits returns the bit patterns of v.
func srBits[T srValue](v []T) []uint64 {
	out := make([]uint64, len(v))
	for i, x := range v {
		switch x := any(x).(type) {
		case int32:
			out[i] = uint64(uint32(x))
		case int64:
			out[i] = uint64(x)
		case float32:
			out[i] = uint64(math.Float32bits(x))
		case float64:
			out[i] = math.Float64bits(x)
		}
	}
	return out
}

func srEncode[T srValue](enc encoding.Encoding, dst []byte, v []T) ([]byte, error) {
	switch v := any(v).(type) {
	case []int32:
		return encoding.AppendEncodedInt32(enc, dst, v)
	case []int64:
		return encoding.AppendEncodedInt64(enc, dst, v)
	case []float32:
		return encoding.AppendEncodedFloat32(enc, dst, v)
	default:
		return encoding.AppendEncodedFloat64(enc, dst, v.([]float64))
	}
}

func srDecode[T srValue](enc encoding.Encoding, dst []T, src []byte) error {
	switch dst := any(dst).(type) {
	case []int32:
		return encoding.DecodeInt32(enc, dst, src)
	case []int64:
		return encoding.DecodeInt64(enc, dst, src)
	case []float32:
		return encoding.DecodeFloat32(enc, dst, src)
	default:
		return encoding.DecodeFloat64(enc, dst.([]float64), src)
	}
}

// srGolden is a hand-derived stream.
type srGolden[T srValue] struct {
	name string
	v    []T
	want []byte
}

// srCheckGoldens checks that each golden's values encode to exactly its bytes and decode back.
func srCheckGoldens[T srValue](t *testing.T, enc encoding.Encoding, goldens []srGolden[T]) {
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			got, err := srEncode(enc, []byte{0xaa}, g.v)
			require.NoError(t, err)
			require.Equal(t, g.want, got[1:], "encoding")
			require.Equal(t, byte(0xaa), got[0])
			dst := make([]T, len(g.v))
			require.NoError(t, srDecode(enc, dst, g.want))
			require.Equal(t, srBits(g.v), srBits(dst), "decoding")
		})
	}
}

// srRoundTrip checks that v survives encoding bit for bit through every entry point.
func srRoundTrip[T srValue](t *testing.T, enc encoding.Encoding, v []T) []byte {
	t.Helper()
	src, err := srEncode(enc, nil, v)
	require.NoError(t, err)
	dst := make([]T, len(v))
	require.NoError(t, srDecode(enc, dst, src))
	require.Equal(t, srBits(v), srBits(dst))
	if v64, ok := any(v).([]int64); ok {
		n, err := encoding.CountInt64(enc, src)
		require.NoError(t, err)
		require.Equal(t, len(v), n)
		all, err := encoding.AppendAllInt64(enc, []int64{-9}, src)
		require.NoError(t, err)
		require.Equal(t, append([]int64{-9}, v64...), all)
	}
	return src
}

// srIntSeries returns named test sequences of n integers.
func srIntSeries[T int32 | int64](n int, seed uint64) map[string][]T {
	r := rand.New(rand.NewPCG(seed, 99))
	// The top bit alone is the minimum and the others alone the maximum, at either width.
	var zero T
	minV := T(-1) << (8*binary.Size(zero) - 1)
	maxV := ^minV
	s := map[string][]T{}
	add := func(name string, f func(i int, prev T) T) {
		v := make([]T, n)
		var prev T
		for i := range v {
			v[i] = f(i, prev)
			prev = v[i]
		}
		s[name] = v
	}
	add("constant", func(int, T) T { return 1234567 })
	add("monotonic", func(i int, prev T) T { return prev + T(r.IntN(100)) })
	add("timestamps", func(i int, _ T) T { return T(1_700_000_000) + T(1000*i+r.IntN(5)) })
	add("random walk", func(_ int, prev T) T { return prev + T(r.IntN(201)) - 100 })
	add("random", func(int, T) T { return T(r.Uint64()) })
	add("min and max", func(i int, _ T) T { return []T{minV, maxV, 0, -1, minV, minV, maxV}[i%7] })
	add("big steps", func(_ int, prev T) T { return prev + T(r.IntN(3)-1)<<(20+r.IntN(12)) })
	return s
}

// srFloatSeries returns named test sequences of n floats.
func srFloatSeries[T float32 | float64](n int, seed uint64) map[string][]T {
	r := rand.New(rand.NewPCG(seed, 98))
	_, is32 := any(T(0)).(float32)
	fromBits := func(u uint64) T {
		if is32 {
			return T(math.Float32frombits(uint32(u)))
		}
		return T(math.Float64frombits(u))
	}
	s := map[string][]T{}
	add := func(name string, f func(i int, prev T) T) {
		v := make([]T, n)
		var prev T
		for i := range v {
			v[i] = f(i, prev)
			prev = v[i]
		}
		s[name] = v
	}
	negZero := T(math.Copysign(0, -1))
	add("constant", func(int, T) T { return 21.75 })
	add("monotonic", func(_ int, prev T) T { return prev + 0.125 + T(r.IntN(4)) })
	add("random walk", func(_ int, prev T) T { return prev + T(r.NormFloat64()) })
	add("random bits", func(int, T) T { return fromBits(r.Uint64()) })
	add("specials", func(i int, _ T) T {
		sp := []T{T(math.NaN()), T(math.Inf(1)), T(math.Inf(-1)), negZero, 0, 1, -1}
		return sp[(i+i/7)%len(sp)]
	})
	add("constant -0", func(int, T) T { return negZero })
	add("constant +Inf", func(int, T) T { return T(math.Inf(1)) })
	add("NaN payloads", func(i int, _ T) T {
		if is32 {
			// quiet and signalling NaNs with payloads, and the canonical one
			return fromBits([]uint64{0x7fc00001, 0xff800001, 0x7fc00000, 0x7fa00000}[i%4])
		}
		return fromBits([]uint64{0x7ff8000000000001, 0xfff0000000000001, 0x7ff8000000000000}[i%3])
	})
	add("gaps", func(i int, _ T) T {
		if i%5 == 2 {
			return T(math.NaN())
		}
		return T(i) * 0.5
	})
	return s
}

var srLengths = []int{0, 1, 2, 7, 8, 9, 10, 17, 18, 127, 128, 129, 144, 145, 1023, 1024, 1025}

func srRoundTrips[T srValue](t *testing.T, enc encoding.Encoding, lengths []int, series func(n int, seed uint64) map[string][]T) {
	for _, n := range lengths {
		for name, v := range series(n, uint64(n)) {
			t.Run(name+"/"+strconv.Itoa(n), func(t *testing.T) { srRoundTrip(t, enc, v) })
		}
	}
}

// srCheckErrors checks that every truncation of the valid stream of v, trailing garbage and
// wrong value counts are errors wrapping ErrCorrupt.
func srCheckErrors[T srValue](t *testing.T, enc encoding.Encoding, v []T) {
	t.Helper()
	src, err := srEncode(enc, nil, v)
	require.NoError(t, err)
	dst := make([]T, len(v)+1)
	for k := range src {
		require.ErrorIs(t, srDecode(enc, dst[:len(v)], src[:k]), encoding.ErrCorrupt, "truncated to %d of %d bytes", k, len(src))
	}
	for _, tail := range [][]byte{{0}, {0xff}, {0x81, 0x01}, src} {
		require.ErrorIs(t, srDecode(enc, dst[:len(v)], append(bytes.Clone(src), tail...)), encoding.ErrCorrupt, "trailing %x", tail)
	}
	require.ErrorIs(t, srDecode(enc, dst, src), encoding.ErrCorrupt, "one value too many")
	if len(v) > 0 {
		require.ErrorIs(t, srDecode(enc, dst[:len(v)-1], src), encoding.ErrCorrupt, "one value too few")
	}
	if _, ok := any(v).([]int64); ok {
		// A prefix that ends at a block boundary is a valid shorter stream; any other is corrupt.
		for k := range src {
			n, err := encoding.CountInt64(enc, src[:k])
			if err != nil {
				require.ErrorIs(t, err, encoding.ErrCorrupt)
				continue
			}
			require.Less(t, n, len(v))
		}
		_, err := encoding.CountInt64(enc, append(bytes.Clone(src), 0xff))
		require.ErrorIs(t, err, encoding.ErrCorrupt)
	}
}

// srForged is a stream that must be rejected for n values.
type srForged struct {
	name string
	n    int
	src  []byte
}

func srCheckForged[T srValue](t *testing.T, enc encoding.Encoding, forged []srForged) {
	for _, f := range forged {
		t.Run(f.name, func(t *testing.T) {
			err := srDecode(enc, make([]T, f.n), f.src)
			require.ErrorIs(t, err, encoding.ErrCorrupt)
			t.Log(err)
			if _, ok := any(T(0)).(int64); ok {
				if _, err := encoding.CountInt64(enc, f.src); err != nil {
					require.ErrorIs(t, err, encoding.ErrCorrupt)
				}
			}
		})
	}
}

func srRep(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }

// Goldens, derived by hand from the Java SprintzEncoder family. Every full block below uses the
// Fire predictor, which restarts at each block with acc = delta = 0:
//
//	pred = prev + ((acc >> s) * delta) >> f   (s, f = 2, 8 for 32-bit values; 3, 16 for 64-bit)
//	e    = value - pred
//	acc += delta if e > 0, else acc -= delta;  delta = value - prev
//
// and maps each residual e to 2e-1 if e > 0, else -2e.

var sprintzGoldenInt32 = []srGolden[int32]{
	{
		name: "ramp of 100",
		// values 0, 100, ..., 800: one full block.
		//   k  prev  acc  delta  pred = prev + (acc>>2)*delta>>8   e    map
		//   1     0    0      0     0                             100  199
		//   2   100    0    100   100                             100  199  (acc += 0)
		//   3   200  100    100   200 + 25*100>>8 = 209            91  181
		//   4   300  200    100   300 + 50*100>>8 = 319            81  161
		//   5   400  300    100   400 + 75*100>>8 = 429            71  141
		//   6   500  400    100   500 + 100*100>>8 = 539           61  121
		//   7   600  500    100   600 + 125*100>>8 = 648           52  103
		//   8   700  600    100   700 + 150*100>>8 = 758           42   83
		// widest mapped residual 199 needs 8 bits.
		v: []int32{0, 100, 200, 300, 400, 500, 600, 700, 800},
		want: cat(
			[]byte{0x08}, // header: full block, width 8
			[]byte{0x00}, // first value 0 as an unsigned VarInt
			[]byte{0xc7, 0xc7, 0xb5, 0xa1, 0x8d, 0x79, 0x67, 0x53}, // 199 199 181 161 141 121 103 83
		),
	},
	{
		name: "full block and partial",
		// 1..9: every prediction is the previous value (acc stays below 4, so acc>>2*1>>8 = 0),
		// every residual is 1 and maps to 1: width 1, fields 11111111.
		// 10 is left over: a partial block holding the Java RLE stream of [10]. Its width is 4
		// (10 = 1010); Java's RLE buffers the value in a group of 8, pads the group with zeros
		// and bit-packs it: header 1<<1|1 = 0x03, 1 real value in the last group, then
		// 1010 0000 0000 0000 0000 0000 0000 0000.
		v: []int32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10},
		want: cat(
			[]byte{0x01, 0x01, 0xff},
			[]byte{0x81},                   // partial block of 1 value
			[]byte{0x07},                   // RLE stream of 7 bytes
			[]byte{0x04, 0x03, 0x01},       // width 4, bit-packed run of 1 group, 1 value used
			[]byte{0xa0, 0x00, 0x00, 0x00}, // the group: 8 fields of 4 bits
		),
	},
	{
		name: "partial RLE run",
		// 8 equal values: Java's RLE counts a run of 8 and writes VarInt 8<<1 = 0x10 and the
		// value 0x1234 (width 13) in 2 bytes, little-endian for INT32.
		v:    []int32{0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0x1234},
		want: []byte{0x88, 0x04, 0x0d, 0x10, 0x34, 0x12},
	},
	{
		name: "residual overflow becomes a partial block of 9",
		// 0 x8 then MaxInt32: the last residual MaxInt32 maps to 2*MaxInt32-1, which wraps to -3,
		// and Java's reader turns -3 back into (-3+1)/2 = -1, so Java's own full block would
		// decode to -1. This writer stores the 9 values as a partial block instead:
		// RLE width 31; the 8 zeros (equal to Java's initial previous value 0) form a run,
		// VarInt 16 and 0 in 4 bytes; MaxInt32 is bit-packed in 1 group of 8 fields of 31 bits:
		// 31 ones then 7*31 zero bits = ff ff ff fe and 27 zero bytes.
		v: []int32{0, 0, 0, 0, 0, 0, 0, 0, math.MaxInt32},
		want: cat(
			[]byte{0x89, 0x27, 0x1f},
			[]byte{0x10, 0x00, 0x00, 0x00, 0x00},
			[]byte{0x03, 0x01, 0xff, 0xff, 0xff, 0xfe}, srRep(0, 27),
		),
	},
	{name: "empty", v: []int32{}, want: []byte{}},
}

var sprintzGoldenInt64 = []srGolden[int64]{
	{
		name: "ramp with a step back",
		// values 0, 100, ..., 700, 650 with the 64-bit predictor (s = 3, f = 16):
		//   k=1..7: acc grows 0, 100, ..., 600 but (acc>>3)*100 < 2^16, so pred = prev, e = 100,
		//           map 199
		//   k=8:    pred = 700 + (600>>3)*100>>16 = 700, e = 650-700 = -50, map 100
		// width 8; the first value takes 8 big-endian bytes.
		v: []int64{0, 100, 200, 300, 400, 500, 600, 700, 650},
		want: cat(
			[]byte{0x08}, be64(0),
			[]byte{0xc7, 0xc7, 0xc7, 0xc7, 0xc7, 0xc7, 0xc7, 0x64},
		),
	},
	{
		name: "single value",
		// Java's own test value MaxInt32+10 = 0x80000009: width 32, one bit-packed group of
		// 8 fields of 32 bits (the value, then 7 zero fields).
		v: []int64{math.MaxInt32 + 10},
		want: cat(
			[]byte{0x81, 0x23, 0x20, 0x03, 0x01},
			be32(0x80000009), srRep(0, 28),
		),
	},
	{
		name: "partial RLE run",
		// As for INT32, but Java's INT64 RLE writes run values big-endian: 12 34.
		v:    []int64{0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0x1234},
		want: []byte{0x88, 0x04, 0x0d, 0x10, 0x12, 0x34},
	},
}

var sprintzGoldenFloat32 = []srGolden[float32]{
	{
		name: "constant block",
		// nine 1.0s: the predictor runs on the bits 0x3f800000, every residual is 0, and the
		// width is Java's minimum of 1: one zero byte. The first value is its 4 raw bytes.
		v:    []float32{1, 1, 1, 1, 1, 1, 1, 1, 1},
		want: []byte{0x01, 0x3f, 0x80, 0x00, 0x00, 0x00},
	},
	{
		name: "partial GORILLA",
		// [1, 2] as a partial block holding Java's GORILLA v2 stream:
		//   1.0 = 3f800000 in 32 bits
		//   2.0 = 40000000: XOR 7f800000 has 1 leading and 23 trailing zeros; new counts:
		//         '11', 00001, 8 significant bits - 1 = 00111, then 11111111
		//   end marker NaN 7fc00000: XOR 3fc00000 has 2 leading, 22 trailing zeros; 22 < 23,
		//         so new counts again: '11', 00010, 00111, 11111111
		//   40 bits after the first value end on a byte boundary, so a zero byte follows.
		v:    []float32{1, 2},
		want: []byte{0x82, 0x3f, 0x80, 0x00, 0x00, 0xc2, 0x7f, 0xfc, 0x47, 0xff, 0x00},
	},
}

var sprintzGoldenFloat64 = []srGolden[float64]{
	{
		name: "ramp of ulps and -0",
		// bits 3ff0000000000000 + k for k = 0..8: residual 1 each (the predictor's correction
		// (acc>>3)*1>>16 stays 0), map 1, width 1: ff. Then -0.0 alone in GORILLA v2:
		// 64 bits 8000000000000000; the marker 7ff8000000000000 XORs to fff8000000000000:
		// 0 leading and 51 trailing zeros, 13 significant bits: '11', 000000, 001100,
		// 1111111111111, then 5 padding bits: c0 33 ff e0.
		v: []float64{
			math.Float64frombits(0x3ff0000000000000), math.Float64frombits(0x3ff0000000000001),
			math.Float64frombits(0x3ff0000000000002), math.Float64frombits(0x3ff0000000000003),
			math.Float64frombits(0x3ff0000000000004), math.Float64frombits(0x3ff0000000000005),
			math.Float64frombits(0x3ff0000000000006), math.Float64frombits(0x3ff0000000000007),
			math.Float64frombits(0x3ff0000000000008), math.Copysign(0, -1),
		},
		want: cat(
			[]byte{0x01}, be64(0x3ff0000000000000), []byte{0xff},
			[]byte{0x81}, be64(0x8000000000000000), []byte{0xc0, 0x33, 0xff, 0xe0},
		),
	},
}

func TestSprintzGolden(t *testing.T) {
	t.Run("INT32", func(t *testing.T) { srCheckGoldens(t, encoding.Sprintz, sprintzGoldenInt32) })
	t.Run("INT64", func(t *testing.T) { srCheckGoldens(t, encoding.Sprintz, sprintzGoldenInt64) })
	t.Run("FLOAT", func(t *testing.T) { srCheckGoldens(t, encoding.Sprintz, sprintzGoldenFloat32) })
	t.Run("DOUBLE", func(t *testing.T) { srCheckGoldens(t, encoding.Sprintz, sprintzGoldenFloat64) })
}

// TestSprintzReadsJavaOverflow checks that a block Java writes for a residual too large for its
// mapping decodes as the Java reader decodes it, wrong value included.
func TestSprintzReadsJavaOverflow(t *testing.T) {
	// Java's block for 0 x8, MaxInt32: width 32, first value 0, seven 0 fields and
	// map(MaxInt32) = 2*MaxInt32-1 = fffffffd; read back as (-3+1)/2 = -1.
	src := cat([]byte{0x20, 0x00}, srRep(0, 28), be32(0xfffffffd))
	dst := make([]int32, 9)
	require.NoError(t, encoding.DecodeInt32(encoding.Sprintz, dst, src))
	require.Equal(t, []int32{0, 0, 0, 0, 0, 0, 0, 0, -1}, dst)
}

// TestSprintzFloatCanonicalBase checks that a block's first value is predicted from as the
// canonical NaN, as Java's reader does, while its own bits are kept.
func TestSprintzFloatCanonicalBase(t *testing.T) {
	v := []float32{math.Float32frombits(0x7fc00123)}
	for range 8 {
		v = append(v, math.Float32frombits(0x7fc00000))
	}
	src, err := encoding.AppendEncodedFloat32(encoding.Sprintz, nil, v)
	require.NoError(t, err)
	// Predicting from 7fc00000 makes every residual 0.
	require.Equal(t, []byte{0x01, 0x7f, 0xc0, 0x01, 0x23, 0x00}, src)
	srRoundTrip(t, encoding.Sprintz, v)
}

func TestSprintzRoundTrip(t *testing.T) {
	srRoundTripsAll(t, encoding.Sprintz, srLengths)
}

// TestSprintzPartialBlocksAnywhere checks that the reader, like Java's, takes partial blocks
// between full ones.
func TestSprintzPartialBlocksAnywhere(t *testing.T) {
	v := []int64{5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	full, err := encoding.AppendEncodedInt64(encoding.Sprintz, nil, v[:9])
	require.NoError(t, err)
	part, err := encoding.AppendEncodedInt64(encoding.Sprintz, nil, v[9:])
	require.NoError(t, err)
	src := cat(part, full, part)
	dst := make([]int64, 13)
	require.NoError(t, encoding.DecodeInt64(encoding.Sprintz, dst, src))
	require.Equal(t, srCat64(v[9:], v[:9], v[9:]), dst)
	n, err := encoding.CountInt64(encoding.Sprintz, src)
	require.NoError(t, err)
	require.Equal(t, 13, n)
}

func srCat64(parts ...[]int64) []int64 {
	var out []int64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestSprintzErrors(t *testing.T) {
	for _, n := range []int{1, 8, 9, 10, 30} {
		t.Run(strconv.Itoa(n), func(t *testing.T) { srCheckErrorsAll(t, encoding.Sprintz, n, 1) })
	}
}

func TestSprintzForged(t *testing.T) {
	ints := []srForged{
		{"width 33", 9, cat([]byte{33, 0}, srRep(0, 33))},
		{"width 127", 9, cat([]byte{127, 0}, srRep(0, 127))},
		{"empty partial block", 1, []byte{0x80, 0x03, 0x01, 0x02, 0x00}},
		{"partial block of 10", 10, cat([]byte{0x8a, 0x04, 0x01, 0x03, 0x02}, srRep(0, 2))},
		{"partial block of 127", 127, []byte{0xff, 0x00}},
		{"huge RLE length", 1, []byte{0x81, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01}},
		{"RLE length VarInt too long", 1, []byte{0x81, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
		{"empty RLE stream", 1, []byte{0x81, 0x00}},
		{"RLE width 65", 1, []byte{0x81, 0x04, 0x41, 0x02, 0x00, 0x00}},
		{"RLE run of 0", 1, []byte{0x81, 0x03, 0x01, 0x00, 0x00}},
		{"RLE run longer than the block", 1, []byte{0x81, 0x03, 0x01, 0x04, 0x01}},
		{"RLE huge run", 1, []byte{0x81, 0x07, 0x01, 0xfe, 0xff, 0xff, 0xff, 0x0f, 0x01}},
		{"RLE fewer values than declared", 2, []byte{0x82, 0x03, 0x01, 0x02, 0x01}},
		{"RLE more values than declared", 1, []byte{0x81, 0x05, 0x01, 0x02, 0x01, 0x02, 0x01}},
		{"RLE no groups", 1, []byte{0x81, 0x03, 0x01, 0x01, 0x01}},
		{"RLE last group of 0", 1, []byte{0x81, 0x04, 0x01, 0x03, 0x00, 0x00}},
		{"RLE last group of 9", 1, []byte{0x81, 0x04, 0x01, 0x03, 0x09, 0x00}},
		{"RLE missing last-group count", 1, []byte{0x81, 0x02, 0x01, 0x03}},
		{"RLE huge group count", 1, []byte{0x81, 0x08, 0x01, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x00}},
		{"RLE truncated run value", 1, []byte{0x81, 0x03, 0x10, 0x02, 0x01}},
		{"first value VarInt overflows", 9, cat([]byte{0x01, 0xff, 0xff, 0xff, 0xff, 0x1f}, srRep(0, 1))},
	}
	t.Run("INT32", func(t *testing.T) { srCheckForged[int32](t, encoding.Sprintz, ints) })
	t.Run("INT64", func(t *testing.T) {
		srCheckForged[int64](t, encoding.Sprintz, append(ints[2:], srForged{"width 65", 9, cat([]byte{65}, srRep(0, 8+65))}))
	})
	one := be32(0x3f800000) // 1.0
	floats := []srForged{
		{"width 33", 9, cat([]byte{33}, one, srRep(0, 33))},
		{"empty partial block", 1, cat([]byte{0x80}, one, []byte{0x00})},
		{"partial block of 10", 10, cat([]byte{0x8a}, one, srRep(0, 10))},
		{"GORILLA no end marker", 1, cat([]byte{0x81}, one, []byte{0x00})}, // '0': 1.0 again, not NaN
		{"GORILLA reuses unset counts", 1, cat([]byte{0x81}, one, []byte{0x80, 0x00, 0x00, 0x00, 0x00})},
		{"GORILLA counts exceed 32 bits", 1, cat([]byte{0x81}, one, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff})},
		{"GORILLA lacks its final byte", 2, []byte{0x82, 0x3f, 0x80, 0x00, 0x00, 0xc2, 0x7f, 0xfc, 0x47, 0xff}},
	}
	t.Run("FLOAT", func(t *testing.T) { srCheckForged[float32](t, encoding.Sprintz, floats) })
	doubles := []srForged{
		{"width 65", 9, cat([]byte{65}, be64(0), srRep(0, 65))},
		{"GORILLA no end marker", 1, cat([]byte{0x81}, be64(0), []byte{0x00})},
		{"GORILLA counts exceed 64 bits", 1, cat([]byte{0x81}, be64(0), srRep(0xff, 4))},
		{"GORILLA truncated first value", 1, []byte{0x81, 0x00, 0x00}},
	}
	t.Run("DOUBLE", func(t *testing.T) { srCheckForged[float64](t, encoding.Sprintz, doubles) })
}

// TestSprintzWidthZero checks that a full block of width 0, which Java never writes but its
// reader decodes as eight zero residuals, decodes the same way here.
func TestSprintzWidthZero(t *testing.T) {
	dst := make([]int32, 9)
	require.NoError(t, encoding.DecodeInt32(encoding.Sprintz, dst, []byte{0x00, 0x07}))
	require.Equal(t, []int32{7, 7, 7, 7, 7, 7, 7, 7, 7}, dst)
}

func TestSprintzDoesNotAllocate(t *testing.T) {
	srCheckNoAllocs(t, encoding.Sprintz)
}

// srCheckNoAllocs checks that decoding, counting and encoding into spare capacity do not
// allocate, for data that exercises both full and partial blocks.
func srCheckNoAllocs(t *testing.T, enc encoding.Encoding) {
	const n = 1000
	for name, v := range srIntSeries[int32](n, 5) {
		srNoAllocs(t, enc, name, v)
	}
	for name, v := range srIntSeries[int64](n, 6) {
		srNoAllocs(t, enc, name, v)
		src, err := encoding.AppendEncodedInt64(enc, nil, v)
		require.NoError(t, err)
		require.Zero(t, testing.AllocsPerRun(10, func() {
			if _, err := encoding.CountInt64(enc, src); err != nil {
				panic(err)
			}
		}))
	}
	for name, v := range srFloatSeries[float32](n, 7) {
		srNoAllocs(t, enc, name, v)
	}
	for name, v := range srFloatSeries[float64](n, 8) {
		srNoAllocs(t, enc, name, v)
	}
}

func srNoAllocs[T srValue](t *testing.T, enc encoding.Encoding, name string, v []T) {
	src, err := srEncode(enc, nil, v)
	require.NoError(t, err)
	dst := make([]T, len(v))
	require.Zero(t, testing.AllocsPerRun(10, func() {
		if err := srDecode(enc, dst, src); err != nil {
			panic(err)
		}
	}), "decode %s", name)
	buf := make([]byte, 0, len(src))
	require.Zero(t, testing.AllocsPerRun(10, func() {
		if _, err := srEncode(enc, buf, v); err != nil {
			panic(err)
		}
	}), "encode %s", name)
}

// srFuzz decodes arbitrary input, whose first two bytes give the value count, and checks that
// decoding never panics, fails only with the package's sentinels, agrees with CountInt64, and
// that accepted input re-encodes to a stream that decodes to the same bits and that the writer
// reproduces exactly from those values.
func srFuzz[T srValue](f *testing.F, enc encoding.Encoding) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		n := int(binary.BigEndian.Uint16(data))
		src := data[2:]
		dst := make([]T, n)
		err := srDecode(enc, dst, src)
		requireSentinel(t, err)
		if _, ok := any(dst).([]int64); ok {
			count, cerr := encoding.CountInt64(enc, src)
			requireSentinel(t, cerr)
			if err == nil {
				require.NoError(t, cerr)
				require.Equal(t, n, count)
			} else if cerr == nil {
				require.NotEqual(t, n, count, "CountInt64 accepts %d values that DecodeInt64 rejects: %v", n, err)
			}
		}
		if err != nil {
			return
		}
		re, err := srEncode(enc, nil, dst)
		require.NoError(t, err)
		again := make([]T, n)
		require.NoError(t, srDecode(enc, again, re))
		require.Equal(t, srBits(dst), srBits(again))
		re2, err := srEncode(enc, nil, again)
		require.NoError(t, err)
		require.Equal(t, re, re2)
	})
}

func FuzzDecodeSprintzInt32(f *testing.F)   { srFuzz[int32](f, encoding.Sprintz) }
func FuzzDecodeSprintzInt64(f *testing.F)   { srFuzz[int64](f, encoding.Sprintz) }
func FuzzDecodeSprintzFloat32(f *testing.F) { srFuzz[float32](f, encoding.Sprintz) }
func FuzzDecodeSprintzFloat64(f *testing.F) { srFuzz[float64](f, encoding.Sprintz) }

// Benchmark data: sensor-like random walks and the package's jittered timestamps.

func srBenchInt32() []int32 {
	r := rand.New(rand.NewPCG(21, 22))
	v := make([]int32, benchValues)
	x := int32(20_000)
	for i := range v {
		x += int32(r.IntN(41)) - 20
		v[i] = x
	}
	return v
}

func srBenchFloat64() []float64 {
	r := rand.New(rand.NewPCG(23, 24))
	v := make([]float64, benchValues)
	x := 20.0
	for i := range v {
		x += float64(r.IntN(21)-10) / 100
		v[i] = math.Round(x*100) / 100
	}
	return v
}

func srBenchFloat32() []float32 {
	v := make([]float32, benchValues)
	for i, x := range srBenchFloat64() {
		v[i] = float32(x)
	}
	return v
}

func srBenchDecode[T srValue](b *testing.B, enc encoding.Encoding, v []T) {
	src, err := srEncode(enc, nil, v)
	require.NoError(b, err)
	dst := make([]T, len(v))
	size := 8
	switch any(v).(type) {
	case []int32, []float32:
		size = 4
	}
	b.SetBytes(int64(size * len(v)))
	b.ReportAllocs()
	for b.Loop() {
		if err := srDecode(enc, dst, src); err != nil {
			b.Fatal(err)
		}
	}
}

// srBenchMemcpy copies as many bytes as the decoders produce, 4 and 8 bytes per value.
func srBenchMemcpy(b *testing.B) {
	for _, size := range []int{4, 8} {
		b.Run(strconv.Itoa(size)+"byte", func(b *testing.B) {
			src := make([]byte, size*benchValues)
			dst := make([]byte, len(src))
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

func BenchmarkDecodeInt32Sprintz(b *testing.B) { srBenchDecode(b, encoding.Sprintz, srBenchInt32()) }
func BenchmarkDecodeInt64Sprintz(b *testing.B) {
	srBenchDecode(b, encoding.Sprintz, benchTimestamps())
}
func BenchmarkDecodeFloat32Sprintz(b *testing.B) {
	srBenchDecode(b, encoding.Sprintz, srBenchFloat32())
}
func BenchmarkDecodeFloat64Sprintz(b *testing.B) {
	srBenchDecode(b, encoding.Sprintz, srBenchFloat64())
}
func BenchmarkMemcpySprintz(b *testing.B) { srBenchMemcpy(b) }
