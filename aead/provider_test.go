package aead

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegistry(t *testing.T) {
	a, b := NewKEKProvider("a"), NewKEKProvider("b")
	r, err := NewRegistry(a, b)
	require.NoError(t, err)
	got, err := r.Lookup("b")
	require.NoError(t, err)
	assert.Same(t, b, got)

	_, err = r.Lookup("kms-7")
	require.ErrorIs(t, err, ErrUnknownProvider)
	assert.Contains(t, err.Error(), `"kms-7"`)

	tests := []struct {
		name string
		ps   []KeyProvider
	}{
		{"duplicate", []KeyProvider{a, NewKEKProvider("a")}},
		{"same provider twice", []KeyProvider{a, a}},
		{"blank id", []KeyProvider{NewKEKProvider("")}},
		{"whitespace id", []KeyProvider{NewKEKProvider(" \t")}},
		{"nil", []KeyProvider{nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRegistry(tt.ps...)
			assert.Nil(t, r)
			assert.ErrorIs(t, err, ErrInvalidProvider)
		})
	}
	err = r.Register(NewKEKProvider("a"))
	assert.ErrorIs(t, err, ErrInvalidProvider)
	assert.Contains(t, err.Error(), `"a"`)

	var zero Registry
	require.NoError(t, zero.Register(a))
	_, err = zero.Lookup("a")
	assert.NoError(t, err)
	var none *Registry
	_, err = none.Lookup("a")
	assert.ErrorIs(t, err, ErrUnknownProvider)
}

func TestLookupProfile(t *testing.T) {
	p, err := LookupProfile(ProfileAESGCM128)
	require.NoError(t, err)
	assert.Equal(t, Profile{ID: ProfileAESGCM128, KeySize: 16, KEKSize: 16, Overhead: 28}, *p)
	p.KeySize = 99 // a copy
	p, err = LookupProfile(ProfileAESGCM128)
	require.NoError(t, err)
	assert.Equal(t, 16, p.KeySize)
	p, err = LookupProfile(ProfileAESGCM256)
	require.NoError(t, err)
	assert.Equal(t, Profile{ID: ProfileAESGCM256, KeySize: 32, KEKSize: 32, Overhead: 28}, *p)
	for _, id := range []string{"", "aes_gcm_128_aes_wrap_128_v1", "AES_GCM_SIV"} {
		_, err = LookupProfile(id)
		assert.ErrorIs(t, err, ErrUnknownProfile, id)
	}
}

const (
	kekA = "00112233445566778899aabbccddeeff"
	kekB = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"
)

func TestParseKEKFile(t *testing.T) {
	text := "# tsarrow key file\n\n  main 1 " + kekA + "\n\tmain\t2\t" + strings.ToUpper(kekB) + "\r\nbackup 1 " + kekB + "  \n   # indented comment\n"
	p, err := ParseKEKFile(KeyFileProviderID, []byte(text))
	require.NoError(t, err)
	assert.Equal(t, KeyFileProviderID, p.ID())
	require.Len(t, p.keys, 3)
	assert.Equal(t, mustUnhex(kekA), p.keys[kekName{"main", "1"}])
	assert.Equal(t, mustUnhex(kekB), p.keys[kekName{"main", "2"}])
	assert.Equal(t, mustUnhex(kekB), p.keys[kekName{"backup", "1"}])

	ctx := context.Background()
	dek := bytes.Repeat([]byte{0x5a}, 32)
	w, err := p.WrapDataKey(ctx, "main", "2", dek)
	require.NoError(t, err)
	k, err := p.UnwrapDataKey(ctx, "main", "2", w)
	require.NoError(t, err)
	assert.Equal(t, dek, k)
	_, err = p.UnwrapDataKey(ctx, "backup", "1", w) // same KEK bytes, other labels: still unwraps
	require.NoError(t, err)
	_, err = p.UnwrapDataKey(ctx, "main", "1", w)
	require.ErrorIs(t, err, ErrWrongKey)
	assert.Contains(t, err.Error(), `key id "main"`)

	_, err = p.UnwrapDataKey(ctx, "main", "3", w)
	require.ErrorIs(t, err, ErrKeyNotFound)
	assert.Contains(t, err.Error(), `key id "main" version "3"`)
	_, err = p.WrapDataKey(ctx, "nokey", "1", dek)
	require.ErrorIs(t, err, ErrKeyNotFound)
	assert.Contains(t, err.Error(), `key id "nokey" version "1"`)
}

func TestParseKEKFileErrors(t *testing.T) {
	tests := []struct {
		name, text string
		says       string
		sizeErr    bool
	}{
		{"empty", "", "no keys", false},
		{"only comments", "# a\n\n   \n", "no keys", false},
		{"two fields", "a 1 " + kekA + "\nb " + kekA + "\n", "line 2: has 2 fields", false},
		{"four fields", "a 1 " + kekA + " extra\n", "line 1: has 4 fields", false},
		{"bad hex", "# c\na 1 " + kekA[:30] + "zz\n", "line 2: the KEK is not valid hexadecimal", false},
		{"odd hex", "a 1 " + kekA + "0\n", "line 1: the KEK", false},
		{"short KEK", "a 1 " + kekA[:30] + "\n", "line 1: the KEK has 15 bytes, want 16 or 32", true},
		{"24-byte KEK", "a 1 " + kekB[:48] + "\n", "has 24 bytes", true},
		{"duplicate", "a 1 " + kekA + "\nb 1 " + kekA + "\na 1 " + kekB + "\n", "line 3: repeats the key id and version of line 1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseKEKFile(KeyFileProviderID, []byte(tt.text))
			assert.Nil(t, p)
			require.ErrorIs(t, err, ErrKeyFile)
			assert.Equal(t, tt.sizeErr, errors.Is(err, ErrKeySize))
			assert.Contains(t, err.Error(), tt.says)
			assertNoSecrets(t, err, kekA, kekB, kekA[:30], kekB[:48])
		})
	}
}

func TestKEKProviderFromEnv(t *testing.T) {
	const name = "TSARROW_TEST_KEKS"
	t.Setenv(name, "main 1 "+kekA+";main 2 "+kekB+"\n# comment;;\nold 1 "+kekA)
	p, err := KEKProviderFromEnv(KeyFileProviderID, name)
	require.NoError(t, err)
	assert.Len(t, p.keys, 3)
	assert.Equal(t, mustUnhex(kekB), p.keys[kekName{"main", "2"}])

	t.Setenv(name, "main 1 "+kekA+";main 2 "+kekA[:20])
	_, err = KEKProviderFromEnv(KeyFileProviderID, name)
	require.ErrorIs(t, err, ErrKeyFile)
	assert.Contains(t, err.Error(), "environment variable "+name+" entry 2")
	assertNoSecrets(t, err, kekA, kekA[:20])

	t.Setenv(name, "")
	_, err = KEKProviderFromEnv(KeyFileProviderID, name)
	assert.ErrorIs(t, err, ErrKeyFile)
	_, err = KEKProviderFromEnv(KeyFileProviderID, "TSARROW_TEST_KEKS_UNSET_8d1f")
	require.ErrorIs(t, err, ErrKeyFile)
	assert.Contains(t, err.Error(), "not set")
}

func TestKEKProviderAdd(t *testing.T) {
	p := NewKEKProvider("x")
	kek := mustUnhex(kekA)
	require.NoError(t, p.Add("k", "1", kek))
	kek[0] ^= 1 // Add copied it
	assert.Equal(t, mustUnhex(kekA), p.keys[kekName{"k", "1"}])
	assert.ErrorIs(t, p.Add("k", "1", kek), ErrKeyFile, "duplicate")
	assert.ErrorIs(t, p.Add(" ", "1", kek), ErrKeyFile, "blank id")
	assert.ErrorIs(t, p.Add("k", "", kek), ErrKeyFile, "blank version")
	for _, n := range []int{0, 15, 24, 33} {
		assert.ErrorIs(t, p.Add("k", fmt.Sprint(n), make([]byte, n)), ErrKeySize, "%d bytes", n)
	}
}

func TestKEKProviderClose(t *testing.T) {
	p, err := ParseKEKFile(KeyFileProviderID, []byte("a 1 "+kekA+"\nb 1 "+kekB))
	require.NoError(t, err)
	held := [][]byte{p.keys[kekName{"a", "1"}], p.keys[kekName{"b", "1"}]}
	ctx := context.Background()
	w, err := p.WrapDataKey(ctx, "a", "1", make([]byte, 16))
	require.NoError(t, err)
	p.Close()
	for _, k := range held {
		assert.Equal(t, make([]byte, len(k)), k, "KEK zeroed")
	}
	_, err = p.UnwrapDataKey(ctx, "a", "1", w)
	assert.ErrorIs(t, err, ErrClosed)
	_, err = p.WrapDataKey(ctx, "a", "1", make([]byte, 16))
	assert.ErrorIs(t, err, ErrClosed)
	assert.ErrorIs(t, p.Add("c", "1", make([]byte, 16)), ErrClosed)
	p.Close() // idempotent
}

func TestTestProvider(t *testing.T) {
	p := NewTestProvider()
	assert.Equal(t, TestProviderID, p.ID())
	w, err := p.WrapDataKey(context.Background(), "test-key", "1", make([]byte, 16))
	require.NoError(t, err)
	assert.Equal(t, "44f43add07edd1c5fd8c94f13987f6967cc400e05453c38c", hex.EncodeToString(w))
}

// assertNoSecrets checks that err's message quotes none of the secrets,
// in hex of either case or raw.
func assertNoSecrets(t *testing.T, err error, secrets ...string) {
	t.Helper()
	msg := err.Error()
	for _, s := range secrets {
		assert.NotContains(t, strings.ToLower(msg), strings.ToLower(s))
		if raw, herr := hex.DecodeString(s); herr == nil && len(raw) >= 4 {
			assert.NotContains(t, msg, string(raw))
			assert.NotContains(t, msg, fmt.Sprint(raw))
			assert.NotContains(t, msg, fmt.Sprintf("%x", raw[:4]))
		}
	}
}

// TestErrorsHideKeys gathers the errors of every key-handling failure path
// and checks that none quotes a KEK or data key.
func TestErrorsHideKeys(t *testing.T) {
	ctx := context.Background()
	kek := "8899aabbccddeeff0011223344556677"
	dek := "0f1e2d3c4b5a69788796a5b4c3d2e1f0"
	p := NewKEKProvider(KeyFileProviderID)
	require.NoError(t, p.Add("k", "1", mustUnhex(kek)))
	reg, err := NewRegistry(p)
	require.NoError(t, err)
	c, err := NewFileCipher(ctx, reg, WriterConfig{ProviderID: KeyFileProviderID, ProfileID: ProfileAESGCM128,
		KeyID: "k", KeyVersion: "1", Rand: randBytes(mustUnhex(dek), exampleFileID)})
	require.NoError(t, err)
	h := c.Header()
	body, err := c.SealPage(nil, []byte("secret page"), 0, 0, 11)
	require.NoError(t, err)

	var errs []error
	add := func(_ any, err error) { require.Error(t, err); errs = append(errs, err) }
	add(c.OpenPage(nil, body[:10], 0, 0, 11))
	body[20] ^= 1
	add(c.OpenPage(nil, body, 0, 0, 11))
	add(nil, c.VerifyChunk(make([]byte, 28), exampleChunk()))
	add(p.UnwrapDataKey(ctx, "k", "1", append(bytes.Clone(h.WrappedKey[:16]), h.WrappedKey[:8]...)))
	add(p.UnwrapDataKey(ctx, "k", "2", h.WrappedKey))
	add(UnwrapKey(mustUnhex(kek)[:15], h.WrappedKey))
	add(WrapKey(mustUnhex(kek), mustUnhex(dek)[:9]))
	bad := h.Clone()
	bad.WrappedKey[0] ^= 1
	add(OpenFileCipher(ctx, reg, bad))
	bad = h.Clone()
	bad.KeyVersion = "7"
	add(OpenFileCipher(ctx, reg, bad))
	add(ParseKEKFile("x", []byte("k 1 "+kek[:31]+"g")))
	add(ParseKEKFile("x", []byte("k 1 "+kek+dek[:8])))
	add(ParseKEKFile("x", []byte("k 1 "+kek+"\nk 1 "+dek)))
	add(ParseKEKFile("x", []byte("k "+kek)))
	add(ParseKEKFile("x", []byte(kek[:16]+" "+kek[16:]+" zz")))
	require.NoError(t, c.Close())
	add(c.SealPage(nil, nil, 0, 0, 0))
	for _, err := range errs {
		assertNoSecrets(t, err, kek, dek, hex.EncodeToString(h.WrappedKey))
	}
	assert.NotContains(t, h.String(), hex.EncodeToString(h.WrappedKey))
}
