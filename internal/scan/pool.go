package scan

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
// Allocate zeroes buffers, like the Go allocator, for callers that count
// on it; the readers' builders, which do not, take them through rawPool.
type poolAllocator struct {
	classes [48]sync.Pool // by log2 of the capacity
}

// poolMin is the smallest buffer worth pooling; smaller ones are cheap.
const poolMin = 1 << 12

var defaultPool = &poolAllocator{}

// DefaultPool is the readers' default allocator: a pooling allocator
// shared by every reader of the process.
var DefaultPool memory.Allocator = defaultPool

// rawPool hands out a poolAllocator's buffers without zeroing them. The
// readers' own builders take their buffers from it: they write every byte
// of a batch they hand out (nulls' value slots included, and the unused
// bits of a bitmap's last byte), so clearing a reused buffer first would
// only cost a pass over the whole batch, in the serial part of a scan.
// Anything else, arrow-go code included, gets defaultPool's zeroed ones.
type rawPool struct{ p *poolAllocator }

// rawSource is an allocator that may hand out its buffers unzeroed, to
// builders that write every byte they take: raw returns an allocator
// that does, or the allocator itself if it cannot.
type rawSource interface {
	raw() memory.Allocator
}

// BuilderAlloc returns the allocator the builders use for the reader's
// allocator a: DefaultPool without the zeroing (also under a Meter), any
// other unchanged.
func BuilderAlloc(a memory.Allocator) memory.Allocator {
	if r, ok := a.(rawSource); ok {
		return r.raw()
	}
	return a
}

func (p *poolAllocator) raw() memory.Allocator { return rawPool{p} }

func (r rawPool) Allocate(size int) []byte { return r.p.allocate(size, false) }

func (r rawPool) Reallocate(size int, b []byte) []byte { return reallocate(r, size, b) }

func (r rawPool) Free(b []byte) { r.p.Free(b) }

func (p *poolAllocator) Allocate(size int) []byte { return p.allocate(size, true) }

// allocate returns a buffer of size bytes, zeroed if zero is set (a fresh
// one always is).
func (p *poolAllocator) allocate(size int, zero bool) []byte {
	if size < poolMin {
		return make([]byte, size)
	}
	c := bits.Len(uint(size - 1))
	var b []byte
	if v := p.classes[c].Get(); v != nil {
		b = *v.(*[]byte)
		if zero {
			clear(b[:size])
		}
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
func (p *poolAllocator) Reallocate(size int, b []byte) []byte { return reallocate(p, size, b) }

// reallocate reslices b within its capacity, otherwise moves it into a new
// buffer of a and frees it.
func reallocate(a memory.Allocator, size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	nb := a.Allocate(size)
	copy(nb, b)
	a.Free(b)
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
