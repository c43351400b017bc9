package encoding_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

const benchValues = 4096

// benchTimestamps resembles a time column: millisecond timestamps with a little jitter.
func benchTimestamps() []int64 {
	r := rand.New(rand.NewPCG(9, 10))
	v := make([]int64, benchValues)
	t := int64(1_700_000_000_000)
	for i := range v {
		t += 1000 + int64(r.IntN(16))
		v[i] = t
	}
	return v
}

func benchRandomInt64() []int64 {
	r := rand.New(rand.NewPCG(11, 12))
	v := make([]int64, benchValues)
	for i := range v {
		v[i] = int64(r.Uint64())
	}
	return v
}

func TestDecodeInt64DoesNotAllocate(t *testing.T) {
	v := benchTimestamps()
	dst := make([]int64, len(v))
	for _, enc := range []encoding.Encoding{encoding.Plain, encoding.TS2Diff} {
		src, err := encoding.AppendEncodedInt64(enc, nil, v)
		require.NoError(t, err)
		allocs := testing.AllocsPerRun(20, func() {
			if err := encoding.DecodeInt64(enc, dst, src); err != nil {
				panic(err)
			}
		})
		require.Zero(t, allocs, "%v", enc)
		require.Equal(t, v, dst)
	}
}

func TestDecodeInt32DoesNotAllocate(t *testing.T) {
	v := make([]int32, benchValues)
	for i := range v {
		v[i] = int32(i * 37)
	}
	dst := make([]int32, len(v))
	for _, enc := range []encoding.Encoding{encoding.Plain, encoding.TS2Diff} {
		src, err := encoding.AppendEncodedInt32(enc, nil, v)
		require.NoError(t, err)
		allocs := testing.AllocsPerRun(20, func() {
			if err := encoding.DecodeInt32(enc, dst, src); err != nil {
				panic(err)
			}
		})
		require.Zero(t, allocs, "%v", enc)
	}
}

func TestAppendIntoCapacityDoesNotAllocate(t *testing.T) {
	v := benchTimestamps()
	src, err := encoding.AppendEncodedInt64(encoding.TS2Diff, nil, v)
	require.NoError(t, err)
	dst := make([]int64, 0, len(v))
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := encoding.AppendAllInt64(encoding.TS2Diff, dst, src); err != nil {
			panic(err)
		}
	})
	require.Zero(t, allocs)

	buf := make([]byte, 0, 2*len(src))
	allocs = testing.AllocsPerRun(20, func() {
		if _, err := encoding.AppendEncodedInt64(encoding.TS2Diff, buf, v); err != nil {
			panic(err)
		}
	})
	require.Zero(t, allocs)

	bins, err := encoding.AppendEncodedBinary(encoding.Plain, nil, [][]byte{[]byte("abc"), []byte("de")})
	require.NoError(t, err)
	offsets, data := make([]int32, 1, 8), make([]byte, 0, 16)
	allocs = testing.AllocsPerRun(20, func() {
		if _, _, err := encoding.AppendBinary(encoding.Plain, offsets, data, 2, bins); err != nil {
			panic(err)
		}
	})
	require.Zero(t, allocs)
}

func benchDecodeInt64(b *testing.B, enc encoding.Encoding, v []int64) {
	src, err := encoding.AppendEncodedInt64(enc, nil, v)
	require.NoError(b, err)
	dst := make([]int64, len(v))
	// Report throughput in decoded bytes, so encodings are comparable.
	b.SetBytes(int64(8 * len(v)))
	for b.Loop() {
		if err := encoding.DecodeInt64(enc, dst, src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeInt64TS2Diff(b *testing.B) {
	b.Run("timestamps", func(b *testing.B) { benchDecodeInt64(b, encoding.TS2Diff, benchTimestamps()) })
	b.Run("random", func(b *testing.B) { benchDecodeInt64(b, encoding.TS2Diff, benchRandomInt64()) })
	b.Run("regular", func(b *testing.B) { benchDecodeInt64(b, encoding.TS2Diff, seq64(0, benchValues)) })
}

func BenchmarkDecodeInt64Plain(b *testing.B) {
	benchDecodeInt64(b, encoding.Plain, benchRandomInt64())
}

func BenchmarkDecodeInt32TS2Diff(b *testing.B) {
	v := make([]int32, benchValues)
	for i := range v {
		v[i] = int32(i*1000 + i%7)
	}
	src, err := encoding.AppendEncodedInt32(encoding.TS2Diff, nil, v)
	require.NoError(b, err)
	dst := make([]int32, len(v))
	b.SetBytes(int64(4 * len(v)))
	for b.Loop() {
		if err := encoding.DecodeInt32(encoding.TS2Diff, dst, src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeInt32Plain decodes VarInts of random widths (every
// length mixed, the worst case for predicting them) and two random walks
// like a sensor's readings: small levels of one or two bytes and values
// in the thousands of two bytes each.
func BenchmarkDecodeInt32Plain(b *testing.B) {
	walk := func(r *rand.Rand, lo, hi, step int32) func(int) int32 {
		x := (lo + hi) / 2
		return func(int) int32 {
			x = min(hi, max(lo, x+r.Int32N(2*step+1)-step))
			return x
		}
	}
	cases := []struct {
		name string
		gen  func(r *rand.Rand) func(int) int32
	}{
		{"random", func(r *rand.Rand) func(int) int32 {
			return func(int) int32 { return int32(r.Uint32() >> r.UintN(32)) }
		}},
		{"walk-level", func(r *rand.Rand) func(int) int32 { return walk(r, 0, 100, 1) }},
		{"walk-rpm", func(r *rand.Rand) func(int) int32 { return walk(r, 0, 3000, 5) }},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			gen := tc.gen(rand.New(rand.NewPCG(13, 14)))
			v := make([]int32, benchValues)
			for i := range v {
				v[i] = gen(i)
			}
			src, err := encoding.AppendEncodedInt32(encoding.Plain, nil, v)
			require.NoError(b, err)
			dst := make([]int32, len(v))
			b.SetBytes(int64(4 * len(v)))
			for b.Loop() {
				if err := encoding.DecodeInt32(encoding.Plain, dst, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeFloat64Plain(b *testing.B) {
	v := make([]float64, benchValues)
	for i := range v {
		v[i] = float64(i) * 0.25
	}
	src, err := encoding.AppendEncodedFloat64(encoding.Plain, nil, v)
	require.NoError(b, err)
	dst := make([]float64, len(v))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if err := encoding.DecodeFloat64(encoding.Plain, dst, src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendBinaryPlain decodes short strings whose lengths cycle
// through 8-17 bytes, states of a machine that change every 50 values or
// so (the benchmark table's state column), and random lengths of 0-16.
func BenchmarkAppendBinaryPlain(b *testing.B) {
	states := []string{"idle", "heating", "cooling", "running", "maintenance", "error"}
	r := rand.New(rand.NewPCG(15, 16))
	state := 0
	cases := []struct {
		name string
		gen  func(i int) []byte
	}{
		{"cycle", func(i int) []byte { return []byte("device_0000_sensor")[:8+i%10] }},
		{"runs", func(int) []byte {
			if r.IntN(50) == 0 {
				state = r.IntN(len(states))
			}
			return []byte(states[state])
		}},
		{"random", func(int) []byte { return []byte("0123456789abcdef")[:r.IntN(17)] }},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			vals := make([][]byte, benchValues)
			for i := range vals {
				vals[i] = tc.gen(i)
			}
			src, err := encoding.AppendEncodedBinary(encoding.Plain, nil, vals)
			require.NoError(b, err)
			offsets, data := make([]int32, 1, benchValues+1), make([]byte, 0, len(src))
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, _, err := encoding.AppendBinary(encoding.Plain, offsets, data, len(vals), src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeInt64TS2Diff(b *testing.B) {
	v := benchTimestamps()
	buf := make([]byte, 0, 16*len(v))
	b.SetBytes(int64(8 * len(v)))
	for b.Loop() {
		if _, err := encoding.AppendEncodedInt64(encoding.TS2Diff, buf, v); err != nil {
			b.Fatal(err)
		}
	}
}
