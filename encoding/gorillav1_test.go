package encoding_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// The GORILLA_V1 goldens follow the Java GorillaEncoderV1: the first value little-endian,
// then per value '0' (same value), '10' + the bits of xor between the previous VALUE's
// leading and trailing zeros, or '11' + xor's leading zeros (5 bits for FLOAT, 6 for DOUBLE)
// + its length of significant bits (6 or 7) + those bits; then NaN as one more value and zero
// bits to the next byte boundary.

func TestGorillaV1GoldenFloat32(t *testing.T) {
	checkXORGoldens(t, xorPairOf(encoding.GorillaV1, "FLOAT"), []xorGolden{
		{"1.5,1.5,1", []uint64{0x3fc00000, 0x3fc00000, 0x3f800000}, []string{
			"0x0000c03f", // 1.5 = 0x3fc00000, little-endian
			"0",          // 1.5 again: xor 0
			// 1.0 = 0x3f800000: xor = 0x00400000 has 9 leading and 22 trailing zeros. The
			// previous value 0x3fc00000 has 2 leading and 22 trailing zeros; 9 >= 2 and
			// 22 >= 22, so '10' and bits 29..22 of xor, 32-2-22 = 8 bits.
			"10", "00000001",
			// End: NaN 0x7fc00000 ^ 0x3f800000 = 0x40400000, 1 leading and 22 trailing zeros;
			// 1.0 has 2 leading zeros and 1 < 2, so '11', lead 1 in 5 bits, length
			// 32-1-22 = 9 in 6 bits, and the 9 bits of xor>>22 = 0x101.
			"11", "00001", "001001", "100000001",
			// 1+10+22 = 33 bits: 7 zero bits complete the 5th byte.
			"0000000",
		}},
		{"zero previous value", []uint64{0, 0x3f800000}, []string{
			"0x00000000",
			// 0x3f800000 ^ 0 has 2 leading and 23 trailing zeros; a zero previous value has 32
			// of each, which no xor matches: '11', lead 2, length 7, the bits 1111111.
			"11", "00010", "000111", "1111111",
			// End: 0x7fc00000 ^ 0x3f800000 = 0x40400000, 1 leading < 2: '11', lead 1,
			// length 9, bits 100000001.
			"11", "00001", "001001", "100000001",
			// 20+22 = 42 bits: 6 zero bits.
			"000000",
		}},
		{"empty", []uint64{}, []string{
			// A flush without values writes just the NaN, as the first value.
			"0x0000c07f",
		}},
	})
}

func TestGorillaV1GoldenFloat64(t *testing.T) {
	checkXORGoldens(t, xorPairOf(encoding.GorillaV1, "DOUBLE"), []xorGolden{
		{"1.5,1,-1", []uint64{0x3ff8000000000000, 0x3ff0000000000000, 0xbff0000000000000}, []string{
			"0x000000000000f83f", // 1.5 = 0x3ff8000000000000, little-endian
			// 1.0: xor = 0x0008000000000000, 12 leading and 51 trailing zeros; 1.5 has 2
			// leading and 51 trailing zeros, so '10' and bits 61..51 of xor, 11 bits.
			"10", "00000000001",
			// -1.0 = 0xbff0000000000000: xor = 0x8000000000000000, 0 leading zeros, fewer than
			// the 2 of 1.0: '11', lead 0 in 6 bits, length 1 in 7 bits, the bit.
			"11", "000000", "0000001", "1",
			// End: NaN 0x7ff8000000000000 ^ 0xbff0000000000000 = 0xc008000000000000, 0 leading
			// and 51 trailing zeros; -1.0 has 0 leading and 52 trailing, 51 < 52: '11', lead
			// 0, length 13, the 13 bits 1100000000001 of xor>>51.
			"11", "000000", "0001101", "1100000000001",
			// 13+16+28 = 57 bits: 7 zero bits complete the 8th byte after the first value.
			"0000000",
		}},
		{"empty", []uint64{}, []string{"0x000000000000f87f"}},
	})
}

func TestGorillaV1NaNEnd(t *testing.T) {
	p := xorPairOf(encoding.GorillaV1, "FLOAT")
	// Any NaN ends the stream, as the Java reader tests with isNaN; here 0x7f800001 as the
	// only value of an empty stream, and as '11' 00000 100000 + 32 bits after 0 (45 bits,
	// then 3 padding bits).
	_, err := p.decode(0, xorStream(t, "0x0100807f"))
	require.NoError(t, err)
	got, err := p.decode(1, xorStream(t, "0x00000000", "11", "00000", "100000", "01111111 10000000 00000000 00000001", "000"))
	require.NoError(t, err)
	require.Equal(t, []uint64{0}, got)
}

func TestGorillaV1Malformed(t *testing.T) {
	tests := []struct {
		name   string
		typ    string
		n      int
		fields []string
		want   string
	}{
		{"10 after a zero value", "FLOAT", 1, []string{"0x00000000", "10", "000000"}, "after a zero value"},
		{"empty window", "FLOAT", 1, []string{"0x00000000", "11", "00001", "000000", "000"}, "is empty or exceeds"},
		{"window too wide", "FLOAT", 1, []string{"0x00000000", "11", "00001", "100000", "000"}, "is empty or exceeds"},
		{"64-bit window too wide", "DOUBLE", 1, []string{"0x0000000000000000", "11", "000001", "1000000", "0"}, "is empty or exceeds"},
		{"no NaN at the end", "FLOAT", 1, []string{"0x0000803f", "0", "0000000"}, "not the end-of-stream NaN"},
		{"first value cut", "DOUBLE", 0, []string{"0x000000000000f8"}, "inside the first value"},
		{"trailing byte", "FLOAT", 0, []string{"0x0000c07f", "0x00"}, "trailing bytes"},
		{"set padding bit", "FLOAT", 1, []string{"0x0000c07f", "0", "0000001"}, "padding bits"},
		{"value cut", "FLOAT", 2, []string{"0x00000000", "11", "00000", "100000", "000"}, "ends inside a value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := xorPairOf(encoding.GorillaV1, tt.typ)
			_, err := p.decode(tt.n, xorStream(t, tt.fields...))
			xorRequireCorrupt(t, err)
			require.Contains(t, err.Error(), tt.want)
			require.Contains(t, err.Error(), "GORILLA_V1 "+tt.typ)
		})
	}
}

func TestGorillaV1Unsupported(t *testing.T) {
	_, err := encoding.AppendEncodedInt32(encoding.GorillaV1, nil, []int32{1})
	require.ErrorIs(t, err, encoding.ErrUnsupported)
	err = encoding.DecodeInt64(encoding.GorillaV1, make([]int64, 1), nil)
	require.ErrorIs(t, err, encoding.ErrUnsupported)
	_, err = encoding.CountInt64(encoding.GorillaV1, nil)
	require.ErrorIs(t, err, encoding.ErrUnsupported)
}

func FuzzDecodeFloat32GorillaV1(f *testing.F) {
	p := xorPairOf(encoding.GorillaV1, "FLOAT")
	addXORFuzzSeeds(f, p)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) { xorFuzz(t, p, n, src) })
}

func FuzzDecodeFloat64GorillaV1(f *testing.F) {
	p := xorPairOf(encoding.GorillaV1, "DOUBLE")
	addXORFuzzSeeds(f, p)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) { xorFuzz(t, p, n, src) })
}

func BenchmarkDecodeFloat32GorillaV1(b *testing.B) {
	benchXORDecode(b, xorPairOf(encoding.GorillaV1, "FLOAT"))
}
func BenchmarkDecodeFloat64GorillaV1(b *testing.B) {
	benchXORDecode(b, xorPairOf(encoding.GorillaV1, "DOUBLE"))
}
