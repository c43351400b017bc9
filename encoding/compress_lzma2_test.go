package encoding_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os/exec"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/stretchr/testify/require"
	"github.com/ulikunitz/xz"

	"github.com/tsarrow/tsarrow/encoding"
)

// xzParts describes one .xz stream with one block, to build well-formed and deliberately
// broken streams field by field.
type xzParts struct {
	check       byte   // check ID in the stream flags (only 0x00 and 0x01 are computed)
	blockFlags  byte   // block flags byte
	filters     []byte // filter flags, 0x21 0x01 <dict prop> for LZMA2
	headerSizes []byte // optional compressed/uncompressed size VLIs after the flags
	headerPad   byte   // value of the block header padding bytes
	lzma2       []byte // the compressed data
	data        []byte // what it decodes to, for the check and the index
	indexCount  int    // records in the index; -1 for one
}

func xzLE32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func (x xzParts) build() []byte {
	flags := []byte{0, x.check}
	out := append([]byte("\xfd7zXZ\x00"), flags...)
	out = append(out, xzLE32(crc32.ChecksumIEEE(flags))...)

	body := append(append([]byte{0, x.blockFlags}, x.headerSizes...), x.filters...)
	for (len(body)+4)%4 != 0 {
		body = append(body, x.headerPad)
	}
	body[0] = byte((len(body)+4)/4 - 1)
	block := append(body, xzLE32(crc32.ChecksumIEEE(body))...)
	block = append(block, x.lzma2...)
	for n := len(x.lzma2); n%4 != 0; n++ {
		block = append(block, 0) // block padding
	}
	checkSize := 0
	if x.check == 0x01 {
		block = append(block, xzLE32(crc32.ChecksumIEEE(x.data))...)
		checkSize = 4
	}
	out = append(out, block...)

	count := 1
	if x.indexCount >= 0 {
		count = x.indexCount
	}
	index := []byte{0, byte(count)}
	for range count {
		index = binary.AppendUvarint(index, uint64(len(body)+4+len(x.lzma2)+checkSize))
		index = binary.AppendUvarint(index, uint64(len(x.data)))
	}
	for len(index)%4 != 0 {
		index = append(index, 0)
	}
	index = append(index, xzLE32(crc32.ChecksumIEEE(index))...)
	out = append(out, index...)

	footer := append(xzLE32(uint32(len(index)/4-1)), flags...)
	out = append(out, xzLE32(crc32.ChecksumIEEE(footer))...)
	out = append(out, footer...)
	return append(out, "YZ"...)
}

// xzHello is a valid stream: one uncompressed LZMA2 chunk of "hello", CRC32 check.
func xzHello() xzParts {
	return xzParts{
		check:      0x01,
		filters:    []byte{0x21, 0x01, 0x00},
		lzma2:      []byte("\x01\x00\x04hello\x00"),
		data:       []byte("hello"),
		indexCount: -1,
	}
}

// xzHugeDict declares the largest dictionary the format has (4 GiB - 1) and holds a chunk
// of 60,000 bytes: it must be refused for a 1,000-byte page without allocating either.
func xzHugeDict(t testing.TB) []byte {
	data := bytes.Repeat([]byte{'z'}, 60_000)
	x := xzHello()
	x.filters = []byte{0x21, 0x01, 40}
	x.lzma2 = append(append([]byte{0x01, 0xea, 0x5f}, data...), 0)
	x.data = data
	return x.build()
}

// zstdStreamBomb compresses data as a stream, which records no content size.
func zstdStreamBomb(t testing.TB, data []byte) []byte {
	var b bytes.Buffer
	w, err := zstd.NewWriter(&b, zstd.WithEncoderConcurrency(1))
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

func TestXZBuilder(t *testing.T) {
	got, err := compressCodec(t, encoding.LZMA2).Decompress(nil, xzHello().build(), 5)
	require.NoError(t, err)
	require.Equal(t, "hello", string(got))
	// The builder agrees with the hand-written golden vector.
	for _, g := range compressGolden {
		if g.name == "xz stream, uncompressed LZMA2 chunk" {
			require.Equal(t, g.hex, compressHex(xzHello().build()))
		}
	}
}

func compressHex(b []byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, digits[c>>4], digits[c&15])
	}
	return string(out)
}

// TestXZStructureErrors breaks one field of a valid stream at a time.
func TestXZStructureErrors(t *testing.T) {
	codec := compressCodec(t, encoding.LZMA2)
	for _, tc := range []struct {
		name string
		edit func(x *xzParts)
		raw  func(b []byte) []byte
		want error
	}{
		{name: "delta filter", edit: func(x *xzParts) { x.filters = []byte{0x03, 0x01, 0x00} }, want: encoding.ErrUnsupported},
		{name: "two filters", edit: func(x *xzParts) {
			x.blockFlags = 0x01
			x.filters = []byte{0x03, 0x01, 0x00, 0x21, 0x01, 0x00}
		}, want: encoding.ErrUnsupported},
		{name: "reserved block flag", edit: func(x *xzParts) { x.blockFlags = 0x04 }, want: encoding.ErrUnsupported},
		{name: "non-zero header padding", edit: func(x *xzParts) { x.headerPad = 1 }, want: encoding.ErrUnsupported},
		{name: "LZMA2 properties of 2 bytes", edit: func(x *xzParts) { x.filters = []byte{0x21, 0x02, 0x00, 0x00} }, want: encoding.ErrCorrupt},
		{name: "dictionary property 41", edit: func(x *xzParts) { x.filters = []byte{0x21, 0x01, 41} }, want: encoding.ErrCorrupt},
		{name: "compressed size in header differs", edit: func(x *xzParts) {
			x.blockFlags = 0x40
			x.headerSizes = []byte{10}
		}, want: encoding.ErrCorrupt},
		{name: "compressed size 0 in header", edit: func(x *xzParts) {
			x.blockFlags = 0x40
			x.headerSizes = []byte{0}
		}, want: encoding.ErrCorrupt},
		{name: "uncompressed size in header differs", edit: func(x *xzParts) {
			x.blockFlags = 0x80
			x.headerSizes = []byte{4}
		}, want: encoding.ErrCorrupt},
		{name: "non-minimal size VLI", edit: func(x *xzParts) {
			x.blockFlags = 0x80
			x.headerSizes = []byte{0x85, 0x00}
		}, want: encoding.ErrCorrupt},
		{name: "index lists no block", edit: func(x *xzParts) { x.indexCount = 0 }, want: encoding.ErrCorrupt},
		{name: "index lists two blocks", edit: func(x *xzParts) { x.indexCount = 2 }, want: encoding.ErrCorrupt},
		{name: "check of other data", edit: func(x *xzParts) { x.data = []byte("hellp") }, want: encoding.ErrCorrupt},
		{name: "unknown check 0x02", edit: func(x *xzParts) { x.check = 0x02 }, want: encoding.ErrUnsupported},
		{name: "control byte 0x03", edit: func(x *xzParts) { x.lzma2 = []byte("\x03\x00\x04hello\x00") }, want: encoding.ErrCorrupt},
		{name: "first chunk keeps the dictionary", edit: func(x *xzParts) { x.lzma2 = []byte("\x02\x00\x04hello\x00") }, want: encoding.ErrCorrupt},
		{name: "LZMA chunk without properties", edit: func(x *xzParts) {
			x.lzma2 = []byte("\x01\x00\x04hello\x80\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00")
		}, want: encoding.ErrCorrupt},
		{name: "lc+lp above 4", edit: func(x *xzParts) {
			x.lzma2 = []byte("\xe0\x00\x00\x00\x05\x0e\x00\x00\x00\x00\x00\x00") // props 14: lc 5 lp 1
		}, want: encoding.ErrCorrupt},
		{name: "properties byte 225", edit: func(x *xzParts) {
			x.lzma2 = []byte("\xe0\x00\x00\x00\x05\xe1\x00\x00\x00\x00\x00\x00")
		}, want: encoding.ErrCorrupt},
		{name: "range coder without its zero byte", edit: func(x *xzParts) {
			x.lzma2 = []byte("\xe0\x00\x00\x00\x05\x5d\x01\x00\x00\x00\x00\x00")
		}, want: encoding.ErrCorrupt},
		{name: "no end marker", edit: func(x *xzParts) { x.lzma2 = []byte("\x01\x00\x04hello") }, want: encoding.ErrCorrupt},
		{name: "chunk longer than the payload", edit: func(x *xzParts) { x.lzma2 = []byte("\x01\x00\x09hello\x00") }, want: encoding.ErrCorrupt},
		{name: "index CRC", raw: func(b []byte) []byte { b[len(b)-13] ^= 1; return b }, want: encoding.ErrCorrupt},
		{name: "footer CRC", raw: func(b []byte) []byte { b[len(b)-12] ^= 1; return b }, want: encoding.ErrCorrupt},
		{name: "footer magic", raw: func(b []byte) []byte { b[len(b)-1] = 'X'; return b }, want: encoding.ErrCorrupt},
		{name: "stream header CRC", raw: func(b []byte) []byte { b[8] ^= 1; return b }, want: encoding.ErrCorrupt},
		{name: "block header CRC", raw: func(b []byte) []byte { b[14] ^= 1; return b }, want: encoding.ErrCorrupt},
		{name: "block padding not zero", raw: func(b []byte) []byte { b[12+12+9] = 1; return b }, want: encoding.ErrCorrupt},
		{name: "footer flags differ", raw: func(b []byte) []byte {
			b[len(b)-4] = 0x04
			copy(b[len(b)-12:], xzLE32(crc32.ChecksumIEEE(b[len(b)-8:len(b)-2])))
			return b
		}, want: encoding.ErrCorrupt},
		{name: "backward size", raw: func(b []byte) []byte {
			b[len(b)-8] = 2
			copy(b[len(b)-12:], xzLE32(crc32.ChecksumIEEE(b[len(b)-8:len(b)-2])))
			return b
		}, want: encoding.ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := xzHello()
			if tc.edit != nil {
				tc.edit(&x)
			}
			src := x.build()
			if tc.raw != nil {
				src = tc.raw(src)
			}
			_, err := codec.Decompress(nil, src, 5)
			require.ErrorIs(t, err, tc.want)
			compressRequireSentinel(t, err)
		})
	}
}

// TestXZDictionaryLimit checks that a match may reach back no further than the dictionary
// size the block header declares, as the Java and C decoders enforce with their window.
func TestXZDictionaryLimit(t *testing.T) {
	// 8 KiB of noise twice: the second copy is one match 8 KiB back.
	noise := compressRandom(8<<10, 5)
	data := append(bytes.Clone(noise), noise...)
	var b bytes.Buffer
	w, err := xz.WriterConfig{DictCap: 64 << 10, CheckSum: xz.CRC32}.NewWriter(&b)
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	src := b.Bytes()
	require.Less(t, len(src), len(data)*3/4, "the repeat should be one match")

	codec := compressCodec(t, encoding.LZMA2)
	got, err := codec.Decompress(nil, src, len(data))
	require.NoError(t, err)
	require.Equal(t, data, got)

	// Declare a 4 KiB dictionary instead (property 0) and fix the header CRC.
	hsize := (int(src[12]) + 1) * 4
	hdr := src[12 : 12+hsize]
	i := bytes.Index(hdr, []byte{0x21, 0x01})
	require.Positive(t, i)
	hdr[i+2] = 0
	copy(hdr[hsize-4:], xzLE32(crc32.ChecksumIEEE(hdr[:hsize-4])))
	_, err = codec.Decompress(nil, src, len(data))
	require.ErrorIs(t, err, encoding.ErrCorrupt)
	require.ErrorContains(t, err, "reaches before the dictionary")
}

// TestCompressCrossCheckCLI compresses with the reference command-line tools and
// decompresses with the codecs, and the reverse, on larger inputs than the embedded
// vectors: several LZMA2 chunks, presets and literal/position settings. It is skipped for
// each tool that is not installed.
func TestCompressCrossCheckCLI(t *testing.T) {
	t.Parallel()
	inputs := [][]byte{compressPage(150_000), compressRandom(40_000, 11), bytes.Repeat([]byte("abcdefgh"), 20_000), {}}
	tools := []struct {
		c          encoding.Compression
		tool       string
		compress   [][]string
		decompress []string
	}{
		{encoding.LZMA2, "xz", [][]string{{"-c"}, {"-0", "-c"}, {"-9e", "-c", "--lzma2=dict=1MiB"}, {"-c", "--lzma2=lc=1,lp=3,pb=1,dict=64KiB"}, {"-c", "--check=sha256", "--block-size=65536"}, {"-c", "-T2", "--block-size=100000"}}, []string{"-dc"}},
		{encoding.Gzip, "gzip", [][]string{{"-c"}, {"-1", "-c"}, {"-9", "-c"}}, []string{"-dc"}},
		{encoding.ZSTD, "zstd", [][]string{{"-q", "-c"}, {"-q", "-19", "--check", "-c"}, {"-q", "--no-content-size", "-c"}}, []string{"-q", "-dc"}},
	}
	for _, tl := range tools {
		path, err := exec.LookPath(tl.tool)
		if err != nil {
			t.Logf("%s not installed; skipping its cross-check", tl.tool)
			continue
		}
		codec := compressCodec(t, tl.c)
		run := func(args []string, in []byte) []byte {
			cmd := exec.Command(path, args...)
			cmd.Stdin = bytes.NewReader(in)
			out, err := cmd.Output()
			require.NoError(t, err, "%s %v", tl.tool, args)
			return out
		}
		for _, in := range inputs {
			for _, args := range tl.compress {
				got, err := codec.Decompress(nil, run(args, in), len(in))
				require.NoError(t, err, "%s %v of %d bytes", tl.tool, args, len(in))
				require.True(t, bytes.Equal(in, got), "%s %v of %d bytes", tl.tool, args, len(in))
			}
			z, err := codec.Compress(nil, in)
			require.NoError(t, err)
			require.True(t, bytes.Equal(in, run(tl.decompress, z)), "%s %v of our %v", tl.tool, tl.decompress, tl.c)
		}
	}
}
