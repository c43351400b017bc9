package encoding

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
)

// A BITMAP stream (INT32 and DATE; the Java BitmapDecoder reads nothing else) is a sequence
// of sections, laid out as the deprecated Java BitmapEncoder writes one per flush:
//
//	UVarInt length   bytes of the entries that follow
//	UVarInt number   values in the section, at least 1
//	entries          length bytes of entries, each:
//	    UVarInt value   the int32 value's two's-complement bits, no ZigZag
//	    byte[ceil(number/8)] positions, most significant bit first: bit i marks value i
//
// UVarInt here is the plain unsigned LEB128 form of a 32-bit field. The writer puts each
// distinct value in one entry marking every position that holds it, so every position of a
// section is marked exactly once, no value repeats and no entry is empty. The Java reader
// keeps the entries in a HashMap, so a repeated value would silently drop the earlier entry's
// positions, and a position marked by no entry or by two would read as 0 or as whichever
// entry the map visits last: those streams, and padding bits that are not zero, are
// rejected. An empty stream holds no values.

// bitmapScratch is reused decoder and encoder state.
type bitmapScratch struct {
	covered []byte  // positions of the current section already marked
	values  []int32 // entry values of the current section, for the repeat check
	set     bitmapJavaSet
	nodeOf  []int32 // encoder: set node of each input position
	order   []int32 // encoder: set nodes in iteration order
	offset  []int   // encoder: dst offset of each node's positions
}

var bitmapScratchPool = sync.Pool{New: func() any { return new(bitmapScratch) }}

func corruptBitmap(off int, format string, args ...any) error {
	return corrupt(Bitmap, typeInt32, off, format, args...)
}

// readBitmapUvarint reads a UVarInt that must fit a non-negative Java int.
func readBitmapUvarint(src []byte, off int, what string) (int, int, error) {
	u, k := uvarint32(src[off:])
	switch {
	case k == 0:
		return 0, 0, corruptBitmap(off, "truncated %s UVarInt", what)
	case k < 0:
		return 0, 0, corruptBitmap(off, "%s UVarInt overflows 32 bits", what)
	case u > math.MaxInt32:
		return 0, 0, corruptBitmap(off, "%s %d overflows int32", what, u)
	}
	return int(u), off + k, nil
}

func decodeBitmapInt32(dst []int32, src []byte) error {
	s := bitmapScratchPool.Get().(*bitmapScratch)
	defer bitmapScratchPool.Put(s)
	off, i := 0, 0
	for i < len(dst) {
		if off == len(src) {
			return corruptBitmap(off, "stream ends after %d of %d values", i, len(dst))
		}
		end, n, err := decodeBitmapSection(dst[i:], src, off, s)
		if err != nil {
			return err
		}
		i += n
		off = end
	}
	if off != len(src) {
		return corruptBitmap(off, "%d trailing bytes after %d values", len(src)-off, len(dst))
	}
	return nil
}

// decodeBitmapSection decodes the section at src[off:] into the start of dst and returns
// the offset past it and its number of values.
func decodeBitmapSection(dst []int32, src []byte, off int, s *bitmapScratch) (int, int, error) {
	length, p, err := readBitmapUvarint(src, off, "section length")
	if err != nil {
		return 0, 0, err
	}
	if p == len(src) {
		return 0, 0, corruptBitmap(p, "stream ends before the section's value count")
	}
	number, p, err := readBitmapUvarint(src, p, "value count")
	if err != nil {
		return 0, 0, err
	}
	if number == 0 {
		return 0, 0, corruptBitmap(off, "section of no values")
	}
	if number > len(dst) {
		return 0, 0, corruptBitmap(off, "section holds %d values, but only %d remain to be decoded", number, len(dst))
	}
	if length > len(src)-p {
		return 0, 0, corruptBitmap(off, "section of %d bytes, %d left", length, len(src)-p)
	}
	width := (number + 7) / 8
	if length < 1+width {
		return 0, 0, corruptBitmap(off, "section of %d bytes cannot mark %d values", length, number)
	}
	end := p + length
	body := src[:end] // entries lie within [p, end)
	padMask := byte(1)<<(8*width-number) - 1

	s.covered = slices.Grow(s.covered[:0], width)[:width]
	clear(s.covered)
	s.values = s.values[:0]
	out := dst[:number]
	marked := 0
	for p < end {
		u, k := uvarint32(body[p:])
		switch {
		case k == 0:
			return 0, 0, corruptBitmap(p, "truncated value UVarInt")
		case k < 0:
			return 0, 0, corruptBitmap(p, "value UVarInt overflows 32 bits")
		}
		v := int32(u)
		at := p
		p += k
		if end-p < width {
			return 0, 0, corruptBitmap(at, "positions of value %d need %d bytes, %d left", v, width, end-p)
		}
		pos := body[p : p+width]
		if pos[width-1]&padMask != 0 {
			return 0, 0, corruptBitmap(p+width-1, "padding bits set after position %d", number-1)
		}
		before := marked
		for j, c := range pos {
			if c == 0 {
				continue
			}
			if c&s.covered[j] != 0 {
				return 0, 0, corruptBitmap(p+j, "position %d marked by two values", j*8+bits.LeadingZeros8(c&s.covered[j]))
			}
			s.covered[j] |= c
			marked += bits.OnesCount8(c)
			base := j * 8
			for c != 0 {
				lz := bits.LeadingZeros8(c)
				out[base+lz] = v
				c &^= 0x80 >> lz
			}
		}
		if marked == before {
			return 0, 0, corruptBitmap(at, "value %d marks no position", v)
		}
		s.values = append(s.values, v)
		p += width
	}
	if marked != number {
		return 0, 0, corruptBitmap(off, "%d of %d positions marked by no value", number-marked, number)
	}
	slices.Sort(s.values)
	for j := 1; j < len(s.values); j++ {
		if s.values[j] == s.values[j-1] {
			return 0, 0, corruptBitmap(off, "value %d has two entries", s.values[j])
		}
	}
	return end, number, nil
}

// appendBitmapInt32 appends v as one BITMAP section, byte for byte as the Java encoder
// writes it. Java emits the entries in the iteration order of a java.util.HashSet built from
// the values, which bitmapJavaSet reproduces; that order is that of JDK 8 through 18, whose
// HashSet(Collection) sizes its table differently from later JDKs (the later order holds the
// same entries, so every reader decodes both alike). No values give an empty stream, as Java
// writes nothing then.
func appendBitmapInt32(dst []byte, v []int32) ([]byte, error) {
	if len(v) == 0 {
		return dst, nil
	}
	if len(v) > math.MaxInt32 {
		return dst, fmt.Errorf("encoding: BITMAP INT32 section of %d values exceeds the int32 count: %w", len(v), ErrUnsupported)
	}
	s := bitmapScratchPool.Get().(*bitmapScratch)
	defer bitmapScratchPool.Put(s)

	set := &s.set
	set.reset(len(v))
	s.nodeOf = slices.Grow(s.nodeOf[:0], len(v))[:len(v)]
	for i, x := range v {
		s.nodeOf[i] = set.add(x)
	}
	width := (len(v) + 7) / 8
	s.order = set.appendOrder(s.order[:0])
	length := 0
	for _, node := range s.order {
		length += bitmapUvarintLen(uint32(set.key[node])) + width
		if length > math.MaxInt32 {
			return dst, fmt.Errorf("encoding: BITMAP INT32 section of %d values and %d distinct ones exceeds the int32 length: %w",
				len(v), set.size, ErrUnsupported)
		}
	}

	dst = slices.Grow(dst, 2*maxVarintLen32+length)
	dst = appendUvarint32(dst, uint32(length))
	dst = appendUvarint32(dst, uint32(len(v)))
	s.offset = slices.Grow(s.offset[:0], set.size)[:set.size]
	for _, node := range s.order {
		dst = appendUvarint32(dst, uint32(set.key[node]))
		s.offset[node] = len(dst)
		dst = append(dst, make([]byte, width)...)
	}
	for i, node := range s.nodeOf {
		dst[s.offset[node]+i/8] |= 0x80 >> (i % 8)
	}
	return dst, nil
}

// bitmapUvarintLen is the length of appendUvarint32's output for v.
func bitmapUvarintLen(v uint32) int { return (bits.Len32(v|1) + 6) / 7 }

// bitmapJavaSet reproduces the iteration order of a java.util.HashSet<Integer> filled from a
// list (new HashSet<>(list) in JDK 8 to 18): the HashMap table sizing, its resizes, and the
// red-black tree bins that a bin of nine or more entries turns into once the table has 64
// slots, in which a new entry is linked right after its tree parent and the root is moved to
// the front. Nodes are indices into parallel slices; -1 is null.
type bitmapJavaSet struct {
	key, hash                       []int32
	next, prev, parent, left, right []int32
	red, tree                       []bool
	table, old                      []int32
	size, threshold                 int
}

const (
	bitmapTreeifyThreshold   = 8
	bitmapUntreeifyThreshold = 6
	bitmapMinTreeifyCapacity = 64
	bitmapMaxCapacity        = 1 << 30
)

// bitmapTableSizeFor is HashMap.tableSizeFor: the power of two at or above c.
func bitmapTableSizeFor(c int) int {
	if c <= 1 {
		return 1
	}
	return min(1<<bits.Len32(uint32(c-1)), bitmapMaxCapacity)
}

// reset empties the set and sizes it as HashSet(Collection) does for a list of n values:
// initial capacity max((int)(n/.75f)+1, 16).
func (s *bitmapJavaSet) reset(n int) {
	q := float64(float32(n) / float32(0.75))
	initial := int32(math.MaxInt32)
	if q < math.MaxInt32 {
		initial = int32(q)
	}
	initial++ // wraps past MaxInt32 as Java's int does
	capacity := bitmapTableSizeFor(int(max(initial, 16)))
	s.table = slices.Grow(s.table[:0], capacity)[:capacity]
	for i := range s.table {
		s.table[i] = -1
	}
	s.threshold = bitmapThreshold(capacity)
	s.size = 0
	s.key, s.hash = s.key[:0], s.hash[:0]
	s.next, s.prev, s.parent = s.next[:0], s.prev[:0], s.parent[:0]
	s.left, s.right = s.left[:0], s.right[:0]
	s.red, s.tree = s.red[:0], s.tree[:0]
}

func bitmapThreshold(capacity int) int {
	ft := float32(capacity) * 0.75
	if capacity < bitmapMaxCapacity && ft < float32(bitmapMaxCapacity) {
		return int(ft)
	}
	return math.MaxInt32
}

// bitmapIntHash is HashMap.hash of an Integer key.
func bitmapIntHash(k int32) int32 { return k ^ int32(uint32(k)>>16) }

func (s *bitmapJavaSet) newNode(k, h, next int32, tree bool) int32 {
	n := int32(len(s.key))
	s.key = append(s.key, k)
	s.hash = append(s.hash, h)
	s.next = append(s.next, next)
	s.prev = append(s.prev, -1)
	s.parent = append(s.parent, -1)
	s.left = append(s.left, -1)
	s.right = append(s.right, -1)
	s.red = append(s.red, false)
	s.tree = append(s.tree, tree)
	return n
}

func (s *bitmapJavaSet) index(h int32) int { return int(uint32(h) & uint32(len(s.table)-1)) }

// add inserts k as HashMap.putVal does and returns its node.
func (s *bitmapJavaSet) add(k int32) int32 {
	h := bitmapIntHash(k)
	i := s.index(h)
	p := s.table[i]
	var x int32
	switch {
	case p < 0:
		x = s.newNode(k, h, -1, false)
		s.table[i] = x
	case s.key[p] == k:
		return p
	case s.tree[p]:
		root := p
		for s.parent[root] >= 0 {
			root = s.parent[root]
		}
		var found bool
		if x, found = s.putTreeVal(root, k, h); found {
			return x
		}
	default:
		for binCount := 0; ; binCount++ {
			e := s.next[p]
			if e < 0 {
				x = s.newNode(k, h, -1, false)
				s.next[p] = x
				if binCount >= bitmapTreeifyThreshold-1 {
					s.treeifyBin(h)
				}
				break
			}
			if s.key[e] == k {
				return e
			}
			p = e
		}
	}
	s.size++
	if s.size > s.threshold {
		s.resize()
	}
	return x
}

// appendOrder appends the nodes in HashSet iteration order.
func (s *bitmapJavaSet) appendOrder(dst []int32) []int32 {
	for _, e := range s.table {
		for ; e >= 0; e = s.next[e] {
			dst = append(dst, e)
		}
	}
	return dst
}

func (s *bitmapJavaSet) resize() {
	oldCap := len(s.table)
	if oldCap >= bitmapMaxCapacity {
		s.threshold = math.MaxInt32
		return
	}
	newCap := oldCap << 1
	if newCap < bitmapMaxCapacity && oldCap >= 16 {
		s.threshold <<= 1
	} else {
		s.threshold = bitmapThreshold(newCap)
	}
	s.old = append(s.old[:0], s.table...)
	old := s.old
	s.table = slices.Grow(s.table[:0], newCap)[:newCap]
	for i := range s.table {
		s.table[i] = -1
	}
	for j, e := range old {
		switch {
		case e < 0:
		case s.next[e] < 0:
			s.table[int(uint32(s.hash[e])&uint32(newCap-1))] = e
		case s.tree[e]:
			s.split(e, j, oldCap)
		default:
			loHead, loTail, hiHead, hiTail := int32(-1), int32(-1), int32(-1), int32(-1)
			for ; e >= 0; e = s.next[e] {
				if int(s.hash[e])&oldCap == 0 {
					if loTail < 0 {
						loHead = e
					} else {
						s.next[loTail] = e
					}
					loTail = e
				} else {
					if hiTail < 0 {
						hiHead = e
					} else {
						s.next[hiTail] = e
					}
					hiTail = e
				}
			}
			if loTail >= 0 {
				s.next[loTail] = -1
				s.table[j] = loHead
			}
			if hiTail >= 0 {
				s.next[hiTail] = -1
				s.table[j+oldCap] = hiHead
			}
		}
	}
}

func (s *bitmapJavaSet) treeifyBin(h int32) {
	if len(s.table) < bitmapMinTreeifyCapacity {
		s.resize()
		return
	}
	i := s.index(h)
	tail := int32(-1)
	for e := s.table[i]; e >= 0; e = s.next[e] {
		s.tree[e] = true
		s.prev[e] = tail
		tail = e
	}
	if s.table[i] >= 0 {
		s.treeify(s.table[i])
	}
}

// treeify builds a tree from the list starting at head, in list order.
func (s *bitmapJavaSet) treeify(head int32) {
	root := int32(-1)
	for x := head; x >= 0; x = s.next[x] {
		s.left[x], s.right[x] = -1, -1
		if root < 0 {
			s.parent[x] = -1
			s.red[x] = false
			root = x
			continue
		}
		h := s.hash[x]
		for p := root; ; {
			xp := p
			if s.hash[p] > h {
				p = s.left[p]
			} else {
				p = s.right[p] // hashes of distinct Integer keys are distinct
			}
			if p < 0 {
				s.parent[x] = xp
				if s.hash[xp] > h {
					s.left[xp] = x
				} else {
					s.right[xp] = x
				}
				root = s.balanceInsertion(root, x)
				break
			}
		}
	}
	s.moveRootToFront(root)
}

// putTreeVal inserts k into the tree bin with the given root.
func (s *bitmapJavaSet) putTreeVal(root, k, h int32) (int32, bool) {
	for p := root; ; {
		ph := s.hash[p]
		if ph == h {
			return p, true // the hash is a bijection of the key
		}
		xp := p
		if ph > h {
			p = s.left[p]
		} else {
			p = s.right[p]
		}
		if p < 0 {
			xpn := s.next[xp]
			x := s.newNode(k, h, xpn, true)
			if ph > h {
				s.left[xp] = x
			} else {
				s.right[xp] = x
			}
			s.next[xp] = x
			s.parent[x], s.prev[x] = xp, xp
			if xpn >= 0 {
				s.prev[xpn] = x
			}
			s.moveRootToFront(s.balanceInsertion(root, x))
			return x, false
		}
	}
}

func (s *bitmapJavaSet) moveRootToFront(root int32) {
	i := s.index(s.hash[root])
	first := s.table[i]
	if root == first {
		return
	}
	s.table[i] = root
	rp, rn := s.prev[root], s.next[root]
	if rn >= 0 {
		s.prev[rn] = rp
	}
	if rp >= 0 {
		s.next[rp] = rn
	}
	if first >= 0 {
		s.prev[first] = root
	}
	s.next[root] = first
	s.prev[root] = -1
}

// split distributes the tree bin at old index j over j and j+bit of the doubled table.
func (s *bitmapJavaSet) split(b int32, j, bit int) {
	loHead, loTail, hiHead, hiTail := int32(-1), int32(-1), int32(-1), int32(-1)
	lc, hc := 0, 0
	for e := b; e >= 0; {
		next := s.next[e]
		s.next[e] = -1
		if int(s.hash[e])&bit == 0 {
			s.prev[e] = loTail
			if loTail < 0 {
				loHead = e
			} else {
				s.next[loTail] = e
			}
			loTail = e
			lc++
		} else {
			s.prev[e] = hiTail
			if hiTail < 0 {
				hiHead = e
			} else {
				s.next[hiTail] = e
			}
			hiTail = e
			hc++
		}
		e = next
	}
	if loHead >= 0 {
		s.table[j] = loHead
		if lc <= bitmapUntreeifyThreshold {
			s.untreeify(loHead)
		} else if hiHead >= 0 {
			s.treeify(loHead)
		}
	}
	if hiHead >= 0 {
		s.table[j+bit] = hiHead
		if hc <= bitmapUntreeifyThreshold {
			s.untreeify(hiHead)
		} else if loHead >= 0 {
			s.treeify(hiHead)
		}
	}
}

// untreeify turns a tree bin back into a plain list in its current order.
func (s *bitmapJavaSet) untreeify(head int32) {
	for e := head; e >= 0; e = s.next[e] {
		s.tree[e] = false
		s.prev[e], s.parent[e], s.left[e], s.right[e] = -1, -1, -1, -1
		s.red[e] = false
	}
}

func (s *bitmapJavaSet) rotateLeft(root, p int32) int32 {
	if p < 0 || s.right[p] < 0 {
		return root
	}
	r := s.right[p]
	rl := s.left[r]
	s.right[p] = rl
	if rl >= 0 {
		s.parent[rl] = p
	}
	pp := s.parent[p]
	s.parent[r] = pp
	switch {
	case pp < 0:
		root = r
		s.red[r] = false
	case s.left[pp] == p:
		s.left[pp] = r
	default:
		s.right[pp] = r
	}
	s.left[r] = p
	s.parent[p] = r
	return root
}

func (s *bitmapJavaSet) rotateRight(root, p int32) int32 {
	if p < 0 || s.left[p] < 0 {
		return root
	}
	l := s.left[p]
	lr := s.right[l]
	s.left[p] = lr
	if lr >= 0 {
		s.parent[lr] = p
	}
	pp := s.parent[p]
	s.parent[l] = pp
	switch {
	case pp < 0:
		root = l
		s.red[l] = false
	case s.right[pp] == p:
		s.right[pp] = l
	default:
		s.left[pp] = l
	}
	s.right[l] = p
	s.parent[p] = l
	return root
}

// balanceInsertion is the red-black insertion fix-up of HashMap.TreeNode, returning the root.
func (s *bitmapJavaSet) balanceInsertion(root, x int32) int32 {
	s.red[x] = true
	for {
		xp := s.parent[x]
		if xp < 0 {
			s.red[x] = false
			return x
		}
		xpp := s.parent[xp]
		if !s.red[xp] || xpp < 0 {
			return root
		}
		if xppl := s.left[xpp]; xp == xppl {
			if xppr := s.right[xpp]; xppr >= 0 && s.red[xppr] {
				s.red[xppr], s.red[xp], s.red[xpp] = false, false, true
				x = xpp
				continue
			}
			if x == s.right[xp] {
				x = xp
				root = s.rotateLeft(root, x)
				xp = s.parent[x]
				xpp = -1
				if xp >= 0 {
					xpp = s.parent[xp]
				}
			}
			if xp >= 0 {
				s.red[xp] = false
				if xpp >= 0 {
					s.red[xpp] = true
					root = s.rotateRight(root, xpp)
				}
			}
		} else {
			if xppl >= 0 && s.red[xppl] {
				s.red[xppl], s.red[xp], s.red[xpp] = false, false, true
				x = xpp
				continue
			}
			if x == s.left[xp] {
				x = xp
				root = s.rotateRight(root, x)
				xp = s.parent[x]
				xpp = -1
				if xp >= 0 {
					xpp = s.parent[xp]
				}
			}
			if xp >= 0 {
				s.red[xp] = false
				if xpp >= 0 {
					s.red[xpp] = true
					root = s.rotateLeft(root, xpp)
				}
			}
		}
	}
}

func init() {
	register(Bitmap, valueCodec{
		decodeInt32: decodeBitmapInt32,
		encodeInt32: appendBitmapInt32,
	})
}
