package encoding_test

import (
	"testing"

	"github.com/tsarrow/tsarrow/encoding"
)

// Page-sized and memory-sized PLAIN decodes beside a copy of the same
// output size: the byte swap is the only work, so memcpy is its limit.
// The small size stays in L1, where memcpy runs at vector width; the
// large one streams from memory, where a real scan of many pages lives.
func BenchmarkPlainInt64VsMemcpy(b *testing.B) {
	for _, n := range []int{4096, 1 << 20} {
		src, err := encoding.AppendEncodedInt64(encoding.Plain, nil, make([]int64, n))
		if err != nil {
			b.Fatal(err)
		}
		dst := make([]int64, n)
		b.Run(sizeName(n)+"/decode", func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			b.ReportAllocs()
			for b.Loop() {
				if err := encoding.DecodeInt64(encoding.Plain, dst, src); err != nil {
					b.Fatal(err)
				}
			}
		})
		out := make([]byte, 8*n)
		b.Run(sizeName(n)+"/memcpy", func(b *testing.B) {
			b.SetBytes(int64(8 * n))
			for b.Loop() {
				copy(out, src)
			}
		})
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return "8MiB"
	}
	return "32KiB"
}

// BenchmarkPlainInt32Walk decodes PLAIN INT32 values of a random walk over
// a few thousand, whose ZigZag VarInts take two and three bytes: the
// common shape of counters and sensor readings, and of the benchmark
// table's INT32 columns. A branch-free decoder (one 8-byte load, the end
// found with a trailing-zero count) measured 0.75-0.8x of the byte loop
// here: each offset then depends on the previous value's arithmetic,
// where the loop's well-predicted branches let the CPU run ahead.
func BenchmarkPlainInt32Walk(b *testing.B) {
	const n = 8192
	vals := make([]int32, n)
	x := int32(1000)
	for i := range vals {
		x += int32(i*7919%41) - 20
		vals[i] = x * 13
	}
	src, err := encoding.AppendEncodedInt32(encoding.Plain, nil, vals)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]int32, n)
	b.SetBytes(4 * n)
	b.ReportAllocs()
	for b.Loop() {
		if err := encoding.DecodeInt32(encoding.Plain, dst, src); err != nil {
			b.Fatal(err)
		}
	}
}
