package encoding_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// rleBenchValues is the number of values per decoded page in the benchmarks of this family.
const rleBenchValues = 4096

// rleBenchSeries returns rleBenchValues values of one of the shapes the benchmarks use.
func rleBenchSeries(shape string) []int64 {
	r := rand.New(rand.NewPCG(21, 22))
	v := make([]int64, rleBenchValues)
	var cur int64
	for i := range v {
		switch shape {
		case "bitpacked-w4": // small codes, as dictionary indexes or states: all bit-packed
			v[i] = int64(r.IntN(16))
		case "bitpacked-w12":
			v[i] = int64(r.IntN(4096))
		case "bitpacked-w24":
			v[i] = int64(r.IntN(1 << 24))
		case "runs": // runs of 8 to 200 equal values
			if i == 0 || r.IntN(100) == 0 {
				cur = int64(r.IntN(1000))
			}
			v[i] = cur
		case "walk": // a slowly drifting counter: short runs and bit-packed groups mixed
			if r.IntN(6) == 0 {
				cur += int64(r.IntN(3))
			}
			v[i] = cur
		case "wide": // full-width values
			v[i] = int64(r.Uint64())
		}
	}
	return v
}

func BenchmarkDecodeInt32RLE(b *testing.B) {
	for _, shape := range []string{"bitpacked-w4", "bitpacked-w12", "bitpacked-w24", "runs", "walk"} {
		b.Run(shape, func(b *testing.B) {
			v64 := rleBenchSeries(shape)
			v := make([]int32, len(v64))
			for i, x := range v64 {
				v[i] = int32(x)
			}
			src, err := encoding.AppendEncodedInt32(encoding.RLE, nil, v)
			require.NoError(b, err)
			dst := make([]int32, len(v))
			b.SetBytes(int64(4 * len(v)))
			b.ReportAllocs()
			for b.Loop() {
				if err := encoding.DecodeInt32(encoding.RLE, dst, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeInt64RLE(b *testing.B) {
	for _, shape := range []string{"bitpacked-w12", "runs", "walk", "wide"} {
		b.Run(shape, func(b *testing.B) {
			v := rleBenchSeries(shape)
			src, err := encoding.AppendEncodedInt64(encoding.RLE, nil, v)
			require.NoError(b, err)
			dst := make([]int64, len(v))
			b.SetBytes(int64(8 * len(v)))
			b.ReportAllocs()
			for b.Loop() {
				if err := encoding.DecodeInt64(encoding.RLE, dst, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeBoolRLE(b *testing.B) {
	for _, shape := range []string{"random", "runs"} {
		b.Run(shape, func(b *testing.B) {
			r := rand.New(rand.NewPCG(23, 24))
			v := make([]bool, rleBenchValues)
			cur := false
			for i := range v {
				if shape == "random" || r.IntN(50) == 0 {
					cur = r.IntN(2) == 0
				}
				v[i] = cur
			}
			src, err := encoding.AppendEncodedBool(encoding.RLE, nil, v)
			require.NoError(b, err)
			dst := make([]bool, len(v))
			b.SetBytes(int64(len(v)))
			b.ReportAllocs()
			for b.Loop() {
				if err := encoding.DecodeBool(encoding.RLE, dst, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeInt32ZigZag(b *testing.B) {
	r := rand.New(rand.NewPCG(25, 26))
	v := make([]int32, rleBenchValues)
	for i := range v {
		v[i] = int32(r.IntN(20000)) - 10000 // mostly two- and three-byte varints
	}
	src, err := encoding.AppendEncodedInt32(encoding.ZigZag, nil, v)
	require.NoError(b, err)
	dst := make([]int32, len(v))
	b.SetBytes(int64(4 * len(v)))
	b.ReportAllocs()
	for b.Loop() {
		if err := encoding.DecodeInt32(encoding.ZigZag, dst, src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeInt64ZigZag(b *testing.B) {
	for _, shape := range []string{"small", "wide"} {
		b.Run(shape, func(b *testing.B) {
			r := rand.New(rand.NewPCG(27, 28))
			v := make([]int64, rleBenchValues)
			for i := range v {
				if shape == "small" {
					v[i] = int64(r.IntN(100)) - 50 // one-byte varints
				} else {
					v[i] = int64(r.Uint64())
				}
			}
			src, err := encoding.AppendEncodedInt64(encoding.ZigZag, nil, v)
			require.NoError(b, err)
			dst := make([]int64, len(v))
			b.SetBytes(int64(8 * len(v)))
			b.ReportAllocs()
			for b.Loop() {
				if err := encoding.DecodeInt64(encoding.ZigZag, dst, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// scaledBenchFloat64 resembles a sensor reading with two decimals: a random walk in steps of
// 0.01.
func scaledBenchFloat64() []float64 {
	r := rand.New(rand.NewPCG(29, 30))
	v := make([]float64, rleBenchValues)
	k := int64(2000)
	for i := range v {
		k += int64(r.IntN(21)) - 10
		v[i] = float64(k) / 100
	}
	return v
}

func BenchmarkDecodeFloat32RLE(b *testing.B)     { benchScaledFloat32(b, encoding.RLE) }
func BenchmarkDecodeFloat32TS2Diff(b *testing.B) { benchScaledFloat32(b, encoding.TS2Diff) }
func BenchmarkDecodeFloat64RLE(b *testing.B)     { benchScaledFloat64(b, encoding.RLE) }
func BenchmarkDecodeFloat64TS2Diff(b *testing.B) { benchScaledFloat64(b, encoding.TS2Diff) }

func benchScaledFloat32(b *testing.B, enc encoding.Encoding) {
	v64 := scaledBenchFloat64()
	v := make([]float32, len(v64))
	for i, x := range v64 {
		v[i] = float32(x)
	}
	src, err := encoding.AppendEncodedFloat32(enc, nil, v)
	require.NoError(b, err)
	dst := make([]float32, len(v))
	b.SetBytes(int64(4 * len(v)))
	b.ReportAllocs()
	for b.Loop() {
		if err := encoding.DecodeFloat32(enc, dst, src); err != nil {
			b.Fatal(err)
		}
	}
}

func benchScaledFloat64(b *testing.B, enc encoding.Encoding) {
	v := scaledBenchFloat64()
	src, err := encoding.AppendEncodedFloat64(enc, nil, v)
	require.NoError(b, err)
	dst := make([]float64, len(v))
	b.SetBytes(int64(8 * len(v)))
	b.ReportAllocs()
	for b.Loop() {
		if err := encoding.DecodeFloat64(enc, dst, src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMemcpyRLE is the baseline for the decoders above: copying the same number of
// decoded bytes (rleBenchValues values of 1, 4 and 8 bytes).
func BenchmarkMemcpyRLE(b *testing.B) {
	for _, size := range []struct {
		name  string
		bytes int
	}{{"1B", rleBenchValues}, {"4B", 4 * rleBenchValues}, {"8B", 8 * rleBenchValues}} {
		b.Run(size.name, func(b *testing.B) {
			src := make([]byte, size.bytes)
			dst := make([]byte, size.bytes)
			b.SetBytes(int64(size.bytes))
			b.ReportAllocs()
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}
