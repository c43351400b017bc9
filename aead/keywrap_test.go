package aead

import (
	"encoding/hex"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// The vectors of RFC 3394 §4.1-4.6, typed in from the RFC text (and
// checked against Python cryptography's aes_key_wrap while writing them).
var rfc3394Vectors = []struct {
	name, kek, key, wrapped string
}{
	{"4.1 128-bit key, 128-bit KEK", "000102030405060708090A0B0C0D0E0F", "00112233445566778899AABBCCDDEEFF",
		"1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5"},
	{"4.2 128-bit key, 192-bit KEK", "000102030405060708090A0B0C0D0E0F1011121314151617", "00112233445566778899AABBCCDDEEFF",
		"96778B25AE6CA435F92B5B97C050AED2468AB8A17AD84E5D"},
	{"4.3 128-bit key, 256-bit KEK", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F", "00112233445566778899AABBCCDDEEFF",
		"64E8C3F9CE0F5BA263E9777905818A2A93C8191E7D6E8AE7"},
	{"4.4 192-bit key, 192-bit KEK", "000102030405060708090A0B0C0D0E0F1011121314151617", "00112233445566778899AABBCCDDEEFF0001020304050607",
		"031D33264E15D33268F24EC260743EDCE1C6C7DDEE725A936BA814915C6762D2"},
	{"4.5 192-bit key, 256-bit KEK", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F", "00112233445566778899AABBCCDDEEFF0001020304050607",
		"A8F9BC1612C68B3FF6E6F4FBE30E71E4769C8B80A32CB8958CD5D17D6B254DA1"},
	{"4.6 256-bit key, 256-bit KEK", "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F", "00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F",
		"28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21"},
}

func TestKeyWrapRFC3394(t *testing.T) {
	for _, v := range rfc3394Vectors {
		t.Run(v.name, func(t *testing.T) {
			kek, key, want := unhex(t, v.kek), unhex(t, v.key), unhex(t, v.wrapped)
			got, err := WrapKey(kek, key)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			back, err := UnwrapKey(kek, want)
			require.NoError(t, err)
			assert.Equal(t, key, back)

			// Another KEK, or any changed bit, fails the integrity check.
			other := append([]byte(nil), kek...)
			other[0] ^= 1
			_, err = UnwrapKey(other, want)
			assert.ErrorIs(t, err, ErrWrongKey)
			for i := range want {
				bad := append([]byte(nil), want...)
				bad[i] ^= 0x80
				_, err = UnwrapKey(kek, bad)
				assert.ErrorIs(t, err, ErrWrongKey, "byte %d", i)
			}
		})
	}
}

func TestKeyWrapSizes(t *testing.T) {
	k16 := make([]byte, 16)
	tests := []struct {
		name      string
		kek, data []byte
		unwrap    bool
		want      error
	}{
		{"wrap KEK 15", make([]byte, 15), k16, false, ErrKeySize},
		{"wrap KEK 0", nil, k16, false, ErrKeySize},
		{"wrap key 8", k16, make([]byte, 8), false, ErrKeySize},
		{"wrap key 20", k16, make([]byte, 20), false, ErrKeySize},
		{"wrap key 0", k16, nil, false, ErrKeySize},
		{"unwrap KEK 33", make([]byte, 33), make([]byte, 24), true, ErrKeySize},
		{"unwrap 16 bytes", k16, make([]byte, 16), true, ErrWrongKey},
		{"unwrap 25 bytes", k16, make([]byte, 25), true, ErrWrongKey},
		{"unwrap empty", k16, nil, true, ErrWrongKey},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.unwrap {
				_, err = UnwrapKey(tt.kek, tt.data)
			} else {
				_, err = WrapKey(tt.kek, tt.data)
			}
			assert.ErrorIs(t, err, tt.want)
		})
	}
}

// FuzzUnwrapKey feeds arbitrary wrapped keys to the unwrapper, which must
// fail cleanly with ErrWrongKey or return a key that wraps back to the
// same bytes.
func FuzzUnwrapKey(f *testing.F) {
	for _, v := range rfc3394Vectors[:3] {
		f.Add(unhex(f, v.wrapped))
	}
	f.Add([]byte{})
	f.Add(make([]byte, 24))
	kek := unhex(f, rfc3394Vectors[0].kek)
	f.Fuzz(func(t *testing.T, wrapped []byte) {
		key, err := UnwrapKey(kek, wrapped)
		if err != nil {
			if !errors.Is(err, ErrWrongKey) {
				t.Fatalf("error %v does not wrap ErrWrongKey", err)
			}
			return
		}
		again, err := WrapKey(kek, key)
		require.NoError(t, err)
		require.Equal(t, wrapped, again)
	})
}
