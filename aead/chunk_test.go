package aead

import (
	"encoding/hex"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func exampleChunk() *ChunkIdentity {
	return &ChunkIdentity{Ordinal: 4, Offset: 110, Marker: 1, Device: []byte{0x0a, 0x0b}, Measurement: "s1",
		DataSize: 64, DataType: 2, Compression: 0, Encoding: 1}
}

// TestChunkProofVector pins the PROPOSED §9 chunk context and proof for
// the §2.5 file (header version 3) and exampleChunk, both computed
// independently in Python while writing the test: the context by
// concatenating the fields of §9, the proof as
// AESGCM(bytes(16)).encrypt(bytes(range(12)), b"", context).
func TestChunkProofVector(t *testing.T) {
	c := newExampleCipher(t, 3)
	aad := c.ChunkAAD(nil, exampleChunk())
	const want = "54534341" + "00000001" +
		"00000012" + "746573742d616561642d70726f7669646572" +
		"0000001b" + "4145535f47434d5f3132385f4145535f575241505f3132385f5631" +
		"00000008" + "746573742d6b6579" + "00000001" + "31" +
		"00000010" + "01000000000000000000000000000000" +
		"0000000000000004" + "000000000000006e" + "01" +
		"00000002" + "0a0b" + "00000002" + "7331" + "00000040" + "020001"
	assert.Equal(t, want, hex.EncodeToString(aad))
	assert.Len(t, aad, 134)

	proof, err := c.authenticateChunk([]byte{0xff}, exampleChunk(), mustUnhex("000102030405060708090a0b"))
	require.NoError(t, err)
	assert.Equal(t, "ff"+"000102030405060708090a0b"+"5a692d0c3cbd0066c7432dd59eb4c76d", hex.EncodeToString(proof))
	require.NoError(t, c.VerifyChunk(proof[1:], exampleChunk()))
}

func TestChunkProofBinding(t *testing.T) {
	c := newExampleCipher(t, 3)
	proof, err := c.AuthenticateChunk(nil, exampleChunk())
	require.NoError(t, err)
	require.Len(t, proof, c.Overhead())
	require.NoError(t, c.VerifyChunk(proof, exampleChunk()))

	tests := []struct {
		name   string
		change func(id *ChunkIdentity)
	}{
		{"ordinal", func(id *ChunkIdentity) { id.Ordinal++ }},
		{"offset", func(id *ChunkIdentity) { id.Offset++ }},
		{"marker", func(id *ChunkIdentity) { id.Marker = 0x41 }},
		{"device", func(id *ChunkIdentity) { id.Device = []byte{0x0a, 0x0c} }},
		{"device length", func(id *ChunkIdentity) { id.Device = append(id.Device, 0) }},
		{"measurement", func(id *ChunkIdentity) { id.Measurement = "s2" }},
		{"data size", func(id *ChunkIdentity) { id.DataSize-- }},
		{"data type", func(id *ChunkIdentity) { id.DataType++ }},
		{"compression", func(id *ChunkIdentity) { id.Compression++ }},
		{"encoding", func(id *ChunkIdentity) { id.Encoding++ }},
		// The device and measurement are length-prefixed: moving a byte
		// from one to the other changes the context.
		{"device/measurement boundary", func(id *ChunkIdentity) { id.Device = []byte{0x0a}; id.Measurement = "\x0bs1" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := exampleChunk()
			tt.change(id)
			assert.ErrorIs(t, c.VerifyChunk(proof, id), ErrAuthentication)
		})
	}
	t.Run("another file", func(t *testing.T) {
		for _, f := range ciphers(t, 3) {
			assert.ErrorIs(t, f.VerifyChunk(proof, exampleChunk()), ErrAuthentication)
		}
	})
	t.Run("bit flips", func(t *testing.T) {
		for i := 0; i < len(proof)*8; i++ {
			bad := append([]byte(nil), proof...)
			bad[i/8] ^= 1 << (i % 8)
			require.ErrorIs(t, c.VerifyChunk(bad, exampleChunk()), ErrAuthentication, "bit %d", i)
		}
	})
	t.Run("a page tag is no proof", func(t *testing.T) {
		body, err := c.SealPage(nil, nil, 4, 0, 0)
		require.NoError(t, err)
		assert.ErrorIs(t, c.VerifyChunk(body, exampleChunk()), ErrAuthentication)
	})
}

func TestChunkProofLength(t *testing.T) {
	c := newExampleCipher(t, 3)
	proof, err := c.AuthenticateChunk(nil, exampleChunk())
	require.NoError(t, err)
	for _, n := range []int{0, 12, 27, 29, 44} {
		p := make([]byte, n)
		copy(p, proof)
		err := c.VerifyChunk(p, exampleChunk())
		assert.ErrorIs(t, err, ErrMalformedProof, "%d bytes", n)
		assert.NotErrorIs(t, err, ErrAuthentication, "%d bytes", n)
	}
}

func TestChunkInvalidIdentity(t *testing.T) {
	c := newExampleCipher(t, 3)
	tests := []struct {
		name   string
		change func(id *ChunkIdentity)
	}{
		{"negative ordinal", func(id *ChunkIdentity) { id.Ordinal = -1 }},
		{"negative offset", func(id *ChunkIdentity) { id.Offset = -1 }},
		{"negative data size", func(id *ChunkIdentity) { id.DataSize = -1 }},
		{"data size over int32", func(id *ChunkIdentity) { id.DataSize = math.MaxInt32 + 1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := exampleChunk()
			tt.change(id)
			_, err := c.AuthenticateChunk(nil, id)
			assert.ErrorIs(t, err, ErrInvalidContext)
			err = c.VerifyChunk(make([]byte, 28), id)
			assert.ErrorIs(t, err, ErrInvalidContext)
			assert.NotErrorIs(t, err, ErrAuthentication)
		})
	}
	_, err := c.AuthenticateChunk(nil, nil)
	assert.ErrorIs(t, err, ErrInvalidContext)
	assert.ErrorIs(t, c.VerifyChunk(make([]byte, 28), nil), ErrInvalidContext)
}

// TestChunkProofNeedsVersion3: files of header versions 1 and 2 carry no
// chunk authentication, so asking for one is a caller error.
func TestChunkProofNeedsVersion3(t *testing.T) {
	for _, v := range []byte{1, 2} {
		c := newExampleCipher(t, v)
		_, err := c.AuthenticateChunk(nil, exampleChunk())
		assert.ErrorIs(t, err, ErrMalformedProof)
		err = c.VerifyChunk(make([]byte, 28), exampleChunk())
		assert.ErrorIs(t, err, ErrMalformedProof)
		assert.NotErrorIs(t, err, ErrAuthentication)
	}
}
