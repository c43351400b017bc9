package arrowconv

import (
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/tsarrow/tsarrow/bitmap"
)

// span is a half-open range of rows [lo, hi).
type span struct{ lo, hi int }

// Rows decoded from a page that a time range only partly covers are
// dropped after the fact: the encodings are sequential, so the page is
// decoded whole, and keep then closes the gaps. Every keep moves rows
// towards lower positions, so copies are memmoves.

// keep retains, of the rows from at on, only those in runs (ascending,
// disjoint, within [at, Len())), moved down to start at at.
func (b *flatBase) keep(at int, runs []span) {
	w := at
	if b.bits%8 == 0 {
		bb, data := b.bits/8, b.values.Buf()
		for _, s := range runs {
			copy(data[w*bb:], data[s.lo*bb:s.hi*bb])
			w += s.hi - s.lo
		}
	} else {
		keepBits(b.values.Buf(), at, b.n, runs)
	}
	b.valid.keep(at, b.n, runs)
	b.n = at + kept(runs)
}

func (b *binaryBuilder) keep(at int, runs []span) {
	o, data := b.offs(), b.values.Buf()
	w, size := at, int(o[at])
	for _, s := range runs {
		from, to := int(o[s.lo]), int(o[s.hi])
		copy(data[size:], data[from:to])
		base := o[s.lo]
		for i := s.lo; i < s.hi; i++ {
			o[w+1] = int32(size) + (o[i+1] - base)
			w++
		}
		size += to - from
	}
	b.valid.keep(at, b.n, runs)
	b.n, b.size = w, size
}

// keep applies the same to a validity bitmap of n rows and fixes its null
// count.
func (v *validity) keep(at, n int, runs []span) {
	if v.buf == nil {
		return
	}
	bm := v.buf.Buf()
	before := (n - at) - bitutil.CountSetBits(bm, at, n-at)
	keepBits(bm, at, n, runs)
	k := kept(runs)
	after := k - bitutil.CountSetBits(bm, at, k)
	v.nulls += after - before
}

// keepBits moves the bits of runs down to at, through a copy of the bits
// [at, n) since bitmap copies may not overlap.
func keepBits(bm []byte, at, n int, runs []span) {
	tmp := make([]byte, bitmap.Bytes(n-at))
	bitutil.CopyBitmap(bm, at, n-at, tmp, 0)
	w := at
	for _, s := range runs {
		bitutil.CopyBitmap(tmp, s.lo-at, s.hi-s.lo, bm, w)
		w += s.hi - s.lo
	}
}

func kept(runs []span) int {
	k := 0
	for _, s := range runs {
		k += s.hi - s.lo
	}
	return k
}
