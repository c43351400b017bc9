package encoding_test

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// compressGolden are payloads worked out by hand from each format's specification, with
// the bytes they must decode to.
var compressGolden = []struct {
	name  string
	c     encoding.Compression
	hex   string
	want  string
	notes string
}{
	{"snappy literal", encoding.Snappy, "05" + "10" + hex.EncodeToString([]byte("hello")), "hello",
		"uvarint 5 = decoded length; tag 0x10 = literal (tag&3 == 0) of (0x10>>2)+1 = 5 bytes"},
	{"snappy literal and copy", encoding.Snappy, "09" + "08616263" + "0903", "abcabcabc",
		"length 9; literal of 3 bytes 'abc'; tag 0x09 = copy with 1-byte offset (tag&3 == 1), " +
			"length 4+((0x09>>2)&7) = 6, offset ((0x09>>5)<<8)|0x03 = 3: an overlapping copy"},
	{"snappy empty", encoding.Snappy, "00", "", "uvarint 0 and no elements"},
	{"lz4 literals only", encoding.LZ4, "50" + hex.EncodeToString([]byte("hello")), "hello",
		"token 0x50: 5 literals, no match part because it is the last sequence"},
	{"lz4 literal and match", encoding.LZ4, "44" + hex.EncodeToString([]byte("abcd")) + "0400" + "80" + hex.EncodeToString([]byte("efghijkl")),
		"abcdabcdabcdefghijkl",
		"token 0x44: 4 literals 'abcd', then a match of 4+4 = 8 bytes at little-endian offset 4 (overlapping); " +
			"token 0x80: the last 8 bytes as literals, as the format's end-of-block rules require"},
	{"lz4 long literal run", encoding.LZ4, "f0" + "05" + hex.EncodeToString([]byte("0123456789abcdefghij")), "0123456789abcdefghij",
		"token 0xf0: literal count 15 plus the following byte 5 = 20"},
	{"lz4 empty", encoding.LZ4, "00", "", "one token with no literals: what lz4-java writes for empty input"},
	{"lzo literals only", encoding.LZO, "16" + hex.EncodeToString([]byte("hello")) + "110000", "hello",
		"first byte 0x16 > 17: 0x16-17 = 5 literals; 0x11 0x00 0x00 = M4 opcode 0001 0 001 with distance field 0: the end marker"},
	{"lzo empty", encoding.LZO, "110000", "", "the end marker alone: what liblzo2's lzo1x_1 and lzo1x_999 write for empty input"},
	{"lzo M2 overlapping match", encoding.LZO, "14" + hex.EncodeToString([]byte("abc")) + "a800" + "110000", "abcabcabc",
		"first byte 0x14: 3 literals 'abc'; 0xa8 = 1 01 010 00 = M2 of 5+1 = 6 bytes, D = 2, next byte H = 0: distance " +
			"(H<<3)+D+1 = 3, overlapping its own output; S = 0; the end marker"},
	{"lzo M1 after two literals", encoding.LZO, "13" + hex.EncodeToString([]byte("ab")) + "0500" + "63" + "110000", "ababc",
		"first byte 0x13: 2 literals 'ab', state 2; 0x05 = 0000 01 01 below 16 after 1-3 literals: a 2-byte match, " +
			"D = 1, next byte H = 0: distance (H<<2)+D+1 = 2; S = 1: one literal 'c' follows; the end marker"},
	{"lzo long literal run", encoding.LZO, "0002" + hex.EncodeToString([]byte("0123456789abcdefghij")) + "110000", "0123456789abcdefghij",
		"first byte 0x00 in state 0: a literal run with L = 0, so the length is 3 + 15 + the next byte 2 = 20"},
	{"lzo M3 with a length byte", encoding.LZO, "12" + "61" + "20" + "05" + "0000" + "110000", strings.Repeat("a", 39),
		"first byte 0x12: 1 literal 'a'; 0x20 = 001 00000 = M3 with L = 0, so the length is 2 + 31 + the next byte 5 = 38; " +
			"LE16 0x0000: distance (0>>2)+1 = 1, S = 0; the end marker"},
	{"gzip stored block", encoding.Gzip,
		"1f8b" + "08" + "00" + "00000000" + "00" + "ff" + "01" + "0500" + "faff" + hex.EncodeToString([]byte("hello")) + "86a61036" + "05000000",
		"hello",
		"magic 1f8b, CM 8 = deflate, FLG 0, MTIME 0, XFL 0, OS 255 (as JDK 16+ writes); deflate block header 0x01 = " +
			"BFINAL 1, BTYPE 00 (stored), LEN 5, NLEN ^5; the 5 bytes; CRC32('hello') = 0x3610a686 and ISIZE 5, little-endian"},
	{"zstd raw block", encoding.ZSTD, "28b52ffd" + "20" + "05" + "290000" + hex.EncodeToString([]byte("hello")), "hello",
		"magic 0xFD2FB528 little-endian; frame header descriptor 0x20 = single segment, 1-byte content size, no checksum, " +
			"no dictionary; content size 5; block header 0x000029 = last block, type raw (0), size 5; the 5 bytes"},
	{"zstd rle block", encoding.ZSTD, "28b52ffd" + "20" + "0a" + "530000" + "61", "aaaaaaaaaa",
		"as above with content size 10; block header 0x000053 = last block, type RLE (1), size 10; the byte 'a'"},
	{"xz stream, uncompressed LZMA2 chunk", encoding.LZMA2,
		"fd377a585a00" + "0001" + "6922de36" + // stream header: magic, flags (CRC32 check), CRC32 of the flags
			"02" + "00" + "210100" + "000000" + "372797d6" + // block header: size (2+1)*4, flags, LZMA2 filter with dict prop 0, padding, CRC32
			"010004" + hex.EncodeToString([]byte("hello")) + "00" + // LZMA2: uncompressed chunk with dictionary reset, size 4+1; end marker
			"000000" + "86a61036" + // block padding to a multiple of 4, CRC32 check of 'hello'
			"00011905" + "bce8eccb" + // index: indicator, 1 record, unpadded size 12+9+4 = 25, uncompressed size 5; CRC32
			"9042990d" + "01000000" + "0001" + "595a", // footer: CRC32, backward size (8/4)-1, flags, magic 'YZ'
		"hello", "the .xz format 1.2: every field laid out by hand"},
	{"xz empty stream", encoding.LZMA2,
		"fd377a585a00" + "0001" + "6922de36" + "0000" + "0000" + "1cdf4421" + "9042990d" + "01000000" + "0001" + "595a", "",
		"stream header, an index of no records (indicator, count 0, 2 bytes of padding, CRC32) and the footer: the " +
			"layout XZOutputStream writes for empty input (here with the CRC32 check flag)"},
}

// compressGoldenCRCs recomputes the CRC32 fields of the hand-built .xz vectors, so that the
// hex above is seen to be derived rather than copied.
func TestCompressGoldenXZFields(t *testing.T) {
	le := func(v uint32) string { return hex.EncodeToString(binary.LittleEndian.AppendUint32(nil, v)) }
	require.Equal(t, "6922de36", le(crc32.ChecksumIEEE([]byte{0x00, 0x01})))
	require.Equal(t, "372797d6", le(crc32.ChecksumIEEE([]byte{0x02, 0x00, 0x21, 0x01, 0x00, 0, 0, 0})))
	require.Equal(t, "86a61036", le(crc32.ChecksumIEEE([]byte("hello"))))
	require.Equal(t, "bce8eccb", le(crc32.ChecksumIEEE([]byte{0x00, 0x01, 25, 5})))
	require.Equal(t, "9042990d", le(crc32.ChecksumIEEE([]byte{1, 0, 0, 0, 0x00, 0x01})))
	require.Equal(t, "1cdf4421", le(crc32.ChecksumIEEE([]byte{0, 0, 0, 0})))
}

func TestCompressGolden(t *testing.T) {
	for _, g := range compressGolden {
		t.Run(g.name, func(t *testing.T) {
			src, err := hex.DecodeString(g.hex)
			require.NoError(t, err)
			codec := compressCodec(t, g.c)
			got, err := codec.Decompress(nil, src, len(g.want))
			require.NoError(t, err, g.notes)
			require.Equal(t, g.want, string(got), g.notes)
			_, err = codec.Decompress(nil, src, len(g.want)+1)
			require.ErrorIs(t, err, encoding.ErrCorrupt)
		})
	}
}

// compressRefText and compressRefRandom are the inputs of compressReference; the same formulas made the
// files that the command-line tools compressed.
func compressRefText() []byte {
	var b []byte
	for i := range 100 {
		b = fmt.Appendf(b, "%d:%d;", i, i*i%37)
	}
	return b
}

func compressRefRandom() []byte {
	b := make([]byte, 200)
	x := uint32(1)
	for i := range b {
		x = (x*1103515245 + 12345) % (1 << 31)
		b[i] = byte(x >> 16)
	}
	return b
}

// compressReference are payloads made by the reference command-line tools (xz 5.4.1,
// zstd 1.5, gzip 1.12) from compressRefText and compressRefRandom.
var compressReference = []struct {
	name   string
	c      encoding.Compression
	input  func() []byte
	base64 string
}{
	{"xz default: preset 6, CRC64, no sizes in the block header (as XZOutputStream writes)", encoding.LZMA2, compressRefText, "/Td6WFoAAATm1rRGAgAhARYAAAB0L+Wj4AIwATNdABgOgkN1f8xbmK1+JV7zw+o6hdzFP1DuvvyG+Xpa9J/p6CzLlIjYXXtLb5lXy1ofQDeM9lng1bg++clhcB2KfHSfaZfI3bEE5a3ZfM+JlINtFFtpPQ5+8Nuj6iMGabA2kiop1S9HjVf3yCNblvkWEOKLhg9TmlCWapf3Lw2r2af+A8/i1wUANTMOvsgfolsA4Q+u848ds5ntEWROjh0zPABF9gbUv+vGUyEgcnYA3z3lR3KIjOinzjeTw1nx1PPqvW3Vk+la2+CGAujwqfQtsrWaQB9IMXSICDcMsgIUX87RFqFyiEuQo8IcG0TfWlfWNRZlGOhTOqDM8xuLX1WnuNuc1DwyVYRYjIHmYP608RYMJ7gSTxgFeSijrzlNU1/T+Qm23mduJW61zVDWJ8Mfr66UQ3EAAG1/79khswF6AAHPArEEAAD/quz7scRn+wIAAAAABFla"},
	{"xz --check=crc32", encoding.LZMA2, compressRefText, "/Td6WFoAAAFpIt42AgAhARYAAAB0L+Wj4AIwATNdABgOgkN1f8xbmK1+JV7zw+o6hdzFP1DuvvyG+Xpa9J/p6CzLlIjYXXtLb5lXy1ofQDeM9lng1bg++clhcB2KfHSfaZfI3bEE5a3ZfM+JlINtFFtpPQ5+8Nuj6iMGabA2kiop1S9HjVf3yCNblvkWEOKLhg9TmlCWapf3Lw2r2af+A8/i1wUANTMOvsgfolsA4Q+u848ds5ntEWROjh0zPABF9gbUv+vGUyEgcnYA3z3lR3KIjOinzjeTw1nx1PPqvW3Vk+la2+CGAujwqfQtsrWaQB9IMXSICDcMsgIUX87RFqFyiEuQo8IcG0TfWlfWNRZlGOhTOqDM8xuLX1WnuNuc1DwyVYRYjIHmYP608RYMJ7gSTxgFeSijrzlNU1/T+Qm23mduJW61zVDWJ8Mfr66UQ3EAALaTEwEAAcsCsQQAAOnofWA+MA2LAgAAAAABWVo="},
	{"xz --check=sha256", encoding.LZMA2, compressRefText, "/Td6WFoAAArh+wyhAgAhARYAAAB0L+Wj4AIwATNdABgOgkN1f8xbmK1+JV7zw+o6hdzFP1DuvvyG+Xpa9J/p6CzLlIjYXXtLb5lXy1ofQDeM9lng1bg++clhcB2KfHSfaZfI3bEE5a3ZfM+JlINtFFtpPQ5+8Nuj6iMGabA2kiop1S9HjVf3yCNblvkWEOKLhg9TmlCWapf3Lw2r2af+A8/i1wUANTMOvsgfolsA4Q+u848ds5ntEWROjh0zPABF9gbUv+vGUyEgcnYA3z3lR3KIjOinzjeTw1nx1PPqvW3Vk+la2+CGAujwqfQtsrWaQB9IMXSICDcMsgIUX87RFqFyiEuQo8IcG0TfWlfWNRZlGOhTOqDM8xuLX1WnuNuc1DwyVYRYjIHmYP608RYMJ7gSTxgFeSijrzlNU1/T+Qm23mduJW61zVDWJ8Mfr66UQ3EAAMIDTpTtcl1D3yalE0xaxz31K1VY3+Vn/RDxE6s8WYfjAAHnArEEAACkLRMQtunfHAIAAAAAClla"},
	{"xz --check=none", encoding.LZMA2, compressRefText, "/Td6WFoAAAD/EtlBAgAhARYAAAB0L+Wj4AIwATNdABgOgkN1f8xbmK1+JV7zw+o6hdzFP1DuvvyG+Xpa9J/p6CzLlIjYXXtLb5lXy1ofQDeM9lng1bg++clhcB2KfHSfaZfI3bEE5a3ZfM+JlINtFFtpPQ5+8Nuj6iMGabA2kiop1S9HjVf3yCNblvkWEOKLhg9TmlCWapf3Lw2r2af+A8/i1wUANTMOvsgfolsA4Q+u848ds5ntEWROjh0zPABF9gbUv+vGUyEgcnYA3z3lR3KIjOinzjeTw1nx1PPqvW3Vk+la2+CGAujwqfQtsrWaQB9IMXSICDcMsgIUX87RFqFyiEuQo8IcG0TfWlfWNRZlGOhTOqDM8xuLX1WnuNuc1DwyVYRYjIHmYP608RYMJ7gSTxgFeSijrzlNU1/T+Qm23mduJW61zVDWJ8Mfr66UQ3EAAAABxwKxBAAAkii/F6gACvwCAAAAAABZWg=="},
	{"xz --block-size=200: three blocks, each its own LZMA2 stream", encoding.LZMA2, compressRefText, "/Td6WFoAAATm1rRGAgAhARYAAAB0L+Wj4ADHAINdABgOgkN1f8xbmK1+JV7zw+o6hdzFP1DuvvyG+Xpa9J/p6CzLlIjYXXtLb5lXy1ofQDeM9lng1bg++clhcB2KfHSfaZfI3bEE5a3ZfM+JlINtFFtpPQ5+8Nuj6iMGabA2kiop1S9HjVf3yCNblvkWEOKLhg9TmlCWapf3Lw2r2af0RolBAADB1rHnKOrBYAIAIQEWAAAAdC/lo+AAxwB6XQAdjMNJ9IFB+nYhFkGIqD23RprTPAZT6j8jF0KJtQgT9WUdSdKxB0/I87ukrP1iy6YOSzEOjR+xbB1CK3rfd6yv7YtXaMTNmw8wJeH9vhNX9lhtMP3lUB5Ozg10ivcgMWCKhSVQCJ1LBBX6/4PXdISkDFiC4lS0mxbFtwAAADZDGDPcf03oAgAhARYAAAB0L+Wj4ACgAGddAByOwzgV8Ooyk7vq+ghIiJUhZYmMaOccyFuRhfKUFJEI9MUtAtR5hbfexIkUx1GzS+4k7ba+46f9DdBdTW0fqFIy15JhXilb7LSJCGsI4qdRxgiSH98A9CAJX/I8q6jSSmijTUx+zgAAAMSZzRtThWsrAAOfAcgBlgHIAYMBoQEAALUOiIGsJz4tBAAAAAAEWVo="},
	{"xz -T2 --block-size=256: sizes in the block headers", encoding.LZMA2, compressRefText, "/Td6WFoAAATm1rRGA8CnAYACIQEWAAAAl15bseAA/wCfXQAYDoJDdX/MW5itfiVe88PqOoXcxT9Q7r78hvl6WvSf6egsy5SI2F17S2+ZV8taH0A3jPZZ4NW4PvnJYXAdinx0n2mXyN2xBOWt2XzPiZSDbRRbaT0OfvDbo+ojBmmwNpIqKdUvR41X98gjW5b5FhDii4YPU5pQlmqX9y8Nq9mn/gPP4tcFADUzDr7IH6JbAOEPrvOPHbOZ7RFkTo3ELw0AANORsCt9XOjHA8CfAYACIQEWAAAAW5x/yuAA/wCXXQAaDcOzW+8JkdYnR7L0qM7Aoo92AEruTfM7HYddDk16YrhHxOKwT5qUE3FjMcNlFdjABXIA06cyGcVbEo/bS9Agi3zihUzRVEMSYoIaz+dZYe4hE2VZXOH+2zZgL71NDY9mQaQCXfwwlVWzMWX4Enro22XLthABTguVa+u0VhX+haab7lct6LukOnqo6hSCeuZEhNZIYHFTAAAhebJ5ipZ8gwPALjEhARYAAAAAAOdXGIPgADAAJl0AGA7DgKljjj5i/PJ6ADmZoUY+ojxvujY7j+cCV4MqpPSYlruC+AAAAAA1pZQKxnobggADvwGAArcBgAJGMftwmm0UFzswAwAAAAAEWVo="},
	{"xz --lzma2=lc=0,lp=2,pb=0", encoding.LZMA2, compressRefText, "/Td6WFoAAATm1rRGAgAhARYAAAB0L+Wj4AIwAT0SABgO9pXdSpiRwEVOX8eCVcvPQe6ZMa9SrR4VNyBIT//lWPL7TvhHpE/ATDsMREu2tXtiyCQ5917MVJ4kd+1WjOOLmzEKMrJ2qnWFhnZRUonN86ga4nJBB5jPyxPrgPozIo8Mx8AoVtdyOsrfYeUkfzewt7x+NAGZNCSfO0FG8BUI/ECg7cjcxg+5/a92j8/TxEFB+u5DjTEYHD9cY52csWcv6wBqqAyZvSCpDS2ddSxIvPPo7ZSt5RIM3Xi4WzldlSDYmWoZ6G7ExdBf8oLydOBhK4dcq/DFCYd5PPkmLKhcoTIEHcrjNH3BpArfiKKF9atpV3GZ6wvFbRuyJFMsV+/S7fz3D8D83eDFwL/wuTiJ1uuW2wxGki426+Yggs7Imrqw1E0okQq5tOG2HQTUDcBQJefd5VlbsdYxpiqZAAAAAG1/79khswF6AAHZArEEAAB5S2MuscRn+wIAAAAABFla"},
	{"xz -e --lzma2=preset=9e,lc=4,lp=0,pb=4", encoding.LZMA2, compressRefText, "/Td6WFoAAATm1rRGAgAhARwAAAAQz1jM4AIwATW4ABgOgkN1a/t95knPzWOJbho6XF0qqMvk3uwbk49EOy4OuhieQQfP95+r4DwnrjcsHPIDPHc0q+0D26y79EnMvBGqf4QUASyvJ4bLG+wp12LF7bRZYd9nY87cLDR8ghNj7XSyuuHq1mtOxaaKayXm850fZZracRBX/YwKcLCXjM+Gf3wYoBZUp5am40kYRRS0qTfW/1uMyzmmgBxLH/IuYqorsvzi6rQe6zJT1OcZi3ShOK3nod4ICX0LTCnupjKjirIVp3jN8qTubjUr5t9ydS3rpjNXXkK68fSaGNoC+mtqDU3rq1fjM8T00vfwwiINTKE8Tl8pI2mH/GjMjkkPr54rlvVEebzShS2moEXzbzT7wwSUHT0fug+WdMlFlaxKrwPczCzsGG7CmNZb/QxQGcjtp9UEgAAAAABtf+/ZIbMBegAB0QKxBAAAFMkwwrHEZ/sCAAAAAARZWg=="},
	{"xz of 200 incompressible bytes: an uncompressed LZMA2 chunk", encoding.LZMA2, compressRefRandom, "/Td6WFoAAATm1rRGAgAhARYAAAB0L+WjAQDHxn6Ba0v74vtU9r3ffBzhhwG/Md5Wcg9HZ2aHWaqIPFnqVhN70oWh2DxUVS83rmVb2gJ5mMzjGnaOX9mZjx8/Nu5DeE0N+r6m2uSGjtwpbU7/VuFwIPuPsVgFkMUJ3FPNqjtImVLTUp0Gn+q1wgYTmEmyAR6sMogxnFJGlXE2j1f2OR0W+oh09Zh8F1xBu21xjg9wWccBGy8zPZHAHaUNDaszjX5ejz7maHSmOrHDkxGoZMfbyuBg4fO/CQBnouMloCExh9VixagAop8z3dVRHOMAAeAByAEAADFKSlqxxGf7AgAAAAAEWVo="},
	{"zstd -19 --check: content size and XXH64 checksum", encoding.ZSTD, compressRefText, "KLUv/WQxAUUIABYjQQmwO2FZalZKcjQ8AD0APgAUbz1xhiVOuvE64lIzDjXELXy8hY2Hunipia+HJy08w+VbBw80eQoDX75X2B50nWr6hOdEy8+9OE7zYAicMwzz1icH2uQULnmZ5BUeedAip7ryCYecaMrPIBdfT1sPrp6mXjz9WXqi2084eqrZBw19hS9etjiFKw50dXrqYKnTrYujfmadaKhP+OhUGz3ooleY6OWhU1joQJfeOugMk04a6PXNpbY51DW3MM0tPHOoZS5153XMSQdvfXeG7U667jXdpZ471HK3cO8WjjvUvEsN9/rspM3OcNlbkx3osVNY7OXaKxz2oGmnGuwTvjrRVj9XXUwBAOBV1z8="},
	{"zstd -3 --no-check", encoding.ZSTD, compressRefText, "KLUv/WAxAf0IABaTJgmwO2FZalZKcjQhACIAJQDDkxae4fKtgweaPIWBL98rbA+6TjV9wnOi5edeHKd5MAQHV09TL57+LG2jLPTiZYsKigmJxusIBsTxFjYe6uKlJr4OZxbUkVER0ctDQiUiAb0+G5oZmc5wYE5M5GWSEZGKUH4GufisAW99Z1f3mm5OrhfHu9RwZlZGNib2ci2MBmZVF9PUwVKnW/U+IKCiETsfAhPmwAYemMDWg1sHO5rRRiPasQ1cYCuBOBcMfcNuqdnk2JaLWfxiF7fGyuKtLhRJ2KBoFwHD1+huNgqGEphYYFyBLYOJjGYxmkLR/KPJHORsDdoaUWt4LZisV7ehWNxpsaTFBy3mX3OyePPi58VDF9+tCWJx9SKZ9Z0B"},
	{"gzip -9 of a file: the FNAME header field is set", encoding.Gzip, compressRefText, "H4sICH00EGsCA3RleHQAHZHJEQAgCANbkvvqvy8JH8cBQjb6+g01DbeOdI02+Vizjbf4RBNPNsdUx9Br9qGdXxG3yJA009Cq9rTewsp0KFp2ZIU5VDj5ocKELq90WKBhhZ4Nu9ixlwMenGvHBWN5YBACjjDIRAApurhi4F7hSGwSSdxqa/oQhjCoJ1LBAlUsU8Ni9fXQs9OEtRYw7AHJCHgGUhNAmyKAGcKY33khLa+70vEHjRP0fs/jgr2u8HBbO3c4+z2rJ4i8QBcPpEELHfiKWOGEbqQw3By1QDdv8ET5sCDp/oixOGU98uzSYJ0OjAwgZQIvQVoP0EUIUIwwJXdeyLLrOgYDmkro657nA7aTEwExAgAA"},
	{"gzip -n: no name, no mtime", encoding.Gzip, compressRefText, "H4sIAAAAAAAAAx2RyREAIAgDW5L76r8vCR/HAUI2+voNNQ23jnSNNvlYs423+EQTTzbHVMfQa/ahnV8Rt8iQNNPQqva03sLKdChadmSFOVQ4+aHChC6vdFigYYWeDbvYsZcDHpxrxwVjeWAQAo4wyEQAKbq4YuBe4UhsEkncamv6EIYwqCdSwQJVLFPDYvX10LPThLUWMOwByQh4BlITQJsigBnCmN95IS2vu9LxB40T9H7P44K9rvBwWzt3OPs9qyeIvEAXD6RBCx34iljhhG6kMNwctUA3b/BE+bAg6f6IsThlPfLs0mCdDowMIGUCL0FaD9BFCFCMMCV3Xsiy6zoGA5pK6Oue5wO2kxMBMQIAAA=="},
}

func TestCompressReferenceVectors(t *testing.T) {
	for _, r := range compressReference {
		t.Run(r.name, func(t *testing.T) {
			src, err := base64.StdEncoding.DecodeString(r.base64)
			require.NoError(t, err)
			want := r.input()
			codec := compressCodec(t, r.c)
			got, err := codec.Decompress(nil, src, len(want))
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}

// TestCompressXZConcatenated checks that several .xz streams with stream padding decode as
// one, as XZInputStream reads them, and that padding must come in groups of four.
func TestCompressXZConcatenated(t *testing.T) {
	var a, b []byte
	for _, r := range compressReference {
		switch r.name {
		case compressReference[0].name:
			a, _ = base64.StdEncoding.DecodeString(r.base64)
		case "xz --check=crc32":
			b, _ = base64.StdEncoding.DecodeString(r.base64)
		}
	}
	require.NotEmpty(t, a)
	require.NotEmpty(t, b)
	want := append(compressRefText(), compressRefText()...)
	codec := compressCodec(t, encoding.LZMA2)
	for _, pad := range []int{0, 4, 8} {
		src := append(append(append([]byte{}, a...), make([]byte, pad)...), b...)
		got, err := codec.Decompress(nil, src, len(want))
		require.NoError(t, err, "padding %d", pad)
		require.Equal(t, want, got)
		got, err = codec.Decompress(nil, append(src, 0, 0, 0, 0), len(want))
		require.NoError(t, err, "trailing padding after padding %d", pad)
		require.Equal(t, want, got)
	}
	for _, pad := range []int{1, 2, 3, 5} {
		src := append(append(append([]byte{}, a...), make([]byte, pad)...), b...)
		_, err := codec.Decompress(nil, src, len(want))
		require.ErrorIs(t, err, encoding.ErrCorrupt, "padding %d", pad)
		_, err = codec.Decompress(nil, append(append([]byte{}, a...), make([]byte, pad)...), len(compressRefText()))
		require.ErrorIs(t, err, encoding.ErrCorrupt, "trailing padding %d", pad)
	}
	_, err := codec.Decompress(nil, append(append([]byte{}, a...), "garbage!"...), len(compressRefText()))
	require.ErrorIs(t, err, encoding.ErrCorrupt)
}
