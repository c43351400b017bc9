package scan

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
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
			require.Equal(t, len(c), cap(c), "no spare capacity")
			grown := c
			p.Free(grown)
		}
	}
}

// TestBuilderAlloc checks which allocators the builders get: the pool's
// and a Meter's over it hand out unzeroed buffers, a Meter's into its
// count; any other allocator is used as it is.
func TestBuilderAlloc(t *testing.T) {
	goAlloc := memory.NewGoAllocator()
	overGo := NewMeter(goAlloc)
	require.Equal(t, rawPool{defaultPool}, BuilderAlloc(DefaultPool))
	require.Same(t, overGo, BuilderAlloc(overGo))
	require.Equal(t, goAlloc, BuilderAlloc(goAlloc))

	m := NewMeter(nil)
	outer := NewMeter(m)
	for _, a := range []memory.Allocator{BuilderAlloc(m), BuilderAlloc(outer)} {
		require.IsType(t, rawMeter{}, a)
		b := a.Allocate(poolMin)
		require.Equal(t, int64(poolMin), m.InUse())
		b = a.Reallocate(2*poolMin, b)
		require.Equal(t, int64(2*poolMin), m.InUse())
		a.Free(b)
		require.Zero(t, m.InUse())
	}
	require.Equal(t, int64(2*poolMin), outer.Peak(), "the outer Meter counts too")
}
