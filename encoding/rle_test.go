package encoding_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// The goldens below are derived by hand from the Java RleEncoder. A stream is one package:
// UVarInt length, the bit width byte, then runs. A run header is a UVarInt: count<<1 for a
// repeated run (followed by the value in ceil(width/8) bytes: little-endian for INT32 and
// BOOLEAN, big-endian for INT64), or groups<<1|1 for a bit-packed run (followed by the number
// of real values in the last group, then the groups: eight width-bit fields each, MSB first).
//
// The Java writer's state machine: every value is buffered until eight make a group, which is
// appended to the open bit-packed run (at most 63 groups per run); the repeat counter restarts
// at every group, and once a value has been seen eight times in a row since then it is no
// longer buffered but counted, and written as a repeated run (dropping its seven buffered
// copies) when a different value or the end arrives, or after 32767 repeats.

// rleZeros returns n zero bytes.
func rleZeros(n int) []byte { return make([]byte, n) }

var rleGoldenInt32 = []struct {
	name string
	v    []int32
	want []byte
}{
	{
		name: "empty",
		v:    nil,
		want: []byte{0x00}, // flush with nothing written: the package is empty, its length 0
	},
	{
		name: "three values bit-packed",
		v:    []int32{1, 2, 3},
		// Width: 3 = 0b11 is the widest value, 2 bits. The end arrives with three values
		// buffered and no run of eight: they are padded with zeros to a group.
		// Group: 01 10 11 00 | 00 00 00 00 = 0x6c 0x00.
		want: []byte{
			0x05,       // package length: width byte + 4
			0x02,       // width
			0x03, 0x03, // one group: 1<<1|1; its last group holds 3 values
			0x6c, 0x00,
		},
	},
	{
		name: "repeated run",
		v:    []int32{7, 7, 7, 7, 7, 7, 7, 7, 7, 7},
		// Width 3. The 8th 7 makes the count 8: from then on the 7s are counted, not
		// buffered. At the end: a repeated run of 10.
		want: []byte{0x03, 0x03, 0x14, 0x07}, // length, width, 10<<1, value in 1 byte
	},
	{
		name: "run then a lone value",
		v:    []int32{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5},
		// Width 3 (5 = 0b101). The 5 ends the run of ten 0s: header 10<<1, value 0x00. The 5
		// is buffered and padded at the end: 101 000 000 000 000 000 000 000 = a0 00 00.
		want: []byte{0x08, 0x03, 0x14, 0x00, 0x03, 0x01, 0xa0, 0x00, 0x00},
	},
	{
		name: "seven repeats stay bit-packed",
		v:    []int32{5, 5, 5, 5, 5, 5, 5},
		// Width 3. Seven is below the run minimum of eight, so the group is packed:
		// 101 101 101 101 101 101 101 000 = 1011_0110 1101_1011 0110_1000.
		want: []byte{0x06, 0x03, 0x03, 0x07, 0xb6, 0xdb, 0x68},
	},
	{
		name: "repeats split by a group boundary",
		v:    []int32{9, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
		// Width 4. 9 and the first seven 4s fill a group, which resets the repeat count; the
		// next eight 4s make a run of 8. The group is written, closed with last = 8, before
		// the run: 1001 0100 0100 0100 0100 0100 0100 0100 = 94 44 44 44.
		want: []byte{0x09, 0x04, 0x03, 0x08, 0x94, 0x44, 0x44, 0x44, 0x10, 0x04},
	},
	{
		name: "two groups",
		v:    []int32{0, 1, 2, 3, 4, 5, 6, 7, 8},
		// Width 4. 0..7 fill a group: 0000 0001 0010 0011 0100 0101 0110 0111 = 01 23 45 67;
		// 8 is padded: 1000 0000 ... = 80 00 00 00. One run of two groups, the last holding 1.
		want: []byte{0x0b, 0x04, 0x05, 0x01, 0x01, 0x23, 0x45, 0x67, 0x80, 0x00, 0x00, 0x00},
	},
	{
		name: "negative value takes 32 bits",
		v:    []int32{-1},
		// A negative int has 32 significant bits. The group is 0xffffffff then seven zero
		// fields: 32 bytes. Package: width + 2 header bytes + 32 = 35 = 0x23.
		want: cat([]byte{0x23, 0x20, 0x03, 0x01, 0xff, 0xff, 0xff, 0xff}, rleZeros(28)),
	},
	{
		name: "repeated value is little-endian",
		v:    []int32{258, 258, 258, 258, 258, 258, 258, 258},
		// 258 = 0x102 needs 9 bits, so the value takes 2 bytes, written low byte first.
		want: []byte{0x04, 0x09, 0x10, 0x02, 0x01},
	},
	{
		name: "repeat limit",
		v:    slices.Repeat([]int32{3}, 32769),
		// Width 2. The 32768th 3 exceeds the limit of 32767: a run of 32767 is written (header
		// 65534 = UVarInt fe ff 03, value 03) and that 3 is buffered anew with a count of 1;
		// the 32769th makes it 2. At the end the two are packed: 11 11 00 00 00 00 00 00.
		want: []byte{0x09, 0x02, 0xfe, 0xff, 0x03, 0x03, 0x03, 0x02, 0xf0, 0x00},
	},
	{
		name: "63 groups per bit-packed run",
		v: func() []int32 {
			v := make([]int32, 512)
			for i := range v {
				v[i] = int32(i % 2)
			}
			return v
		}(),
		// Width 1; 0,1,0,1,0,1,0,1 = 0x55 per group, and no repeats. The 64th group closes
		// the run of 63 (header 63<<1|1 = 0x7f, last 8) and opens another, which the flush
		// closes with last 8 since no value is buffered. Length 1 + 2 + 63 + 2 + 1 = 69.
		want: cat([]byte{0x45, 0x01, 0x7f, 0x08}, bytes.Repeat([]byte{0x55}, 63), []byte{0x03, 0x08, 0x55}),
	},
}

var rleGoldenInt64 = []struct {
	name string
	v    []int64
	want []byte
}{
	{name: "empty", v: nil, want: []byte{0x00}},
	{
		name: "three values bit-packed",
		v:    []int64{1, 2, 3},
		want: []byte{0x05, 0x02, 0x03, 0x03, 0x6c, 0x00}, // as for INT32
	},
	{
		name: "repeated value is big-endian",
		v:    []int64{258, 258, 258, 258, 258, 258, 258, 258},
		// The LongRleEncoder writes the 2-byte value high byte first, unlike the int form.
		want: []byte{0x04, 0x09, 0x10, 0x01, 0x02},
	},
	{
		name: "negative run takes 8 bytes",
		v:    []int64{-2, -2, -2, -2, -2, -2, -2, -2, -2},
		// A negative long has 64 significant bits: a run of 9 (header 0x12) and 8 value bytes.
		want: []byte{0x0a, 0x40, 0x12, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe},
	},
	{
		name: "extremes",
		v:    []int64{math.MinInt64, math.MaxInt64},
		// Width 64: a group of 8 fields of 8 bytes, two real. Length 1 + 2 + 64 = 67.
		want: cat([]byte{0x43, 0x40, 0x03, 0x02},
			be64(1<<63), be64(math.MaxInt64), rleZeros(48)),
	},
}

var rleGoldenBool = []struct {
	name string
	v    []bool
	want []byte
}{
	{name: "empty", v: nil, want: []byte{0x00}},
	{
		name: "bit-packed",
		v:    []bool{true, false, true},
		// Booleans are the ints 1 and 0 with width 1: 1 0 1 00000 = 0xa0.
		want: []byte{0x04, 0x01, 0x03, 0x03, 0xa0},
	},
	{
		name: "run",
		v:    slices.Repeat([]bool{true}, 10),
		want: []byte{0x03, 0x01, 0x14, 0x01}, // run of 10, value 1 in one byte
	},
	{
		name: "run then a value",
		v:    append(slices.Repeat([]bool{false}, 8), true),
		// Eight falses: a run of 8 (header 0x10, value 0x00) ended by the true, which is
		// packed alone: 1000_0000.
		want: []byte{0x06, 0x01, 0x10, 0x00, 0x03, 0x01, 0x80},
	},
}

func TestRLEGoldenInt32(t *testing.T) {
	for _, tt := range rleGoldenInt32 {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encoding.AppendEncodedInt32(encoding.RLE, nil, tt.v)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			dst := make([]int32, len(tt.v))
			require.NoError(t, encoding.DecodeInt32(encoding.RLE, dst, tt.want))
			require.Equal(t, tt.v, rleNilIfEmpty(dst))
			n, err := encoding.CountRLEInt32(tt.want)
			require.NoError(t, err)
			require.Equal(t, len(tt.v), n)
			// The functions the DICTIONARY index stream uses agree with the registered ones.
			got, err = encoding.AppendRLEInt32(nil, tt.v)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			require.NoError(t, encoding.DecodeRLEInt32(dst, tt.want))
			require.Equal(t, tt.v, rleNilIfEmpty(dst))
		})
	}
}

func TestRLEGoldenInt64(t *testing.T) {
	for _, tt := range rleGoldenInt64 {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encoding.AppendEncodedInt64(encoding.RLE, nil, tt.v)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			dst := make([]int64, len(tt.v))
			require.NoError(t, encoding.DecodeInt64(encoding.RLE, dst, tt.want))
			require.Equal(t, tt.v, rleNilIfEmpty(dst))
			n, err := encoding.CountInt64(encoding.RLE, tt.want)
			require.NoError(t, err)
			require.Equal(t, len(tt.v), n)
		})
	}
}

func TestRLEGoldenBool(t *testing.T) {
	for _, tt := range rleGoldenBool {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encoding.AppendEncodedBool(encoding.RLE, nil, tt.v)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			dst := make([]bool, len(tt.v))
			require.NoError(t, encoding.DecodeBool(encoding.RLE, dst, tt.want))
			require.Equal(t, tt.v, rleNilIfEmpty(dst))
		})
	}
}

func rleNilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestRLEDecodeJavaReadable covers streams the Java writer never produces but its reader
// accepts, with the values it returns.
func TestRLEDecodeJavaReadable(t *testing.T) {
	pkg123 := []byte{0x05, 0x02, 0x03, 0x03, 0x6c, 0x00}
	tests := []struct {
		name string
		src  []byte
		want []int64
	}{
		{"two packages", cat(pkg123, pkg123), []int64{1, 2, 3, 1, 2, 3}},
		{"width 0 run", []byte{0x02, 0x00, 0x10}, make([]int64, 8)},
		{"width 0 group", []byte{0x03, 0x00, 0x03, 0x05}, make([]int64, 5)},
		{"short repeated run", []byte{0x03, 0x02, 0x06, 0x03}, []int64{3, 3, 3}},
		// Java reads the padded bytes whole, bits beyond the width included.
		{"value wider than the width", []byte{0x03, 0x05, 0x02, 0xff}, []int64{255}},
		{"full last group", []byte{0x04, 0x01, 0x03, 0x08, 0xff}, []int64{1, 1, 1, 1, 1, 1, 1, 1}},
		{"overlong run header", []byte{0x04, 0x02, 0x84, 0x00, 0x01}, []int64{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d32 := make([]int32, len(tt.want))
			require.NoError(t, encoding.DecodeInt32(encoding.RLE, d32, tt.src))
			d64 := make([]int64, len(tt.want))
			require.NoError(t, encoding.DecodeInt64(encoding.RLE, d64, tt.src))
			db := make([]bool, len(tt.want))
			require.NoError(t, encoding.DecodeBool(encoding.RLE, db, tt.src))
			for i, w := range tt.want {
				require.Equal(t, int32(w), d32[i])
				require.Equal(t, w != 0, db[i])
			}
			if tt.name == "value wider than the width" {
				return // the INT64 value is big-endian: the same one byte
			}
			require.Equal(t, tt.want, d64)
		})
	}
	// The repeated value's byte order differs between the forms.
	src := []byte{0x04, 0x09, 0x02, 0x01, 0x02}
	d32, d64 := make([]int32, 1), make([]int64, 1)
	require.NoError(t, encoding.DecodeInt32(encoding.RLE, d32, src))
	require.NoError(t, encoding.DecodeInt64(encoding.RLE, d64, src))
	require.Equal(t, []int32{0x0201}, d32)
	require.Equal(t, []int64{0x0102}, d64)
	// Booleans of a wider width: any non-zero field is true. Width 3, fields 2, 1, 0:
	// 010 001 000 + five zero fields = 0100_0100 0000_0000 0000_0000.
	db := make([]bool, 3)
	require.NoError(t, encoding.DecodeBool(encoding.RLE, db, []byte{0x06, 0x03, 0x03, 0x03, 0x44, 0x00, 0x00}))
	require.Equal(t, []bool{true, true, false}, db)
}

// rleShape is a named test series; the int32 and boolean forms are derived from it.
type rleShape struct {
	name string
	v    []int64
}

// rleShapes returns the series of the property tests, each shape at every interesting length.
func rleShapes() []rleShape {
	r := rand.New(rand.NewPCG(31, 32))
	extremes := []int64{math.MinInt64, math.MaxInt64, math.MinInt32, math.MaxInt32, -1, 0, 1}
	gens := []struct {
		name string
		next func(i int, prev int64) int64
	}{
		{"constant", func(int, int64) int64 { return 42 }},
		{"constant-odd", func(int, int64) int64 { return -7 }},
		{"zero", func(int, int64) int64 { return 0 }},
		{"monotonic", func(i int, _ int64) int64 { return int64(3*i + 1) }},
		{"decreasing", func(i int, _ int64) int64 { return int64(-1000 * i) }},
		{"random-walk", func(_ int, p int64) int64 { return p + int64(r.IntN(21)) - 10 }},
		{"random", func(int, int64) int64 { return int64(r.Uint64()) }},
		{"random-small", func(int, int64) int64 { return int64(r.IntN(16)) }},
		{"runs", func(_ int, p int64) int64 {
			if r.IntN(12) == 0 {
				return int64(r.IntN(5))
			}
			return p
		}},
		{"min-max", func(i int, _ int64) int64 { return []int64{math.MinInt64, math.MaxInt64}[i%2] }},
		{"extremes", func(int, int64) int64 { return extremes[r.IntN(len(extremes))] }},
	}
	var out []rleShape
	for _, g := range gens {
		for _, n := range []int{0, 1, 2, 7, 8, 9, 127, 128, 129, 1023, 1024, 1025} {
			v := make([]int64, n)
			var prev int64
			for i := range v {
				v[i] = g.next(i, prev)
				prev = v[i]
			}
			out = append(out, rleShape{name: g.name + "/" + strconv.Itoa(n), v: v})
		}
	}
	// Runs beyond the repeat limit, and beyond 63 bit-packed groups.
	out = append(out, rleShape{name: "long-run", v: slices.Repeat([]int64{5}, 70000)})
	long := make([]int64, 40000)
	for i := range long {
		long[i] = int64(i % 3)
	}
	out = append(out, rleShape{name: "long-bitpacked", v: long})
	return out
}

func rleInt32s(v []int64) []int32 {
	out := make([]int32, len(v))
	for i, x := range v {
		out[i] = int32(x)
	}
	return out
}

func rleBools(v []int64) []bool {
	out := make([]bool, len(v))
	for i, x := range v {
		out[i] = x&1 != 0
	}
	return out
}

func TestRLERoundTrip(t *testing.T) {
	prefix := []byte("prefix")
	for _, s := range rleShapes() {
		t.Run(s.name, func(t *testing.T) {
			n := len(s.v)

			src, err := encoding.AppendEncodedInt64(encoding.RLE, slices.Clone(prefix), s.v)
			require.NoError(t, err)
			require.Equal(t, prefix, src[:len(prefix)])
			src = src[len(prefix):]
			d64 := slices.Repeat([]int64{-99}, n) // every slot must be written
			require.NoError(t, encoding.DecodeInt64(encoding.RLE, d64, src))
			require.Equal(t, s.v, d64)
			count, err := encoding.CountInt64(encoding.RLE, src)
			require.NoError(t, err)
			require.Equal(t, n, count)
			all, err := encoding.AppendAllInt64(encoding.RLE, []int64{1}, src)
			require.NoError(t, err)
			require.Equal(t, append([]int64{1}, s.v...), all)

			v32 := rleInt32s(s.v)
			src, err = encoding.AppendEncodedInt32(encoding.RLE, slices.Clone(prefix), v32)
			require.NoError(t, err)
			require.Equal(t, prefix, src[:len(prefix)])
			src = src[len(prefix):]
			d32 := slices.Repeat([]int32{-99}, n)
			require.NoError(t, encoding.DecodeInt32(encoding.RLE, d32, src))
			require.Equal(t, v32, d32)
			count, err = encoding.CountRLEInt32(src)
			require.NoError(t, err)
			require.Equal(t, n, count)

			vb := rleBools(s.v)
			src, err = encoding.AppendEncodedBool(encoding.RLE, slices.Clone(prefix), vb)
			require.NoError(t, err)
			require.Equal(t, prefix, src[:len(prefix)])
			src = src[len(prefix):]
			db := make([]bool, n)
			for i := range db {
				db[i] = !vb[i]
			}
			require.NoError(t, encoding.DecodeBool(encoding.RLE, db, src))
			require.Equal(t, vb, db)
		})
	}
}

// rleRequireStreamErrors checks, for a valid stream src of n values, that every truncation,
// trailing garbage and a wrong count are reported as corrupt, and that nothing panics.
func rleRequireStreamErrors(t *testing.T, n int, src []byte, decode func(n int, src []byte) error) {
	t.Helper()
	require.NoError(t, decode(n, src))
	if n > 0 {
		for i := range len(src) {
			require.ErrorIs(t, decode(n, src[:i]), encoding.ErrCorrupt, "truncated to %d of %d bytes", i, len(src))
		}
		require.ErrorIs(t, decode(n-1, src), encoding.ErrCorrupt, "one value too many in the stream")
	}
	require.ErrorIs(t, decode(n+1, src), encoding.ErrCorrupt, "one value too few in the stream")
	for _, tail := range [][]byte{{0x00}, {0x01}, {0x80}, {0xff}, {0x03, 0x02, 0x10, 0x01}} {
		require.ErrorIs(t, decode(n, cat(src, tail)), encoding.ErrCorrupt, "trailing % x", tail)
	}
}

func TestRLEStreamErrors(t *testing.T) {
	d32 := func(n int, src []byte) error { return encoding.DecodeInt32(encoding.RLE, make([]int32, n), src) }
	d64 := func(n int, src []byte) error { return encoding.DecodeInt64(encoding.RLE, make([]int64, n), src) }
	db := func(n int, src []byte) error { return encoding.DecodeBool(encoding.RLE, make([]bool, n), src) }
	for _, g := range rleGoldenInt32 {
		rleRequireStreamErrors(t, len(g.v), g.want, d32)
	}
	for _, g := range rleGoldenInt64 {
		rleRequireStreamErrors(t, len(g.v), g.want, d64)
	}
	for _, g := range rleGoldenBool {
		rleRequireStreamErrors(t, len(g.v), g.want, db)
	}
	for _, s := range rleShapes()[:60] {
		src, err := encoding.AppendEncodedInt64(encoding.RLE, nil, s.v)
		require.NoError(t, err)
		rleRequireStreamErrors(t, len(s.v), src, d64)
	}
}

func TestRLECorruptStreams(t *testing.T) {
	tests := []struct {
		name string
		n    int
		src  []byte
		msg  string
	}{
		{"truncated package length", 1, []byte{0x80}, "truncated package length"},
		{"package length overflows", 1, []byte{0xff, 0xff, 0xff, 0xff, 0x7f}, "overflows 32 bits"},
		{"package overruns", 3, []byte{0x05, 0x02, 0x03, 0x03}, "package of 5 bytes overruns the 3 bytes left"},
		{"empty package after values", 3, []byte{0x05, 0x02, 0x03, 0x03, 0x6c, 0x00, 0x00}, "at byte 6: empty package inside a stream"},
		{"empty package before values", 3, []byte{0x00, 0x05, 0x02, 0x03, 0x03, 0x6c, 0x00}, "at byte 0: empty package inside a stream"},
		{"width only", 1, []byte{0x01, 0x02}, "bit width but no runs"},
		{"width beyond 32", 1, []byte{0x03, 0x21, 0x02, 0x00}, "at byte 1: bit width 33 outside 0..32"},
		{"repeated run of none", 1, []byte{0x03, 0x02, 0x00, 0x01}, "repeated run of no values"},
		{"repeated value truncated", 8, []byte{0x03, 0x09, 0x10, 0x01}, "repeated value needs 2 bytes, 1 left"},
		{"run header truncated", 1, []byte{0x02, 0x02, 0x80}, "at byte 2: truncated run header"},
		{"run header beyond int32", 1, []byte{0x06, 0x02, 0x80, 0x80, 0x80, 0x80, 0x08}, "exceeds the int32 range"},
		{"no groups", 1, []byte{0x03, 0x02, 0x01, 0x01}, "bit-packed run of no groups"},
		{"missing last count", 1, []byte{0x02, 0x02, 0x03}, "lacks the count of its last group"},
		{"last count 0", 1, []byte{0x04, 0x02, 0x03, 0x00, 0x00}, "last group holds 0 values"},
		{"last count 9", 1, []byte{0x04, 0x01, 0x03, 0x09, 0x00}, "last group holds 9 values"},
		{"groups overrun the package", 9, []byte{0x05, 0x02, 0x05, 0x01, 0x00, 0x00}, "2 groups of 2-bit values need 4 bytes, 2 left"},
		{"run overruns the values", 3, []byte{0x03, 0x02, 0x10, 0x01}, "run of 8 values overruns the 3 values left of 3"},
		{"stream too short", 9, []byte{0x03, 0x02, 0x10, 0x01}, "at byte 4: stream ends after 8 of 9 values"},
		// Width 0 makes huge counts cheap; they are refused before anything is written.
		{"huge repeated run", 10, []byte{0x06, 0x00, 0xfe, 0xff, 0xff, 0xff, 0x07}, "run of 1073741823 values overruns"},
		{"huge bit-packed run", 10, []byte{0x07, 0x00, 0xff, 0xff, 0xff, 0xff, 0x07, 0x08}, "run of 8589934584 values overruns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := encoding.DecodeInt32(encoding.RLE, make([]int32, tt.n), tt.src)
			require.ErrorIs(t, err, encoding.ErrCorrupt)
			require.ErrorContains(t, err, tt.msg)
			require.ErrorContains(t, err, "encoding: RLE INT32 at byte")
			require.ErrorIs(t, encoding.DecodeBool(encoding.RLE, make([]bool, tt.n), tt.src), encoding.ErrCorrupt)
			if tt.name != "width beyond 32" {
				require.ErrorIs(t, encoding.DecodeInt64(encoding.RLE, make([]int64, tt.n), tt.src), encoding.ErrCorrupt)
			}
		})
	}
	err := encoding.DecodeInt64(encoding.RLE, make([]int64, 1), []byte{0x03, 0x41, 0x02, 0x00})
	require.ErrorIs(t, err, encoding.ErrCorrupt)
	require.ErrorContains(t, err, "bit width 65 outside 0..64")

	// Counting validates the same framing, and huge counts cost nothing.
	n, err := encoding.CountInt64(encoding.RLE, []byte{0x07, 0x00, 0xff, 0xff, 0xff, 0xff, 0x07, 0x08})
	require.NoError(t, err)
	require.Equal(t, 1<<33-8, n)
	_, err = encoding.CountInt64(encoding.RLE, []byte{0x04, 0x02, 0x03, 0x00, 0x00})
	require.ErrorIs(t, err, encoding.ErrCorrupt)
	n, err = encoding.CountInt64(encoding.RLE, nil)
	require.NoError(t, err)
	require.Zero(t, n)
	n, err = encoding.CountInt64(encoding.RLE, []byte{0x00})
	require.NoError(t, err)
	require.Zero(t, n)
}

func TestRLEDoesNotAllocate(t *testing.T) {
	v := rleBenchSeries("walk")
	v32 := rleInt32s(v)
	vb := rleBools(v)
	src64, err := encoding.AppendEncodedInt64(encoding.RLE, nil, v)
	require.NoError(t, err)
	src32, err := encoding.AppendEncodedInt32(encoding.RLE, nil, v32)
	require.NoError(t, err)
	srcb, err := encoding.AppendEncodedBool(encoding.RLE, nil, vb)
	require.NoError(t, err)
	d64, d32, db := make([]int64, len(v)), make([]int32, len(v)), make([]bool, len(v))
	buf := make([]byte, 0, 2*len(src64))
	for name, f := range map[string]func() error{
		"DecodeInt64": func() error { return encoding.DecodeInt64(encoding.RLE, d64, src64) },
		"DecodeInt32": func() error { return encoding.DecodeInt32(encoding.RLE, d32, src32) },
		"DecodeBool":  func() error { return encoding.DecodeBool(encoding.RLE, db, srcb) },
		"CountInt64": func() error {
			_, err := encoding.CountInt64(encoding.RLE, src64)
			return err
		},
		"AppendEncodedInt64": func() error {
			_, err := encoding.AppendEncodedInt64(encoding.RLE, buf, v)
			return err
		},
		"AppendEncodedInt32": func() error {
			_, err := encoding.AppendEncodedInt32(encoding.RLE, buf, v32)
			return err
		},
		"AppendEncodedBool": func() error {
			_, err := encoding.AppendEncodedBool(encoding.RLE, buf, vb)
			return err
		},
	} {
		require.Zero(t, testing.AllocsPerRun(20, func() {
			if err := f(); err != nil {
				panic(err)
			}
		}), name)
	}
}

// rleFuzzLengths decodes src with the count the stream declares and its neighbours, checking
// that exactly the declared count succeeds.
func rleFuzzLengths[T any](t *testing.T, src []byte, count func([]byte) (int, error), decode func([]T, []byte) error) {
	n, err := count(src)
	requireSentinel(t, err)
	if err != nil || n > maxFuzzValues {
		return
	}
	buf := make([]T, n+1)
	require.NoError(t, decode(buf[:n], src), "the declared count %d must decode", n)
	require.ErrorIs(t, decode(buf, src), encoding.ErrCorrupt)
	if n > 0 {
		require.ErrorIs(t, decode(buf[:n-1], src), encoding.ErrCorrupt)
	}
}

func rleAddSeeds(f *testing.F) {
	// Long streams make every execution, and the minimization of every input derived from
	// them, slow; the repeat limit is covered by the unit tests.
	for _, g := range rleGoldenInt32 {
		if len(g.v) <= 1024 {
			f.Add(uint16(len(g.v)), g.want)
		}
	}
	for _, g := range rleGoldenInt64 {
		f.Add(uint16(len(g.v)), g.want)
	}
	f.Add(uint16(6), []byte{0x05, 0x02, 0x03, 0x03, 0x6c, 0x00, 0x05, 0x02, 0x03, 0x03, 0x6c, 0x00})
	f.Add(uint16(10), []byte{0x07, 0x00, 0xff, 0xff, 0xff, 0xff, 0x07, 0x08})
}

func FuzzRLEInt32(f *testing.F) {
	rleAddSeeds(f)
	f.Fuzz(rleFuzzInt32)
}

func rleFuzzInt32(t *testing.T, n uint16, src []byte) {
	{
		dst := make([]int32, n)
		err := encoding.DecodeInt32(encoding.RLE, dst, src)
		requireSentinel(t, err)
		rleFuzzLengths(t, src, encoding.CountRLEInt32, func(d []int32, s []byte) error { return encoding.DecodeInt32(encoding.RLE, d, s) })
		if err != nil {
			return
		}
		count, err := encoding.CountRLEInt32(src)
		require.NoError(t, err)
		require.Equal(t, int(n), count)
		// The writer's run choices are not the only valid ones, so only the values must survive.
		re, err := encoding.AppendEncodedInt32(encoding.RLE, nil, dst)
		require.NoError(t, err)
		again := make([]int32, n)
		require.NoError(t, encoding.DecodeInt32(encoding.RLE, again, re))
		require.True(t, slices.Equal(dst, again), "values changed by re-encoding")
	}
}

func FuzzRLEInt64(f *testing.F) {
	rleAddSeeds(f)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) {
		dst := make([]int64, n)
		err := encoding.DecodeInt64(encoding.RLE, dst, src)
		requireSentinel(t, err)
		rleFuzzLengths(t, src, func(s []byte) (int, error) { return encoding.CountInt64(encoding.RLE, s) },
			func(d []int64, s []byte) error { return encoding.DecodeInt64(encoding.RLE, d, s) })
		if err != nil {
			return
		}
		count, err := encoding.CountInt64(encoding.RLE, src)
		require.NoError(t, err)
		require.Equal(t, int(n), count)
		re, err := encoding.AppendEncodedInt64(encoding.RLE, nil, dst)
		require.NoError(t, err)
		again := make([]int64, n)
		require.NoError(t, encoding.DecodeInt64(encoding.RLE, again, re))
		require.True(t, slices.Equal(dst, again), "values changed by re-encoding")
	})
}

func FuzzRLEBool(f *testing.F) {
	for _, g := range rleGoldenBool {
		f.Add(uint16(len(g.v)), g.want)
	}
	rleAddSeeds(f)
	f.Fuzz(func(t *testing.T, n uint16, src []byte) {
		dst := make([]bool, n)
		err := encoding.DecodeBool(encoding.RLE, dst, src)
		requireSentinel(t, err)
		rleFuzzLengths(t, src, encoding.CountRLEBool, func(d []bool, s []byte) error { return encoding.DecodeBool(encoding.RLE, d, s) })
		if err != nil {
			return
		}
		// Booleans read as ints agree with the INT32 reading: non-zero is true.
		ints := make([]int32, n)
		require.NoError(t, encoding.DecodeInt32(encoding.RLE, ints, src))
		for i := range ints {
			if (ints[i] != 0) != dst[i] {
				t.Fatalf("value %d: INT32 %d but BOOLEAN %v", i, ints[i], dst[i])
			}
		}
		re, err := encoding.AppendEncodedBool(encoding.RLE, nil, dst)
		require.NoError(t, err)
		again := make([]bool, n)
		require.NoError(t, encoding.DecodeBool(encoding.RLE, again, re))
		require.True(t, slices.Equal(dst, again), "values changed by re-encoding")
	})
}
