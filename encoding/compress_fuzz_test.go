package encoding_test

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/ulikunitz/xz"

	"github.com/tsarrow/tsarrow/encoding"
)

// The decompression fuzz targets feed arbitrary payloads and declared sizes to one codec.
// A codec must never panic; it fails with an error wrapping one sentinel, or returns
// exactly size bytes decoded in place into the capacity it was given (so that no input can
// make it allocate more than the page), which then survive a round trip. The committed
// corpus is under testdata/fuzz/<target>/; f.Add seeds add valid payloads of each codec.

// compressFuzzMaxSize bounds the declared size, as a reader bounds it by its page limit.
const compressFuzzMaxSize = 1 << 17

// addGoldenSeeds adds the golden payloads of codec c as seeds, each with
// its decoded size.
func addGoldenSeeds(f *testing.F, c encoding.Compression) {
	for _, g := range compressGolden {
		if g.c == c {
			src, err := hex.DecodeString(g.hex)
			require.NoError(f, err)
			f.Add(src, uint32(len(g.want)))
		}
	}
}

func compressFuzz(f *testing.F, c encoding.Compression, check func(t *testing.T, src, out []byte)) {
	codec := compressCodec(f, c)
	for _, in := range [][]byte{nil, []byte("a"), []byte("hello, hello, hello"), compressPage(3000), compressRandom(300, 3)} {
		z, err := codec.Compress(nil, in)
		require.NoError(f, err)
		f.Add(z, uint32(len(in)))
	}
	addGoldenSeeds(f, c)
	f.Fuzz(func(t *testing.T, src []byte, size uint32) {
		n := int(size % compressFuzzMaxSize)
		dst := make([]byte, 0, n)
		out, err := codec.Decompress(dst, src, n)
		if err != nil {
			compressRequireSentinel(t, err)
			require.Nil(t, out)
			return
		}
		require.Len(t, out, n)
		if n > 0 {
			require.Same(t, &dst[:1][0], &out[0], "decoded outside the given capacity")
		}
		z, err := codec.Compress(nil, out)
		require.NoError(t, err)
		back, err := codec.Decompress(nil, z, n)
		require.NoError(t, err)
		require.True(t, bytes.Equal(out, back), "round trip differs")
		if check != nil {
			check(t, src, out)
		}
	})
}

func FuzzDecompressSnappy(f *testing.F) { compressFuzz(f, encoding.Snappy, nil) }

func FuzzDecompressGzip(f *testing.F) { compressFuzz(f, encoding.Gzip, nil) }

func FuzzDecompressLZ4(f *testing.F) { compressFuzz(f, encoding.LZ4, nil) }

func FuzzDecompressZSTD(f *testing.F) { compressFuzz(f, encoding.ZSTD, nil) }

// FuzzDecompressLZMA2 also decodes every accepted payload with ulikunitz/xz, an
// independent decoder, which must agree. That decoder allocates the dictionary the stream
// declares, so it is only asked when no LZMA2 filter in src could declare more than 1 MiB.
func FuzzDecompressLZMA2(f *testing.F) {
	compressFuzz(f, encoding.LZMA2, func(t *testing.T, src, out []byte) {
		if len(src) == 0 {
			return // the empty page, which has no .xz stream at all
		}
		for i := 0; i+2 < len(src); i++ {
			if src[i] == 0x21 && src[i+1] == 0x01 && src[i+2] > 16 {
				return
			}
		}
		r, err := xz.NewReader(bytes.NewReader(src))
		require.NoError(t, err)
		var b bytes.Buffer
		_, err = b.ReadFrom(r)
		require.NoError(t, err, "ulikunitz/xz rejects what this decoder accepted")
		require.True(t, bytes.Equal(out, b.Bytes()), "ulikunitz/xz decodes differently")
	})
}
