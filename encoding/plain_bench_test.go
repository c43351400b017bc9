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
