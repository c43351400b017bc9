package aead

// This file reads (and, for tests and optional writers, produces) the legacy
// page encryption of TsFile v4, described in
// shared/spec/FileFormat/DataPages/Encryption.md. It is unrelated to Page
// AEAD: the legacy scheme has no header, no nonce and no tag, and it is kept
// only so that files written by the Java reference implementation stay
// readable.
//
// The reference behaviour reproduced here (apache/tsfile, Java package
// org.apache.tsfile.encrypt and TsFileMetadata.deserializeFrom):
//
//   - AES128 is AES-128 in CTR mode with no padding, and the initial counter
//     block (the IV) is the 16-byte data key itself. Every page body is one
//     independent CTR stream that starts again at that IV, so the ciphertext
//     has exactly the length of the plaintext and any length is allowed.
//   - encryptKey is the data key as comma-separated signed decimal bytes
//     ("43,126,-82,...").
//   - At level 2 those bytes are the data key wrapped by a master key; Java
//     unwraps them with the configured algorithm, which for AES128 is the
//     same CTR construction under the master key (IV = master key).

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/pbkdf2"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
)

// Sentinel errors of the legacy scheme. Like every error of this package,
// their messages and the messages that wrap them never contain key bytes.
var (
	// ErrLegacyProperties means the encryptLevel/encryptType/encryptKey
	// footer properties are inconsistent: an unknown level, or a level that
	// needs encryption without a type or without a non-empty key. Encryption.md forbids reading
	// such pages as plaintext, so this is an error, not a fallback.
	ErrLegacyProperties = errors.New("aead: malformed legacy encryption properties")

	// ErrLegacyKey means the legacy data key cannot be obtained or used:
	// the encryptKey text is malformed or decodes to the wrong length, a level 2 file was
	// opened without a master-key unwrap, the unwrap failed, or the scheme
	// was already closed.
	ErrLegacyKey = errors.New("aead: legacy encryption key unavailable")

	// ErrUnsupportedCipher means encryptType names an algorithm this
	// package does not implement (SM4, or a type it does not know). The
	// pages cannot be decrypted; they must not be read as plaintext.
	ErrUnsupportedCipher = errors.New("aead: unsupported legacy cipher")
)

// Footer property keys of the legacy scheme, as written by the Java
// TsFileIOWriter into the TsFileMetadata property map.
const (
	LegacyPropLevel = "encryptLevel"
	LegacyPropType  = "encryptType"
	LegacyPropKey   = "encryptKey"
)

// encryptType values. Java releases up to 2024 wrote the enum names
// (EncryptionType.getExtension); later ones write the implementing class
// name, and map a bare name X to "org.apache.tsfile.encrypt."+X. Both
// spellings are accepted.
const (
	// LegacyTypeAES128 is the class name current writers store for AES-128.
	LegacyTypeAES128 = "org.apache.tsfile.encrypt.AES128"
	// LegacyTypeUnencrypted is the class name of the no-op algorithm.
	LegacyTypeUnencrypted = "org.apache.tsfile.encrypt.UNENCRYPTED"
	// LegacyLevelPageAEAD is the encryptLevel a Page AEAD file carries so
	// that readers which do not know Page AEAD refuse it. The Java
	// reader's TsFileMetadata.deserializeFrom (apache/tsfile) accepts
	// only "0", "1" and "2" and throws EncryptException "Unsupported
	// encryptLevel: PageAEAD" for anything else, before any row is read;
	// with the draft's "0" a reader without Page AEAD decodes sealed
	// pages as plaintext (0 rows and no error for header version 1).
	// Readers that know Page AEAD take the header at offset 7 and ignore
	// the footer properties (PAGE-AEAD.md 2.4); ParseLegacy refuses the
	// value, so a file whose header was stripped does not read either.
	LegacyLevelPageAEAD = "PageAEAD"

	legacyTypeAES128Short      = "AES128"
	legacyTypeUnencryptedShort = "UNENCRYPTED"
	legacyTypeSM4Short         = "SM4128"
	legacyTypeSM4              = "org.apache.tsfile.encrypt.SM4128"
)

// legacyKeySize is the only data key length the reference accepts (its
// AES128 and SM4128 constructors reject anything else).
const legacyKeySize = 16

// LegacyUnwrapFunc turns the wrapped data key stored at level 2 (the bytes
// decoded from encryptKey) into the 16-byte data key. It stands for the
// external master key, which the file format deliberately leaves out of the
// file. Ownership of the returned slice passes to ParseLegacy, which copies
// it and then overwrites it with zeros, so return a fresh slice.
type LegacyUnwrapFunc func(wrapped []byte) ([]byte, error)

// LegacyProperties are the three footer property values that describe
// legacy encryption. The Has fields say whether a property is present: a
// property may be missing entirely, and a value stored with the null length
// marker (varint -1, which Java writes for a null String) must be passed as
// absent too, because Java reads it back as null.
type LegacyProperties struct {
	Level, Type, Key          []byte
	HasLevel, HasType, HasKey bool
}

// LegacyScheme is the page encryption named by the footer properties of
// Encryption.md, ready to decrypt page bodies. It holds the data key, so
// call Close when the file is closed. Decrypt and Encrypt may be called
// concurrently; Close must not run concurrently with them.
type LegacyScheme struct {
	// Level is the encryptLevel property, 1 or 2: it tells whether the key
	// came straight from the file or through a master-key unwrap.
	Level int
	// Type is the encryptType property exactly as stored, kept for
	// messages and for writers that must reproduce it.
	Type string

	key    [legacyKeySize]byte // data key; also the CTR IV
	block  cipher.Block
	closed bool
}

// ParseLegacy interprets the legacy encryption properties of one file.
//
// An absent encryptLevel means "0", as in the Java reader. Level 0, or an
// UNENCRYPTED type at level 1 or 2, returns (nil, nil): the pages are stored
// in the clear. Levels 1 and 2 need a type and a non-empty key. Level 1 reads
// the data key from the key text. Level 2 decodes the wrapped key from the
// text and passes it to unwrap; a nil unwrap is an ErrLegacyKey error
// saying the file needs a master key. SM4 and unknown types return an error
// wrapping ErrUnsupportedCipher that names the type. Any other level is an
// ErrLegacyProperties error: Encryption.md forbids guessing.
func ParseLegacy(p LegacyProperties, unwrap LegacyUnwrapFunc) (*LegacyScheme, error) {
	level := 0
	if p.HasLevel {
		switch string(p.Level) { // exact match, as Java's String.equals
		case "0":
			level = 0
		case "1":
			level = 1
		case "2":
			level = 2
		case LegacyLevelPageAEAD:
			// Only a Page AEAD writer stores it, and a reader only
			// looks at these properties when the file has no header.
			return nil, fmt.Errorf("%w: %s %s marks a Page AEAD file, but the file has no FileEncryptionHeader at offset 7: the header was removed or damaged; restore the file from a copy", ErrLegacyProperties, LegacyPropLevel, legacyQuote(p.Level))
		default:
			return nil, fmt.Errorf("%w: unknown %s %s", ErrLegacyProperties, LegacyPropLevel, legacyQuote(p.Level))
		}
	}
	if level == 0 {
		// Java overwrites encryptType and encryptKey at level 0.
		return nil, nil
	}
	if !p.HasType {
		return nil, fmt.Errorf("%w: %s is %d but %s is missing", ErrLegacyProperties, LegacyPropLevel, level, LegacyPropType)
	}
	if !p.HasKey || len(p.Key) == 0 {
		return nil, fmt.Errorf("%w: %s is %d but %s is missing or empty", ErrLegacyProperties, LegacyPropLevel, level, LegacyPropKey)
	}
	typ := string(p.Type)
	switch typ {
	case LegacyTypeUnencrypted, legacyTypeUnencryptedShort:
		return nil, nil
	case LegacyTypeAES128, legacyTypeAES128Short:
	case legacyTypeSM4, legacyTypeSM4Short:
		return nil, fmt.Errorf("%w: %s %s is SM4-128, which is not supported; re-encrypt the file with AES128 or write it unencrypted",
			ErrUnsupportedCipher, LegacyPropType, legacyQuote(p.Type))
	default:
		return nil, fmt.Errorf("%w: unknown %s %s", ErrUnsupportedCipher, LegacyPropType, legacyQuote(p.Type))
	}

	var stored [legacyKeySize]byte
	defer clear(stored[:])
	if err := parseLegacyKeyText(&stored, p.Key); err != nil {
		return nil, err
	}
	s := &LegacyScheme{Level: level, Type: typ}
	switch level {
	case 1:
		s.key = stored
	case 2:
		if unwrap == nil {
			return nil, fmt.Errorf("%w: %s 2 needs a master key to unwrap the data key, and none was configured", ErrLegacyKey, LegacyPropLevel)
		}
		plain, err := unwrap(stored[:])
		if err != nil {
			clear(plain)
			return nil, fmt.Errorf("%w: master-key unwrap failed: %w", ErrLegacyKey, err)
		}
		n := len(plain)
		copy(s.key[:], plain)
		clear(plain)
		if n != legacyKeySize {
			s.Close()
			return nil, fmt.Errorf("%w: unwrapped data key has %d bytes, need %d", ErrLegacyKey, n, legacyKeySize)
		}
	}
	block, err := aes.NewCipher(s.key[:])
	if err != nil { // cannot happen for 16 bytes; never print the key
		s.Close()
		return nil, fmt.Errorf("%w: AES key setup failed", ErrLegacyKey)
	}
	s.block = block
	return s, nil
}

// Decrypt appends the plaintext of one page's stored bytes (the compressed
// page body, compressed_size bytes) to dst and returns the extended slice.
// The plaintext has exactly len(src) bytes. The legacy scheme has no
// authentication: a wrong key or altered bytes give wrong plaintext, not an
// error, and only decompression or decoding may notice. src may be
// decrypted in place by passing src[:0] as dst; otherwise the appended
// region must not overlap src.
func (s *LegacyScheme) Decrypt(dst, src []byte) ([]byte, error) {
	return s.xor(dst, src)
}

// Encrypt appends the stored form of one compressed page body to dst, the
// writer side of Decrypt, so tests and writers can produce files the Java
// reader accepts. Every page restarts the same key stream (IV = key), as the
// reference does, so the legacy scheme must not be used for new files that
// need confidentiality; use Page AEAD instead.
func (s *LegacyScheme) Encrypt(dst, src []byte) ([]byte, error) {
	return s.xor(dst, src)
}

// xor applies the page key stream: CTR mode is its own inverse.
func (s *LegacyScheme) xor(dst, src []byte) ([]byte, error) {
	if s == nil || s.closed || s.block == nil {
		return dst, fmt.Errorf("%w: legacy scheme is nil or closed", ErrLegacyKey)
	}
	n := len(dst)
	if cap(dst)-n < len(src) {
		grown := make([]byte, n, n+len(src))
		copy(grown, dst)
		dst = grown
	}
	dst = dst[:n+len(src)]
	iv := s.key // IV = data key, fresh for every page
	cipher.NewCTR(s.block, iv[:]).XORKeyStream(dst[n:], src)
	clear(iv[:])
	return dst, nil
}

// Close overwrites the data key with zeros and makes later Decrypt and
// Encrypt calls fail. The expanded AES key schedule inside crypto/aes
// cannot be wiped; it is released to the garbage collector. Close on a nil
// scheme does nothing.
func (s *LegacyScheme) Close() {
	if s == nil {
		return
	}
	clear(s.key[:])
	s.block = nil
	s.closed = true
}

// AppendLegacyKeyText appends the encryptKey text form of key (signed
// decimal bytes separated by commas, as the Java writer produces it) to
// dst. Writers use it for level 1 keys and for level 2 wrapped keys. The
// result is key material at level 1: it is stored in the clear, which is
// why level 1 protects nothing against a reader of the file.
func AppendLegacyKeyText(dst, key []byte) []byte {
	for i, b := range key {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(int8(b)), 10)
	}
	return dst
}

// LegacyAESUnwrap returns the level 2 unwrap the Java reader applies when
// it is configured with the AES128 type and masterKey: the same AES-128-CTR
// construction as the pages, keyed and IV'd with the 16-byte master key
// (the reference default master key is the ASCII text "abcdefghijklmnop").
// The construction is its own inverse, so writers can call the returned
// function to wrap a data key. The function keeps its own copy of
// masterKey; the caller may wipe masterKey afterwards.
func LegacyAESUnwrap(masterKey []byte) (LegacyUnwrapFunc, error) {
	if len(masterKey) != legacyKeySize {
		return nil, fmt.Errorf("%w: master key has %d bytes, need %d", ErrLegacyKey, len(masterKey), legacyKeySize)
	}
	var mk [legacyKeySize]byte
	copy(mk[:], masterKey)
	block, err := aes.NewCipher(mk[:])
	if err != nil {
		return nil, fmt.Errorf("%w: AES key setup failed", ErrLegacyKey)
	}
	return func(wrapped []byte) ([]byte, error) {
		out := make([]byte, len(wrapped))
		cipher.NewCTR(block, mk[:]).XORKeyStream(out, wrapped)
		return out, nil
	}, nil
}

// LegacyMasterKeyFromToken derives a 16-byte master key from a secret token
// the way later Java releases do (EncryptUtils.getEncryptKeyFromToken):
// PBKDF2 with HMAC-SHA256, 1024 iterations. IoTDB passes its hardware code
// as salt. It exists so that a deployment configured with a token can build
// the LegacyAESUnwrap for level 2 files; it is not part of the file format.
// An empty token is rejected (Java substitutes a random or default key,
// which cannot unwrap anything useful).
func LegacyMasterKeyFromToken(token string, salt []byte) ([]byte, error) {
	if token == "" {
		return nil, fmt.Errorf("%w: empty master-key token", ErrLegacyKey)
	}
	k, err := pbkdf2.Key(sha256.New, token, salt, 1024, legacyKeySize)
	if err != nil {
		return nil, fmt.Errorf("%w: token key derivation failed", ErrLegacyKey)
	}
	return k, nil
}

// parseLegacyKeyText decodes Java's key text ("b0,b1,...,b15", each a signed
// decimal byte) into dst. It follows String.split(",") and Byte.parseByte:
// trailing empty fields are ignored, an optional leading '+' or '-' is
// allowed, and values must lie in -128..127. Only ASCII digits are
// accepted. Messages name positions and counts, never the text.
func parseLegacyKeyText(dst *[legacyKeySize]byte, text []byte) error {
	end := len(text)
	for end > 0 && text[end-1] == ',' { // split drops trailing empty fields
		end--
	}
	text = text[:end]
	if len(text) == 0 {
		return fmt.Errorf("%w: %s has no values", ErrLegacyKey, LegacyPropKey)
	}
	n := 0
	for start := 0; start <= len(text); {
		i := start
		for i < len(text) && text[i] != ',' {
			i++
		}
		v, ok := parseJavaByte(text[start:i])
		if !ok {
			return fmt.Errorf("%w: %s value %d is not a signed decimal byte (-128..127)", ErrLegacyKey, LegacyPropKey, n+1)
		}
		if n < legacyKeySize {
			dst[n] = v
		}
		n++
		start = i + 1
	}
	if n != legacyKeySize {
		clear(dst[:])
		return fmt.Errorf("%w: %s holds %d bytes, need %d", ErrLegacyKey, LegacyPropKey, n, legacyKeySize)
	}
	return nil
}

// parseJavaByte parses one field like Byte.parseByte (ASCII digits only).
func parseJavaByte(f []byte) (byte, bool) {
	neg := false
	if len(f) > 0 && (f[0] == '-' || f[0] == '+') {
		neg = f[0] == '-'
		f = f[1:]
	}
	if len(f) == 0 {
		return 0, false
	}
	v := 0
	for _, c := range f {
		if c < '0' || c > '9' {
			return 0, false
		}
		if v <= 128 { // larger values are out of range anyway; stop before overflow
			v = v*10 + int(c-'0')
		}
	}
	if neg {
		v = -v
	}
	if v < -128 || v > 127 {
		return 0, false
	}
	return byte(int8(v)), true
}

// legacyQuote quotes a non-secret property value for an error message,
// truncated so a hostile footer cannot make messages huge.
func legacyQuote(b []byte) string {
	const max = 64
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "..."
	}
	return strconv.Quote(string(b))
}
