package aead

import (
	"crypto/aes"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
)

// defaultIV is the RFC 3394 §2.2.3.1 initial value; unwrapping checks that
// it comes back, which is the key wrap's integrity check.
var defaultIV = [8]byte{0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6}

// checkKEK accepts the AES key sizes.
func checkKEK(kek []byte) error {
	switch len(kek) {
	case 16, 24, 32:
		return nil
	}
	return fmt.Errorf("%w: KEK has %d bytes, want 16, 24 or 32", ErrKeySize, len(kek))
}

// WrapKey wraps key under kek with the RFC 3394 AES key wrap and the
// default initial value, the data-key envelope of both profiles. kek must
// be 16, 24 or 32 bytes, key a multiple of 8 bytes and at least 16; the
// result is 8 bytes longer than key.
func WrapKey(kek, key []byte) ([]byte, error) {
	if err := checkKEK(kek); err != nil {
		return nil, err
	}
	if len(key) < 16 || len(key)%8 != 0 {
		return nil, fmt.Errorf("%w: key to wrap has %d bytes, want a multiple of 8 of at least 16", ErrKeySize, len(key))
	}
	// The block keeps its own expanded copy of the KEK, which Go gives no
	// way to wipe; it becomes garbage when this function returns.
	block, err := aes.NewCipher(kek)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeySize, err) // unreachable: the size is checked
	}
	n := len(key) / 8
	out := make([]byte, 8+len(key))
	copy(out[8:], key)
	var b [16]byte // A | R[i], then AES(A | R[i])
	copy(b[:8], defaultIV[:])
	for j := 0; j < 6; j++ {
		for i := 1; i <= n; i++ {
			r := out[8*i : 8*i+8]
			copy(b[8:], r)
			block.Encrypt(b[:], b[:])
			t := uint64(n*j + i)
			binary.BigEndian.PutUint64(b[:8], binary.BigEndian.Uint64(b[:8])^t)
			copy(r, b[8:])
		}
	}
	copy(out[:8], b[:8])
	clear(b[:])
	return out, nil
}

// UnwrapKey reverses WrapKey. A wrapped key that kek did not wrap (or that
// was altered) fails the RFC 3394 integrity check, and the error wraps
// ErrWrongKey; so does a wrapped length no key wrap can produce. Nothing of
// the unwrapped bytes survives a failure. The caller owns the result and
// should zero it after use.
func UnwrapKey(kek, wrapped []byte) ([]byte, error) {
	if err := checkKEK(kek); err != nil {
		return nil, err
	}
	if len(wrapped) < 24 || len(wrapped)%8 != 0 {
		return nil, fmt.Errorf("%w: a wrapped key of %d bytes is no RFC 3394 output (a multiple of 8 of at least 24)", ErrWrongKey, len(wrapped))
	}
	block, err := aes.NewCipher(kek)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKeySize, err) // unreachable: the size is checked
	}
	n := len(wrapped)/8 - 1
	key := make([]byte, 8*n)
	copy(key, wrapped[8:])
	var b [16]byte
	copy(b[:8], wrapped[:8])
	for j := 5; j >= 0; j-- {
		for i := n; i >= 1; i-- {
			r := key[8*(i-1) : 8*i]
			t := uint64(n*j + i)
			binary.BigEndian.PutUint64(b[:8], binary.BigEndian.Uint64(b[:8])^t)
			copy(b[8:], r)
			block.Decrypt(b[:], b[:])
			copy(r, b[8:])
		}
	}
	ok := subtle.ConstantTimeCompare(b[:8], defaultIV[:]) == 1
	clear(b[:])
	if !ok {
		clear(key)
		return nil, fmt.Errorf("%w: RFC 3394 integrity check failed", ErrWrongKey)
	}
	return key, nil
}
