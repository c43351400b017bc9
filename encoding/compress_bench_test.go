package encoding_test

import (
	"testing"

	"github.com/tsarrow/tsarrow/encoding"
)

// compressBenchSize is the reference writer's page_max_bytes, the usual page size.
const compressBenchSize = 64 << 10

func compressBenchDecompress(b *testing.B, c encoding.Compression) {
	codec := compressCodec(b, c)
	page := compressPage(compressBenchSize)
	z, err := codec.Compress(nil, page)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, len(page))
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := codec.Decompress(dst, z, len(page)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(page))/float64(len(z)), "ratio")
}

func BenchmarkDecompressSnappy(b *testing.B) { compressBenchDecompress(b, encoding.Snappy) }
func BenchmarkDecompressGzip(b *testing.B)   { compressBenchDecompress(b, encoding.Gzip) }
func BenchmarkDecompressLZ4(b *testing.B)    { compressBenchDecompress(b, encoding.LZ4) }
func BenchmarkDecompressZSTD(b *testing.B)   { compressBenchDecompress(b, encoding.ZSTD) }
func BenchmarkDecompressLZMA2(b *testing.B)  { compressBenchDecompress(b, encoding.LZMA2) }

// BenchmarkMemcpyCompress is the baseline for the decompression benchmarks: copying a page
// of the same size, which is what UNCOMPRESSED would cost if it copied.
func BenchmarkMemcpyCompress(b *testing.B) {
	page := compressPage(compressBenchSize)
	dst := make([]byte, len(page))
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		copy(dst, page)
	}
}

// BenchmarkCompress measures each codec's Compress on the same page.
func BenchmarkCompress(b *testing.B) {
	page := compressPage(compressBenchSize)
	for _, c := range compressCodecs {
		b.Run(c.String(), func(b *testing.B) {
			codec := compressCodec(b, c)
			dst := make([]byte, 0, 2*len(page))
			b.SetBytes(int64(len(page)))
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if dst, err = codec.Compress(dst, page); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
