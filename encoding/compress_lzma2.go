package encoding

import (
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"hash/crc64"
	"sync"

	"github.com/ulikunitz/xz"
)

// LZMA2 pages hold a complete .xz file (the XZ container format 1.x with one LZMA2 filter),
// not a bare LZMA2 stream: the Java writer produces it with org.tukaani.xz.XZOutputStream
// and default LZMA2Options (preset 6, 8 MiB dictionary, CRC64 check) and reads it with
// XZInputStream, which also accepts several concatenated streams and stream padding.
//
// The decoder below is written for pages. A page is one independent unit whose exact
// decoded size is known, so the output buffer itself serves as the LZMA dictionary: no
// window is allocated, whatever dictionary size the stream declares, and the probability
// tables live in a pooled lzmaDecoder. Every length in the stream is checked against the
// bytes left in src and in the output before it is used.

func init() {
	RegisterCodec(LZMA2, lzma2Codec{})
}

type lzma2Codec struct{}

// Decompress decodes one or more .xz streams from src into exactly size bytes of dst's
// capacity, verifying the block checks, the index and the stream footers.
func (lzma2Codec) Decompress(dst, src []byte, size int) ([]byte, error) {
	if err := compressCheckSize(LZMA2, size); err != nil {
		return nil, err
	}
	if size == 0 && len(src) == 0 {
		return dst[:0], nil
	}
	out := compressOut(dst, size)
	d := lzmaDecoders.Get().(*lzmaDecoder)
	n, err := d.decodeXZ(out, src)
	d.rcSrc = nil // keep no reference to the caller's payload in the pool
	lzmaDecoders.Put(d)
	if err != nil {
		return nil, err
	}
	if n != size {
		return nil, compressShort(LZMA2, n, size)
	}
	return out, nil
}

// Compress appends one .xz stream with a single LZMA2 block and a CRC64 check, as
// XZOutputStream writes, to dst[:0]. The dictionary is sized to the page rather than
// preset 6's 8 MiB, so that readers allocate no more than the page needs.
func (lzma2Codec) Compress(dst, src []byte) ([]byte, error) {
	dict := 1 << 12 // the smallest dictionary the format has
	for dict < len(src) && dict < 1<<30 {
		dict <<= 1
	}
	cfg := xz.WriterConfig{DictCap: dict, CheckSum: xz.CRC64}
	out := compressAppender{b: dst[:0]}
	w, err := cfg.NewWriter(&out)
	if err == nil {
		_, err = w.Write(src)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		return nil, compressUnsupported(LZMA2, "%v", err)
	}
	return out.b, nil
}

// XZ container constants (The .xz File Format, version 1.2.1).
const (
	xzHeaderSize    = 12 // stream header and stream footer
	xzCheckNone     = 0x00
	xzCheckCRC32    = 0x01
	xzCheckCRC64    = 0x04
	xzCheckSHA256   = 0x0a
	xzFilterLZMA2   = 0x21
	xzMaxVLIBytes   = 9
	xzStreamMagic   = "\xfd7zXZ\x00"
	xzFooterMagic   = "YZ"
	lzma2DictPropMx = 40
)

var xzCRC64Table = crc64.MakeTable(crc64.ECMA)

// xzCheckSize gives the size of the check field for each of the 16 check IDs.
var xzCheckSize = [16]int{0, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64}

// xzBlockRecord is what the index must say about one block.
type xzBlockRecord struct{ unpadded, uncompressed uint64 }

// decodeXZ decodes every stream of src into out and returns the number of bytes written.
func (d *lzmaDecoder) decodeXZ(out, src []byte) (int, error) {
	if len(src) < xzHeaderSize {
		return 0, compressCorrupt(LZMA2, "%d bytes are too few for an .xz stream header", len(src))
	}
	p, n := 0, 0
	for {
		var err error
		p, n, err = d.decodeXZStream(out, n, src, p)
		if err != nil {
			return 0, err
		}
		// Stream padding: groups of four zero bytes, then the end or another stream.
		pad := p
		for p < len(src) && src[p] == 0 {
			p++
		}
		if (p-pad)%4 != 0 {
			return 0, compressCorrupt(LZMA2, "stream padding of %d bytes is not a multiple of four", p-pad)
		}
		if p == len(src) {
			return n, nil
		}
	}
}

// decodeXZStream decodes the stream starting at src[p] into out[n:] and returns the
// offsets after its footer and after its output.
func (d *lzmaDecoder) decodeXZStream(out []byte, n int, src []byte, p int) (int, int, error) {
	if len(src)-p < xzHeaderSize {
		return 0, 0, compressCorrupt(LZMA2, "stream header at byte %d is truncated", p)
	}
	h := src[p : p+xzHeaderSize]
	if string(h[:6]) != xzStreamMagic {
		return 0, 0, compressCorrupt(LZMA2, "no .xz stream header magic at byte %d", p)
	}
	if crc32.ChecksumIEEE(h[6:8]) != binary.LittleEndian.Uint32(h[8:12]) {
		return 0, 0, compressCorrupt(LZMA2, "stream header CRC32 mismatch at byte %d", p)
	}
	if h[6] != 0 || h[7]&0xf0 != 0 {
		return 0, 0, compressUnsupported(LZMA2, "stream flags %#02x%02x", h[6], h[7])
	}
	flags := h[6:8]
	check := int(h[7])
	switch check {
	case xzCheckNone, xzCheckCRC32, xzCheckCRC64, xzCheckSHA256:
	default:
		return 0, 0, compressUnsupported(LZMA2, "check type %#x", check)
	}
	p += xzHeaderSize

	// Blocks, until the index indicator. Each block's uncompressed bytes go straight to
	// out; their records are kept in the decoder for the index comparison.
	d.records = d.records[:0]
	for {
		if p >= len(src) {
			return 0, 0, compressCorrupt(LZMA2, "stream ends before its index")
		}
		if src[p] == 0 {
			break
		}
		rec, np, nn, err := d.decodeXZBlock(out, n, src, p, check)
		if err != nil {
			return 0, 0, err
		}
		d.records = append(d.records, rec)
		p, n = np, nn
	}

	// Index: indicator, record count, records, padding, CRC32.
	start := p
	p++
	count, p, ok := xzVLI(src, p)
	if !ok || count != uint64(len(d.records)) {
		return 0, 0, compressCorrupt(LZMA2, "index does not list the stream's %d blocks", len(d.records))
	}
	for _, rec := range d.records {
		var unpadded, uncompressed uint64
		unpadded, p, ok = xzVLI(src, p)
		if ok {
			uncompressed, p, ok = xzVLI(src, p)
		}
		if !ok || unpadded != rec.unpadded || uncompressed != rec.uncompressed {
			return 0, 0, compressCorrupt(LZMA2, "index record does not match its block")
		}
	}
	for (p-start)%4 != 0 {
		if p >= len(src) || src[p] != 0 {
			return 0, 0, compressCorrupt(LZMA2, "index padding is truncated or not zero")
		}
		p++
	}
	if len(src)-p < 4 || crc32.ChecksumIEEE(src[start:p]) != binary.LittleEndian.Uint32(src[p:]) {
		return 0, 0, compressCorrupt(LZMA2, "index CRC32 is missing or does not match")
	}
	p += 4
	indexSize := p - start

	// Footer: CRC32 of backward size and flags, backward size, flags, magic.
	if len(src)-p < xzHeaderSize {
		return 0, 0, compressCorrupt(LZMA2, "stream footer is truncated")
	}
	f := src[p : p+xzHeaderSize]
	switch {
	case string(f[10:12]) != xzFooterMagic:
		return 0, 0, compressCorrupt(LZMA2, "no stream footer magic at byte %d", p+10)
	case crc32.ChecksumIEEE(f[4:10]) != binary.LittleEndian.Uint32(f[0:4]):
		return 0, 0, compressCorrupt(LZMA2, "stream footer CRC32 mismatch")
	case f[8] != flags[0] || f[9] != flags[1]:
		return 0, 0, compressCorrupt(LZMA2, "stream footer flags differ from the header's")
	case (uint64(binary.LittleEndian.Uint32(f[4:8]))+1)*4 != uint64(indexSize):
		return 0, 0, compressCorrupt(LZMA2, "stream footer backward size does not match the index")
	}
	return p + xzHeaderSize, n, nil
}

// decodeXZBlock decodes the block whose header starts at src[p] into out[n:].
func (d *lzmaDecoder) decodeXZBlock(out []byte, n int, src []byte, p, check int) (xzBlockRecord, int, int, error) {
	var rec xzBlockRecord
	hsize := (int(src[p]) + 1) * 4
	if len(src)-p < hsize {
		return rec, 0, 0, compressCorrupt(LZMA2, "block header at byte %d is truncated", p)
	}
	h := src[p : p+hsize]
	if crc32.ChecksumIEEE(h[:hsize-4]) != binary.LittleEndian.Uint32(h[hsize-4:]) {
		return rec, 0, 0, compressCorrupt(LZMA2, "block header CRC32 mismatch at byte %d", p)
	}
	bflags := h[1]
	if bflags&0x3c != 0 {
		return rec, 0, 0, compressUnsupported(LZMA2, "block flags %#02x", bflags)
	}
	if bflags&3 != 0 {
		return rec, 0, 0, compressUnsupported(LZMA2, "filter chain of %d filters (only a lone LZMA2 filter is supported)", bflags&3+1)
	}
	hp := 2
	body := h[:hsize-4]
	var csize, usize uint64
	var ok bool
	hasC, hasU := bflags&0x40 != 0, bflags&0x80 != 0
	if hasC {
		if csize, hp, ok = xzVLI(body, hp); !ok || csize == 0 {
			return rec, 0, 0, compressCorrupt(LZMA2, "block header compressed size is malformed")
		}
	}
	if hasU {
		if usize, hp, ok = xzVLI(body, hp); !ok {
			return rec, 0, 0, compressCorrupt(LZMA2, "block header uncompressed size is malformed")
		}
		if usize > uint64(len(out)-n) {
			return rec, 0, 0, compressLong(LZMA2, len(out))
		}
	}
	var id, psize uint64
	if id, hp, ok = xzVLI(body, hp); ok {
		psize, hp, ok = xzVLI(body, hp)
	}
	if !ok {
		return rec, 0, 0, compressCorrupt(LZMA2, "block header filter flags are malformed")
	}
	if id != xzFilterLZMA2 {
		return rec, 0, 0, compressUnsupported(LZMA2, "filter %#x (only LZMA2 is supported)", id)
	}
	if psize != 1 || hp >= len(body) {
		return rec, 0, 0, compressCorrupt(LZMA2, "LZMA2 filter properties are malformed")
	}
	prop := body[hp]
	hp++
	if prop > lzma2DictPropMx {
		return rec, 0, 0, compressCorrupt(LZMA2, "LZMA2 dictionary size property %d", prop)
	}
	for _, b := range body[hp:] {
		if b != 0 {
			return rec, 0, 0, compressUnsupported(LZMA2, "non-zero block header padding")
		}
	}

	// The compressed data: an LZMA2 stream.
	p += hsize
	start, outStart := p, n
	var err error
	p, n, err = d.decodeLZMA2(out, n, src, p, lzma2DictSize(prop))
	if err != nil {
		return rec, 0, 0, err
	}
	compressed := uint64(p - start)
	if hasC && compressed != csize {
		return rec, 0, 0, compressCorrupt(LZMA2, "block holds %d compressed bytes, its header says %d", compressed, csize)
	}
	if hasU && uint64(n-outStart) != usize {
		return rec, 0, 0, compressCorrupt(LZMA2, "block decodes to %d bytes, its header says %d", n-outStart, usize)
	}
	for ; (p-start)%4 != 0; p++ {
		if p >= len(src) || src[p] != 0 {
			return rec, 0, 0, compressCorrupt(LZMA2, "block padding is truncated or not zero")
		}
	}
	cs := xzCheckSize[check]
	if len(src)-p < cs {
		return rec, 0, 0, compressCorrupt(LZMA2, "block check is truncated")
	}
	data, want := out[outStart:n], src[p:p+cs]
	switch check {
	case xzCheckCRC32:
		ok = crc32.ChecksumIEEE(data) == binary.LittleEndian.Uint32(want)
	case xzCheckCRC64:
		ok = crc64.Checksum(data, xzCRC64Table) == binary.LittleEndian.Uint64(want)
	case xzCheckSHA256:
		sum := sha256.Sum256(data)
		ok = string(sum[:]) == string(want)
	default:
		ok = true
	}
	if !ok {
		return rec, 0, 0, compressCorrupt(LZMA2, "block check mismatch: the data is damaged")
	}
	p += cs
	rec.unpadded = uint64(hsize) + compressed + uint64(cs)
	rec.uncompressed = uint64(n - outStart)
	return rec, p, n, nil
}

// xzVLI decodes the variable-length integer at b[p]: little-endian groups of 7 bits, at
// most 9 bytes, the last byte without its high bit and not zero unless it is the only one.
func xzVLI(b []byte, p int) (uint64, int, bool) {
	var v uint64
	for i := 0; i < xzMaxVLIBytes; i++ {
		if p+i >= len(b) {
			return 0, 0, false
		}
		c := b[p+i]
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if c == 0 && i > 0 {
				return 0, 0, false
			}
			return v, p + i + 1, true
		}
	}
	return 0, 0, false
}

// lzma2DictSize decodes the LZMA2 dictionary size property (0..40) and rounds it up to a
// multiple of 16, as the reference decoders size their window.
func lzma2DictSize(prop byte) uint32 {
	if prop == lzma2DictPropMx {
		return 0xffffffff
	}
	size := uint64(2|prop&1) << (prop/2 + 11)
	return uint32(min((size+15)&^15, 0xffffffff))
}

// LZMA constants (the LZMA SDK's lzma-specification).
const (
	lzmaStates        = 12
	lzmaPosBitsMax    = 4
	lzmaLenLowBits    = 3
	lzmaLenMidBits    = 3
	lzmaLenHighBits   = 8
	lzmaLenLow        = 1 << lzmaLenLowBits
	lzmaLenMid        = 1 << lzmaLenMidBits
	lzmaMatchMinLen   = 2
	lzmaLenToPosState = 4
	lzmaPosSlotBits   = 6
	lzmaStartPosModel = 4
	lzmaEndPosModel   = 14
	lzmaFullDistances = 1 << (lzmaEndPosModel >> 1)
	lzmaAlignBits     = 4
	lzmaLitSize       = 0x300
	lzmaLCLPMax       = 4 // LZMA2 limits lc + lp
	lzmaProbInit      = 1 << 10
	lzmaTopValue      = 1 << 24
)

// lzmaLenDecoder holds the probabilities of a match-length coder.
type lzmaLenDecoder struct {
	choice, choice2 uint16
	low             [1 << lzmaPosBitsMax][lzmaLenLow]uint16
	mid             [1 << lzmaPosBitsMax][lzmaLenMid]uint16
	high            [1 << lzmaLenHighBits]uint16
}

// lzmaDecoder holds the LZMA probability model and the scratch of one decode. It is pooled;
// one decode uses it at a time.
type lzmaDecoder struct {
	isMatch    [lzmaStates << lzmaPosBitsMax]uint16
	isRep      [lzmaStates]uint16
	isRepG0    [lzmaStates]uint16
	isRepG1    [lzmaStates]uint16
	isRepG2    [lzmaStates]uint16
	isRep0Long [lzmaStates << lzmaPosBitsMax]uint16
	posSlot    [lzmaLenToPosState][1 << lzmaPosSlotBits]uint16
	posSpecial [1 + lzmaFullDistances - lzmaEndPosModel]uint16
	align      [1 << lzmaAlignBits]uint16
	lenDec     lzmaLenDecoder
	repLenDec  lzmaLenDecoder
	literal    [lzmaLitSize << lzmaLCLPMax]uint16

	lc, lp, pb uint
	state      uint32
	reps       [4]uint32

	// The range decoder over the current chunk's compressed bytes.
	rcSrc  []byte
	rcPos  int
	rng    uint32
	code   uint32
	rcOver bool // it needed a byte beyond the chunk

	records []xzBlockRecord
}

var lzmaDecoders = sync.Pool{New: func() any { return new(lzmaDecoder) }}

// resetState sets every probability to one half and clears the state and the distances.
func (d *lzmaDecoder) resetState() {
	fill := func(p []uint16) {
		for i := range p {
			p[i] = lzmaProbInit
		}
	}
	fill(d.isMatch[:])
	fill(d.isRep[:])
	fill(d.isRepG0[:])
	fill(d.isRepG1[:])
	fill(d.isRepG2[:])
	fill(d.isRep0Long[:])
	for i := range d.posSlot {
		fill(d.posSlot[i][:])
	}
	fill(d.posSpecial[:])
	fill(d.align[:])
	for _, l := range []*lzmaLenDecoder{&d.lenDec, &d.repLenDec} {
		l.choice, l.choice2 = lzmaProbInit, lzmaProbInit
		for i := range l.low {
			fill(l.low[i][:])
			fill(l.mid[i][:])
		}
		fill(l.high[:])
	}
	fill(d.literal[:lzmaLitSize<<(d.lc+d.lp)])
	d.state = 0
	d.reps = [4]uint32{}
}

// decodeLZMA2 decodes the LZMA2 stream starting at src[p] into out[n:] and returns the
// offsets after its end marker and after its output. Matches may reach back to the last
// dictionary reset and at most dictSize bytes, as the Java and C decoders allow.
func (d *lzmaDecoder) decodeLZMA2(out []byte, n int, src []byte, p int, dictSize uint32) (int, int, error) {
	dictStart := n
	needDictReset, needProps := true, true
	for {
		if p >= len(src) {
			return 0, 0, compressCorrupt(LZMA2, "LZMA2 stream ends without its end marker")
		}
		control := src[p]
		p++
		if control == 0x00 {
			return p, n, nil
		}
		if control >= 0xe0 || control == 0x01 {
			needProps = true
			needDictReset = false
			dictStart = n
		} else if needDictReset {
			return 0, 0, compressCorrupt(LZMA2, "first LZMA2 chunk does not reset the dictionary")
		}
		if control < 0x80 {
			if control > 0x02 {
				return 0, 0, compressCorrupt(LZMA2, "invalid LZMA2 control byte %#02x", control)
			}
			// An uncompressed chunk: a 16-bit size, then the bytes.
			if len(src)-p < 2 {
				return 0, 0, compressCorrupt(LZMA2, "LZMA2 chunk header is truncated")
			}
			size := int(binary.BigEndian.Uint16(src[p:])) + 1
			p += 2
			if len(src)-p < size {
				return 0, 0, compressCorrupt(LZMA2, "uncompressed LZMA2 chunk needs %d bytes beyond the payload", size-(len(src)-p))
			}
			if len(out)-n < size {
				return 0, 0, compressLong(LZMA2, len(out))
			}
			n += copy(out[n:], src[p:p+size])
			p += size
			continue
		}
		// An LZMA chunk: 21 bits of uncompressed size, 16 bits of compressed size, and
		// new properties if the control byte resets them.
		if len(src)-p < 4 {
			return 0, 0, compressCorrupt(LZMA2, "LZMA2 chunk header is truncated")
		}
		usize := int(control&0x1f)<<16 + int(binary.BigEndian.Uint16(src[p:])) + 1
		csize := int(binary.BigEndian.Uint16(src[p+2:])) + 1
		p += 4
		if control >= 0xc0 {
			if p >= len(src) {
				return 0, 0, compressCorrupt(LZMA2, "LZMA2 chunk header is truncated")
			}
			if err := d.setProps(src[p]); err != nil {
				return 0, 0, err
			}
			p++
			needProps = false
		} else if needProps {
			return 0, 0, compressCorrupt(LZMA2, "LZMA2 chunk without properties after a dictionary reset")
		}
		if control >= 0xa0 {
			d.resetState()
		}
		if len(src)-p < csize {
			return 0, 0, compressCorrupt(LZMA2, "LZMA chunk needs %d bytes beyond the payload", csize-(len(src)-p))
		}
		if len(out)-n < usize {
			return 0, 0, compressLong(LZMA2, len(out))
		}
		if err := d.decodeChunk(out[:n+usize], n, dictStart, dictSize, src[p:p+csize]); err != nil {
			return 0, 0, err
		}
		n += usize
		p += csize
	}
}

// setProps decodes the lc/lp/pb properties byte of an LZMA2 chunk.
func (d *lzmaDecoder) setProps(b byte) error {
	if b >= 9*5*5 {
		return compressCorrupt(LZMA2, "LZMA properties byte %d", b)
	}
	lc, lp, pb := uint(b%9), uint(b/9%5), uint(b/45)
	if lc+lp > lzmaLCLPMax {
		return compressCorrupt(LZMA2, "LZMA properties lc=%d lp=%d exceed lc+lp=4", lc, lp)
	}
	d.lc, d.lp, d.pb = lc, lp, pb
	return nil
}

// decodeChunk decodes one LZMA chunk from in so that it fills out[n:] exactly; a match
// may not run past the chunk, and the range coder must end on the chunk's last byte.
func (d *lzmaDecoder) decodeChunk(out []byte, n, dictStart int, dictSize uint32, in []byte) error {
	if len(in) < 5 || in[0] != 0 {
		return compressCorrupt(LZMA2, "LZMA chunk does not start a range coder")
	}
	d.rcSrc, d.rcPos, d.rcOver = in, 5, false
	d.rng, d.code = 0xffffffff, binary.BigEndian.Uint32(in[1:5])

	pbMask := uint32(1)<<d.pb - 1
	lpMask := uint32(1)<<d.lp - 1
	lc := d.lc
	end := len(out)
	for n < end {
		if d.rcOver {
			return compressCorrupt(LZMA2, "LZMA chunk needs bytes beyond its compressed size")
		}
		pos := uint32(n - dictStart)
		posState := pos & pbMask
		st := d.state
		if d.bit(&d.isMatch[st<<lzmaPosBitsMax+posState]) == 0 {
			// A literal, coded in the context of the previous byte and position.
			var prev uint32
			if n > dictStart {
				prev = uint32(out[n-1])
			}
			probs := (*[lzmaLitSize]uint16)(d.literal[lzmaLitSize*((pos&lpMask)<<lc+prev>>(8-lc)):])
			sym := uint32(1)
			if st >= 7 {
				// After a match, the byte at rep0 guides the first differing bit.
				mi := n - int(d.reps[0]) - 1
				if mi < dictStart {
					return compressCorrupt(LZMA2, "LZMA match distance reaches before the dictionary")
				}
				match := uint32(out[mi])
				for sym < 0x100 {
					mbit := match >> 7 & 1
					match <<= 1
					b := d.bit(&probs[(1+mbit)<<8+sym])
					sym = sym<<1 | b
					if mbit != b {
						break
					}
				}
			}
			out[n] = d.literalTail(probs, sym)
			n++
			switch {
			case st < 4:
				d.state = 0
			case st < 10:
				d.state = st - 3
			default:
				d.state = st - 6
			}
			continue
		}
		var length int
		if d.bit(&d.isRep[st]) == 0 {
			// A match with a new distance.
			d.reps[3], d.reps[2], d.reps[1] = d.reps[2], d.reps[1], d.reps[0]
			length = d.decodeLen(&d.lenDec, posState)
			if st < 7 {
				d.state = 7
			} else {
				d.state = 10
			}
			d.reps[0] = d.decodeDist(length)
			if d.reps[0] == 0xffffffff {
				return compressCorrupt(LZMA2, "LZMA end marker inside an LZMA2 chunk")
			}
		} else {
			if d.bit(&d.isRepG0[st]) == 0 {
				if d.bit(&d.isRep0Long[st<<lzmaPosBitsMax+posState]) == 0 {
					// A short rep: one byte at rep0.
					if st < 7 {
						d.state = 9
					} else {
						d.state = 11
					}
					if err := lzmaCheckDist(d.reps[0], n, dictStart, dictSize); err != nil {
						return err
					}
					out[n] = out[n-int(d.reps[0])-1]
					n++
					continue
				}
			} else {
				var dist uint32
				if d.bit(&d.isRepG1[st]) == 0 {
					dist = d.reps[1]
				} else {
					if d.bit(&d.isRepG2[st]) == 0 {
						dist = d.reps[2]
					} else {
						dist = d.reps[3]
						d.reps[3] = d.reps[2]
					}
					d.reps[2] = d.reps[1]
				}
				d.reps[1] = d.reps[0]
				d.reps[0] = dist
			}
			length = d.decodeLen(&d.repLenDec, posState)
			if st < 7 {
				d.state = 8
			} else {
				d.state = 11
			}
		}
		if err := lzmaCheckDist(d.reps[0], n, dictStart, dictSize); err != nil {
			return err
		}
		if length > end-n {
			return compressCorrupt(LZMA2, "LZMA match runs past the end of its chunk")
		}
		from := n - int(d.reps[0]) - 1
		if from+length <= n {
			copy(out[n:n+length], out[from:])
		} else {
			// Overlapping: each byte may be one this match has just written.
			for i := range length {
				out[n+i] = out[from+i]
			}
		}
		n += length
	}
	if d.rng < lzmaTopValue {
		d.normalize()
	}
	if d.rcOver || d.rcPos != len(d.rcSrc) || d.code != 0 {
		return compressCorrupt(LZMA2, "LZMA chunk does not end where its compressed size says")
	}
	return nil
}

// lzmaCheckDist checks that a match at distance dist+1 stays inside the dictionary: after
// the last reset and within its size.
func lzmaCheckDist(dist uint32, n, dictStart int, dictSize uint32) error {
	if uint64(dist) >= uint64(n-dictStart) || dist >= dictSize {
		return compressCorrupt(LZMA2, "LZMA match distance %d reaches before the dictionary", uint64(dist)+1)
	}
	return nil
}

// bit decodes one bit with the adaptive probability *p. Like the Java decoder it
// normalizes before decoding, and decodeChunk normalizes once more at the chunk's end.
func (d *lzmaDecoder) bit(p *uint16) uint32 {
	if d.rng < lzmaTopValue {
		d.normalize()
	}
	bound := (d.rng >> 11) * uint32(*p)
	if d.code < bound {
		d.rng = bound
		*p += (1<<11 - *p) >> 5
		return 0
	}
	d.rng -= bound
	d.code -= bound
	*p -= *p >> 5
	return 1
}

// normalize shifts in the next input byte; past the end it shifts in zeros and records the
// overrun, which fails the chunk. It is kept out of line so that bit inlines.
//
//go:noinline
func (d *lzmaDecoder) normalize() {
	d.rng <<= 8
	var c byte
	if d.rcPos < len(d.rcSrc) {
		c = d.rcSrc[d.rcPos]
		d.rcPos++
	} else {
		d.rcOver = true
	}
	d.code = d.code<<8 | uint32(c)
}

// literalTail decodes the remaining bits of a literal whose bit-tree position is sym. It is
// the decoder's hottest loop, so it keeps the range coder in local variables.
func (d *lzmaDecoder) literalTail(probs *[lzmaLitSize]uint16, sym uint32) byte {
	rng, code := d.rng, d.code
	for sym < 0x100 {
		if rng < lzmaTopValue {
			d.rng, d.code = rng, code
			d.normalize()
			rng, code = d.rng, d.code
		}
		p := &probs[sym&0xff]
		bound := (rng >> 11) * uint32(*p)
		if code < bound {
			rng = bound
			*p += (1<<11 - *p) >> 5
			sym <<= 1
		} else {
			rng -= bound
			code -= bound
			*p -= *p >> 5
			sym = sym<<1 | 1
		}
	}
	d.rng, d.code = rng, code
	return byte(sym)
}

// direct decodes count bits with probability one half, most significant first.
func (d *lzmaDecoder) direct(count uint) uint32 {
	var r uint32
	for ; count > 0; count-- {
		if d.rng < lzmaTopValue {
			d.normalize()
		}
		d.rng >>= 1
		t := (d.code - d.rng) >> 31 // 1 if code < rng
		d.code -= d.rng & (t - 1)
		r = r<<1 | (1 - t)
	}
	return r
}

// tree decodes a bits-wide symbol with the bit tree probs, most significant bit first.
func (d *lzmaDecoder) tree(probs []uint16, bitCount uint) uint32 {
	m := uint32(1)
	for range bitCount {
		m = m<<1 | d.bit(&probs[m])
	}
	return m - 1<<bitCount
}

// reverseTree decodes a bits-wide symbol with the bit tree probs, least significant first.
func (d *lzmaDecoder) reverseTree(probs []uint16, bitCount uint) uint32 {
	m, sym := uint32(1), uint32(0)
	for i := range bitCount {
		b := d.bit(&probs[m])
		m = m<<1 | b
		sym |= b << i
	}
	return sym
}

// decodeLen decodes a match length, 2 to 273.
func (d *lzmaDecoder) decodeLen(l *lzmaLenDecoder, posState uint32) int {
	if d.bit(&l.choice) == 0 {
		return lzmaMatchMinLen + int(d.tree(l.low[posState][:], lzmaLenLowBits))
	}
	if d.bit(&l.choice2) == 0 {
		return lzmaMatchMinLen + lzmaLenLow + int(d.tree(l.mid[posState][:], lzmaLenMidBits))
	}
	return lzmaMatchMinLen + lzmaLenLow + lzmaLenMid + int(d.tree(l.high[:], lzmaLenHighBits))
}

// decodeDist decodes the distance (minus one) of a match of the given length.
func (d *lzmaDecoder) decodeDist(length int) uint32 {
	lenState := min(length-lzmaMatchMinLen, lzmaLenToPosState-1)
	slot := d.tree(d.posSlot[lenState][:], lzmaPosSlotBits)
	if slot < lzmaStartPosModel {
		return slot
	}
	direct := uint(slot>>1) - 1
	dist := (2 | slot&1) << direct
	if slot < lzmaEndPosModel {
		return dist + d.reverseTree(d.posSpecial[dist-slot:], direct)
	}
	dist += d.direct(direct-lzmaAlignBits) << lzmaAlignBits
	return dist + d.reverseTree(d.align[:], lzmaAlignBits)
}
