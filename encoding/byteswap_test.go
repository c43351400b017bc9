package encoding

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSwapWords checks the byte swaps of PLAIN fixed-width values against
// encoding/binary for every length up to a few vector blocks, at every
// alignment of the source, with the vector loops on (where the machine
// has them) and off.
func TestSwapWords(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	raw := make([]byte, 8*300+8)
	for i := range raw {
		raw[i] = byte(r.Uint32())
	}
	saved := swapAVX2
	defer func() { swapAVX2 = saved }()
	for _, vec := range []bool{saved, false} {
		swapAVX2 = vec
		for _, n := range []int{0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 255, 300} {
			for align := range 8 {
				t.Run(fmt.Sprintf("vector=%v/n=%d/align=%d", vec, n, align), func(t *testing.T) {
					src := raw[align : align+8*n]
					want64 := make([]uint64, n)
					for i := range want64 {
						want64[i] = binary.BigEndian.Uint64(src[8*i:])
					}
					// A guard word after dst catches writes past its end.
					got64 := make([]uint64, n+1)
					got64[n] = 0xfeedface
					swapWords64(got64[:n], src)
					require.Equal(t, want64, got64[:n])
					require.Equal(t, uint64(0xfeedface), got64[n])

					src = raw[align : align+4*n]
					want32 := make([]uint32, n)
					for i := range want32 {
						want32[i] = binary.BigEndian.Uint32(src[4*i:])
					}
					got32 := make([]uint32, n+1)
					got32[n] = 0xfeedface
					swapWords32(got32[:n], src)
					require.Equal(t, want32, got32[:n])
					require.Equal(t, uint32(0xfeedface), got32[n])
				})
			}
		}
	}
}
