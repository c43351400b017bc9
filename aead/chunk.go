package aead

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// chunkAADTag starts every chunk context. As an int32 it is 0x54534341,
// never the 1 or 2 a page context starts with, so a proof can never be
// mistaken for a page tag or the reverse.
const chunkAADTag = "TSCA"

// chunkAADVersion is the version of the chunk context layout.
const chunkAADVersion = 1

// ChunkIdentity is what a chunk authentication binds (PAGE-AEAD §9,
// PROPOSED): the fields of a chunk header that page authentication leaves
// unbound, plus where the chunk is and which device it belongs to. With it
// a chunk cannot be moved, duplicated, relabelled or cut short without
// detection.
type ChunkIdentity struct {
	Ordinal     int64  // chunk_ordinal
	Offset      int64  // absolute file offset of the chunk's marker byte
	Marker      byte   // chunk_type, including the time and value bits
	Device      []byte // the canonical serialized DeviceID of the chunk's group (the caller serializes it)
	Measurement string // measurement_id
	DataSize    int64  // data_size; must fit an int32
	DataType    byte
	Compression byte
	Encoding    byte
}

// checkChunk refuses an identity the chunk context cannot encode.
func checkChunk(id *ChunkIdentity) error {
	switch {
	case id == nil:
		return fmt.Errorf("%w: nil chunk identity", ErrInvalidContext)
	case id.Ordinal < 0:
		return fmt.Errorf("%w: chunk_ordinal %d is negative", ErrInvalidContext, id.Ordinal)
	case id.Offset < 0:
		return fmt.Errorf("%w: chunk offset %d is negative", ErrInvalidContext, id.Offset)
	case id.DataSize < 0 || id.DataSize > math.MaxInt32:
		return fmt.Errorf("%w: data_size %d is outside 0..%d", ErrInvalidContext, id.DataSize, math.MaxInt32)
	case len(id.Device) > math.MaxInt32 || len(id.Measurement) > math.MaxInt32:
		return fmt.Errorf("%w: device or measurement id longer than %d bytes", ErrInvalidContext, math.MaxInt32)
	}
	return nil
}

// ChunkAAD appends the chunk context of id (PAGE-AEAD §9, PROPOSED) to
// dst:
//
//	"TSCA" | int32 1 | the five components of the page context |
//	int64 ordinal | int64 offset | byte marker | int32 len | device |
//	int32 len | measurement | int32 data_size | byte data_type |
//	byte compression | byte encoding
//
// The identity is not checked; AuthenticateChunk and VerifyChunk check it
// first. It works after Close, as it involves no key.
func (c *FileCipher) ChunkAAD(dst []byte, id *ChunkIdentity) []byte {
	dst = append(dst, chunkAADTag...)
	dst = binary.BigEndian.AppendUint32(dst, chunkAADVersion)
	dst = append(dst, c.labels...)
	dst = binary.BigEndian.AppendUint64(dst, uint64(id.Ordinal))
	dst = binary.BigEndian.AppendUint64(dst, uint64(id.Offset))
	dst = append(dst, id.Marker)
	dst = appendComponent(dst, id.Device)
	dst = appendComponent(dst, id.Measurement)
	dst = binary.BigEndian.AppendUint32(dst, uint32(id.DataSize))
	return append(dst, id.DataType, id.Compression, id.Encoding)
}

// chunkState checks that the file has chunk authentication and id is
// encodable, and returns the live state.
func (c *FileCipher) chunkState(id *ChunkIdentity) (*cipherState, error) {
	st, err := c.load()
	if err != nil {
		return nil, err
	}
	if !c.header.HasChunkAuth() {
		return nil, fmt.Errorf("%w: header version %d has no chunk authentication", ErrMalformedProof, c.header.Version)
	}
	if err := checkChunk(id); err != nil {
		return nil, fmt.Errorf("aead: chunk at offset %d: %w", id.Offset, err)
	}
	return st, nil
}

// AuthenticateChunk appends the chunk authentication of id to dst: an
// AEAD seal of an empty plaintext under the file's data key with the chunk
// context as associated data, so a random nonce and the tag (AES-GMAC),
// Overhead bytes. Writers compute it once data_size is known, for every
// chunk including empty value chunks, and write it after the ordinal. The
// header must be version 3.
func (c *FileCipher) AuthenticateChunk(dst []byte, id *ChunkIdentity) ([]byte, error) {
	return c.authenticateChunk(dst, id, nil)
}

func (c *FileCipher) authenticateChunk(dst []byte, id *ChunkIdentity, nonce []byte) ([]byte, error) {
	if id == nil {
		return nil, fmt.Errorf("%w: nil chunk identity", ErrInvalidContext)
	}
	st, err := c.chunkState(id)
	if err != nil {
		return nil, err
	}
	ret := slices.Grow(dst, overhead)
	out := ret[len(dst) : len(dst)+nonceSize]
	if err := c.nonce(out, nonce); err != nil {
		return nil, err
	}
	sealed := st.aead.Seal(out, out, nil, c.ChunkAAD(nil, id))
	return ret[:len(dst)+len(sealed)], nil
}

// VerifyChunk checks a chunk authentication read from a chunk header
// against the identity rebuilt from the parsed header, its actual offset
// and its device. Readers call it before using any of the chunk's fields.
// A proof whose length is not Overhead is a format error wrapping
// ErrMalformedProof; a proof that does not verify wraps ErrAuthentication,
// and the chunk must not be used.
func (c *FileCipher) VerifyChunk(proof []byte, id *ChunkIdentity) error {
	if id == nil {
		return fmt.Errorf("%w: nil chunk identity", ErrInvalidContext)
	}
	st, err := c.chunkState(id)
	if err != nil {
		return err
	}
	if len(proof) != overhead {
		return fmt.Errorf("%w: chunk at offset %d has a %d-byte authentication, profile %s needs %d",
			ErrMalformedProof, id.Offset, len(proof), c.profile.ID, overhead)
	}
	if _, err := st.aead.Open(nil, proof[:nonceSize], proof[nonceSize:], c.ChunkAAD(nil, id)); err != nil {
		return fmt.Errorf("%w: chunk at offset %d (chunk_ordinal %d, measurement %q)", ErrAuthentication, id.Offset, id.Ordinal, id.Measurement)
	}
	return nil
}
