package aead

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
)

// Metadata authentication is tsarrow's extension of the draft, which
// leaves everything outside page bodies (and chunk headers, §9) without
// integrity: the index, the table schemas, the statistics, the Bloom
// filter and the footer properties stay plaintext so that a reader without
// the key can inspect and prune, but then one flipped bit in a measurement
// name empties a column without an error. The tag closes that gap for a
// reader that has the key.
//
// Construction: HMAC-SHA-256 under a metadata key derived from the data
// key with HKDF-SHA-256 (salt: the file crypto id, info:
// metadataKeyInfo), over
//
//	"TSMA" | int32 1 | the five components of the page context |
//	int32 len | the file's first bytes (magic, version, header) |
//	int64 meta_offset | every byte from meta_offset to the end of the file
//
// HMAC rather than a GMAC of the profile's AES-GCM for three reasons: the
// covered bytes (the whole index region) can be large and are streamed, and
// Go's AEAD interface takes associated data in one piece; a deterministic
// tag needs no nonce, so rewriting a footer never spends one; and the key
// is separate from the page key by derivation, not only by context, so no
// page or chunk tag can ever be replayed as a metadata tag. Both profiles
// use it unchanged.

// MetadataTagSize is the length of a metadata authentication tag: an
// HMAC-SHA-256 output.
const MetadataTagSize = sha256.Size

const (
	// metadataAADTag starts the authenticated message. Page contexts
	// start with an int32 1 or 2 and chunk contexts with "TSCA"; the
	// metadata key differs from the page key anyway.
	metadataAADTag = "TSMA"
	// metadataVersion is the version of the message layout.
	metadataVersion = 1
	// metadataKeyInfo is the HKDF info string of the metadata key.
	metadataKeyInfo = "tsarrow metadata authentication v1"
)

// deriveMetadataKey derives the metadata key from the data key, with the
// file crypto id as salt, so two files never share one.
func deriveMetadataKey(dek, fileID []byte) ([]byte, error) {
	k, err := hkdf.Key(sha256.New, dek, fileID, metadataKeyInfo, sha256.Size)
	if err != nil {
		return nil, fmt.Errorf("%w: deriving the metadata key: %w", ErrKeySize, err) // unreachable: 32 bytes of SHA-256 output
	}
	return k, nil
}

// MetadataMAC computes or checks the metadata authentication tag of one
// file. Write the covered bytes to it in file order, from meta_offset to
// the end of the file, with the tag's own stored value replaced by its
// placeholder (the caller's format decides both), then call Sum or Verify.
// It is not safe for concurrent use.
type MetadataMAC struct {
	h hash.Hash
}

// NewMetadataMAC starts the metadata tag of this file. prefix is the
// file's bytes before its data section, exactly as stored: the magic, the
// version byte and the whole FileEncryptionHeader. metaOffset is the
// absolute offset where the covered bytes start (the separator before the
// index). It works for every header version.
func (c *FileCipher) NewMetadataMAC(prefix []byte, metaOffset int64) (*MetadataMAC, error) {
	st, err := c.load()
	if err != nil {
		return nil, err
	}
	if metaOffset < int64(len(prefix)) {
		return nil, fmt.Errorf("%w: metadata offset %d lies inside the %d-byte file prefix", ErrInvalidContext, metaOffset, len(prefix))
	}
	m := &MetadataMAC{h: hmac.New(sha256.New, st.metaKey)}
	var b []byte
	b = append(b, metadataAADTag...)
	b = binary.BigEndian.AppendUint32(b, metadataVersion)
	b = append(b, c.labels...)
	b = appendComponent(b, prefix)
	b = binary.BigEndian.AppendUint64(b, uint64(metaOffset))
	m.h.Write(b)
	return m, nil
}

// Write adds covered bytes; it never fails.
func (m *MetadataMAC) Write(p []byte) (int, error) { return m.h.Write(p) }

// Sum appends the tag, MetadataTagSize bytes, to dst.
func (m *MetadataMAC) Sum(dst []byte) []byte { return m.h.Sum(dst) }

// Verify checks tag against the bytes written, in constant time. A tag of
// the wrong length or value gives an error wrapping ErrAuthentication: the
// metadata was changed after it was written, or written under another key.
func (m *MetadataMAC) Verify(tag []byte) error {
	if len(tag) != MetadataTagSize {
		return fmt.Errorf("%w: the metadata tag has %d bytes, want %d", ErrAuthentication, len(tag), MetadataTagSize)
	}
	if !hmac.Equal(m.h.Sum(nil), tag) {
		return fmt.Errorf("%w: the metadata tag does not match", ErrAuthentication)
	}
	return nil
}
