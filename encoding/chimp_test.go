package encoding_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// The CHIMP goldens follow the Java IntChimpEncoder (64 previous values, 6 index bits, 5
// length bits, low 12 bits as the lookup key, threshold 11 trailing zeros) and
// LongChimpEncoder (128, 7, 6, low 14 bits, threshold 13). Each value is first compared with
// the value last seen with the same key (initially the first value): if their xor has more
// than threshold trailing zeros, that value is the reference, otherwise the previous one.
// Then '00' + index (xor 0), '01' + index + lead code + length + bits (the older reference),
// '10' + bits below the stored lead, or '11' + lead code + bits below it. Leads are rounded
// down to 0, 8, 12, 16, 18, 20, 22 or 24 (codes 0..7). The end-of-stream value and the
// padding are as in GORILLA.

func TestChimpGoldenInt32(t *testing.T) {
	checkXORGoldens(t, xorPairOf(encoding.Chimp, "INT32"), []xorGolden{
		{"7,7,8,9,4103", []uint64{7, 7, 8, 9, 4103}, []string{
			"0x00000007", // first value verbatim, in slot 0; key 7 -> index 0
			// 7: key 7 gives index 0, whose xor is 0 (32 > 11 trailing zeros): '00', slot 0.
			"00", "000000",
			// 8: key 8 was never seen, so index 0 again: 8^7 = 15 has no trailing zeros, and
			// the previous value (slot 1) is used: xor = 8^7 = 15, 28 leading zeros, rounded
			// to 24 (code 7), which is not the stored lead: '11', code 7, 32-24 = 8 bits.
			"11", "111", "00001111",
			// 9: key 9 unseen, 9^7 = 14 has 1 trailing zero; previous value 8 (slot 2): xor 1,
			// 31 leading zeros rounded to 24, the stored lead: '10' and 8 bits.
			"10", "00000001",
			// 4103 = 4096+7: key 7 last held index 1 (the second 7); 4103^7 = 4096 has 12
			// trailing zeros, more than 11: '01', slot 1, 19 leading zeros rounded to 18
			// (code 4), length 32-18-12 = 2, and the 2 bits of xor>>12 = 1.
			"01", "000001", "100", "00010", "01",
			// End: MinInt32, key 0 unseen, MinInt32^7 has no trailing zeros; previous value
			// 4103 (slot 4): xor = 0x80001007, lead 0 (code 0), not the stored lead (a '01'
			// clears it): '11', code 0, all 32 bits.
			"11", "000", "10000000 00000000 00010000 00000111",
			// 32+8+13+10+18+37 = 118 bits: 2 zero bits complete the 15th byte.
			"00",
		}},
		{"empty", []uint64{}, []string{"0x80000000", "0x00"}},
	})
}

func TestChimpGoldenInt64(t *testing.T) {
	zeros := func(n int) string { return strings.Repeat("0", n) }
	checkXORGoldens(t, xorPairOf(encoding.Chimp, "INT64"), []xorGolden{
		{"7,7,8,9,16391", []uint64{7, 7, 8, 9, 16391}, []string{
			"0x0000000000000007",
			// 7: '00', slot 0, in 7 index bits.
			"00", "0000000",
			// 8: xor with the previous 7 is 15, 60 leading zeros rounded to 24 (code 7): '11',
			// code 7, 64-24 = 40 bits.
			"11", "111", zeros(36) + "1111",
			// 9: xor 1, lead rounded to 24 again: '10' and 40 bits.
			"10", zeros(39) + "1",
			// 16391 = 16384+7: key 7 last held index 1; the xor 16384 has 14 trailing zeros,
			// more than 13: '01', slot 1, 49 leading zeros rounded to 24 (code 7), length
			// 64-24-14 = 26 in 6 bits, then the 26 bits of xor>>14 = 1.
			"01", "0000001", "111", "011010", zeros(25) + "1",
			// End: MinInt64 ^ 16391 = 0x8000000000004007 (previous value, slot 4), lead 0:
			// '11', code 0, all 64 bits.
			"11", "000", "1" + zeros(48) + "100000000000111",
			// 64+9+45+42+44+69 = 273 bits: 7 zero bits complete the 35th byte.
			"0000000",
		}},
		{"empty", []uint64{}, []string{"0x8000000000000000", "0x00"}},
	})
}

func TestChimpGoldenFloat32(t *testing.T) {
	checkXORGoldens(t, xorPairOf(encoding.Chimp, "FLOAT"), []xorGolden{
		{"1,2,1,1", []uint64{0x3f800000, 0x40000000, 0x3f800000, 0x3f800000}, []string{
			"0x3f800000", // 1.0 verbatim; its low 12 bits, the key, are 0
			// 2.0 = 0x40000000, key 0 -> index 0: xor 0x7f800000 has 23 trailing zeros: '01',
			// slot 0, 1 leading zero rounded to 0 (code 0), length 32-0-23 = 9, the 9 bits of
			// xor>>23 = 0xff.
			"01", "000000", "000", "01001", "011111111",
			// 1.0: key 0 -> index 1 (2.0), xor 0x7f800000 again: '01', slot 1, same fields.
			"01", "000001", "000", "01001", "011111111",
			// 1.0: key 0 -> index 2 (1.0), xor 0: '00', slot 2.
			"00", "000010",
			// End: NaN 0x7fc00000, key 0 -> index 3 (1.0): xor 0x40400000 has 22 trailing
			// zeros: '01', slot 3, lead 1 rounded to 0, length 10, bits 0100000001.
			"01", "000011", "000", "01010", "0100000001",
			// 32+25+25+8+26 = 116 bits: 4 zero bits complete the 15th byte.
			"0000",
		}},
		{"empty", []uint64{}, []string{"0x7fc00000", "0x00"}},
	})
}

func TestChimpGoldenFloat64(t *testing.T) {
	checkXORGoldens(t, xorPairOf(encoding.Chimp, "DOUBLE"), []xorGolden{
		{"1,2", []uint64{0x3ff0000000000000, 0x4000000000000000}, []string{
			"0x3ff0000000000000", // 1.0 verbatim, key (low 14 bits) 0
			// 2.0, key 0 -> index 0: xor 0x7ff0000000000000, 52 trailing zeros: '01', slot 0,
			// lead 1 rounded to 0, length 64-0-52 = 12, the bits 0x7ff in 12 bits.
			"01", "0000000", "000", "001100", "011111111111",
			// End: NaN 0x7ff8000000000000, key 0 -> index 1 (2.0): xor 0x3ff8000000000000,
			// 51 trailing zeros: '01', slot 1, lead 2 rounded to 0, length 13, 0x7ff in 13 bits.
			"01", "0000001", "000", "001101", "0011111111111",
			// 64+30+31 = 125 bits: 3 zero bits complete the 16th byte.
			"000",
		}},
		{"empty", []uint64{}, []string{"0x7ff8000000000000", "0x00"}},
	})
}

// TestChimpReferences exercises the ring of previous values beyond what the goldens reach: a
// value repeating from up to P values back, keys colliding after the ring wrapped, and
// references to slots that the encoder chose through its table.
func TestChimpReferences(t *testing.T) {
	for _, typ := range []string{"INT32", "INT64", "FLOAT", "DOUBLE"} {
		p := xorPairOf(encoding.Chimp, typ)
		t.Run(typ, func(t *testing.T) {
			var v []uint64
			period := 1 << (p.width/32 + 5) // 64 or 128: the ring size
			for i := range 3 * period {
				// Values that share their low bits with one period-1 and one period+1 back.
				v = append(v, uint64(i%(period-1))<<20|uint64(i%7))
				v = append(v, uint64(i%(period+1))<<40&p.mask()|uint64(i%5))
			}
			src, err := p.encode(v)
			require.NoError(t, err)
			got, err := p.decode(len(v), src)
			require.NoError(t, err)
			require.Equal(t, v, got)
		})
	}
}

func TestChimpMalformed(t *testing.T) {
	tests := []struct {
		name   string
		typ    string
		n      int
		fields []string
		want   string
	}{
		{"10 before any lead", "INT32", 1, []string{"0x00000001", "10", "000000"}, "before any lead"},
		{"01 window too wide", "INT32", 1, []string{"0x00000001", "01", "000000", "001", "11111"}, "exceeds the value width"},
		{"01 length 0 with a lead", "INT64", 1, []string{"0x0000000000000001", "01", "0000000", "001", "000000", "000000"}, "exceeds the value width"},
		{"wrong end value", "INT32", 1, []string{"0x00000001", "00", "000000"}, "not the end-of-stream value"},
		{"value cut", "INT32", 2, []string{"0x00000001", "11", "000", "000"}, "ends inside a value"},
		{"trailing byte", "FLOAT", 0, []string{"0x7fc00000", "0x00", "0x00"}, "trailing bytes"},
		{"set padding bit", "FLOAT", 0, []string{"0x7fc00000", "0x40"}, "padding bits"},
		{"first value cut", "INT32", 1, []string{"0x000000"}, "inside the first value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := xorPairOf(encoding.Chimp, tt.typ)
			_, err := p.decode(tt.n, xorStream(t, tt.fields...))
			xorRequireCorrupt(t, err)
			require.Contains(t, err.Error(), tt.want)
			require.Contains(t, err.Error(), "CHIMP "+tt.typ)
		})
	}
}

// TestChimpJavaDecoderLeniency pins streams no Java writer produces but the Java reader
// decodes, which this package reads the same way: a '01' with length 0 and lead code 0 is a
// full-width window, a '10' after a '01' uses the lead the '01' carried, and slots not yet
// written read as zero.
func TestChimpJavaDecoderLeniency(t *testing.T) {
	p := xorPairOf(encoding.Chimp, "INT32")
	got, err := p.decode(5, xorStream(t,
		"0x00000005",
		// '01' slot 0, code 0, length 0 = 32: 5 ^ 0x00000003 = 6
		"01", "000000", "000", "00000", "00000000 00000000 00000000 00000011",
		// '01' slot 0, code 1 (lead 8), length 1: xor bit at 32-8-1 = 23: 5 ^ 0x00800000
		"01", "000000", "001", "00001", "1",
		// '10' with lead 8: 24 bits 0x000001 XOR the previous value
		"10", "00000000 00000000 00000001",
		// '00' slot 9, never written: zero
		"00", "001001",
		// End: '11' code 0 + MinInt32 ^ 0; 168 bits end on a byte boundary: a zero byte.
		"11", "000", "10000000 00000000 00000000 00000000",
		"0x00",
	))
	require.NoError(t, err)
	require.Equal(t, []uint64{5, 6, 5 ^ 0x00800000, 5 ^ 0x00800001, 0}, got)
}

func FuzzDecodeInt32Chimp(f *testing.F) {
	p := xorPairOf(encoding.Chimp, "INT32")
	addXORFuzzSeeds(f, p)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) { xorFuzz(t, p, n, src) })
}

func FuzzDecodeInt64Chimp(f *testing.F) {
	p := xorPairOf(encoding.Chimp, "INT64")
	addXORFuzzSeeds(f, p)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) { xorFuzz(t, p, n, src) })
}

func FuzzDecodeFloat32Chimp(f *testing.F) {
	p := xorPairOf(encoding.Chimp, "FLOAT")
	addXORFuzzSeeds(f, p)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) { xorFuzz(t, p, n, src) })
}

func FuzzDecodeFloat64Chimp(f *testing.F) {
	p := xorPairOf(encoding.Chimp, "DOUBLE")
	addXORFuzzSeeds(f, p)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) { xorFuzz(t, p, n, src) })
}

func BenchmarkDecodeInt32Chimp(b *testing.B)   { benchXORDecode(b, xorPairOf(encoding.Chimp, "INT32")) }
func BenchmarkDecodeInt64Chimp(b *testing.B)   { benchXORDecode(b, xorPairOf(encoding.Chimp, "INT64")) }
func BenchmarkDecodeFloat32Chimp(b *testing.B) { benchXORDecode(b, xorPairOf(encoding.Chimp, "FLOAT")) }
func BenchmarkDecodeFloat64Chimp(b *testing.B) {
	benchXORDecode(b, xorPairOf(encoding.Chimp, "DOUBLE"))
}
