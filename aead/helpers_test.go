package aead

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// exampleFileID is the file crypto id of the PAGE-AEAD §2.5 example.
var exampleFileID = append([]byte{1}, make([]byte, 15)...)

// exampleHeader is the §2.5 worked example: header version 2 of the test
// provider, data key 16 zero bytes, file crypto id 01 00..00. The wrapped
// key is RFC 3394 of the zero key under the test KEK; the spec's authors
// computed it with Python cryptography and so did we while writing this
// test (aes_key_wrap(bytes.fromhex("10325476012345671122334455667700"),
// bytes(16))).
var exampleHeader = "06" + "65" + "02" +
	"24" + hexs("test-aead-provider") +
	"36" + hexs("AES_GCM_128_AES_WRAP_128_V1") +
	"10" + hexs("test-key") +
	"02" + hexs("1") +
	"10" + "01000000000000000000000000000000" +
	"18" + "44f43add07edd1c5fd8c94f13987f6967cc400e05453c38c"

func hexs(s string) string { return hex.EncodeToString([]byte(s)) }

// randBytes is a deterministic Rand: the bytes given, in order, then EOF.
func randBytes(parts ...[]byte) io.Reader {
	return bytes.NewReader(bytes.Join(parts, nil))
}

// newExampleCipher builds the §2.5 file cipher with header version v: test
// provider, all-zero 16-byte data key, file crypto id 01 00..00.
func newExampleCipher(t testing.TB, v byte) *FileCipher {
	t.Helper()
	c, err := NewFileCipher(context.Background(), nil, WriterConfig{
		Provider:      NewTestProvider(),
		ProfileID:     ProfileAESGCM128,
		KeyID:         "test-key",
		KeyVersion:    "1",
		HeaderVersion: v,
		Rand:          randBytes(make([]byte, 16), exampleFileID),
	})
	require.NoError(t, err)
	return c
}

// Independent wire encoders for building test headers by hand.

func wUvarint(v uint32) []byte {
	var b []byte
	for v >= 0x80 {
		b = append(b, byte(v&0x7f|0x80))
		v >>= 7
	}
	return append(b, byte(v))
}

func wString(n int32, s string) []byte {
	return append(wUvarint(uint32(n<<1)^uint32(n>>31)), s...)
}

func wStr(s string) []byte { return wString(int32(len(s)), s) }

func wBytes(b []byte) []byte { return append(wUvarint(uint32(len(b))), b...) }

func frame(payload ...[]byte) []byte {
	p := bytes.Join(payload, nil)
	return append(append([]byte{MarkerEncryptionHeader}, wUvarint(uint32(len(p)))...), p...)
}

// examplePayload returns the §2.5 payload fields, each replaceable.
func examplePayload() [][]byte {
	return [][]byte{
		{2},
		wStr("test-aead-provider"),
		wStr(ProfileAESGCM128),
		wStr("test-key"),
		wStr("1"),
		wBytes(exampleFileID),
		wBytes(mustUnhex("44f43add07edd1c5fd8c94f13987f6967cc400e05453c38c")),
	}
}

func mustUnhex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
