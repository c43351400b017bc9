package arrowconv

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPoolAllocatorZeroesReusedBuffers(t *testing.T) {
	p := &poolAllocator{}
	for _, size := range []int{1, poolMin - 1, poolMin, poolMin + 1, 100000} {
		b := p.Allocate(size)
		require.Len(t, b, size)
		for i := range b {
			b[i] = 0xa5
		}
		p.Free(b)
		for range 3 { // sync.Pool may or may not hand b back; either way zeroed
			c := p.Allocate(size)
			require.Len(t, c, size)
			require.Equal(t, make([]byte, size), c, "size %d", size)
			c = p.Reallocate(size+poolMin, c)
			require.Equal(t, make([]byte, size+poolMin), c, "grown from %d", size)
			for i := range c {
				c[i] = 0x5a
			}
			c = p.Reallocate(size/2, c)
			require.Len(t, c, size/2)
			c = p.Reallocate(size, c)
			require.Equal(t, make([]byte, size-size/2), c[size/2:], "regrown in place from %d", size/2)
			p.Free(c)
		}
	}
	// Buffers the pool did not make are never kept.
	p.Free(make([]byte, 5000))
	require.Len(t, p.Allocate(8192), 8192)
}
