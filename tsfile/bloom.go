package tsfile

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// BloomFilter is the file-level filter over complete series paths.
type BloomFilter struct {
	bits      []byte // LSB-first; may be shorter than BitCount/8 (trailing zeros dropped)
	BitCount  int
	HashCount int
}

var bloomSeeds = [8]uint64{5, 7, 11, 19, 31, 37, 43, 59}

const (
	bloomMinBits    = 256
	bloomMaxHashes  = 8
	bloomDefaultFPR = 0.05
)

// newBloomFilter sizes a filter for n paths at false-positive rate fpr the
// way the reference writer does (rate clamped to 0.01..0.1).
func newBloomFilter(n int, fpr float64) *BloomFilter {
	fpr = max(0.01, min(0.1, fpr))
	ln2 := math.Ln2
	size := int(-float64(n)*math.Log(fpr)/ln2/ln2) + 1
	k := int(-math.Log(fpr)/ln2) + 1
	size = max(bloomMinBits, size)
	return &BloomFilter{bits: make([]byte, (size+7)/8), BitCount: size, HashCount: min(bloomMaxHashes, k)}
}

// Add inserts a series path.
func (f *BloomFilter) Add(path string) {
	for i := 0; i < f.HashCount; i++ {
		p := bloomHash([]byte(path), bloomSeeds[i], f.BitCount)
		if p/8 >= len(f.bits) {
			// A filter read from a file lacks the zero bytes at its end.
			f.bits = append(f.bits, make([]byte, p/8+1-len(f.bits))...)
		}
		f.bits[p/8] |= 1 << (p % 8)
	}
}

// MayContain reports false only when path is certainly absent. path is
// spelled as the file's writer hashed it; File.MayContainSeries spells it
// for a device and a measurement.
func (f *BloomFilter) MayContain(path string) bool {
	if f == nil {
		return true
	}
	for i := 0; i < f.HashCount; i++ {
		p := bloomHash([]byte(path), bloomSeeds[i], f.BitCount)
		if p/8 >= len(f.bits) || f.bits[p/8]&(1<<(p%8)) == 0 {
			return false
		}
	}
	return true
}

// seriesPath is the Bloom filter input of a series in a v4 file: the
// device's segments joined by dots, a dot and the measurement. A v3 file
// hashes the device's path string instead; File.MayContainSeries knows
// which applies.
func seriesPath(dev DeviceID, measurement string) string {
	return dev.String() + "." + measurement
}

// MayContainSeries reports false only when the file certainly holds no
// series measurement of dev, by the Bloom filter (true without one). In a
// v3 file, whose filter hashes each device's path as stored, dev is first
// looked up among the devices Open listed, so that any spelling of its
// path is found.
func (f *File) MayContainSeries(dev DeviceID, measurement string) bool {
	if f.Version != VersionV3 {
		return f.Metadata.Bloom.MayContain(seriesPath(dev, measurement))
	}
	e, ok := f.v3Entry(dev)
	if !ok {
		return false
	}
	return f.Metadata.Bloom.MayContain(e.Device.TreePath() + "." + measurement)
}

func (d *buf) bloomFilter() *BloomFilter { return d.bloomFilterOf(false) }

// bloomFilterV3 decodes the Bloom filter of a TsFile v3 footer, whose
// bit_count and hash_function_count follow the bits even when there are
// none (the reference v3 writer always writes them, and its reader always
// reads them). A filter without bits holds no path.
func (d *buf) bloomFilterV3() *BloomFilter { return d.bloomFilterOf(true) }

// bloomFilterOf decodes a Bloom filter; v4 writes an absent one as a lone
// zero byte_length, v3 (sized) always writes its sizes.
func (d *buf) bloomFilterOf(sized bool) *BloomFilter {
	at := d.pos
	n := d.count("bloom filter byte_length", 1)
	if !sized && (d.err != nil || n == 0) {
		return nil
	}
	b := d.bytesN(n, "bloom filter bits")
	bitCount := int(d.uvarint("bloom filter bit_count"))
	hashes := int(d.uvarint("bloom filter hash_function_count"))
	if d.err != nil {
		return nil
	}
	switch {
	case bitCount <= 0:
		d.pos = at
		d.fail("bloom filter bit_count %d is not positive", bitCount)
	case hashes < 1 || hashes > bloomMaxHashes:
		d.pos = at
		d.fail("bloom filter hash_function_count %d is outside 1..8", hashes)
	case n > (bitCount+7)/8:
		d.pos = at
		d.fail("bloom filter has %d bytes for %d bits", n, bitCount)
	}
	return &BloomFilter{bits: b, BitCount: bitCount, HashCount: hashes}
}

// appendToV3 appends the filter as a v3 footer holds it: all three fields
// always, the bits without their trailing zero bytes.
func (f *BloomFilter) appendToV3(dst []byte) []byte {
	b := f.bits
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	dst = appendUVarint(dst, uint32(len(b)))
	dst = append(dst, b...)
	dst = appendUVarint(dst, uint32(f.BitCount))
	return appendUVarint(dst, uint32(f.HashCount))
}

func (f *BloomFilter) appendTo(dst []byte) []byte {
	if f == nil {
		return appendUVarint(dst, 0)
	}
	b := f.bits
	for len(b) > 0 && b[len(b)-1] == 0 {
		b = b[:len(b)-1]
	}
	dst = appendUVarint(dst, uint32(len(b)))
	if len(b) == 0 {
		return dst
	}
	dst = append(dst, b...)
	dst = appendUVarint(dst, uint32(f.BitCount))
	return appendUVarint(dst, uint32(f.HashCount))
}

// bloomHash is MurmurHash3 x64 128 as the reference implementation computes
// it, reduced to a bit position: the two halves are added, the low 32 bits
// taken as a signed int, MinInt32 replaced by 0, then |h| mod cap.
func bloomHash(key []byte, seed uint64, cap int) int {
	h := int32(murmur3Sum(key, seed))
	if h == math.MinInt32 {
		h = 0
	}
	if h < 0 {
		h = -h
	}
	return int(h) % cap
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// murmur3Sum returns h1+h2 of MurmurHash3 x64 128. The tail bytes are
// sign-extended before shifting, as the reference (Java, signed bytes)
// does; files with non-ASCII paths carry filters built that way, and a
// standard hash would report such paths absent.
func murmur3Sum(key []byte, seed uint64) uint64 {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	h1, h2 := seed, seed
	n := len(key)
	nblocks := n / 16
	for i := 0; i < nblocks; i++ {
		k1 := binary.LittleEndian.Uint64(key[i*16:])
		k2 := binary.LittleEndian.Uint64(key[i*16+8:])
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}
	tail := key[nblocks*16:]
	sx := func(i int) uint64 { return uint64(int64(int8(tail[i]))) }
	var k1, k2 uint64
	r := n & 15
	if r > 8 {
		for i := r - 1; i >= 8; i-- {
			k2 ^= sx(i) << (8 * uint(i-8))
		}
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
	}
	if r > 0 {
		for i := min(r, 8) - 1; i >= 0; i-- {
			k1 ^= sx(i) << (8 * uint(i))
		}
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
	}
	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	h2 += h1
	return h1 + h2
}
