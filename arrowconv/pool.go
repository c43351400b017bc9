package arrowconv

import (
	"math/bits"
	"sync"
	"unsafe"

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
	var b []byte
	if v := p.classes[c].Get(); v != nil {
		b = *v.(*[]byte)
		clear(b[:size])
	} else {
		b = make([]byte, 1<<c)
	}
	// Capacity equal to the length, as the Go allocator hands out: code
	// appending to a buffer's slice must never write into memory the
	// buffer does not know it has, or a reallocation would drop it.
	return b[:size:size]
}

// Reallocate grows or shrinks b, as the Go allocator does: within b's
// capacity it reslices, otherwise it moves b into a new buffer.
func (p *poolAllocator) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

// Free keeps b for reuse. b must come from this allocator: its capacity
// is the size first asked for, whose class tells the whole allocation.
func (p *poolAllocator) Free(b []byte) {
	n := cap(b)
	if n < poolMin {
		return
	}
	c := bits.Len(uint(n - 1))
	full := unsafe.Slice(unsafe.SliceData(b[:1]), 1<<c)
	p.classes[c].Put(&full)
}
