package aead

import "errors"

// Sentinel errors. Every error returned by this package wraps exactly the
// one that fits, so callers can branch with errors.Is while the message
// still says where and why.
var (
	// ErrAuthentication means a page tag or chunk proof did not verify:
	// the bytes were changed, moved, or sealed under another data key. The
	// page or chunk must not be used; there is no plaintext fallback.
	ErrAuthentication = errors.New("aead: authentication failed")

	// ErrMalformedHeader means FileEncryptionHeader bytes, or a Header
	// about to be written, break the rules of PAGE-AEAD §2.4.
	ErrMalformedHeader = errors.New("aead: malformed encryption header")

	// ErrUnknownProvider means no key provider is registered under the id
	// a header names, so its data key cannot be unwrapped.
	ErrUnknownProvider = errors.New("aead: unknown key provider")

	// ErrUnknownProfile means a profile id is not one this package
	// implements; guessing an algorithm suite is never safe.
	ErrUnknownProfile = errors.New("aead: unknown profile")

	// ErrKeyNotFound means the provider holds no key-encryption key for the
	// requested key id and version. Unlike ErrWrongKey this says nothing
	// about the file: the key may simply not have been configured.
	ErrKeyNotFound = errors.New("aead: key not found")

	// ErrWrongKey means a key-encryption key does not unwrap the wrapped
	// data key (the RFC 3394 integrity check failed), or the unwrapped key
	// has the wrong length for the profile.
	ErrWrongKey = errors.New("aead: wrong key")

	// ErrClosed means a FileCipher or KEKProvider was used after Close,
	// which has already wiped its keys.
	ErrClosed = errors.New("aead: closed")

	// ErrBodyTooShort means a sealed page body is shorter than the
	// profile's overhead, so it cannot even hold a nonce and tag. It is a
	// format error found before any cryptography runs
	// (error.encrypt.page_body_too_short upstream).
	ErrBodyTooShort = errors.New("aead: page body shorter than the profile overhead")

	// ErrInvalidContext means a page or chunk context cannot be encoded in
	// associated data: a negative ordinal, index, size or offset, or one
	// that does not fit its int32 field (error.encrypt.page_context_invalid_*
	// upstream).
	ErrInvalidContext = errors.New("aead: invalid page or chunk context")

	// ErrMalformedProof means a chunk authentication has the wrong length
	// for the profile, or the file's header version has no chunk
	// authentication. It is a format error, not a failed verification.
	ErrMalformedProof = errors.New("aead: malformed chunk authentication")

	// ErrInvalidProvider means a key provider cannot be registered: it is
	// nil, its id is blank, or another provider already has its id.
	ErrInvalidProvider = errors.New("aead: invalid key provider")

	// ErrKeySize means a key or key-encryption key has a length the
	// algorithm does not accept. Messages give lengths, never bytes.
	ErrKeySize = errors.New("aead: invalid key size")

	// ErrKeyFile means key file or environment text is not in the format
	// documented at ParseKEKFile. Messages name the line or entry, never
	// the key material on it.
	ErrKeyFile = errors.New("aead: invalid key file")
)
