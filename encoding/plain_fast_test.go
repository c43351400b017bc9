package encoding

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPlainBinaryShortCopies round-trips values of every length around
// the 16-byte fast copy, with the values last in the stream and the data
// buffer at exactly the capacity they need, where the fast path must give
// way to copy, and checks that bytes before the appended ones are kept.
func TestPlainBinaryShortCopies(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := 1; n <= 40; n++ {
		vals := make([][]byte, n)
		total := 0
		for i := range vals {
			vals[i] = make([]byte, r.IntN(34))
			for j := range vals[i] {
				vals[i][j] = byte(r.Uint32())
			}
			total += len(vals[i])
		}
		src, err := AppendEncodedBinary(Plain, nil, vals)
		require.NoError(t, err)
		for _, slack := range []int{0, 1, 15, 16, 64} {
			prefix := []byte("kept")
			data := make([]byte, len(prefix), len(prefix)+total+slack)
			copy(data, prefix)
			offsets := []int32{int32(len(prefix))}
			offs, out, err := AppendBinary(Plain, offsets, data, n, src)
			require.NoError(t, err)
			require.Equal(t, prefix, out[:len(prefix)])
			require.Len(t, offs, n+1)
			for i, v := range vals {
				require.Equal(t, v, out[offs[i]:offs[i+1]], "n=%d slack=%d value %d", n, slack, i)
			}
		}
	}
}

// TestPlainInt32Unrolled decodes every VarInt length, overlong forms and
// the overflowing fifth byte both on the unrolled path (five bytes or more
// left) and on the checked one (the stream's last bytes), which must agree.
func TestPlainInt32Unrolled(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		want int32
		err  string
	}{
		{"1 byte", []byte{0x02}, 1, ""},
		{"2 bytes", []byte{0xac, 0x02}, 150, ""},
		{"3 bytes", []byte{0x80, 0x80, 0x01}, 8192, ""},
		{"4 bytes", []byte{0x80, 0x80, 0x80, 0x01}, 1 << 20, ""},
		{"5 bytes max", []byte{0xfe, 0xff, 0xff, 0xff, 0x0f}, math.MaxInt32, ""},
		{"5 bytes min", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, math.MinInt32, ""},
		{"overlong", []byte{0x82, 0x80, 0x00}, 1, ""},
		{"overflow", []byte{0xff, 0xff, 0xff, 0xff, 0x10}, 0, "VarInt overflows 32 bits"},
		{"six bytes", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 0, "VarInt overflows 32 bits"},
	}
	for _, tc := range cases {
		for _, pad := range []int{0, 1, 5, 9} {
			t.Run(fmt.Sprintf("%s/pad=%d", tc.name, pad), func(t *testing.T) {
				// The value first, then pad one-byte zeros: with five or
				// more bytes after its start it takes the unrolled path.
				src := append(bytes.Clone(tc.in), make([]byte, pad)...)
				dst := make([]int32, 1+pad)
				err := decodePlainInt32(dst, src)
				if tc.err != "" {
					require.ErrorContains(t, err, tc.err)
					require.ErrorContains(t, err, "at byte 0")
					return
				}
				require.NoError(t, err)
				require.Equal(t, tc.want, dst[0])
				require.Equal(t, make([]int32, pad), dst[1:])
			})
		}
	}
	// A random stream of every length decodes the same both ways.
	r := rand.New(rand.NewPCG(7, 8))
	vals := make([]int32, 5000)
	for i := range vals {
		vals[i] = int32(r.Uint32() >> r.UintN(32))
	}
	src, err := AppendEncodedInt32(Plain, nil, vals)
	require.NoError(t, err)
	got := make([]int32, len(vals))
	require.NoError(t, decodePlainInt32(got, src))
	require.Equal(t, vals, got)
}

// TestPlainBinaryShortStream decodes a stream whose first value takes
// more bytes than the stream's length bound for all its values leaves in
// the buffer: the decoder must grow rather than write past it, and fail as
// appending did, at the stream's end.
func TestPlainBinaryShortStream(t *testing.T) {
	src := []byte{120} // zigzag 60: a 60-byte value
	src = append(src, bytes.Repeat([]byte{'x'}, 60)...)
	src = append(src, make([]byte, 20)...) // 20 empty values
	_, _, err := AppendBinary(Plain, []int32{0}, nil, 70, src)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "stream ends before 70 values")
}

// TestPlainInt32Grouped decodes streams built to take the grouped paths
// (eight one-byte or four two-byte VarInts), to leave them part way and
// to come back, checked against a decoder written from the VarInt rules
// with encoding/binary.
func TestPlainInt32Grouped(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	width := func(w int) func() []byte {
		return func() []byte {
			switch w {
			case 1:
				return []byte{byte(r.IntN(0x80))}
			case 2:
				return []byte{0x80 | byte(r.IntN(0x80)), byte(r.IntN(0x80))}
			default:
				return binary.AppendUvarint(nil, uint64(r.Uint32()))
			}
		}
	}
	cases := []struct {
		name  string
		parts []func() []byte
	}{
		{"one-byte", []func() []byte{width(1)}},
		{"two-byte", []func() []byte{width(2)}},
		{"overlong two-byte zero", []func() []byte{func() []byte { return []byte{0x80, 0x00} }}},
		{"one and two", []func() []byte{width(1), width(2)}},
		{"mixed", []func() []byte{width(1), width(1), width(2), width(0)}},
	}
	for _, tc := range cases {
		for _, run := range []int{1, 3, 8, 40} {
			for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 300} {
				t.Run(fmt.Sprintf("%s/run=%d/n=%d", tc.name, run, n), func(t *testing.T) {
					var src []byte
					for i := 0; i < n; i++ {
						src = append(src, tc.parts[(i/run)%len(tc.parts)]()...)
					}
					want := make([]int32, 0, n)
					for rest := src; len(rest) > 0; {
						u, k := binary.Uvarint(rest)
						require.Positive(t, k)
						want = append(want, int32(uint32(u)>>1)^-int32(uint32(u)&1))
						rest = rest[k:]
					}
					got := make([]int32, n)
					require.NoError(t, decodePlainInt32(got, src))
					require.Equal(t, want, got)
					// One value fewer leaves trailing bytes, one more runs
					// out of stream: both found wherever the paths stand.
					require.ErrorContains(t, decodePlainInt32(make([]int32, n-1), src), "trailing bytes")
					require.ErrorContains(t, decodePlainInt32(make([]int32, n+1), src), "stream ends after")
				})
			}
		}
	}
}

// TestPlainBinaryFastPathErrors puts a negative length and an overlong
// length byte among short values far from the stream's end, where the
// fast path runs: the first must fail naming its byte, the second (a
// VarInt of two bytes for a short length) decode like any other.
func TestPlainBinaryFastPathErrors(t *testing.T) {
	var src []byte
	for range 30 {
		src = append(src, 6, 'a', 'b', 'c')
	}
	at := len(src)
	bad := append(bytes.Clone(src), 0x03) // zigzag -2
	bad = append(bad, make([]byte, 40)...)
	_, _, err := AppendBinary(Plain, []int32{0}, nil, 60, bad)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, fmt.Sprintf("at byte %d", at))
	require.ErrorContains(t, err, "negative length -2")

	long := append(bytes.Clone(src), 0x86, 0x00, 'x', 'y', 'z') // overlong 3
	long = append(long, make([]byte, 30)...)
	offs, data, err := AppendBinary(Plain, []int32{0}, nil, 61, long)
	require.NoError(t, err)
	require.Equal(t, "xyz", string(data[offs[30]:offs[31]]))
	require.Equal(t, offs[30]+3, offs[60])
}

// TestPlainBoolBits packs every length around the eight-byte groups and
// compares with DecodeBool bit by bit, dirty bytes of dst included; a byte
// other than 0 or 1 at any position fails as DecodeBool fails, at its
// offset.
func TestPlainBoolBits(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	require.True(t, DecodesBoolBits(Plain))
	require.False(t, DecodesBoolBits(RLE))
	require.ErrorIs(t, DecodeBoolBits(RLE, make([]byte, 1), 1, []byte{1}), ErrUnsupported)
	for n := 0; n <= 70; n++ {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(r.IntN(2))
		}
		want := make([]bool, n)
		require.NoError(t, DecodeBool(Plain, want, src))
		dst := bytes.Repeat([]byte{0xff}, (n+7)/8+1)
		require.NoError(t, DecodeBoolBits(Plain, dst, n, src))
		for i := range n {
			require.Equal(t, want[i], dst[i/8]>>(i%8)&1 == 1, "n=%d value %d", n, i)
		}
		if n%8 != 0 {
			require.Zero(t, dst[n/8]>>(n%8), "n=%d: bits past n", n)
		}
		require.Equal(t, byte(0xff), dst[(n+7)/8], "n=%d: byte past the bitmap", n)
		for at := 0; at < n; at++ {
			bad := bytes.Clone(src)
			bad[at] = 2 + byte(r.IntN(254))
			wantErr := DecodeBool(Plain, make([]bool, n), bad)
			require.Error(t, wantErr)
			require.EqualError(t, DecodeBoolBits(Plain, make([]byte, (n+7)/8), n, bad), wantErr.Error())
		}
		require.ErrorIs(t, DecodeBoolBits(Plain, make([]byte, 9), n+1, src), ErrCorrupt)
	}
}
