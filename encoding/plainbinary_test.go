package encoding

import (
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
