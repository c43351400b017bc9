package encoding

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// An RLBE stream is a sequence of byte-aligned blocks, laid out as the Java RLBE encoders
// write them, all fields most significant bit first:
//
//	32 bits   count: the number of values in the block (the writer puts up to 10000 in one)
//	segments  until count values have been described
//	padding   zero bits up to the next byte boundary
//
// The block's words are its first value followed by the difference of each later value from
// the one before it. A segment covers a maximal run of words of the same binary length L (the
// position of the highest set bit, or 1 for zero; a negative word has length 32 or 64):
//
//	L         6 bits for INT32, DATE and FLOAT; 7 bits for INT64, TIMESTAMP and DOUBLE
//	run       the Fibonacci code of the number of words: the Zeckendorf digits for the
//	          Fibonacci numbers 1, 2, 3, 5, 8, ... in increasing order up to the highest digit
//	          that is 1, followed by another 1 (so the code ends in the only "11" it contains)
//	words     run words of L bits each
//
// A word of the full 32 or 64 bits is written with its top bit as 0 (the Java writer tests
// each bit with "> 0", which the sign bit fails), and the reader adds the top bit back.
//
// Integer differences wrap. FLOAT and DOUBLE words are the raw bits of the first value and of
// the differences computed in floating point, and the reader adds each difference to the
// previous value in floating point, so the format cannot represent every sequence: Java's
// writer loses values where the rounded difference does not add back exactly (and at NaNs,
// infinities and negative zeros). This package's writer keeps Java's difference wherever it
// adds back bit for bit, tries -0.0 for a repeated value, and otherwise ends the block and
// starts a new one with the value itself, which the Java reader decodes the same way. Its
// output is therefore byte for byte Java's whenever Java's is lossless.
//
// The reader accepts what the Java reader decodes sensibly, such as words shorter than their
// length says, non-zero padding and several short blocks; it rejects blocks that declare no
// values, lengths above 32 or 64, runs that overrun their block, truncation and trailing bytes.

// RLBEBlockSize is the largest number of values the encoder puts in one RLBE block, matching
// the Java writer. Readers accept blocks of any size.
const RLBEBlockSize = 10000

// rlbeFormat is what differs between the 32-bit and the 64-bit forms.
type rlbeFormat struct {
	lenBits uint // bits of a segment's length field
	maxLen  uint // longest word
	typ     string
}

var (
	rlbeInt32   = rlbeFormat{6, 32, typeInt32}
	rlbeInt64   = rlbeFormat{7, 64, typeInt64}
	rlbeFloat32 = rlbeFormat{6, 32, typeFloat32}
	rlbeFloat64 = rlbeFormat{7, 64, typeFloat64}
)

func corruptRLBE(typ string, off int, format string, args ...any) error {
	return corrupt(RLBE, typ, off, format, args...)
}

// rlbeFib holds the Fibonacci numbers the run codes use, 1, 2, 3, 5, ..., up to the first one
// above math.MaxInt32, so that every possible run length has its digits here.
var rlbeFib = func() []int {
	f := []int{1, 2}
	for f[len(f)-1] <= math.MaxInt32 {
		f = append(f, f[len(f)-1]+f[len(f)-2])
	}
	return f
}()

// rlbeReader walks the bits of a stream block by block.
type rlbeReader struct {
	src   []byte
	nbits uint
	pos   uint
	f     rlbeFormat
}

func (r *rlbeReader) off() int { return int(r.pos / 8) }

// blockHeader reads the count of the block that starts at r.pos, a byte boundary.
func (r *rlbeReader) blockHeader() (int, error) {
	if r.nbits-r.pos < 32 {
		return 0, corruptRLBE(r.f.typ, r.off(), "block count needs 4 bytes, %d left", len(r.src)-r.off())
	}
	count := readBits(r.src, r.pos, 32)
	if count == 0 || count > math.MaxInt32 {
		// The Java reader makes up a value for an empty block and fails on a negative count.
		return 0, corruptRLBE(r.f.typ, r.off(), "block count %d outside 1..%d", int32(count), math.MaxInt32)
	}
	r.pos += 32
	return int(count), nil
}

// segment reads the header of a segment of a block in which left values remain, and checks
// that its words lie within the stream. It returns the word length and the run length.
func (r *rlbeReader) segment(left int) (uint, int, error) {
	start := r.off()
	if r.nbits-r.pos < r.f.lenBits+2 {
		return 0, 0, corruptRLBE(r.f.typ, start, "truncated segment header")
	}
	// Usually the length and the whole run code lie in the next 64 bits. The code ends at its
	// first pair of ones, which code&(code<<1) marks; zeros shifted in cannot fake one.
	win := rlbePeek(r.src, r.pos)
	l := uint(win >> (64 - r.f.lenBits))
	if l > r.f.maxLen {
		return 0, 0, corruptRLBE(r.f.typ, start, "word length %d exceeds %d", l, r.f.maxLen)
	}
	code := win << r.f.lenBits
	if pair := code & (code << 1); pair != 0 {
		last := uint(bits.LeadingZeros64(pair)) // index of the last digit
		if last >= uint(len(rlbeFib)) {
			return 0, 0, corruptRLBE(r.f.typ, start, "run code of %d digits exceeds the %d values left in the block", last+1, left)
		}
		run := 0
		for d := code >> (63 - last); d != 0; d &= d - 1 {
			run += rlbeFib[last-uint(bits.TrailingZeros64(d))]
		}
		if run > left {
			return 0, 0, corruptRLBE(r.f.typ, start, "run of %d words overruns the %d values left in the block", run, left)
		}
		r.pos += r.f.lenBits + last + 2
		return l, run, r.checkWords(l, run, start)
	}
	r.pos += r.f.lenBits
	now := readBits(r.src, r.pos, 1)
	next := readBits(r.src, r.pos+1, 1)
	r.pos += 2
	run := 0
	for j := 0; ; j++ {
		if now == 1 {
			run += rlbeFib[j]
			if run > left {
				return 0, 0, corruptRLBE(r.f.typ, start, "run of %d or more words overruns the %d values left in the block", run, left)
			}
			if next == 1 {
				break
			}
		}
		// A code that goes on must still add a Fibonacci number at least as large as the
		// next one, so it is known to overrun as soon as that exceeds what is left.
		if run+rlbeFib[j+1] > left {
			return 0, 0, corruptRLBE(r.f.typ, start, "run code exceeds the %d values left in the block", left)
		}
		if r.pos == r.nbits {
			return 0, 0, corruptRLBE(r.f.typ, start, "truncated run code")
		}
		now, next = next, readBits(r.src, r.pos, 1)
		r.pos++
	}
	return l, run, r.checkWords(l, run, start)
}

// checkWords checks that run words of l bits follow in the stream.
func (r *rlbeReader) checkWords(l uint, run, start int) error {
	// run < 2^31 and l <= 64, so the product fits.
	if need := uint64(run) * uint64(l); need > uint64(r.nbits-r.pos) {
		return corruptRLBE(r.f.typ, start, "%d words of %d bits overrun the %d bits left", run, l, r.nbits-r.pos)
	}
	return nil
}

// rlbePeek returns the 64 bits of src from bit pos, most significant first, with zeros for
// bits past the end; pos <= 8*len(src).
func rlbePeek(src []byte, pos uint) uint64 {
	i, s := pos>>3, pos&7
	if i+9 <= uint(len(src)) {
		return binary.BigEndian.Uint64(src[i:])<<s | uint64(src[i+8])>>(8-s)
	}
	var buf [9]byte
	copy(buf[:], src[i:])
	return binary.BigEndian.Uint64(buf[:])<<s | uint64(buf[8])>>(8-s)
}

// rlbeIntRun decodes a run of len(out) words of length l from bit pos, whose bits the caller
// has checked to be there, adding each to the previous value; it returns the last value and
// the position after the run.
func rlbeIntRun[T int32 | int64](out []T, prev T, src []byte, pos, l uint, top uint64) (T, uint) {
	if l == 0 {
		for k := range out {
			out[k] = prev
		}
		return prev, pos
	}
	j := 0
	// While eight bytes remain from a word's first byte, one load holds the whole word.
	if l <= 56 && len(src) >= 8 {
		if last := uint(len(src)-8)*8 + 7; pos <= last {
			j = min(len(out), int((last-pos)/l)+1)
			shift := 64 - l
			for k := range out[:j] {
				prev += T(binary.BigEndian.Uint64(src[pos>>3:])<<(pos&7)>>shift ^ top)
				out[k] = prev
				pos += l
			}
		}
	}
	for k := j; k < len(out); k++ {
		prev += T(readBits(src, pos, l) ^ top)
		out[k] = prev
		pos += l
	}
	return prev, pos
}

// endBlock moves to the byte boundary after a block.
func (r *rlbeReader) endBlock() { r.pos = (r.pos + 7) &^ 7 }

// topBit is what the reader flips in a word of length l: the sign bit of a full-length word.
func (r *rlbeReader) topBit(l uint) uint64 {
	if l == r.f.maxLen {
		return 1 << (l - 1)
	}
	return 0
}

// word reads the next word of length l, whose bits the caller has checked to be there.
func (r *rlbeReader) word(l uint, top uint64) uint64 {
	if l == 0 {
		return 0
	}
	w := readBits(r.src, r.pos, l) ^ top
	r.pos += l
	return w
}

// nextBlock reads the header of the next block for a decoder that has decoded values of total.
func (r *rlbeReader) nextBlock(decoded, total int) (int, error) {
	if r.pos == r.nbits {
		return 0, corruptRLBE(r.f.typ, r.off(), "stream ends after %d of %d values", decoded, total)
	}
	at := r.off()
	count, err := r.blockHeader()
	if err != nil {
		return 0, err
	}
	if count > total-decoded {
		return 0, corruptRLBE(r.f.typ, at, "block holds %d values, but only %d of %d remain to be decoded", count, total-decoded, total)
	}
	return count, nil
}

func (r *rlbeReader) checkEnd(total int) error {
	if r.pos != r.nbits {
		return corruptRLBE(r.f.typ, r.off(), "%d trailing bytes after %d values", len(r.src)-r.off(), total)
	}
	return nil
}

// decodeRLBEInt decodes exactly len(dst) integers from the complete stream src.
func decodeRLBEInt[T int32 | int64](dst []T, src []byte, f rlbeFormat) error {
	r := rlbeReader{src: src, nbits: 8 * uint(len(src)), f: f}
	for i := 0; i < len(dst); {
		count, err := r.nextBlock(i, len(dst))
		if err != nil {
			return err
		}
		out := dst[i : i+count]
		var prev T // the first word is the first value: 0 plus itself
		for got := 0; got < count; {
			l, run, err := r.segment(count - got)
			if err != nil {
				return err
			}
			prev, r.pos = rlbeIntRun(out[got:got+run], prev, src, r.pos, l, r.topBit(l))
			got += run
		}
		r.endBlock()
		i += count
	}
	return r.checkEnd(len(dst))
}

func decodeRLBEFloat32(dst []float32, src []byte) error {
	r := rlbeReader{src: src, nbits: 8 * uint(len(src)), f: rlbeFloat32}
	for i := 0; i < len(dst); {
		count, err := r.nextBlock(i, len(dst))
		if err != nil {
			return err
		}
		out := dst[i : i+count]
		var prev float32
		for got := 0; got < count; {
			l, run, err := r.segment(count - got)
			if err != nil {
				return err
			}
			top := r.topBit(l)
			k := got
			if k == 0 {
				// Stored as is: adding it to zero would lose -0.0 and signalling NaNs.
				prev = math.Float32frombits(uint32(r.word(l, top)))
				out[0] = prev
				k++
			}
			prev, r.pos = rlbeFloat32Run(out[k:got+run], prev, src, r.pos, l, top)
			got += run
		}
		r.endBlock()
		i += count
	}
	return r.checkEnd(len(dst))
}

func decodeRLBEFloat64(dst []float64, src []byte) error {
	r := rlbeReader{src: src, nbits: 8 * uint(len(src)), f: rlbeFloat64}
	for i := 0; i < len(dst); {
		count, err := r.nextBlock(i, len(dst))
		if err != nil {
			return err
		}
		out := dst[i : i+count]
		var prev float64
		for got := 0; got < count; {
			l, run, err := r.segment(count - got)
			if err != nil {
				return err
			}
			top := r.topBit(l)
			k := got
			if k == 0 {
				prev = math.Float64frombits(r.word(l, top))
				out[0] = prev
				k++
			}
			prev, r.pos = rlbeFloat64Run(out[k:got+run], prev, src, r.pos, l, top)
			got += run
		}
		r.endBlock()
		i += count
	}
	return r.checkEnd(len(dst))
}

// rlbeFloat32Run is rlbeIntRun for FLOAT, adding in floating point as the Java reader does.
func rlbeFloat32Run(out []float32, prev float32, src []byte, pos, l uint, top uint64) (float32, uint) {
	j := 0
	if l <= 56 && len(src) >= 8 {
		if last := uint(len(src)-8)*8 + 7; pos <= last {
			j = len(out)
			if l > 0 {
				j = min(j, int((last-pos)/l)+1)
			}
			shift := 64 - l // a shift by 64 yields the zero words of length 0
			for k := range out[:j] {
				prev += math.Float32frombits(uint32(binary.BigEndian.Uint64(src[pos>>3:])<<(pos&7)>>shift ^ top))
				out[k] = prev
				pos += l
			}
		}
	}
	for k := j; k < len(out); k++ {
		var w uint64
		if l > 0 {
			w = readBits(src, pos, l) ^ top
		}
		prev += math.Float32frombits(uint32(w))
		out[k] = prev
		pos += l
	}
	return prev, pos
}

// rlbeFloat64Run is rlbeIntRun for DOUBLE.
func rlbeFloat64Run(out []float64, prev float64, src []byte, pos, l uint, top uint64) (float64, uint) {
	j := 0
	if l <= 56 && len(src) >= 8 {
		if last := uint(len(src)-8)*8 + 7; pos <= last {
			j = len(out)
			if l > 0 {
				j = min(j, int((last-pos)/l)+1)
			}
			shift := 64 - l
			for k := range out[:j] {
				prev += math.Float64frombits(binary.BigEndian.Uint64(src[pos>>3:])<<(pos&7)>>shift ^ top)
				out[k] = prev
				pos += l
			}
		}
	}
	for k := j; k < len(out); k++ {
		var w uint64
		if l > 0 {
			w = readBits(src, pos, l) ^ top
		}
		prev += math.Float64frombits(w)
		out[k] = prev
		pos += l
	}
	return prev, pos
}

// countRLBE returns the number of values in the complete stream src after validating the
// framing of every block and segment.
func countRLBE(src []byte, f rlbeFormat) (int, error) {
	r := rlbeReader{src: src, nbits: 8 * uint(len(src)), f: f}
	n := 0
	for r.pos < r.nbits {
		count, err := r.blockHeader()
		if err != nil {
			return 0, err
		}
		for got := 0; got < count; {
			l, run, err := r.segment(count - got)
			if err != nil {
				return 0, err
			}
			r.pos += uint(run) * l
			got += run
		}
		r.endBlock()
		if count > math.MaxInt-n {
			return 0, corruptRLBE(f.typ, r.off(), "value count overflows int")
		}
		n += count
	}
	return n, nil
}

// rlbeLen is the binary length Java gives a word: the position of its highest set bit, or 1
// for zero.
func rlbeLen(w uint64) uint { return uint(max(1, bits.Len64(w))) }

// writeRLBESegment writes the header of a segment of run words of length l.
func writeRLBESegment(w *bitWriter, l uint, run int, f rlbeFormat) {
	w.write(uint64(l), f.lenBits)
	// Zeckendorf digits, greedily from the largest Fibonacci number; the digit for rlbeFib[j]
	// goes to bit top-j of the field, and the field ends in the terminating 1.
	top := 0
	for rlbeFib[top+1] <= run {
		top++
	}
	code := uint64(1)
	for j := top; j >= 0 && run > 0; j-- {
		if rlbeFib[j] <= run {
			code |= 1 << (top - j + 1)
			run -= rlbeFib[j]
		}
	}
	w.write(code, uint(top)+2)
}

// writeRLBEWord writes a word of length l, a full-length one without its top bit.
func writeRLBEWord(w *bitWriter, word uint64, l uint, f rlbeFormat) {
	if l == f.maxLen {
		word &^= 1 << (l - 1)
	}
	w.write(word, l)
}

// rlbeIntWord is word k of an integer block: its first value, then the differences.
func rlbeIntWord[T int32 | int64](v []T, k int, mask uint64) uint64 {
	if k == 0 {
		return uint64(v[0]) & mask
	}
	return uint64(v[k]-v[k-1]) & mask
}

func appendRLBEInt[T int32 | int64](dst []byte, v []T, f rlbeFormat) []byte {
	mask := ^uint64(0) >> (64 - f.maxLen)
	w := bitWriter{buf: dst}
	for len(v) > 0 {
		block := v[:min(len(v), RLBEBlockSize)]
		v = v[len(block):]
		w.write(uint64(len(block)), 32)
		for i := 0; i < len(block); {
			l := rlbeLen(rlbeIntWord(block, i, mask))
			j := i + 1
			for j < len(block) && rlbeLen(rlbeIntWord(block, j, mask)) == l {
				j++
			}
			writeRLBESegment(&w, l, j-i, f)
			for k := i; k < j; k++ {
				writeRLBEWord(&w, rlbeIntWord(block, k, mask), l, f)
			}
			i = j
		}
		w.finish()
	}
	return w.buf
}

// rlbeNaN32 reports whether b is a NaN, and whether a quiet one.
func rlbeNaN32(b uint32) (nan, quiet bool) {
	return b&0x7fffffff > 0x7f800000, b&0x00400000 != 0
}

func rlbeNaN64(b uint64) (nan, quiet bool) {
	return b&(1<<63-1) > 0x7ff0000000000000, b&0x0008000000000000 != 0
}

// rlbeAddsBack32 reports whether the reader's prev+d gives want bit for bit on every platform:
// which NaN an addition propagates differs between processors unless the NaN operands are quiet
// and, when both are NaN, equal.
func rlbeAddsBack32(prev, d, want float32) bool {
	pb, db := math.Float32bits(prev), math.Float32bits(d)
	pn, pq := rlbeNaN32(pb)
	dn, dq := rlbeNaN32(db)
	if (pn && !pq) || (dn && !dq) || (pn && dn && pb != db) {
		return false
	}
	return math.Float32bits(prev+d) == math.Float32bits(want)
}

func rlbeAddsBack64(prev, d, want float64) bool {
	pb, db := math.Float64bits(prev), math.Float64bits(d)
	pn, pq := rlbeNaN64(pb)
	dn, dq := rlbeNaN64(db)
	if (pn && !pq) || (dn && !dq) || (pn && dn && pb != db) {
		return false
	}
	return math.Float64bits(prev+d) == math.Float64bits(want)
}

// rlbeDelta32 returns the difference to store for x after prev within a block: Java's x-prev
// if it adds back exactly, else -0.0 for a repeated value if that does; ok is false if x must
// start a new block.
func rlbeDelta32(prev, x float32) (d float32, ok bool) {
	if d = x - prev; rlbeAddsBack32(prev, d, x) {
		return d, true
	}
	if d = float32(math.Copysign(0, -1)); math.Float32bits(prev) == math.Float32bits(x) && rlbeAddsBack32(prev, d, x) {
		return d, true
	}
	return 0, false
}

func rlbeDelta64(prev, x float64) (d float64, ok bool) {
	if d = x - prev; rlbeAddsBack64(prev, d, x) {
		return d, true
	}
	if d = math.Copysign(0, -1); math.Float64bits(prev) == math.Float64bits(x) && rlbeAddsBack64(prev, d, x) {
		return d, true
	}
	return 0, false
}

// rlbeFloat32Word is word k of a float block whose values all add back (see rlbeDelta32).
func rlbeFloat32Word(v []float32, k int) uint64 {
	if k == 0 {
		return uint64(math.Float32bits(v[0]))
	}
	d, _ := rlbeDelta32(v[k-1], v[k])
	return uint64(math.Float32bits(d))
}

func rlbeFloat64Word(v []float64, k int) uint64 {
	if k == 0 {
		return math.Float64bits(v[0])
	}
	d, _ := rlbeDelta64(v[k-1], v[k])
	return math.Float64bits(d)
}

// appendRLBEFloat encodes FLOAT (T float32) or DOUBLE (T float64) in
// blocks of values whose deltas add back exactly (delta), each block as
// runs of words (word) of equal length.
func appendRLBEFloat[T float32 | float64](dst []byte, v []T, f rlbeFormat, delta func(prev, x T) (T, bool), word func([]T, int) uint64) []byte {
	w := bitWriter{buf: dst}
	for len(v) > 0 {
		n := 1
		for n < min(len(v), RLBEBlockSize) {
			if _, ok := delta(v[n-1], v[n]); !ok {
				break
			}
			n++
		}
		block := v[:n]
		v = v[n:]
		w.write(uint64(n), 32)
		for i := 0; i < n; {
			l := rlbeLen(word(block, i))
			j := i + 1
			for j < n && rlbeLen(word(block, j)) == l {
				j++
			}
			writeRLBESegment(&w, l, j-i, f)
			for k := i; k < j; k++ {
				writeRLBEWord(&w, word(block, k), l, f)
			}
			i = j
		}
		w.finish()
	}
	return w.buf
}

func init() {
	register(RLBE, valueCodec{
		decodeInt32:   func(dst []int32, src []byte) error { return decodeRLBEInt(dst, src, rlbeInt32) },
		decodeInt64:   func(dst []int64, src []byte) error { return decodeRLBEInt(dst, src, rlbeInt64) },
		decodeFloat32: decodeRLBEFloat32,
		decodeFloat64: decodeRLBEFloat64,
		countInt64:    func(src []byte) (int, error) { return countRLBE(src, rlbeInt64) },
		encodeInt32:   func(dst []byte, v []int32) ([]byte, error) { return appendRLBEInt(dst, v, rlbeInt32), nil },
		encodeInt64:   func(dst []byte, v []int64) ([]byte, error) { return appendRLBEInt(dst, v, rlbeInt64), nil },
		encodeFloat32: func(dst []byte, v []float32) ([]byte, error) {
			return appendRLBEFloat(dst, v, rlbeFloat32, rlbeDelta32, rlbeFloat32Word), nil
		},
		encodeFloat64: func(dst []byte, v []float64) ([]byte, error) {
			return appendRLBEFloat(dst, v, rlbeFloat64, rlbeDelta64, rlbeFloat64Word), nil
		},
	})
}
