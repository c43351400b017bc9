package bitmap

import (
	"encoding/binary"
	"math/bits"
)

// Scatter places the compacted values packed[0:k] at the set positions of the
// MSB-first bitmap bits among positions [0, n) of dst, where
// k = CountMSB(bits, n), and stores the zero value of T at every null
// position. dst beyond n is not touched. It returns k.
//
// Runs of all-present bytes are moved with a single copy and runs of all-null
// bytes with a single clear, so pages with long runs cost little more than a
// memmove. Other bytes are spread through a lookup table without a branch per
// position.
//
// It panics if n is negative, len(bits) < Bytes(n), len(dst) < n or
// len(packed) < k. It checks len(packed) before writing anything, but it does
// not check that packed holds exactly k values: that is a property of the
// page the caller must verify.
func Scatter[T any](dst []T, packed []T, bits []byte, n int) int {
	checkCount(n)
	if len(bits) < Bytes(n) {
		panic("bitmap: Scatter: bits shorter than Bytes(n)")
	}
	if len(dst) < n {
		panic("bitmap: Scatter: dst shorter than n")
	}
	k := CountMSB(bits, n)
	if len(packed) < k {
		panic("bitmap: Scatter: packed shorter than the number of set bits")
	}
	// Cap packed at k so that the run copies below can never read values
	// past the end, even through spare capacity.
	packed = packed[:k:k]
	var vals [16]T // See spread; vals[0] is never written and stays zero.
	full := n >> 3
	runs := bits[:full]
	j := 0
	for i := 0; i < full; {
		// See ScatterInPlace for why runs start at eight bytes.
		switch runWord(runs, i) {
		case ^uint64(0):
			e := runEnd(runs, i, ^uint64(0))
			l := (e - i) * 8
			copy(dst[i*8:e*8], packed[j:j+l])
			j += l
			i = e
		case 0:
			e := runEnd(runs, i, 0)
			clear(dst[i*8 : e*8])
			i = e
		default:
			b := runs[i]
			c := ones8(b)
			if j+8 <= len(packed) {
				// Loading eight values unconditionally avoids a loop whose
				// trip count changes with every byte; the extra ones are
				// never selected.
				load8(&vals, (*[8]T)(packed[j:]))
			} else {
				copy(vals[1:], packed[j:j+c])
			}
			spread((*[8]T)(dst[i*8:]), &vals, &rankTab[b])
			j += c
			i++
		}
	}
	if rem := n & 7; rem != 0 {
		p := full * 8
		clear(dst[p:n])
		for r := reverse8(bits[full] & highMask(rem)); r != 0; r &= r - 1 {
			dst[p+tz8(r)] = packed[j]
			j++
		}
	}
	return j
}

// ScatterInPlace is Scatter for values already decoded into the front of dst,
// dst[0:k] with k = CountMSB(bits, n). It moves them backwards from the end
// so that no second buffer is needed, zeroing the null slots. This is safe
// because the j-th present value never moves to a position below j, and each
// byte's values are read before any slot of that byte is written.
// dst beyond n is not touched. It returns k.
//
// It panics if n is negative, len(bits) < Bytes(n) or len(dst) < n.
func ScatterInPlace[T any](dst []T, bits []byte, n int) int {
	checkCount(n)
	if len(bits) < Bytes(n) {
		panic("bitmap: ScatterInPlace: bits shorter than Bytes(n)")
	}
	if len(dst) < n {
		panic("bitmap: ScatterInPlace: dst shorter than n")
	}
	k := CountMSB(bits, n)
	if k == n {
		return k // Every position present: values already in place.
	}
	var zero T
	var vals [16]T // See spread; vals[0] is never written and stays zero.
	full := n >> 3
	j := k
	if rem := n & 7; rem != 0 {
		p := full * 8
		b := bits[full]
		for q := rem - 1; q >= 0; q-- {
			if b&(0x80>>uint(q)) != 0 {
				j--
				dst[p+q] = dst[j]
			} else {
				dst[p+q] = zero
			}
		}
	}
	runs := bits[:full]
	for i := full; i > 0; {
		// Runs are taken whole from eight equal bytes (64 positions) on:
		// testing each 0xFF byte for a run of two was a branch that nulls
		// scattered among mostly present values made unpredictable, and
		// cost more than spreading such bytes through the table.
		switch runWord(runs, i-8) {
		case ^uint64(0):
			s := runStart(runs, i, ^uint64(0))
			l := (i - s) * 8
			copy(dst[s*8:i*8], dst[j-l:j]) // copy handles the overlap like memmove.
			j -= l
			i = s
		case 0:
			// Every value still to be moved lies below s*8, so clearing the
			// whole run cannot destroy one.
			s := runStart(runs, i, 0)
			clear(dst[s*8 : i*8])
			i = s
		default:
			b := runs[i-1]
			// This byte's slots may still hold its own unmoved values, so
			// take them out into vals before writing any slot. The
			// eight-value read stays inside dst: once this byte's c values
			// are taken off, j <= i*8, the byte's first slot.
			i--
			j -= ones8(b)
			load8(&vals, (*[8]T)(dst[j:]))
			spread((*[8]T)(dst[i*8:]), &vals, &rankTab[b])
		}
	}
	return k
}

// ScatterOffsets expands the Arrow-style end offsets of k compacted binary
// values into n+1 offsets for n positions, as an Arrow binary or string
// builder needs them: out[0] = base, the i-th position ends at out[i+1], and
// a null position repeats the previous offset so it is empty.
//
// packedEnds[j] is the end of the j-th present value relative to the start of
// the compacted value bytes (so the first present value starts at 0 there),
// and base is where those bytes begin in the destination data buffer; the
// output offsets are base+packedEnds[j]. The caller must ensure this does not
// overflow int32. k = CountMSB(bits, n); ScatterOffsets returns k.
//
// It panics if n is negative, len(bits) < Bytes(n), len(out) < n+1 or
// len(packedEnds) < k.
func ScatterOffsets(out []int32, base int32, packedEnds []int32, bits []byte, n int) int {
	checkCount(n)
	if len(bits) < Bytes(n) {
		panic("bitmap: ScatterOffsets: bits shorter than Bytes(n)")
	}
	if len(out) < n+1 {
		panic("bitmap: ScatterOffsets: out shorter than n+1")
	}
	k := CountMSB(bits, n)
	if len(packedEnds) < k {
		panic("bitmap: ScatterOffsets: packedEnds shorter than the number of set bits")
	}
	packedEnds = packedEnds[:k:k]
	// vals[0] is the offset before the current byte and vals[t] the end of
	// its t-th present value, so slot q takes vals[cumTab[b][q]].
	var vals [16]int32
	out[0] = base
	o := out[1 : n+1]
	prev := base
	full := n >> 3
	runs := bits[:full]
	j := 0
	for i := 0; i < full; {
		// See ScatterInPlace for why runs start at eight bytes.
		switch runWord(runs, i) {
		case ^uint64(0):
			e := runEnd(runs, i, ^uint64(0))
			l := (e - i) * 8
			seg := o[i*8 : e*8]
			for t, end := range packedEnds[j : j+l] {
				seg[t] = base + end
			}
			prev = seg[l-1]
			j += l
			i = e
		case 0:
			e := runEnd(runs, i, 0)
			seg := o[i*8 : e*8]
			for t := range seg {
				seg[t] = prev
			}
			i = e
		default:
			b := runs[i]
			c := ones8(b)
			vals[0] = prev
			if j+8 <= len(packedEnds) {
				for t, end := range (*[8]int32)(packedEnds[j:]) {
					vals[1+t] = base + end
				}
			} else {
				for t, end := range packedEnds[j : j+c] {
					vals[1+t] = base + end
				}
			}
			spread((*[8]int32)(o[i*8:]), &vals, &cumTab[b])
			prev = vals[c]
			j += c
			i++
		}
	}
	if rem := n & 7; rem != 0 {
		p := full * 8
		b := bits[full]
		for q := range rem {
			if b&(0x80>>uint(q)) != 0 {
				prev = base + packedEnds[j]
				j++
			}
			o[p+q] = prev
		}
	}
	return k
}

// rankTab[b][q] is, for the MSB-first byte b, the 1-based rank of position q
// among the set positions of b, or 0 if q is clear. cumTab[b][q] is the
// number of set positions among 0..q. Spreading a mixed byte through these
// tables needs no branch per position: on random bitmaps such branches
// mispredict half the time and cost more than the copying itself.
var rankTab, cumTab = buildTabs()

func buildTabs() (rank, cum [256][8]uint8) {
	for b := range 256 {
		c := uint8(0)
		for q := range 8 {
			if b&(0x80>>q) != 0 {
				c++
				rank[b][q] = c
			}
			cum[b][q] = c
		}
	}
	return rank, cum
}

// spread sets d[q] = vals[idx[q]] for the eight slots of one bitmap byte.
// The &15 lets the compiler drop the bounds check on the 16-element vals,
// and keeps spread cheap enough to inline (hand unrolling does not).
func spread[T any](d *[8]T, vals *[16]T, idx *[8]uint8) {
	for q := range 8 {
		d[q] = vals[idx[q]&15]
	}
}

// load8 copies p into vals[1:9] element by element: in generic code a
// whole-array assignment becomes a runtime memmove call, which measured
// slower than eight moves for one bitmap byte.
func load8[T any](vals *[16]T, p *[8]T) {
	vals[1], vals[2], vals[3], vals[4] = p[0], p[1], p[2], p[3]
	vals[5], vals[6], vals[7], vals[8] = p[4], p[5], p[6], p[7]
}

// runWord returns the eight bytes of runs from i on as a word, or 1 (which
// is neither fill) when they are not all inside runs.
func runWord(runs []byte, i int) uint64 {
	if i >= 0 && i+8 <= len(runs) {
		return binary.LittleEndian.Uint64(runs[i:])
	}
	return 1
}

// runEnd returns the end of the run of bytes equal to the fill byte of w
// (0x00 or 0xFF repeated) that starts at runs[i], checking a word at a time
// so long runs cost one compare per eight bytes.
func runEnd(runs []byte, i int, w uint64) int {
	b := byte(w)
	for i+8 <= len(runs) && binary.LittleEndian.Uint64(runs[i:]) == w {
		i += 8
	}
	for i < len(runs) && runs[i] == b {
		i++
	}
	return i
}

// runStart returns the start of the run of bytes equal to the fill byte of w
// that ends just before runs[i], scanning backwards a word at a time.
func runStart(runs []byte, i int, w uint64) int {
	b := byte(w)
	for i >= 8 && binary.LittleEndian.Uint64(runs[i-8:]) == w {
		i -= 8
	}
	for i > 0 && runs[i-1] == b {
		i--
	}
	return i
}

// reverse8 turns an MSB-first byte into an LSB-first one, so that the lowest
// set bit is the earliest position and trailing-zero counting (a single
// instruction) walks positions in order.
func reverse8(b byte) uint {
	return uint(bits.Reverse8(b))
}

func tz8(r uint) int {
	return bits.TrailingZeros(r)
}

// ones8 exists because the bitmap parameter of the Scatter functions is
// named bits and hides the package.
func ones8(b byte) int {
	return bits.OnesCount8(b)
}
