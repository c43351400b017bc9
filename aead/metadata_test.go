package aead

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
)

// exampleMetadata is the §2.5 file's prefix (magic, version 4, the
// header), a metadata section starting at offset 110, and its tag, which
// we computed with Python's hmac and hashlib while writing this test:
//
//	prk = HMAC-SHA256(key=file_id, msg=dek); k = HMAC-SHA256(prk, info || 0x01)
//	tag = HMAC-SHA256(k, "TSMA" | int32 1 | labels | int32 110 | prefix | int64 110 | covered)
func exampleMetadata() (prefix, covered []byte, metaOffset int64, tag string) {
	prefix = append([]byte("TsFile\x04"), mustUnhex(exampleHeader)...)
	return prefix, []byte("\x02metadataTsFile"), 110, "efd14ccfbdeef6b1bb7a949c48dfb037a63389743ec573fbe239d0387ea360ea"
}

func TestMetadataMACVector(t *testing.T) {
	c := newExampleCipher(t, 2)
	defer c.Close()
	prefix, covered, off, want := exampleMetadata()
	require.Len(t, prefix, int(off))
	m, err := c.NewMetadataMAC(prefix, off)
	require.NoError(t, err)
	m.Write(covered[:3])
	m.Write(covered[3:]) // streaming in pieces changes nothing
	require.Equal(t, want, hex.EncodeToString(m.Sum(nil)))

	m, err = c.NewMetadataMAC(prefix, off)
	require.NoError(t, err)
	m.Write(covered)
	require.NoError(t, m.Verify(mustUnhex(want)))
}

// TestMetadataMACBinding: each input, and the key, changes the tag; a
// wrong tag or one of the wrong length is an authentication failure.
func TestMetadataMACBinding(t *testing.T) {
	prefix, covered, off, want := exampleMetadata()
	tag := mustUnhex(want)
	flip := func(b []byte, i int) []byte { b = bytes.Clone(b); b[i] ^= 1; return b }
	cases := []struct {
		name            string
		version         byte
		prefix, covered []byte
		off             int64
		tag             []byte
	}{
		{"covered byte", 2, prefix, flip(covered, 1), off, tag},
		{"covered byte truncated", 2, prefix, covered[:len(covered)-1], off, tag},
		{"covered byte appended", 2, prefix, append(bytes.Clone(covered), 0), off, tag},
		{"prefix byte", 2, flip(prefix, 50), covered, off, tag},
		{"meta offset", 2, prefix, covered, off + 1, tag},
		{"tag byte", 2, prefix, covered, off, flip(tag, 31)},
		{"tag length", 2, prefix, covered, off, tag[:16]},
		{"header version (same data key and file id)", 3, prefix, covered, off, tag},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newExampleCipher(t, tc.version)
			defer c.Close()
			m, err := c.NewMetadataMAC(tc.prefix, tc.off)
			require.NoError(t, err)
			m.Write(tc.covered)
			if tc.version != 2 {
				// The labels and key are the same; only the header
				// bytes, which the caller passes, tell the versions
				// apart, so the same inputs give the same tag.
				require.NoError(t, m.Verify(tc.tag))
				return
			}
			require.ErrorIs(t, m.Verify(tc.tag), ErrAuthentication)
		})
	}

	// Another data key: another metadata key.
	other, err := NewFileCipher(t.Context(), nil, WriterConfig{
		Provider: NewTestProvider(), ProfileID: ProfileAESGCM128, KeyID: "test-key", KeyVersion: "1", HeaderVersion: 2,
		Rand: randBytes(bytes.Repeat([]byte{9}, 16), exampleFileID),
	})
	require.NoError(t, err)
	m, err := other.NewMetadataMAC(prefix, off)
	require.NoError(t, err)
	m.Write(covered)
	require.ErrorIs(t, m.Verify(tag), ErrAuthentication)
}

func TestMetadataMACErrors(t *testing.T) {
	c := newExampleCipher(t, 3)
	prefix, _, _, _ := exampleMetadata()
	_, err := c.NewMetadataMAC(prefix, int64(len(prefix))-1)
	require.ErrorIs(t, err, ErrInvalidContext)
	st := c.state.Load()
	require.NotEqual(t, make([]byte, len(st.metaKey)), st.metaKey)
	require.NoError(t, c.Close())
	require.Equal(t, make([]byte, len(st.metaKey)), st.metaKey, "Close zeroes the metadata key")
	_, err = c.NewMetadataMAC(prefix, 110)
	require.ErrorIs(t, err, ErrClosed)
}
