package aead

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Layout constants of the FileEncryptionHeader (PAGE-AEAD §2).
const (
	// MarkerEncryptionHeader is the byte at file offset 7 that announces a
	// FileEncryptionHeader; without it the file has no Page AEAD.
	MarkerEncryptionHeader = 0x06

	// HeaderOffset is the only file offset a FileEncryptionHeader may
	// start at: right after the 6-byte magic and the version byte. Error
	// messages give absolute offsets computed from it.
	HeaderOffset = 7

	// FileCryptoIDSize is the exact length of a file crypto id, the random
	// per-file value bound into every page's associated data.
	FileCryptoIDSize = 16

	// MaxHeaderPayload bounds payload_size, so a damaged length can never
	// make a reader allocate or read more than 1 MiB for the header.
	MaxHeaderPayload = 1 << 20

	// maxComponent bounds each byte-array length inside the payload
	// (§2.4 rule 5).
	maxComponent = 1 << 20

	// maxUvarint32Len is the longest UVarInt encoding of a 32-bit value.
	maxUvarint32Len = 5
)

// Header is the FileEncryptionHeader (PAGE-AEAD §2.2): everything a reader
// needs to find the file's data key, and nothing secret.
//
// Version decides the rest of the file's format: version 1 chunk headers
// carry no Page AEAD suffix and pages use associated data v1 (no chunk
// ordinal); version 2 chunk headers end with an int64 chunk_ordinal and
// pages use associated data v2; version 3 (PROPOSED, §9) adds the int32
// chunk_authentication_size and the chunk authentication after the ordinal,
// with associated data v2.
type Header struct {
	Version    byte
	ProviderID string // the key provider that can unwrap WrappedKey
	ProfileID  string // the algorithm suite, see LookupProfile
	KeyID      string // names the key-encryption key within the provider
	KeyVersion string // the key-encryption key's version

	// FileCryptoID is a random per-file value bound into every page's
	// associated data, so pages cannot move between files. It must be
	// FileCryptoIDSize bytes.
	FileCryptoID []byte

	// WrappedKey is the data key wrapped under the key-encryption key. It
	// is opaque to everything but the provider and must not be empty.
	WrappedKey []byte
}

// HeaderError is the error for header bytes, or a Header to be written,
// that break a rule of PAGE-AEAD §2.4. It wraps ErrMalformedHeader and,
// when the bytes merely end too soon, io.ErrUnexpectedEOF.
type HeaderError struct {
	// Field is the header field at fault ("payload_size", "provider_id",
	// "wrapped_data_key", ...), or "" for the header as a whole.
	Field string
	// Offset is the absolute file offset of the field, or -1 when the
	// header was not read from bytes (Validate).
	Offset int64
	// Msg says what is wrong, starting with the field name.
	Msg string
	// Truncated reports that the bytes given end before the header does.
	Truncated bool
}

// Error returns the message, prefixed with where the header lives and
// followed by the field's own offset when it is known.
func (e *HeaderError) Error() string {
	s := "aead: encryption header at offset 7: " + e.Msg
	if e.Offset > HeaderOffset {
		s += fmt.Sprintf(" (offset %d)", e.Offset)
	}
	return s
}

// Unwrap lets errors.Is find ErrMalformedHeader, and io.ErrUnexpectedEOF
// for truncated bytes.
func (e *HeaderError) Unwrap() []error {
	if e.Truncated {
		return []error{ErrMalformedHeader, io.ErrUnexpectedEOF}
	}
	return []error{ErrMalformedHeader}
}

// headerErr builds a HeaderError for field at absolute offset off (-1 when
// unknown); the message is field followed by the formatted text.
func headerErr(field string, off int64, format string, args ...any) *HeaderError {
	return &HeaderError{Field: field, Offset: off, Msg: field + " " + fmt.Sprintf(format, args...)}
}

// HasOrdinal reports whether chunk headers of the file carry the int64
// chunk_ordinal suffix and pages use associated data v2.
func (h *Header) HasOrdinal() bool { return h.Version >= 2 }

// HasChunkAuth reports whether chunk headers of the file also carry a
// chunk authentication after the ordinal (PROPOSED version 3, §9).
func (h *Header) HasChunkAuth() bool { return h.Version >= 3 }

// Clone returns a deep copy, so that a caller can keep or change a header
// without touching the one a FileCipher was built from.
func (h *Header) Clone() *Header {
	c := *h
	c.FileCryptoID = bytes.Clone(h.FileCryptoID)
	c.WrappedKey = bytes.Clone(h.WrappedKey)
	return &c
}

// String describes the header for logs and error reports. It shows the
// labels and the file crypto id, which are public, and only the length of
// the wrapped data key.
func (h *Header) String() string {
	return fmt.Sprintf("aead header version %d: provider %q, profile %q, key %q version %q, file crypto id %x, wrapped data key of %d bytes",
		h.Version, h.ProviderID, h.ProfileID, h.KeyID, h.KeyVersion, h.FileCryptoID, len(h.WrappedKey))
}

// The header's fields in serialization order, for offsets and messages.
const (
	fieldProvider = iota
	fieldProfile
	fieldKeyID
	fieldKeyVersion
	fieldFileID
	fieldWrappedKey
	numFields
)

var fieldNames = [numFields]string{"provider_id", "profile_id", "key_id", "key_version", "file_crypto_id", "wrapped_data_key"}

// Validate checks the rules a header must meet before it is written or
// used: a supported version (1, 2 or 3), the four identifiers non-blank
// valid UTF-8 (§2.4 rule 7), a 16-byte file crypto id, a non-empty wrapped
// key of at most 1 MiB, and a payload that fits MaxHeaderPayload. The error
// wraps ErrMalformedHeader and names the field.
func (h *Header) Validate() error {
	if err := checkVersion(h.Version, -1); err != nil {
		return err
	}
	if err := h.validateFields(nil); err != nil {
		return err
	}
	if n := h.payloadSize(); n > MaxHeaderPayload {
		return headerErr("payload_size", -1, "%d exceeds the limit of %d", n, MaxHeaderPayload)
	}
	return nil
}

func checkVersion(v byte, off int64) error {
	if v < 1 || v > 3 {
		return headerErr("header_version", off, "%d is not supported (want 1, 2 or 3)", v)
	}
	return nil
}

// isBlank reports whether s is empty after trimming: every rune is a
// control character or space up to U+0020 (what Java's String.trim drops)
// or Unicode white space.
func isBlank(s string) bool {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' || unicode.IsSpace(r) }) == ""
}

// validateFields applies §2.4 rule 7. offs holds the fields' absolute
// offsets when the header was parsed from bytes, nil otherwise.
func (h *Header) validateFields(offs *[numFields]int64) error {
	off := func(f int) int64 {
		if offs == nil {
			return -1
		}
		return offs[f]
	}
	for f, s := range [...]string{h.ProviderID, h.ProfileID, h.KeyID, h.KeyVersion} {
		switch {
		case isBlank(s):
			return headerErr(fieldNames[f], off(f), "is blank")
		case !utf8.ValidString(s):
			return headerErr(fieldNames[f], off(f), "is not valid UTF-8")
		case len(s) > maxComponent:
			return headerErr(fieldNames[f], off(f), "length %d exceeds %d", len(s), maxComponent)
		}
	}
	if len(h.FileCryptoID) != FileCryptoIDSize {
		return headerErr(fieldNames[fieldFileID], off(fieldFileID), "length %d, want %d", len(h.FileCryptoID), FileCryptoIDSize)
	}
	if len(h.WrappedKey) == 0 {
		return headerErr(fieldNames[fieldWrappedKey], off(fieldWrappedKey), "is empty")
	}
	if len(h.WrappedKey) > maxComponent {
		return headerErr(fieldNames[fieldWrappedKey], off(fieldWrappedKey), "length %d exceeds %d", len(h.WrappedKey), maxComponent)
	}
	return nil
}

// payloadSize is the serialized payload length of a header whose fields
// are within their limits.
func (h *Header) payloadSize() int {
	n := 1
	for _, s := range [...]string{h.ProviderID, h.ProfileID, h.KeyID, h.KeyVersion} {
		n += uvarintLen(zigzag32(int32(len(s)))) + len(s)
	}
	n += uvarintLen(uint32(len(h.FileCryptoID))) + len(h.FileCryptoID)
	n += uvarintLen(uint32(len(h.WrappedKey))) + len(h.WrappedKey)
	return n
}

// AppendBinary validates h and appends its serialized form (marker,
// UVarInt payload_size, payload) to dst. Validating first means a writer
// can never put a header on disk that a reader would refuse.
func (h *Header) AppendBinary(dst []byte) ([]byte, error) {
	if err := h.Validate(); err != nil {
		return dst, err
	}
	dst = append(dst, MarkerEncryptionHeader)
	dst = appendUvarint(dst, uint32(h.payloadSize()))
	dst = append(dst, h.Version)
	for _, s := range [...]string{h.ProviderID, h.ProfileID, h.KeyID, h.KeyVersion} {
		dst = appendUvarint(dst, zigzag32(int32(len(s))))
		dst = append(dst, s...)
	}
	dst = appendUvarint(dst, uint32(len(h.FileCryptoID)))
	dst = append(dst, h.FileCryptoID...)
	dst = appendUvarint(dst, uint32(len(h.WrappedKey)))
	dst = append(dst, h.WrappedKey...)
	return dst, nil
}

// ParseHeader decodes the FileEncryptionHeader whose marker is b[0]. b is
// the file from offset 7 on, or a window of it; bytes after the header are
// ignored. It returns the header and n, its serialized length E (marker,
// UVarInt and payload), so the data section starts at 7 + n.
//
// When b ends before the header does, the error wraps both
// ErrMalformedHeader and io.ErrUnexpectedEOF, and need is a length of b
// that lets parsing progress: the exact header length once payload_size is
// known, otherwise len(b)+1. The caller may read a larger window and call
// again. need is 0 for every other error.
//
// Parsing is strict: UVarInts must use their shortest form, so that every
// accepted header re-serializes to the same bytes, and the parsed header
// must pass Validate. The returned header shares no memory with b.
func ParseHeader(b []byte) (h *Header, n int, need int, err error) {
	if len(b) == 0 {
		e := headerErr("marker", HeaderOffset, "missing")
		e.Truncated = true
		return nil, 0, 1, e
	}
	if b[0] != MarkerEncryptionHeader {
		return nil, 0, 0, headerErr("marker", HeaderOffset, "0x%02x is not 0x%02x", b[0], MarkerEncryptionHeader)
	}
	size, k, st := readUvarint(b[1:])
	switch st {
	case varintTruncated:
		e := headerErr("payload_size", HeaderOffset+1, "ends after %d bytes", len(b)-1)
		e.Truncated = true
		return nil, 0, len(b) + 1, e
	case varintOverflow:
		return nil, 0, 0, headerErr("payload_size", HeaderOffset+1, "overflows 32 bits")
	case varintOverlong:
		return nil, 0, 0, headerErr("payload_size", HeaderOffset+1, "is not in its shortest UVarInt form")
	}
	if size < 1 || size > MaxHeaderPayload {
		return nil, 0, 0, headerErr("payload_size", HeaderOffset+1, "%d is outside 1..%d", size, MaxHeaderPayload)
	}
	total := 1 + k + int(size)
	if len(b) < total {
		e := headerErr("payload", int64(HeaderOffset+1+k), "is truncated: payload_size %d, only %d bytes available", size, len(b)-1-k)
		e.Truncated = true
		return nil, 0, total, e
	}
	h, err = parsePayload(b[1+k:total], int64(HeaderOffset+1+k))
	if err != nil {
		return nil, 0, 0, err
	}
	return h, total, 0, nil
}

// payloadReader walks the payload; base is the absolute offset of p[0].
type payloadReader struct {
	p    []byte
	pos  int
	base int64
}

func (r *payloadReader) at() int64 { return r.base + int64(r.pos) }

func (r *payloadReader) length(field string, signed bool) (int, int64, error) {
	at := r.at()
	u, k, st := readUvarint(r.p[r.pos:])
	switch st {
	case varintTruncated:
		return 0, at, headerErr(field, at, "length runs past the end of the payload")
	case varintOverflow:
		return 0, at, headerErr(field, at, "length overflows 32 bits")
	case varintOverlong:
		return 0, at, headerErr(field, at, "length is not in its shortest UVarInt form")
	}
	r.pos += k
	n := int64(u)
	if signed {
		n = int64(unzigzag32(u))
		switch {
		case n == -1:
			return 0, at, headerErr(field, at, "is null")
		case n < 0:
			return 0, at, headerErr(field, at, "length %d is negative", n)
		}
	}
	if rem := len(r.p) - r.pos; n > int64(rem) || n > maxComponent {
		return 0, at, headerErr(field, at, "length %d exceeds the %d remaining payload bytes", n, rem)
	}
	return int(n), at, nil
}

func parsePayload(p []byte, base int64) (*Header, error) {
	if err := checkVersion(p[0], base); err != nil {
		return nil, err
	}
	r := &payloadReader{p: p, pos: 1, base: base}
	h := &Header{Version: p[0]}
	var offs [numFields]int64
	for f, s := range [...]*string{&h.ProviderID, &h.ProfileID, &h.KeyID, &h.KeyVersion} {
		n, at, err := r.length(fieldNames[f], true)
		if err != nil {
			return nil, err
		}
		offs[f] = at
		*s = string(p[r.pos : r.pos+n])
		r.pos += n
	}
	for _, a := range [...]struct {
		f   int
		dst *[]byte
	}{{fieldFileID, &h.FileCryptoID}, {fieldWrappedKey, &h.WrappedKey}} {
		n, at, err := r.length(fieldNames[a.f], false)
		if err != nil {
			return nil, err
		}
		offs[a.f] = at
		*a.dst = bytes.Clone(p[r.pos : r.pos+n])
		r.pos += n
	}
	if r.pos != len(p) {
		return nil, headerErr("payload", r.at(), "has %d trailing bytes after wrapped_data_key", len(p)-r.pos)
	}
	if err := h.validateFields(&offs); err != nil {
		return nil, err
	}
	return h, nil
}

// UVarInt and ZigZag helpers (FileFormat/Binary-Representation.md).

type varintStatus int

const (
	varintOK varintStatus = iota
	varintTruncated
	varintOverflow
	varintOverlong
)

// readUvarint decodes a 32-bit unsigned LEB128 value from the start of b
// and returns it with its length. Encodings longer than five bytes or above
// 2^32-1 overflow; a multi-byte encoding whose last byte is zero is
// overlong.
func readUvarint(b []byte) (uint32, int, varintStatus) {
	var v uint64
	for i := 0; i < maxUvarint32Len; i++ {
		if i == len(b) {
			return 0, 0, varintTruncated
		}
		c := b[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if v > 1<<32-1 {
				return 0, 0, varintOverflow
			}
			if i > 0 && c == 0 {
				return 0, 0, varintOverlong
			}
			return uint32(v), i + 1, varintOK
		}
	}
	return 0, 0, varintOverflow
}

func appendUvarint(dst []byte, v uint32) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

func uvarintLen(v uint32) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

func zigzag32(n int32) uint32   { return uint32(n<<1) ^ uint32(n>>31) }
func unzigzag32(u uint32) int32 { return int32(u>>1) ^ -int32(u&1) }
