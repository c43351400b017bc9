package scan

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Meter is an allocator that counts the bytes it has handed out and not
// yet had back, so that a server can hold each stream to a memory budget
// and see a cancelled stream's memory return. It is safe for concurrent
// use when its base allocator is.
type Meter struct {
	base  memory.Allocator
	inUse atomic.Int64
	peak  atomic.Int64
}

// NewMeter counts the allocations of base; a nil base selects
// DefaultPool, keeping its buffer reuse.
func NewMeter(base memory.Allocator) *Meter {
	if base == nil {
		base = defaultPool
	}
	return &Meter{base: base}
}

// InUse returns the bytes allocated and not yet freed.
func (m *Meter) InUse() int64 { return m.inUse.Load() }

// Peak returns the largest InUse seen.
func (m *Meter) Peak() int64 { return m.peak.Load() }

func (m *Meter) add(n int) {
	v := m.inUse.Add(int64(n))
	for {
		p := m.peak.Load()
		if v <= p || m.peak.CompareAndSwap(p, v) {
			return
		}
	}
}

// Allocate implements memory.Allocator.
func (m *Meter) Allocate(size int) []byte { return m.count(m.base.Allocate(size)) }

// Reallocate implements memory.Allocator.
func (m *Meter) Reallocate(size int, b []byte) []byte {
	old := len(b)
	nb := m.base.Reallocate(size, b)
	m.add(len(nb) - old)
	return nb
}

// Free implements memory.Allocator.
func (m *Meter) Free(b []byte) {
	m.add(-len(b))
	m.base.Free(b)
}

func (m *Meter) count(b []byte) []byte {
	m.add(len(b))
	return b
}

// raw returns a Meter handing the builders its base's unzeroed buffers,
// if the base has them, into the same count; else m.
func (m *Meter) raw() memory.Allocator {
	rs, ok := m.base.(rawSource)
	if !ok {
		return m
	}
	return rawMeter{m, rs.raw()}
}

// rawMeter is a Meter handing out the unzeroed buffers of base, its
// base's raw form.
type rawMeter struct {
	m    *Meter
	base memory.Allocator
}

func (r rawMeter) Allocate(size int) []byte { return r.m.count(r.base.Allocate(size)) }

func (r rawMeter) Reallocate(size int, b []byte) []byte {
	old := len(b)
	nb := r.base.Reallocate(size, b)
	r.m.add(len(nb) - old)
	return nb
}

func (r rawMeter) Free(b []byte) { r.m.Free(b) }
