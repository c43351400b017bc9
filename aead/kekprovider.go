package aead

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
)

// Provider ids of the built-in providers.
const (
	// KeyFileProviderID is the id tsarrow writes for files whose KEK comes
	// from a key file or environment variable through a KEKProvider.
	KeyFileProviderID = "tsarrow-kek"

	// TestProviderID is the id of the upstream test provider
	// (PAGE-AEAD §2.5), see NewTestProvider.
	TestProviderID = "test-aead-provider"
)

// kekName names a key-encryption key within a provider.
type kekName struct{ id, version string }

// KEKProvider is a KeyProvider that holds its key-encryption keys in memory
// and wraps data keys with RFC 3394 AES key wrap. Its KEKs come from Add, a
// key file (ParseKEKFile) or an environment variable (KEKProviderFromEnv).
// It is safe for concurrent use; Close wipes the keys.
type KEKProvider struct {
	id     string
	mu     sync.RWMutex
	keys   map[kekName][]byte
	closed bool
}

// NewKEKProvider returns an empty provider reporting id; add keys with Add.
// Use KeyFileProviderID unless files must name another provider.
func NewKEKProvider(id string) *KEKProvider {
	return &KEKProvider{id: id, keys: make(map[kekName][]byte)}
}

// ID returns the provider id given to NewKEKProvider.
func (p *KEKProvider) ID() string { return p.id }

// Add stores a copy of kek under (keyID, keyVersion). The KEK must be 16 or
// 32 bytes, the KEK sizes of the two profiles. Blank labels and a second
// KEK for the same labels are refused: a file names its KEK only by the
// labels, so they must pick exactly one key.
func (p *KEKProvider) Add(keyID, keyVersion string, kek []byte) error {
	if isBlank(keyID) || isBlank(keyVersion) {
		return fmt.Errorf("%w: provider %q: blank key id %q or version %q", ErrKeyFile, p.id, keyID, keyVersion)
	}
	if len(kek) != 16 && len(kek) != 32 {
		return fmt.Errorf("%w: provider %q: KEK for key id %q version %q has %d bytes, want 16 or 32", ErrKeySize, p.id, keyID, keyVersion, len(kek))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return fmt.Errorf("%w: provider %q", ErrClosed, p.id)
	}
	name := kekName{keyID, keyVersion}
	if _, dup := p.keys[name]; dup {
		return fmt.Errorf("%w: provider %q: key id %q version %q is already present", ErrKeyFile, p.id, keyID, keyVersion)
	}
	p.keys[name] = bytes.Clone(kek)
	return nil
}

// kek runs f with the KEK named (keyID, keyVersion) while holding the read
// lock, so Close cannot wipe it mid-use.
func (p *KEKProvider) kek(ctx context.Context, keyID, keyVersion string, f func(kek []byte) ([]byte, error)) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("aead: provider %q: %w", p.id, err)
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		return nil, fmt.Errorf("%w: provider %q", ErrClosed, p.id)
	}
	kek, ok := p.keys[kekName{keyID, keyVersion}]
	if !ok {
		return nil, fmt.Errorf("%w: provider %q has no KEK for key id %q version %q", ErrKeyNotFound, p.id, keyID, keyVersion)
	}
	out, err := f(kek)
	if err != nil {
		return nil, fmt.Errorf("%w (provider %q, key id %q version %q)", err, p.id, keyID, keyVersion)
	}
	return out, nil
}

// UnwrapDataKey unwraps wrapped with the named KEK. It fails with
// ErrKeyNotFound when the provider has no such KEK and with ErrWrongKey
// when that KEK did not wrap these bytes.
func (p *KEKProvider) UnwrapDataKey(ctx context.Context, keyID, keyVersion string, wrapped []byte) ([]byte, error) {
	return p.kek(ctx, keyID, keyVersion, func(kek []byte) ([]byte, error) { return UnwrapKey(kek, wrapped) })
}

// WrapDataKey wraps dataKey with the named KEK, or fails with
// ErrKeyNotFound.
func (p *KEKProvider) WrapDataKey(ctx context.Context, keyID, keyVersion string, dataKey []byte) ([]byte, error) {
	return p.kek(ctx, keyID, keyVersion, func(kek []byte) ([]byte, error) { return WrapKey(kek, dataKey) })
}

// kekSize reports the named KEK's length, so a writer can refuse a KEK
// that does not match the profile's key wrap (AES_WRAP_128 with a 256-bit
// KEK would mislabel the file).
func (p *KEKProvider) kekSize(keyID, keyVersion string) (int, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	k, ok := p.keys[kekName{keyID, keyVersion}]
	return len(k), ok
}

// Close zeroes every KEK the provider holds. Afterwards wrapping,
// unwrapping and Add fail with ErrClosed. Close is idempotent.
func (p *KEKProvider) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range p.keys {
		clear(k)
	}
	p.keys = nil
	p.closed = true
}

// ParseKEKFile returns a provider with id holding the KEKs of a key file.
//
// The key file is UTF-8 text with one KEK per line:
//
//	# comment
//	key_id key_version hex_kek
//
// The three fields are separated by spaces or tabs; hex_kek is the 16- or
// 32-byte KEK in hexadecimal (either case). Blank lines and lines whose
// first non-space character is '#' are ignored, so a key id cannot start
// with '#'. A key id and version pair may appear only once. Errors wrap
// ErrKeyFile (and ErrKeySize for a KEK of the wrong length) and give the
// line number and never quote the line: not even its key id and version,
// since a misformatted line may hold key material in their place.
//
// The file should be readable only by its owner: its keys protect every
// file written with them.
func ParseKEKFile(id string, data []byte) (*KEKProvider, error) {
	return parseKEKText(id, bytes.Split(data, []byte{'\n'}), "key file", "line")
}

// KEKProviderFromEnv returns a provider with id holding the KEKs in the
// environment variable name. The variable holds the key file text of
// ParseKEKFile, with entries separated by newlines or ';', for example
// "main 1 00112233445566778899aabbccddeeff;main 2 ...". Errors name the
// entry number and never quote the entry. An unset or empty variable is an
// error wrapping ErrKeyFile.
//
// Go cannot wipe the process environment's copy of the keys; prefer a key
// file where that matters.
func KEKProviderFromEnv(id, name string) (*KEKProvider, error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return nil, fmt.Errorf("%w: environment variable %s is not set", ErrKeyFile, name)
	}
	text := []byte(v)
	defer clear(text)
	entries := bytes.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == ';' })
	return parseKEKText(id, entries, "environment variable "+name, "entry")
}

// parseKEKText parses key file lines. source and item name the text and
// one line of it in errors ("key file", "line").
func parseKEKText(id string, lines [][]byte, source, item string) (*KEKProvider, error) {
	p := NewKEKProvider(id)
	fail := func(n int, errs []error, format string, args ...any) error {
		p.Close()
		return &keyFileError{msg: fmt.Sprintf("%s: %s %s %d: ", ErrKeyFile, source, item, n) + fmt.Sprintf(format, args...), errs: errs}
	}
	kf := []error{ErrKeyFile}
	first := make(map[kekName]int)
	for i, line := range lines {
		n := i + 1
		f := bytes.Fields(line)
		if len(f) == 0 || f[0][0] == '#' {
			continue
		}
		if len(f) != 3 {
			return nil, fail(n, kf, "has %d fields, want 3 (key_id key_version hex_kek)", len(f))
		}
		name := kekName{string(f[0]), string(f[1])}
		if isBlank(name.id) || isBlank(name.version) {
			// Control characters are not field separators but count as blank.
			return nil, fail(n, kf, "blank key id or version")
		}
		if at, dup := first[name]; dup {
			return nil, fail(n, kf, "repeats the key id and version of %s %d", item, at)
		}
		first[name] = n
		if l := hex.DecodedLen(len(f[2])); len(f[2])%2 == 0 && l != 16 && l != 32 {
			return nil, fail(n, []error{ErrKeyFile, ErrKeySize}, "the KEK has %d bytes, want 16 or 32", l)
		}
		kek := make([]byte, hex.DecodedLen(len(f[2])))
		_, err := hex.Decode(kek, f[2])
		if err != nil {
			// hex's error quotes the offending character: drop it.
			clear(kek)
			return nil, fail(n, kf, "the KEK is not valid hexadecimal")
		}
		err = p.Add(name.id, name.version, kek)
		clear(kek)
		if err != nil {
			return nil, fail(n, []error{ErrKeyFile, err}, "the KEK cannot be added") // unreachable: checked above
		}
	}
	if len(p.keys) == 0 {
		return nil, fmt.Errorf("%w: %s holds no keys", ErrKeyFile, source)
	}
	return p, nil
}

// keyFileError carries a key file message and the sentinels it wraps.
type keyFileError struct {
	msg  string
	errs []error
}

func (e *keyFileError) Error() string   { return e.msg }
func (e *keyFileError) Unwrap() []error { return e.errs }

// testKEK is the fixed KEK of the upstream test provider.
var testKEK = [16]byte{0x10, 0x32, 0x54, 0x76, 0x01, 0x23, 0x45, 0x67, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x00}

// NewTestProvider returns the upstream test provider of PAGE-AEAD §2.5:
// id TestProviderID, one KEK under key id "test-key" version "1", the
// 128-bit KEK 10325476012345671122334455667700. Its KEK is published in
// the upstream sources and here, so it is NOT SECRET: files written with
// it have no confidentiality. Use it only for tests and interoperability
// checks with upstream's test files.
func NewTestProvider() *KEKProvider {
	p := NewKEKProvider(TestProviderID)
	if err := p.Add("test-key", "1", testKEK[:]); err != nil {
		panic(err) // unreachable: the constant KEK is valid
	}
	return p
}
