package encoding_test

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// This file tests GORILLA and holds the harness shared with the GORILLA_V1 and CHIMP tests:
// every (encoding, type) pair is driven through the exported functions on the raw bits of
// its values, so that NaN payloads and signed zeros are compared bit for bit.

// xorStream builds a golden stream from fields written out by hand: a field is either a bit
// string ("0110", spaces allowed for readability) or, at a byte boundary, hex bytes
// ("0x3f800000"). The fields must add up to whole bytes; the padding is spelled out.
func xorStream(t testing.TB, fields ...string) []byte {
	t.Helper()
	var out []byte
	var acc byte
	nbits := 0
	for _, f := range fields {
		if h, ok := strings.CutPrefix(f, "0x"); ok {
			require.Zero(t, nbits%8, "hex field %q must start on a byte boundary", f)
			b, err := hex.DecodeString(h)
			require.NoError(t, err)
			out = append(out, b...)
			nbits += 8 * len(b)
			continue
		}
		for _, c := range f {
			switch c {
			case ' ':
				continue
			case '0', '1':
			default:
				t.Fatalf("bad character %q in field %q", c, f)
			}
			acc = acc<<1 | byte(c-'0')
			nbits++
			if nbits%8 == 0 {
				out = append(out, acc)
				acc = 0
			}
		}
	}
	require.Zero(t, nbits%8, "the fields hold %d bits, not whole bytes", nbits)
	return out
}

// xorPair is one (encoding, value type) pair of the XOR encodings.
type xorPair struct {
	enc   encoding.Encoding
	typ   string // INT32, INT64, FLOAT or DOUBLE
	width int
	end   uint64 // the end-of-stream value the encoder writes
	// ambiguous is set where one more repetition of the end-of-stream value can hide in the
	// padding (GORILLA and GORILLA_V1), so that a stream also decodes with one more value.
	ambiguous bool
}

func (p xorPair) String() string { return p.enc.String() + "/" + p.typ }
func (p xorPair) isFloat() bool  { return p.typ == "FLOAT" || p.typ == "DOUBLE" }
func (p xorPair) mask() uint64   { return math.MaxUint64 >> (64 - p.width) }

var xorPairs = []xorPair{
	{encoding.GorillaV1, "FLOAT", 32, 0x7fc00000, true},
	{encoding.GorillaV1, "DOUBLE", 64, 0x7ff8000000000000, true},
	{encoding.Gorilla, "INT32", 32, 1 << 31, true},
	{encoding.Gorilla, "INT64", 64, 1 << 63, true},
	{encoding.Gorilla, "FLOAT", 32, 0x7fc00000, true},
	{encoding.Gorilla, "DOUBLE", 64, 0x7ff8000000000000, true},
	{encoding.Chimp, "INT32", 32, 1 << 31, false},
	{encoding.Chimp, "INT64", 64, 1 << 63, false},
	{encoding.Chimp, "FLOAT", 32, 0x7fc00000, false},
	{encoding.Chimp, "DOUBLE", 64, 0x7ff8000000000000, false},
}

// encode encodes raw value bits (the low p.width bits of each element).
func (p xorPair) encode(v []uint64) ([]byte, error) {
	switch p.typ {
	case "INT32":
		s := make([]int32, len(v))
		for i, x := range v {
			s[i] = int32(uint32(x))
		}
		return encoding.AppendEncodedInt32(p.enc, nil, s)
	case "INT64":
		s := make([]int64, len(v))
		for i, x := range v {
			s[i] = int64(x)
		}
		return encoding.AppendEncodedInt64(p.enc, nil, s)
	case "FLOAT":
		s := make([]float32, len(v))
		for i, x := range v {
			s[i] = math.Float32frombits(uint32(x))
		}
		return encoding.AppendEncodedFloat32(p.enc, nil, s)
	default:
		s := make([]float64, len(v))
		for i, x := range v {
			s[i] = math.Float64frombits(x)
		}
		return encoding.AppendEncodedFloat64(p.enc, nil, s)
	}
}

// decode decodes n values and returns their raw bits.
func (p xorPair) decode(n int, src []byte) ([]uint64, error) {
	out := make([]uint64, n)
	var err error
	switch p.typ {
	case "INT32":
		s := make([]int32, n)
		err = encoding.DecodeInt32(p.enc, s, src)
		for i, x := range s {
			out[i] = uint64(uint32(x))
		}
	case "INT64":
		s := make([]int64, n)
		err = encoding.DecodeInt64(p.enc, s, src)
		for i, x := range s {
			out[i] = uint64(x)
		}
	case "FLOAT":
		s := make([]float32, n)
		err = encoding.DecodeFloat32(p.enc, s, src)
		for i, x := range s {
			out[i] = uint64(math.Float32bits(x))
		}
	default:
		s := make([]float64, n)
		err = encoding.DecodeFloat64(p.enc, s, src)
		for i, x := range s {
			out[i] = math.Float64bits(x)
		}
	}
	return out, err
}

// xorRequireCorrupt checks that err reports a malformed stream, never ErrUnsupported: every
// pair here is implemented.
func xorRequireCorrupt(t testing.TB, err error, msgAndArgs ...any) {
	t.Helper()
	require.ErrorIs(t, err, encoding.ErrCorrupt, msgAndArgs...)
	require.False(t, errors.Is(err, encoding.ErrUnsupported), msgAndArgs...)
}

// xorGolden is a stream worked out by hand from the Java encoder, for values given as raw bits.
type xorGolden struct {
	name   string
	v      []uint64
	fields []string
}

// checkXORGoldens requires that the encoder writes exactly the hand-derived bytes and the
// decoder reads the exact values back.
func checkXORGoldens(t *testing.T, p xorPair, goldens []xorGolden) {
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			want := xorStream(t, g.fields...)
			got, err := p.encode(g.v)
			require.NoError(t, err)
			require.Equal(t, want, got, "encoder output, hex %x", got)
			dec, err := p.decode(len(g.v), want)
			require.NoError(t, err)
			require.Equal(t, g.v, dec)
			if p.typ == "INT64" {
				n, err := encoding.CountInt64(p.enc, want)
				require.NoError(t, err)
				require.Equal(t, len(g.v), n)
			}
		})
	}
}

// The GORILLA goldens follow the Java GorillaEncoderV2: the first value verbatim, then per
// value '0' (same value), '10' + the bits of the stored window, or '11' + lead (5 bits for
// 32-bit values, 6 for 64-bit) + sig-1 (5 or 6 bits) + sig bits; then the end-of-stream value
// and zero bits to the next byte boundary, or a whole zero byte if already on one.

func TestGorillaGoldenInt32(t *testing.T) {
	checkXORGoldens(t, xorPairOf(encoding.Gorilla, "INT32"), []xorGolden{
		{"1,2,3", []uint64{1, 2, 3}, []string{
			"0x00000001", // first value, 32 bits verbatim
			// 2: xor = 1^2 = 0b11, 30 leading and 0 trailing zeros. No window is stored yet,
			// so '11', lead 30 in 5 bits, sig-1 = 2-1 = 1 in 5 bits, then the 2 bits of xor.
			"11", "11110", "00001", "11",
			// 3: xor = 2^3 = 1 has 31 leading and 0 trailing zeros, at least as many as the
			// stored window (30, 0): '10' and the window's 2 bits of xor>>0.
			"10", "01",
			// End: MinInt32 ^ 3 = 0x80000003 has 0 leading zeros, fewer than 30: '11', lead 0,
			// sig-1 = 31, then all 32 bits.
			"11", "00000", "11111", "10000000 00000000 00000000 00000011",
			// 32+14+4+44 = 94 bits: 2 zero bits complete the 12th byte.
			"00",
		}},
		{"empty", []uint64{}, []string{
			// The Java encoder flushed without values writes the end-of-stream value as the
			// first value, and the byte boundary it then ends on gets a whole zero byte.
			"0x80000000", "0x00",
		}},
		{"MinInt32 first", []uint64{1 << 31, 0}, []string{
			"0x80000000", // the first value is never taken for the end of the stream
			// 0: xor = 0x80000000, lead 0, trail 31, sig 1: '11' 00000 00000 '1'.
			"11", "00000", "00000", "1",
			// End: xor = 0x80000000 again, inside the window (0, 31): '10' '1'.
			"10", "1",
			// 32+13+3 = 48 bits end on a byte boundary: a whole zero byte follows.
			"0x00",
		}},
	})
}

func TestGorillaGoldenInt64(t *testing.T) {
	checkXORGoldens(t, xorPairOf(encoding.Gorilla, "INT64"), []xorGolden{
		{"5,5,7", []uint64{5, 5, 7}, []string{
			"0x0000000000000005", // first value, 64 bits verbatim
			"0",                  // 5: xor 0
			// 7: xor = 5^7 = 0b10: 62 leading zeros, 1 trailing, sig 1. No window yet: '11',
			// lead 62 in 6 bits, sig-1 = 0 in 6 bits, the bit of xor>>1.
			"11", "111110", "000000", "1",
			// End: MinInt64 ^ 7 = 0x8000000000000007, 0 leading zeros: '11', lead 0,
			// sig-1 = 63, all 64 bits.
			"11", "000000", "111111",
			"10000000 00000000 00000000 00000000 00000000 00000000 00000000 00000111",
			// 64+1+15+14+64 = 158 bits: 2 zero bits complete the 20th byte.
			"00",
		}},
		{"empty", []uint64{}, []string{"0x8000000000000000", "0x00"}},
	})
}

func TestGorillaGoldenFloat32(t *testing.T) {
	checkXORGoldens(t, xorPairOf(encoding.Gorilla, "FLOAT"), []xorGolden{
		{"2,2,1,2", []uint64{0x40000000, 0x40000000, 0x3f800000, 0x40000000}, []string{
			"0x40000000", // 2.0, verbatim
			"0",          // 2.0 again: xor 0
			// 1.0 = 0x3f800000: xor = 0x7f800000 = 0 11111111 0...0, lead 1, trail 23, sig 8.
			// No window yet: '11', lead 1, sig-1 = 7, the 8 bits of xor>>23.
			"11", "00001", "00111", "11111111",
			// 2.0: xor = 0x7f800000 again, inside the window (1, 23): '10' and its 8 bits.
			"10", "11111111",
			// End: NaN 0x7fc00000 ^ 0x40000000 = 0x3fc00000, lead 2, trail 22: 22 trailing
			// zeros are fewer than 23, so '11', lead 2, sig-1 = 7, the 8 bits of xor>>22.
			"11", "00010", "00111", "11111111",
			// 32+1+20+10+20 = 83 bits: 5 zero bits complete the 11th byte.
			"00000",
		}},
		{"empty", []uint64{}, []string{"0x7fc00000", "0x00"}},
	})
}

func TestGorillaGoldenFloat64(t *testing.T) {
	checkXORGoldens(t, xorPairOf(encoding.Gorilla, "DOUBLE"), []xorGolden{
		{"1,0.5,1,-0", []uint64{0x3ff0000000000000, 0x3fe0000000000000, 0x3ff0000000000000, 1 << 63}, []string{
			"0x3ff0000000000000", // 1.0, verbatim
			// 0.5 = 0x3fe0000000000000: xor = 0x0010000000000000, lead 11, trail 52, sig 1.
			// No window yet: '11', lead 11 in 6 bits, sig-1 = 0 in 6 bits, the 1 bit.
			"11", "001011", "000000", "1",
			// 1.0: the same xor, inside the window (11, 52): '10' and its 1 bit.
			"10", "1",
			// -0.0 = 0x8000000000000000: xor = 0xbff0000000000000, lead 0, trail 52, sig 12.
			// 0 leading zeros are fewer than 11: '11', lead 0, sig-1 = 11, the 12 bits
			// 1011_1111_1111 of xor>>52.
			"11", "000000", "001011", "101111111111",
			// End: NaN 0x7ff8000000000000 ^ 0x8000000000000000 = 0xfff8000000000000, lead 0,
			// trail 51 < 52: '11', lead 0, sig-1 = 12, the 13 bits of xor>>51, all ones.
			"11", "000000", "001100", "1111111111111",
			// 64+15+3+26+27 = 135 bits: 1 zero bit completes the 17th byte.
			"0",
		}},
		{"empty", []uint64{}, []string{"0x7ff8000000000000", "0x00"}},
	})
}

// xorDatasets returns the property-test inputs for p as raw bits.
func xorDatasets(p xorPair) map[string][]uint64 {
	r := rand.New(rand.NewPCG(uint64(p.enc), uint64(p.width)))
	mask := p.mask()
	walk := func(n int) []uint64 {
		v := make([]uint64, n)
		if p.isFloat() {
			x := 100.0
			for i := range v {
				x += r.NormFloat64()
				v[i] = p.fromFloat(math.Round(x*100) / 100)
			}
			return v
		}
		x := int64(r.Uint32())
		for i := range v {
			x += int64(r.IntN(2001)) - 1000
			v[i] = uint64(x) & mask
		}
		return v
	}
	d := map[string][]uint64{
		"empty":       {},
		"one element": {0x1234567890abcdef & mask},
		"one zero":    {0},
		"random walk": walk(1000),
	}
	constant := make([]uint64, 500)
	monotonic := make([]uint64, 500)
	random := make([]uint64, 500)
	for i := range constant {
		constant[i] = 0x4049_0fdb_5444_2d18 & mask
		random[i] = r.Uint64() & mask
		if p.isFloat() {
			monotonic[i] = p.fromFloat(float64(i) * 0.25)
		} else {
			monotonic[i] = uint64(1_700_000_000_000+int64(i)*1000) & mask
		}
	}
	d["constant"], d["monotonic"], d["random"] = constant, monotonic, random
	for _, n := range []int{2, 127, 128, 129, 1023, 1024, 1025} {
		d[fmt.Sprintf("length %d", n)] = walk(n)
	}
	if p.isFloat() {
		var s []uint64
		if p.width == 32 {
			s = []uint64{0x7fc00000, 0x7fc00001, 0x7f800001, 0xffc00000, 0x7f800000, 0xff800000,
				0x80000000, 0, 0x7f7fffff, 1, 0x3f800000}
		} else {
			s = []uint64{0x7ff8000000000000, 0x7ff8000000000001, 0x7ff0000000000001, 0xfff8000000000000,
				0x7ff0000000000000, 0xfff0000000000000, 1 << 63, 0, 0x7fefffffffffffff, 1, 0x3ff0000000000000}
		}
		var specials []uint64
		for range 3 {
			for _, x := range s {
				specials = append(specials, x, x) // repeated, so '0' and '00' follow them too
			}
		}
		d["NaN Inf -0"] = append(specials, 0x3ff0000000000000&mask) // not ending with the end value
		d["NaNs then a number"] = append([]uint64{p.end, p.end, p.end}, 7)
	} else {
		half := uint64(1) << (p.width - 1)
		d["min max"] = []uint64{half, half - 1, half, half, 0, mask, half - 1, half, 1, half - 1}
	}
	return d
}

func (p xorPair) fromFloat(f float64) uint64 {
	if p.width == 32 {
		return uint64(math.Float32bits(float32(f)))
	}
	return math.Float64bits(f)
}

func TestXORRoundTrip(t *testing.T) {
	for _, p := range xorPairs {
		for name, v := range xorDatasets(p) {
			t.Run(p.String()+"/"+name, func(t *testing.T) {
				src, err := p.encode(v)
				require.NoError(t, err)
				got, err := p.decode(len(v), src)
				require.NoError(t, err)
				require.Equal(t, v, got, "bit-exact round trip")
				// Encoding is deterministic and independent of what dst holds.
				again, err := p.encode(got)
				require.NoError(t, err)
				require.Equal(t, src, again)
				if p.typ == "INT64" {
					checkXORCount(t, p, v, src)
				}
			})
		}
	}
}

// checkXORCount checks CountInt64 and AppendAllInt64 on the encoding src of v.
func checkXORCount(t *testing.T, p xorPair, v []uint64, src []byte) {
	n, err := encoding.CountInt64(p.enc, src)
	require.NoError(t, err)
	want := len(v)
	if p.ambiguous {
		// Trailing end-of-stream values can hide in the padding; count reports the fewest.
		for want > 0 && v[want-1] == p.end && n < want {
			want--
		}
	}
	require.Equal(t, want, n)
	all, err := encoding.AppendAllInt64(p.enc, []int64{42}, src)
	require.NoError(t, err)
	require.Len(t, all, 1+n)
	require.Equal(t, int64(42), all[0])
	for i := range n {
		require.Equal(t, v[i], uint64(all[1+i]))
	}
}

func TestXORAppendsToDst(t *testing.T) {
	for _, p := range xorPairs {
		t.Run(p.String(), func(t *testing.T) {
			v := []uint64{1, 2, 3}
			want, err := p.encode(v)
			require.NoError(t, err)
			prefix := []byte{0xde, 0xad}
			var got []byte
			switch p.typ {
			case "INT32":
				got, err = encoding.AppendEncodedInt32(p.enc, prefix, []int32{1, 2, 3})
			case "INT64":
				got, err = encoding.AppendEncodedInt64(p.enc, prefix, []int64{1, 2, 3})
			case "FLOAT":
				got, err = encoding.AppendEncodedFloat32(p.enc, prefix, []float32{math.Float32frombits(1), math.Float32frombits(2), math.Float32frombits(3)})
			default:
				got, err = encoding.AppendEncodedFloat64(p.enc, prefix, []float64{math.Float64frombits(1), math.Float64frombits(2), math.Float64frombits(3)})
			}
			require.NoError(t, err)
			require.Equal(t, append([]byte{0xde, 0xad}, want...), got)
		})
	}
}

// TestXORAmbiguousEnd pins the property of GORILLA and GORILLA_V1 that a repetition of the
// end-of-stream value costs one '0' bit, which fits in the padding unless that is a single
// bit (GORILLA) or absent (GORILLA_V1): then the stream of v and of v plus that value coincide.
func TestXORAmbiguousEnd(t *testing.T) {
	for _, p := range xorPairs {
		t.Run(p.String(), func(t *testing.T) {
			v := []uint64{3, 5}
			withEnd := append(append([]uint64{}, v...), p.end)
			a, err := p.encode(v)
			require.NoError(t, err)
			b, err := p.encode(withEnd)
			require.NoError(t, err)
			if !p.ambiguous {
				require.NotEqual(t, a, b, "CHIMP needs at least p+2 bits for a repetition")
				_, err := p.decode(len(v)+1, a)
				xorRequireCorrupt(t, err)
				return
			}
			require.Equal(t, a, b)
			got, err := p.decode(len(withEnd), a)
			require.NoError(t, err)
			require.Equal(t, withEnd, got)
			if p.typ == "INT64" {
				n, err := encoding.CountInt64(p.enc, a)
				require.NoError(t, err)
				require.Equal(t, len(v), n, "the count is the smallest that decodes")
			}
		})
	}
}

// TestXORTooManyValuesDetected covers a GORILLA stream where the extra value does not fit:
// the DOUBLE golden ends with exactly one padding bit, and a '0' there would need another
// zero byte after it. (CHIMP streams never fit one; TestXORErrors covers the rest.)
func TestXORTooManyValuesDetected(t *testing.T) {
	p := xorPairOf(encoding.Gorilla, "DOUBLE")
	v := []uint64{0x3ff0000000000000, 0x3fe0000000000000, 0x3ff0000000000000, 1 << 63}
	src, err := p.encode(v)
	require.NoError(t, err)
	_, err = p.decode(len(v)+1, src)
	xorRequireCorrupt(t, err)
	require.Contains(t, err.Error(), "GORILLA DOUBLE")
}

func TestXORErrors(t *testing.T) {
	for _, p := range xorPairs {
		for name, v := range xorDatasets(p) {
			if len(v) > 130 {
				continue // every cut of the longer streams adds time, not coverage
			}
			t.Run(p.String()+"/"+name, func(t *testing.T) {
				src, err := p.encode(v)
				require.NoError(t, err)
				for cut := range len(src) {
					if cut == 0 && len(v) == 0 {
						continue // an empty stream is a valid stream of no values
					}
					_, err := p.decode(len(v), src[:cut])
					xorRequireCorrupt(t, err, "cut at %d of %d", cut, len(src))
					if p.typ == "INT64" && cut > 0 {
						// A cut right after an end-of-stream value in the data can leave a
						// valid shorter stream; the count has no other length to check against.
						c, err := encoding.CountInt64(p.enc, src[:cut])
						if err == nil {
							require.Less(t, c, len(v))
							require.Equal(t, p.end, v[c], "count %d of a stream cut at %d", c, cut)
							got, err := p.decode(c, src[:cut])
							require.NoError(t, err)
							require.Equal(t, v[:c], got)
						} else {
							xorRequireCorrupt(t, err, "count, cut at %d of %d", cut, len(src))
						}
					}
				}
				for _, garbage := range []byte{0x00, 0x80, 0xff} {
					_, err := p.decode(len(v), append(src[:len(src):len(src)], garbage))
					xorRequireCorrupt(t, err, "trailing 0x%02x", garbage)
				}
				// The stream's last bit is padding or the end-of-stream value's last bit.
				bad := append([]byte{}, src...)
				bad[len(bad)-1] ^= 1
				_, err = p.decode(len(v), bad)
				xorRequireCorrupt(t, err, "last bit flipped")
				if len(v) > 0 && v[len(v)-1] != p.end {
					_, err := p.decode(len(v)-1, src)
					xorRequireCorrupt(t, err, "too few values")
				}
				if got, err := p.decode(len(v)+1, src); err == nil {
					// Only where the format itself cannot tell, as TestXORAmbiguousEnd shows.
					require.True(t, p.ambiguous)
					require.Equal(t, append(append([]uint64{}, v...), p.end), got)
				} else {
					xorRequireCorrupt(t, err, "too many values")
				}
			})
		}
	}
}

func TestGorillaMalformed(t *testing.T) {
	tests := []struct {
		name   string
		typ    string
		n      int
		fields []string
		want   string
	}{
		{"10 before any window", "INT32", 1, []string{"0x00000001", "10", "000000"}, "before any '11'"},
		{"window wider than the value", "INT32", 2, []string{"0x00000001", "11", "11111", "11111", "1111"}, "exceeds the value width"},
		{"64-bit window too wide", "INT64", 2, []string{"0x0000000000000001", "11", "000001", "111111", "00"}, "exceeds the value width"},
		{"wrong end value", "INT32", 1, []string{"0x00000001", "0", "0000000"}, "not the end-of-stream value"},
		{"NaN with another payload as end", "FLOAT", 1, []string{"0x7fc00001", "0", "0000000"}, "not the end-of-stream value"},
		{"first value cut", "INT64", 1, []string{"0x00000000000000"}, "inside the first value"},
		{"value cut", "INT32", 2, []string{"0x00000001", "11", "00000", "11111", "1111"}, "ends inside a value"},
		{"trailing zero byte", "INT32", 1, []string{
			// 7, then MinInt32 ^ 7 as '11' 00000 11111 and 32 bits: 76 bits, 4 padding bits,
			// and one byte too many.
			"0x00000007", "11", "00000", "11111", "10000000 00000000 00000000 00000111", "0000",
			"0x00"}, "trailing bytes"},
		{"set padding bit", "INT32", 1, []string{
			"0x00000007", "11", "00000", "11111", "10000000 00000000 00000000 00000111", "0100"},
			"padding bits"},
		{"set bit in the zero byte", "INT32", 0, []string{"0x80000000", "0x01"}, "padding bits"},
		{"missing zero byte", "INT32", 0, []string{"0x80000000"}, "inside the padding"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := xorPairOf(encoding.Gorilla, tt.typ)
			_, err := p.decode(tt.n, xorStream(t, tt.fields...))
			xorRequireCorrupt(t, err)
			require.Contains(t, err.Error(), tt.want)
			require.Contains(t, err.Error(), "GORILLA "+tt.typ)
		})
	}
}

func TestXORErrorOffsets(t *testing.T) {
	p := xorPairOf(encoding.Gorilla, "INT32")
	// The second value's '11' header starts in byte 4 and claims lead 31 and 32 bits.
	_, err := p.decode(2, xorStream(t, "0x00000001", "11", "11111", "11111", "1111", "0x0000"))
	xorRequireCorrupt(t, err)
	require.Contains(t, err.Error(), "at byte 4:")
	// A stream cut in the middle of a value is reported at its end: the second value's
	// header asks for 32 bits and only 4 follow.
	_, err = p.decode(3, xorStream(t, "0x00000001", "11", "00000", "11111", "1010"))
	xorRequireCorrupt(t, err)
	require.Contains(t, err.Error(), "at byte 6:")
	require.Contains(t, err.Error(), "after 1 of 3 values")
}

func TestXORDecodeDoesNotAllocate(t *testing.T) {
	for _, p := range xorPairs {
		t.Run(p.String(), func(t *testing.T) {
			v := xorDatasets(p)["random walk"]
			src, err := p.encode(v)
			require.NoError(t, err)
			var allocs float64
			switch p.typ {
			case "INT32":
				dst := make([]int32, len(v))
				allocs = testing.AllocsPerRun(20, func() { _ = encoding.DecodeInt32(p.enc, dst, src) })
			case "INT64":
				dst := make([]int64, len(v))
				allocs = testing.AllocsPerRun(20, func() { _ = encoding.DecodeInt64(p.enc, dst, src) })
				require.Zero(t, allocs)
				allocs = testing.AllocsPerRun(20, func() { _, _ = encoding.CountInt64(p.enc, src) })
				require.Zero(t, allocs)
				all := make([]int64, 0, len(v))
				allocs = testing.AllocsPerRun(20, func() { _, _ = encoding.AppendAllInt64(p.enc, all, src) })
			case "FLOAT":
				dst := make([]float32, len(v))
				allocs = testing.AllocsPerRun(20, func() { _ = encoding.DecodeFloat32(p.enc, dst, src) })
			default:
				dst := make([]float64, len(v))
				allocs = testing.AllocsPerRun(20, func() { _ = encoding.DecodeFloat64(p.enc, dst, src) })
			}
			require.Zero(t, allocs)
			// Encoding into enough capacity does not allocate either.
			buf := make([]byte, 0, 2*len(src))
			switch p.typ {
			case "INT64":
				s := make([]int64, len(v))
				allocs = testing.AllocsPerRun(20, func() { _, _ = encoding.AppendEncodedInt64(p.enc, buf, s) })
			case "DOUBLE":
				s := make([]float64, len(v))
				allocs = testing.AllocsPerRun(20, func() { _, _ = encoding.AppendEncodedFloat64(p.enc, buf, s) })
			default:
				allocs = 0
			}
			require.Zero(t, allocs)
		})
	}
}

// xorFuzz is the body shared by the fuzz targets: no input may panic, every failure reports a
// corrupt stream, and what decodes re-encodes to a stream that decodes to the same bits.
// Streams are not canonical (a decoder accepts windows the encoder would not choose), so the
// re-encoded bytes need not equal the input, but they are a fixed point of the encoder.
func xorFuzz(t *testing.T, p xorPair, n uint16, src []byte) {
	got, err := p.decode(int(n), src)
	if err != nil {
		xorRequireCorrupt(t, err)
		if p.typ == "INT64" {
			// Count may still find a shorter valid reading; it must agree with decoding it.
			if c, err := encoding.CountInt64(p.enc, src); err == nil && c <= xorMaxFuzzValues {
				_, err := p.decode(c, src)
				require.NoError(t, err)
			}
		}
		return
	}
	re, err := p.encode(got)
	require.NoError(t, err)
	again, err := p.decode(int(n), re)
	require.NoError(t, err)
	require.Equal(t, got, again)
	re2, err := p.encode(again)
	require.NoError(t, err)
	require.Equal(t, re, re2)
	if p.typ == "INT64" {
		c, err := encoding.CountInt64(p.enc, src)
		require.NoError(t, err)
		require.LessOrEqual(t, c, int(n), "the count is the smallest length that decodes")
		if !p.ambiguous {
			require.Equal(t, int(n), c, "CHIMP streams decode as one length only")
		}
		prefix, err := p.decode(c, src)
		require.NoError(t, err)
		require.Equal(t, got[:c], prefix)
		for _, x := range got[c:] {
			require.Equal(t, p.end, x, "only end-of-stream values can hide in the padding")
		}
	}
}

// xorMaxFuzzValues bounds the counts decoded in the fuzz targets, as Page metadata would.
const xorMaxFuzzValues = 1 << 16

func addXORFuzzSeeds(f *testing.F, p xorPair) {
	for name, v := range xorDatasets(p) {
		if len(v) > 64 && !strings.HasPrefix(name, "length 127") {
			continue
		}
		src, err := p.encode(v)
		require.NoError(f, err)
		f.Add(uint16(len(v)), src)
	}
}

func FuzzDecodeInt32Gorilla(f *testing.F) {
	p := xorPairOf(encoding.Gorilla, "INT32")
	addXORFuzzSeeds(f, p)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) { xorFuzz(t, p, n, src) })
}

func FuzzDecodeInt64Gorilla(f *testing.F) {
	p := xorPairOf(encoding.Gorilla, "INT64")
	addXORFuzzSeeds(f, p)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) { xorFuzz(t, p, n, src) })
}

func FuzzDecodeFloat32Gorilla(f *testing.F) {
	p := xorPairOf(encoding.Gorilla, "FLOAT")
	addXORFuzzSeeds(f, p)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) { xorFuzz(t, p, n, src) })
}

func FuzzDecodeFloat64Gorilla(f *testing.F) {
	p := xorPairOf(encoding.Gorilla, "DOUBLE")
	addXORFuzzSeeds(f, p)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) { xorFuzz(t, p, n, src) })
}

const xorBenchValues = 4096

// xorBenchData returns benchmark inputs resembling real columns: sensor readings as a random
// walk rounded to two decimals for FLOAT and DOUBLE, a random walk for INT32, millisecond
// timestamps with jitter for INT64.
func xorBenchData(p xorPair) []uint64 {
	r := rand.New(rand.NewPCG(21, 22))
	v := make([]uint64, xorBenchValues)
	x, ts, i32 := 20.0, int64(1_700_000_000_000), int32(0)
	for i := range v {
		switch p.typ {
		case "INT32":
			i32 += int32(r.IntN(201)) - 100
			v[i] = uint64(uint32(i32))
		case "INT64":
			ts += 1000 + int64(r.IntN(16))
			v[i] = uint64(ts)
		default:
			x += r.NormFloat64() * 0.1
			v[i] = p.fromFloat(math.Round(x*100) / 100)
		}
	}
	return v
}

func benchXORDecode(b *testing.B, p xorPair) {
	v := xorBenchData(p)
	src, err := p.encode(v)
	require.NoError(b, err)
	b.SetBytes(int64(p.width / 8 * len(v)))
	b.ReportAllocs()
	switch p.typ {
	case "INT32":
		dst := make([]int32, len(v))
		for b.Loop() {
			if err := encoding.DecodeInt32(p.enc, dst, src); err != nil {
				b.Fatal(err)
			}
		}
	case "INT64":
		dst := make([]int64, len(v))
		for b.Loop() {
			if err := encoding.DecodeInt64(p.enc, dst, src); err != nil {
				b.Fatal(err)
			}
		}
	case "FLOAT":
		dst := make([]float32, len(v))
		for b.Loop() {
			if err := encoding.DecodeFloat32(p.enc, dst, src); err != nil {
				b.Fatal(err)
			}
		}
	default:
		dst := make([]float64, len(v))
		for b.Loop() {
			if err := encoding.DecodeFloat64(p.enc, dst, src); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkDecodeInt32Gorilla(b *testing.B) {
	benchXORDecode(b, xorPairOf(encoding.Gorilla, "INT32"))
}
func BenchmarkDecodeInt64Gorilla(b *testing.B) {
	benchXORDecode(b, xorPairOf(encoding.Gorilla, "INT64"))
}
func BenchmarkDecodeFloat32Gorilla(b *testing.B) {
	benchXORDecode(b, xorPairOf(encoding.Gorilla, "FLOAT"))
}
func BenchmarkDecodeFloat64Gorilla(b *testing.B) {
	benchXORDecode(b, xorPairOf(encoding.Gorilla, "DOUBLE"))
}

// BenchmarkDecodeFloat64GorillaRandom is the worst case: every value needs a new window of
// nearly 64 bits.
func BenchmarkDecodeFloat64GorillaRandom(b *testing.B) {
	p := xorPairOf(encoding.Gorilla, "DOUBLE")
	r := rand.New(rand.NewPCG(23, 24))
	v := make([]float64, xorBenchValues)
	for i := range v {
		v[i] = math.Float64frombits(r.Uint64())
	}
	src, err := encoding.AppendEncodedFloat64(p.enc, nil, v)
	require.NoError(b, err)
	dst := make([]float64, len(v))
	b.SetBytes(int64(8 * len(v)))
	b.ReportAllocs()
	for b.Loop() {
		if err := encoding.DecodeFloat64(p.enc, dst, src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCountInt64Gorilla(b *testing.B) {
	p := xorPairOf(encoding.Gorilla, "INT64")
	src, err := p.encode(xorBenchData(p))
	require.NoError(b, err)
	b.SetBytes(8 * xorBenchValues)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encoding.CountInt64(p.enc, src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeFloat64Gorilla(b *testing.B) {
	p := xorPairOf(encoding.Gorilla, "DOUBLE")
	v := make([]float64, xorBenchValues)
	for i, x := range xorBenchData(p) {
		v[i] = math.Float64frombits(x)
	}
	buf := make([]byte, 0, 16*len(v))
	b.SetBytes(int64(8 * len(v)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encoding.AppendEncodedFloat64(p.enc, buf, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMemcpyGorilla copies as many bytes as the 64-bit benchmarks above decode, and
// BenchmarkMemcpyGorilla32 as many as the 32-bit ones: the ceiling of any decoder.
func BenchmarkMemcpyGorilla(b *testing.B)   { benchXORMemcpy(b, 8*xorBenchValues) }
func BenchmarkMemcpyGorilla32(b *testing.B) { benchXORMemcpy(b, 4*xorBenchValues) }

func benchXORMemcpy(b *testing.B, size int) {
	src := make([]byte, size)
	dst := make([]byte, size)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		copy(dst, src)
	}
}

// BenchmarkDecodeFloat64GorillaWalk decodes an unrounded random walk, whose xors keep about
// 50 significant bits.
func BenchmarkDecodeFloat64GorillaWalk(b *testing.B) {
	p := xorPairOf(encoding.Gorilla, "DOUBLE")
	r := rand.New(rand.NewPCG(25, 26))
	v := make([]float64, xorBenchValues)
	x := 100.0
	for i := range v {
		x += r.NormFloat64()
		v[i] = x
	}
	src, err := encoding.AppendEncodedFloat64(p.enc, nil, v)
	require.NoError(b, err)
	dst := make([]float64, len(v))
	b.SetBytes(int64(8 * len(v)))
	b.ReportAllocs()
	for b.Loop() {
		if err := encoding.DecodeFloat64(p.enc, dst, src); err != nil {
			b.Fatal(err)
		}
	}
}
