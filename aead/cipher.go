package aead

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// FileCipher is one file's Page AEAD state: its header, its profile, and
// the AEAD keyed with the file's data key (DEK). It seals and opens page
// bodies, computes and verifies chunk authentications, and starts metadata
// tags (NewMetadataMAC) under a key derived from the DEK. It is safe for
// concurrent use.
//
// The FileCipher holds the only copy of the DEK this package keeps, and
// Close zeroes it. The AES implementation keeps its own expanded key
// schedule inside the cipher.AEAD, which Go gives no way to wipe; Close
// drops the last reference to it so it can be collected.
type FileCipher struct {
	header  *Header
	profile *Profile
	aadV    uint32 // page associated data version: 1 or 2
	labels  []byte // the five length-prefixed components of §7, precomputed
	state   atomic.Pointer[cipherState]
	aadPool sync.Pool // *[]byte scratch for page associated data
}

// cipherState is what Close destroys.
type cipherState struct {
	key     []byte // the DEK
	metaKey []byte // derived from the DEK for metadata authentication (metadata.go)
	aead    cipher.AEAD
}

// newFileCipher builds a FileCipher for a validated header, taking a copy
// of key, which must have the profile's key size.
func newFileCipher(h *Header, p *Profile, key []byte) (*FileCipher, error) {
	if len(key) != p.KeySize {
		return nil, fmt.Errorf("%w: the data key has %d bytes, profile %s needs %d", ErrWrongKey, len(key), p.ID, p.KeySize)
	}
	st := &cipherState{key: slices.Clone(key)}
	block, err := aes.NewCipher(st.key)
	if err != nil {
		clear(st.key)
		return nil, fmt.Errorf("%w: %w", ErrKeySize, err) // unreachable: the size is checked
	}
	st.aead, err = cipher.NewGCM(block) // 12-byte nonce, 16-byte tag
	if err != nil {
		clear(st.key)
		return nil, fmt.Errorf("%w: %w", ErrKeySize, err) // unreachable: AES has 16-byte blocks
	}
	if st.metaKey, err = deriveMetadataKey(st.key, h.FileCryptoID); err != nil {
		clear(st.key)
		return nil, err
	}
	c := &FileCipher{header: h, profile: p, aadV: 1}
	if h.HasOrdinal() {
		c.aadV = 2
	}
	for _, s := range [...]string{h.ProviderID, h.ProfileID, h.KeyID, h.KeyVersion} {
		c.labels = appendComponent(c.labels, s)
	}
	c.labels = appendComponent(c.labels, h.FileCryptoID)
	size := 4 + len(c.labels) + 8 + 3*4
	c.aadPool.New = func() any { b := make([]byte, 0, size); return &b }
	c.state.Store(st)
	return c, nil
}

// appendComponent appends an int32 length and the bytes, the encoding of
// each label in associated data.
func appendComponent[T string | []byte](dst []byte, s T) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(s)))
	return append(dst, s...)
}

// OpenFileCipher is the reader's entry point: it validates a parsed
// header, resolves its provider in reg and its profile, and unwraps the
// data key. Errors wrap ErrMalformedHeader, ErrUnknownProvider,
// ErrUnknownProfile, or what the provider returned (ErrKeyNotFound,
// ErrWrongKey for KEKProvider). An unwrapped key of the wrong length for the
// profile wraps ErrWrongKey. The FileCipher keeps its own copy of h.
func OpenFileCipher(ctx context.Context, reg *Registry, h *Header) (*FileCipher, error) {
	if h == nil {
		return nil, fmt.Errorf("%w: nil header", ErrMalformedHeader)
	}
	if err := h.Validate(); err != nil {
		return nil, err
	}
	prov, err := reg.Lookup(h.ProviderID)
	if err != nil {
		return nil, err
	}
	p, err := LookupProfile(h.ProfileID)
	if err != nil {
		return nil, err
	}
	key, err := prov.UnwrapDataKey(ctx, h.KeyID, h.KeyVersion, h.WrappedKey)
	if err != nil {
		return nil, fmt.Errorf("aead: unwrapping the data key with provider %q: %w", h.ProviderID, err)
	}
	defer clear(key) // the provider's copy; the FileCipher keeps its own
	if len(key) != p.KeySize {
		return nil, fmt.Errorf("%w: provider %q unwrapped a %d-byte data key for key id %q version %q, profile %s needs %d",
			ErrWrongKey, h.ProviderID, len(key), h.KeyID, h.KeyVersion, p.ID, p.KeySize)
	}
	return newFileCipher(h.Clone(), p, key)
}

// WriterConfig says how NewFileCipher makes a new file's crypto state.
type WriterConfig struct {
	// Provider wraps the new data key. When nil, ProviderID is looked up in
	// the registry. When both are set, ProviderID must equal Provider.ID().
	Provider   KeyProvider
	ProviderID string

	// ProfileID is the algorithm suite, ProfileAESGCM128 or
	// ProfileAESGCM256. It is required: a file's profile is a deliberate
	// choice, since other implementations may know only the first.
	ProfileID string

	// KeyID and KeyVersion name the provider's key-encryption key; they are
	// written into the header and bound into every page.
	KeyID, KeyVersion string

	// HeaderVersion is the header version to write (1, 2 or 3); 0 means 3,
	// chunk ordinals and chunk authentication.
	HeaderVersion byte

	// Rand is the source of the data key and the file crypto id; nil means
	// crypto/rand. NewFileCipher reads the data key first (KeySize bytes)
	// and then the file crypto id (16 bytes). Only tests should set it.
	// Page nonces never come from Rand; they always come from crypto/rand.
	Rand io.Reader
}

// kekSizer is implemented by providers that can say how long a KEK is, so
// NewFileCipher can refuse a KEK that does not match the profile.
type kekSizer interface {
	kekSize(keyID, keyVersion string) (int, bool)
}

// NewFileCipher is the writer's entry point: it draws a fresh data key and
// file crypto id from cfg.Rand, wraps the data key with the provider, and
// builds and validates the header, which Header returns for writing at
// offset 7. The data key and file crypto id must never be reused for
// another file, so call NewFileCipher once per file written (a rewrite or
// compaction output is a new file).
func NewFileCipher(ctx context.Context, reg *Registry, cfg WriterConfig) (*FileCipher, error) {
	prov := cfg.Provider
	switch {
	case prov != nil && cfg.ProviderID != "" && cfg.ProviderID != prov.ID():
		return nil, fmt.Errorf("%w: WriterConfig names provider %q but holds provider %q", ErrInvalidProvider, cfg.ProviderID, prov.ID())
	case prov == nil:
		var err error
		if prov, err = reg.Lookup(cfg.ProviderID); err != nil {
			return nil, err
		}
	}
	p, err := LookupProfile(cfg.ProfileID)
	if err != nil {
		return nil, err
	}
	h := &Header{
		Version:    cfg.HeaderVersion,
		ProviderID: prov.ID(),
		ProfileID:  p.ID,
		KeyID:      cfg.KeyID,
		KeyVersion: cfg.KeyVersion,
		WrappedKey: []byte{0}, // placeholder, so the labels are checked before the provider is called
	}
	if h.Version == 0 {
		h.Version = 3
	}
	h.FileCryptoID = make([]byte, FileCryptoIDSize) // placeholder too
	if err := h.Validate(); err != nil {
		return nil, err
	}
	if ks, ok := prov.(kekSizer); ok {
		if n, ok := ks.kekSize(cfg.KeyID, cfg.KeyVersion); ok && n != p.KEKSize {
			return nil, fmt.Errorf("%w: provider %q holds a %d-byte KEK for key id %q version %q, profile %s wraps with %d bytes",
				ErrKeySize, h.ProviderID, n, cfg.KeyID, cfg.KeyVersion, p.ID, p.KEKSize)
		}
	}
	r := cfg.Rand
	if r == nil {
		r = rand.Reader
	}
	key := make([]byte, p.KeySize)
	defer clear(key)
	if _, err := io.ReadFull(r, key); err != nil {
		return nil, fmt.Errorf("aead: drawing a data key: %w", err)
	}
	if _, err := io.ReadFull(r, h.FileCryptoID); err != nil {
		return nil, fmt.Errorf("aead: drawing a file crypto id: %w", err)
	}
	wrapped, err := prov.WrapDataKey(ctx, h.KeyID, h.KeyVersion, key)
	if err != nil {
		return nil, fmt.Errorf("aead: wrapping the data key with provider %q: %w", h.ProviderID, err)
	}
	h.WrappedKey = slices.Clone(wrapped)
	if err := h.Validate(); err != nil {
		return nil, fmt.Errorf("aead: provider %q returned an unusable wrapped key: %w", h.ProviderID, err)
	}
	return newFileCipher(h, p, key)
}

// Header returns a copy of the file's header, to be serialized with
// AppendBinary at offset 7 (writer) or inspected (reader).
func (c *FileCipher) Header() *Header { return c.header.Clone() }

// Profile returns a copy of the file's profile.
func (c *FileCipher) Profile() *Profile { p := *c.profile; return &p }

// Overhead is how many bytes a sealed page body (and a chunk
// authentication) adds to its plaintext: the page header's compressed_size
// is the compressed plaintext size plus Overhead.
func (c *FileCipher) Overhead() int { return c.profile.Overhead }

// load returns the live state or ErrClosed.
func (c *FileCipher) load() (*cipherState, error) {
	st := c.state.Load()
	if st == nil {
		return nil, fmt.Errorf("%w: file cipher", ErrClosed)
	}
	return st, nil
}

// PageAAD appends the associated data of a page (PAGE-AEAD §7) to dst:
// version 1 (without the ordinal) when the header version is 1, version 2
// otherwise. The arguments are not checked; SealPage and OpenPage check
// them before use. It works after Close, as it involves no key.
func (c *FileCipher) PageAAD(dst []byte, ordinal int64, pageIndex, uncompressedSize, plainSize int) []byte {
	dst = binary.BigEndian.AppendUint32(dst, c.aadV)
	dst = append(dst, c.labels...)
	if c.aadV >= 2 {
		dst = binary.BigEndian.AppendUint64(dst, uint64(ordinal))
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(pageIndex))
	dst = binary.BigEndian.AppendUint32(dst, uint32(uncompressedSize))
	return binary.BigEndian.AppendUint32(dst, uint32(plainSize))
}

// checkPage refuses a page context that associated data cannot encode.
func checkPage(ordinal int64, pageIndex, uncompressedSize, plainSize int) error {
	switch {
	case ordinal < 0:
		return fmt.Errorf("%w: chunk_ordinal %d is negative", ErrInvalidContext, ordinal)
	case pageIndex < 0 || pageIndex > math.MaxInt32:
		return fmt.Errorf("%w: page index %d is outside 0..%d", ErrInvalidContext, pageIndex, math.MaxInt32)
	case uncompressedSize < 0 || uncompressedSize > math.MaxInt32:
		return fmt.Errorf("%w: uncompressed_size %d is outside 0..%d", ErrInvalidContext, uncompressedSize, math.MaxInt32)
	case plainSize < 0 || plainSize > math.MaxInt32:
		return fmt.Errorf("%w: compressed plaintext size %d is outside 0..%d", ErrInvalidContext, plainSize, math.MaxInt32)
	}
	return nil
}

// SealPage appends the sealed body of a page to dst: a fresh random nonce
// (always from crypto/rand), the ciphertext of plain (the compressed page
// bytes) and the tag, exactly len(plain)+Overhead bytes, bound to the page
// context. pageIndex counts every page of the chunk from 0, empty pages
// included; empty pages (uncompressedSize 0) have no body and are not
// sealed. plain must not overlap dst's spare capacity.
func (c *FileCipher) SealPage(dst, plain []byte, ordinal int64, pageIndex, uncompressedSize int) ([]byte, error) {
	return c.sealPage(dst, plain, nil, ordinal, pageIndex, uncompressedSize)
}

// sealPage is SealPage with the nonce given (nil: drawn), so tests can
// check the fixed-nonce vector of PAGE-AEAD §7.
func (c *FileCipher) sealPage(dst, plain, nonce []byte, ordinal int64, pageIndex, uncompressedSize int) ([]byte, error) {
	st, err := c.load()
	if err != nil {
		return nil, err
	}
	if err := checkPage(ordinal, pageIndex, uncompressedSize, len(plain)); err != nil {
		return nil, fmt.Errorf("aead: sealing page %d of chunk ordinal %d: %w", pageIndex, ordinal, err)
	}
	ret := slices.Grow(dst, len(plain)+overhead)
	out := ret[len(dst) : len(dst)+nonceSize]
	if err := c.nonce(out, nonce); err != nil {
		return nil, err
	}
	ap := c.aadPool.Get().(*[]byte)
	aad := c.PageAAD((*ap)[:0], ordinal, pageIndex, uncompressedSize, len(plain))
	sealed := st.aead.Seal(out, out, plain, aad)
	*ap = aad
	c.aadPool.Put(ap)
	return ret[:len(dst)+len(sealed)], nil
}

// nonce fills out with fixed, or with fresh bytes from crypto/rand.
func (c *FileCipher) nonce(out, fixed []byte) error {
	if fixed != nil {
		copy(out, fixed)
		return nil
	}
	if _, err := rand.Read(out); err != nil {
		return fmt.Errorf("aead: drawing a nonce: %w", err) // unreachable since Go 1.24
	}
	return nil
}

// OpenPage checks and decrypts a sealed page body and appends the
// plaintext, len(body)-Overhead bytes, to dst. The context must be the one
// the page was sealed with: the chunk's ordinal, the page's index within
// the chunk (counting every page from 0) and the page header's
// uncompressed_size. A body shorter than Overhead gives an error wrapping
// ErrBodyTooShort, a failed tag one wrapping ErrAuthentication; on error
// nothing is returned. body must not overlap dst's spare capacity.
func (c *FileCipher) OpenPage(dst, body []byte, ordinal int64, pageIndex, uncompressedSize int) ([]byte, error) {
	st, err := c.load()
	if err != nil {
		return nil, err
	}
	plainSize := len(body) - overhead
	if err := checkPage(ordinal, pageIndex, uncompressedSize, max(plainSize, 0)); err != nil {
		return nil, fmt.Errorf("aead: opening page %d of chunk ordinal %d: %w", pageIndex, ordinal, err)
	}
	if plainSize < 0 {
		return nil, fmt.Errorf("%w: page %d of chunk ordinal %d has a %d-byte body, profile %s needs at least %d",
			ErrBodyTooShort, pageIndex, ordinal, len(body), c.profile.ID, overhead)
	}
	ap := c.aadPool.Get().(*[]byte)
	aad := c.PageAAD((*ap)[:0], ordinal, pageIndex, uncompressedSize, plainSize)
	out, err := st.aead.Open(dst, body[:nonceSize], body[nonceSize:], aad)
	*ap = aad
	c.aadPool.Put(ap)
	if err != nil {
		return nil, fmt.Errorf("%w: page %d of chunk ordinal %d (%d-byte body)", ErrAuthentication, pageIndex, ordinal, len(body))
	}
	return out, nil
}

// Close zeroes the data key and makes every later call that can fail
// return ErrClosed; calls already running finish normally. Closing twice
// returns ErrClosed.
func (c *FileCipher) Close() error {
	st := c.state.Swap(nil)
	if st == nil {
		return fmt.Errorf("%w: file cipher", ErrClosed)
	}
	clear(st.key)
	clear(st.metaKey)
	// st.aead keeps the expanded AES key schedule, which cannot be wiped;
	// dropping st leaves it to the garbage collector.
	return nil
}
