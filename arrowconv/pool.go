package arrowconv

import (
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// poolAllocator is the default allocator of readers: arrow-go's Go
// allocator, but large buffers released by the records' consumers are
// kept for the next batches instead of being left to the garbage
// collector. A scan allocates about its output size per batch; taking that
// fresh from the heap each time costs page faults, zeroing under the heap
// lock and collection cycles, which showed as the main obstacle to
// scaling decode across cores.
//
// Buffers are zeroed when handed out, like the Go allocator's, so output
// bytes never depend on what a buffer held before.
type poolAllocator struct {
	classes [48]sync.Pool // by log2 of the capacity
}

// poolMin is the smallest buffer worth pooling; smaller ones are cheap.
const poolMin = 1 << 12

var defaultPool = &poolAllocator{}

var _ memory.Allocator = defaultPool

func (p *poolAllocator) Allocate(size int) []byte {
	if size < poolMin {
		return make([]byte, size)
	}
	c := bits.Len(uint(size - 1))
	if v := p.classes[c].Get(); v != nil {
		b := (*v.(*[]byte))[:size]
		clear(b)
		return b
	}
	return make([]byte, size, 1<<c)
}

func (p *poolAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		old := len(b)
		b = b[:size]
		if size > old {
			clear(b[old:])
		}
		return b
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

func (p *poolAllocator) Free(b []byte) {
	c := cap(b)
	if c < poolMin || c&(c-1) != 0 {
		return
	}
	b = b[:0]
	p.classes[bits.Len(uint(c-1))].Put(&b)
}
