package encoding

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"sync"
)

// A DICTIONARY stream (TEXT and STRING) is laid out as the Java DictionaryEncoder writes it:
//
//	VarInt size          number of dictionary entries
//	entries              size times: VarInt length, then length bytes
//	indices              an RLE INT32 stream (rle.go) of one entry index per value, to the end
//
// VarInt is the ZigZag form of PLAIN INT32. The writer numbers the distinct values in order
// of first appearance, writes one package of indices per Page, and a Page of no values as an
// empty dictionary and an empty RLE package. Every index must name an entry; entries no
// index names are legal, as the Java reader never checks.

// dictEntry locates a dictionary entry in place in the stream.
type dictEntry struct{ start, end int }

// dictScratch is reused decoder and encoder state.
type dictScratch struct {
	entries []dictEntry
	indices []int32
	slots   []int32  // encoder: open-addressing table of entry number + 1, 0 when free
	first   []int32  // encoder: index in v of each entry's first occurrence
	hashes  []uint64 // encoder: hash of each entry
}

var dictScratchPool = sync.Pool{New: func() any { return new(dictScratch) }}

var dictSeed = maphash.MakeSeed()

func corruptDict(off int, format string, args ...any) error {
	return corrupt(Dictionary, typeBinary, off, format, args...)
}

// readDictVarInt reads a non-negative VarInt at src[off:].
func readDictVarInt(src []byte, off int, what string) (int, int, error) {
	if off == len(src) {
		return 0, 0, corruptDict(off, "stream ends before the %s", what)
	}
	u, k := uvarint32(src[off:])
	switch {
	case k == 0:
		return 0, 0, corruptDict(off, "truncated %s VarInt", what)
	case k < 0:
		return 0, 0, corruptDict(off, "%s VarInt overflows 32 bits", what)
	}
	v := unzigzag32(u)
	if v < 0 {
		return 0, 0, corruptDict(off, "negative %s %d", what, v)
	}
	return int(v), off + k, nil
}

func decodeDictionaryBinary(offsets []int32, data []byte, n int, src []byte) ([]int32, []byte, error) {
	if n < 0 {
		return offsets, data, corruptDict(0, "negative value count %d", n)
	}
	if n == 0 && len(src) == 0 {
		return offsets, data, nil
	}
	size, off, err := readDictVarInt(src, 0, "dictionary size")
	if err != nil {
		return offsets, data, err
	}
	// Every entry takes at least its one-byte length, which bounds size before anything is
	// allocated on its behalf.
	if size > len(src)-off {
		return offsets, data, corruptDict(0, "%d bytes cannot hold %d dictionary entries", len(src)-off, size)
	}
	s := dictScratchPool.Get().(*dictScratch)
	defer dictScratchPool.Put(s)
	s.entries = slices.Grow(s.entries[:0], size)
	for range size {
		length, start, err := readDictVarInt(src, off, "entry length")
		if err != nil {
			return offsets, data, err
		}
		if length > len(src)-start {
			return offsets, data, corruptDict(off, "entry of %d bytes overruns the %d bytes left", length, len(src)-start)
		}
		off = start + length
		s.entries = append(s.entries, dictEntry{start, off})
	}

	s.indices = slices.Grow(s.indices[:0], n)[:n]
	if err := decodeRLE(s.indices, src, off, 4, typeInt32); err != nil {
		return offsets, data, fmt.Errorf("encoding: DICTIONARY BINARY index stream from byte %d: %w", off, err)
	}
	total := 0
	for i, x := range s.indices {
		if uint32(x) >= uint32(size) {
			return offsets, data, corruptDict(off, "value %d has index %d outside the %d dictionary entries", i, x, size)
		}
		e := s.entries[x]
		total += e.end - e.start // at most n * len(src), which fits an int
	}
	if total > maxBinaryData-len(data) {
		return offsets, data, fmt.Errorf("encoding: DICTIONARY BINARY values of %d bytes would grow data past %d bytes, which int32 offsets cannot address: %w", total, maxBinaryData, ErrUnsupported)
	}
	// Appending only ever writes past the caller's lengths, so the originals returned on the
	// errors above are unchanged.
	offsets = slices.Grow(offsets, n)
	data = slices.Grow(data, total)
	for _, x := range s.indices {
		e := s.entries[x]
		data = append(data, src[e.start:e.end]...)
		offsets = append(offsets, int32(len(data)))
	}
	return offsets, data, nil
}

// appendDictionaryBinary appends v as DICTIONARY, byte for byte as a new Java
// DictionaryEncoder writes one Page.
func appendDictionaryBinary(dst []byte, v [][]byte) ([]byte, error) {
	for i, b := range v {
		if len(b) > math.MaxInt32 {
			return dst, fmt.Errorf("encoding: DICTIONARY BINARY value %d is %d bytes, more than a VarInt length can frame: %w", i, len(b), ErrUnsupported)
		}
	}
	if len(v) > math.MaxInt32 {
		return dst, fmt.Errorf("encoding: DICTIONARY BINARY page of %d values has more indices than int32 counts: %w", len(v), ErrUnsupported)
	}
	s := dictScratchPool.Get().(*dictScratch)
	defer dictScratchPool.Put(s)
	orig := dst

	nslots := 1 << bits.Len(uint(2*len(v))|7)
	mask := uint64(nslots - 1)
	s.slots = slices.Grow(s.slots[:0], nslots)[:nslots]
	clear(s.slots)
	s.first, s.hashes = s.first[:0], s.hashes[:0]
	s.indices = slices.Grow(s.indices[:0], len(v))[:len(v)]
	for i, b := range v {
		h := maphash.Bytes(dictSeed, b)
		j := h & mask
		for {
			e := s.slots[j] - 1
			if e < 0 {
				e = int32(len(s.first))
				s.first = append(s.first, int32(i))
				s.hashes = append(s.hashes, h)
				s.slots[j] = e + 1
				s.indices[i] = e
				break
			}
			if s.hashes[e] == h && bytes.Equal(v[s.first[e]], b) {
				s.indices[i] = e
				break
			}
			j = (j + 1) & mask
		}
	}

	size := 0
	for _, i := range s.first {
		size += maxVarintLen32 + len(v[i])
	}
	dst = slices.Grow(dst, maxVarintLen32+size)
	dst = appendUvarint32(dst, zigzag32(int32(len(s.first))))
	for _, i := range s.first {
		dst = appendUvarint32(dst, zigzag32(int32(len(v[i]))))
		dst = append(dst, v[i]...)
	}
	dst, err := appendRLEInt32(dst, s.indices)
	if err != nil {
		return orig, err
	}
	return dst, nil
}

func init() {
	register(Dictionary, valueCodec{
		decodeBinary: decodeDictionaryBinary,
		encodeBinary: appendDictionaryBinary,
	})
}
