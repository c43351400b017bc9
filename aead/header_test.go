package aead

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeaderWorkedExample builds the PAGE-AEAD §2.5 header through
// NewFileCipher (Rand yields the data key, then the file crypto id) and
// checks every byte, then parses it back.
func TestHeaderWorkedExample(t *testing.T) {
	want := mustUnhex(exampleHeader)
	require.Len(t, want, 103)
	c := newExampleCipher(t, 2)
	defer c.Close()
	got, err := c.Header().AppendBinary(nil)
	require.NoError(t, err)
	assert.Equal(t, hex.EncodeToString(want), hex.EncodeToString(got))

	file := append(append([]byte{}, want...), 0x00, 0x01, 0x02) // data follows the header
	h, n, need, err := ParseHeader(file)
	require.NoError(t, err)
	assert.Equal(t, 103, n, "E")
	assert.Zero(t, need)
	assert.Equal(t, c.Header(), h)
	assert.True(t, h.HasOrdinal())
	assert.False(t, h.HasChunkAuth())
	assert.Equal(t, 7+103, HeaderOffset+n, "data section start")
}

func TestHeaderRoundTrip(t *testing.T) {
	for _, v := range []byte{1, 2, 3} {
		h := &Header{Version: v, ProviderID: "p", ProfileID: ProfileAESGCM256, KeyID: "k é", KeyVersion: "2026-07",
			FileCryptoID: bytes.Repeat([]byte{0xfe}, 16), WrappedKey: bytes.Repeat([]byte{7}, 300)}
		b, err := h.AppendBinary([]byte("prefix"))
		require.NoError(t, err)
		require.Equal(t, "prefix", string(b[:6]))
		got, n, _, err := ParseHeader(b[6:])
		require.NoError(t, err, "version %d", v)
		assert.Equal(t, len(b)-6, n)
		assert.Equal(t, h, got)
		assert.Equal(t, v >= 2, got.HasOrdinal())
		assert.Equal(t, v >= 3, got.HasChunkAuth())
	}
}

// TestParseHeaderNeed feeds every window of the example header: each
// short one asks for more, and following need reaches the header.
func TestParseHeaderNeed(t *testing.T) {
	full := mustUnhex(exampleHeader)
	for w := 0; w < len(full); w++ {
		_, _, need, err := ParseHeader(full[:w])
		require.ErrorIs(t, err, io.ErrUnexpectedEOF, "window %d", w)
		require.ErrorIs(t, err, ErrMalformedHeader, "window %d", w)
		require.Greater(t, need, w, "window %d", w)
		require.LessOrEqual(t, need, len(full), "window %d", w)
	}
	_, _, need, _ := ParseHeader(full[:2])
	assert.Equal(t, 103, need)
	// A payload_size cut inside its UVarInt asks for one more byte.
	big := frame(make([]byte, 200))
	_, _, need, err := ParseHeader(big[:2])
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Equal(t, 3, need)
}

func TestParseHeaderErrors(t *testing.T) {
	with := func(i int, b []byte) []byte {
		p := examplePayload()
		p[i] = b
		return frame(p...)
	}
	good := frame(examplePayload()...)
	tests := []struct {
		name  string
		in    []byte
		field string // HeaderError.Field and the message's start
		msg   string // more of the message
		eof   bool
	}{
		{"empty", nil, "marker", "missing", true},
		{"wrong marker", []byte{0x05, 0x01, 0x02}, "marker", "0x05 is not 0x06", false},
		{"payload_size 0", []byte{0x06, 0x00}, "payload_size", "payload_size 0 is outside 1..1048576", false},
		{"payload_size over 1 MiB", append([]byte{0x06}, wUvarint(1<<20+1)...), "payload_size", "1048577 is outside", false},
		{"payload_size cut", []byte{0x06, 0x80, 0x80}, "payload_size", "ends after 2 bytes", true},
		{"payload_size overlong", []byte{0x06, 0x81, 0x00, 2}, "payload_size", "shortest", false},
		{"payload_size 6 bytes", []byte{0x06, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, "payload_size", "overflows", false},
		{"payload_size over 32 bits", []byte{0x06, 0xff, 0xff, 0xff, 0xff, 0x7f}, "payload_size", "overflows", false},
		{"truncated payload", good[:50], "payload", "truncated: payload_size 101, only 48 bytes", true},
		{"version 0", with(0, []byte{0}), "header_version", "0 is not supported", false},
		{"version 4", with(0, []byte{4}), "header_version", "4 is not supported", false},
		{"string past payload", with(1, wString(100, "test-aead-provider")), "provider_id", "length 100 exceeds the", false},
		{"negative string length", with(2, wString(-5, "")), "profile_id", "length -5 is negative", false},
		{"null string", with(3, wString(-1, "")), "key_id", "is null", false},
		{"string length cut", frame([]byte{2}, []byte{0x80}), "provider_id", "runs past the end", false},
		{"string length overlong", with(4, []byte{0x82, 0x00, '1'}), "key_version", "shortest", false},
		{"file id past payload", with(5, wBytes(make([]byte, 500))[:3]), "file_crypto_id", "exceeds the", false},
		{"wrapped key past payload", with(6, []byte{0x19, 1, 2}), "wrapped_data_key", "length 25 exceeds the 2 remaining", false},
		{"trailing bytes", frame(append(examplePayload(), []byte{0, 0})...), "payload", "2 trailing bytes", false},
		{"blank provider_id", with(1, wStr("")), "provider_id", "blank", false},
		{"whitespace provider_id", with(1, wStr(" \t")), "provider_id", "blank", false},
		{"blank profile_id", with(2, wStr("  ")), "profile_id", "blank", false},
		{"blank key_id", with(3, wStr("\n")), "key_id", "blank", false},
		{"blank key_version", with(4, wStr("\u3000")), "key_version", "blank", false},
		{"invalid UTF-8 key_id", with(3, wStr("k\xff")), "key_id", "UTF-8", false},
		{"8-byte file id", with(5, wBytes(make([]byte, 8))), "file_crypto_id", "length 8, want 16", false},
		{"empty wrapped key", with(6, wBytes(nil)), "wrapped_data_key", "is empty", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, n, need, err := ParseHeader(tt.in)
			require.Error(t, err)
			assert.Nil(t, h)
			assert.Zero(t, n)
			assert.ErrorIs(t, err, ErrMalformedHeader)
			assert.Equal(t, tt.eof, errors.Is(err, io.ErrUnexpectedEOF), "io.ErrUnexpectedEOF")
			assert.Equal(t, tt.eof, need > 0, "need %d", need)
			var he *HeaderError
			require.ErrorAs(t, err, &he)
			assert.Equal(t, tt.field, he.Field)
			msg := err.Error()
			assert.True(t, strings.HasPrefix(msg, "aead: encryption header at offset 7: "+tt.field), msg)
			assert.Contains(t, msg, tt.msg)
		})
	}
}

// TestParseHeaderOffsets checks that messages give a field's absolute
// file offset: provider_id's length is at 7+3, key_id's at 7+3+19+28.
func TestParseHeaderOffsets(t *testing.T) {
	p := examplePayload()
	p[1] = wStr(" ")
	_, _, _, err := ParseHeader(frame(p...))
	assert.EqualError(t, err, "aead: encryption header at offset 7: provider_id is blank (offset 10)")
	p = examplePayload()
	p[3] = wStr("")
	_, _, _, err = ParseHeader(frame(p...))
	assert.EqualError(t, err, "aead: encryption header at offset 7: key_id is blank (offset 57)")
	_, _, _, err = ParseHeader([]byte{0x06, 0x00})
	assert.EqualError(t, err, "aead: encryption header at offset 7: payload_size 0 is outside 1..1048576 (offset 8)")
}

func TestHeaderValidate(t *testing.T) {
	valid := func() *Header {
		return &Header{Version: 3, ProviderID: "p", ProfileID: ProfileAESGCM128, KeyID: "k", KeyVersion: "1",
			FileCryptoID: make([]byte, 16), WrappedKey: make([]byte, 24)}
	}
	require.NoError(t, valid().Validate())
	tests := []struct {
		name   string
		change func(h *Header)
		field  string
	}{
		{"version 0", func(h *Header) { h.Version = 0 }, "header_version"},
		{"version 4", func(h *Header) { h.Version = 4 }, "header_version"},
		{"blank provider", func(h *Header) { h.ProviderID = " " }, "provider_id"},
		{"blank profile", func(h *Header) { h.ProfileID = "" }, "profile_id"},
		{"blank key id", func(h *Header) { h.KeyID = "\t\r\n" }, "key_id"},
		{"blank key version", func(h *Header) { h.KeyVersion = "" }, "key_version"},
		{"8-byte file id", func(h *Header) { h.FileCryptoID = make([]byte, 8) }, "file_crypto_id"},
		{"nil file id", func(h *Header) { h.FileCryptoID = nil }, "file_crypto_id"},
		{"empty wrapped key", func(h *Header) { h.WrappedKey = nil }, "wrapped_data_key"},
		{"huge wrapped key", func(h *Header) { h.WrappedKey = make([]byte, 1<<20+1) }, "wrapped_data_key"},
		{"payload over 1 MiB", func(h *Header) { h.WrappedKey = make([]byte, 1<<20) }, "payload_size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := valid()
			tt.change(h)
			err := h.Validate()
			require.ErrorIs(t, err, ErrMalformedHeader)
			assert.Contains(t, err.Error(), tt.field)
			var he *HeaderError
			require.ErrorAs(t, err, &he)
			assert.Equal(t, tt.field, he.Field)
			assert.Equal(t, int64(-1), he.Offset)
			out, err := h.AppendBinary([]byte{9})
			assert.ErrorIs(t, err, ErrMalformedHeader)
			assert.Equal(t, []byte{9}, out, "nothing appended")
		})
	}
}

func TestHeaderString(t *testing.T) {
	c := newExampleCipher(t, 2)
	h := c.Header()
	s := h.String()
	for _, want := range []string{"test-aead-provider", ProfileAESGCM128, `"test-key"`, `version "1"`, "version 2", "24 bytes"} {
		assert.Contains(t, s, want)
	}
	assert.NotContains(t, s, hex.EncodeToString(h.WrappedKey))
	assert.NotContains(t, s, hex.EncodeToString(h.WrappedKey[:8]))
	assert.NotContains(t, s, string(h.WrappedKey[:8]))
}

func TestHeaderClone(t *testing.T) {
	c := newExampleCipher(t, 3)
	h := c.Header()
	h.WrappedKey[0] ^= 1
	h.FileCryptoID[0] ^= 1
	assert.NotEqual(t, h.WrappedKey, c.Header().WrappedKey, "Header returns a copy")
	assert.Equal(t, exampleFileID, c.Header().FileCryptoID)
}
