package tsfile

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// TestDecodeValuePageFloatBits: an aligned FLOAT value page with nulls in
// the raw-bits TS_2DIFF layout keeps its quirk through the scatter to
// positions, for ReadAligned to note; the Java layout has none.
func TestDecodeValuePageFloatBits(t *testing.T) {
	v := []float32{float32(math.Inf(1)), float32(math.NaN()), math.MaxFloat32}
	page := func(values []byte) []byte {
		p := binary.BigEndian.AppendUint32(nil, 5)
		p = append(p, 0b1011_0000) // positions 0, 2 and 3 present
		return append(p, values...)
	}
	h := &ChunkHeader{DataType: Float, Encoding: encoding.TS2Diff}
	got, err := decodeValuePage(h, page(encoding.AppendTS2DiffFloat32Bits(nil, v)), 0, 5)
	require.NoError(t, err)
	require.Equal(t, QuirkFloatTS2DIFFBits, got.quirk)
	require.Equal(t, []bool{false, true, false, false, true}, got.Null)
	for i, k := range []int{0, 2, 3} {
		require.Equal(t, math.Float32bits(v[i]), math.Float32bits(got.Float32s[k]))
	}
	java, err := encoding.AppendEncodedFloat32(encoding.TS2Diff, nil, []float32{1.5, 2, 3})
	require.NoError(t, err)
	got, err = decodeValuePage(h, page(java), 0, 5)
	require.NoError(t, err)
	require.Zero(t, got.quirk)
	require.Equal(t, []float32{1.5, 0, 2, 3, 0}, got.Float32s)
}
