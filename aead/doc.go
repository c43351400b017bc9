// Package aead implements Page AEAD, the draft TsFile v4 extension that
// encrypts and authenticates page bodies (shared/spec/PAGE-AEAD.md).
//
// A Page AEAD file carries a FileEncryptionHeader right after the magic and
// version, at file offset 7. The header names a key provider, an algorithm
// profile, the key-encryption key (KEK) by id and version, a random file
// crypto id, and the file's data key (DEK) wrapped under that KEK. No
// plaintext key is ever stored in a file.
//
// The pieces:
//
//   - [Header], [ParseHeader] and [Header.AppendBinary] read and write the
//     header bytes and enforce the validation rules of the spec (§2.4).
//   - [Profile] and [LookupProfile] describe the algorithm suites this
//     package implements: the upstream test profile [ProfileAESGCM128] and
//     the proposed production profile [ProfileAESGCM256].
//   - [KeyProvider] is what holds KEKs; [Registry] maps the provider ids
//     found in headers to providers. [KEKProvider] is the built-in provider
//     whose KEKs come from a key file or an environment variable, and
//     [NewTestProvider] returns the upstream test provider, whose key is
//     public.
//   - [WrapKey] and [UnwrapKey] implement RFC 3394 AES key wrap.
//   - [FileCipher] is one file's crypto state: [OpenFileCipher] builds it
//     from a parsed header (reading), [NewFileCipher] makes a fresh data key
//     and header (writing). It seals and opens page bodies bound to their
//     associated data (§7) and computes and verifies the proposed chunk
//     authentication (§9) and [MetadataMAC], tsarrow's metadata
//     authentication tag, which the draft does not have.
//   - [LegacyScheme] reads the older footer-property encryption
//     (DataPages/Encryption.md), which Page AEAD replaces.
//
// Every error this package returns wraps one of its sentinel errors, so
// callers can tell a tampered page ([ErrAuthentication]) from a missing key
// ([ErrKeyNotFound]) or a damaged header ([ErrMalformedHeader]) with
// [errors.Is]. No error message and no String method ever contains key
// bytes, plaintext or wrapped.
package aead
