package aead

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// examplePageAAD is the 114-byte associated data example of PAGE-AEAD §7:
// test provider labels, file crypto id 01 00..00, ordinal 0, page 0,
// sizes 8/8. Derived independently in Python while writing the test:
// int32 2 | (int32 len | bytes) for the four labels and the file id |
// int64 0 | int32 0 | int32 8 | int32 8.
var examplePageAAD = "00000002" +
	"00000012" + hexs("test-aead-provider") +
	"0000001b" + hexs("AES_GCM_128_AES_WRAP_128_V1") +
	"00000008" + hexs("test-key") +
	"00000001" + hexs("1") +
	"00000010" + "01000000000000000000000000000000" +
	"0000000000000000" + "00000000" + "00000008" + "00000008"

// exampleSealedPage is the §7 sealed page: plaintext 01 03 05 .. 0f under
// the all-zero DEK with nonce 00 01 .. 0b and examplePageAAD, computed with
// Python cryptography's AESGCM(bytes(16)).encrypt(bytes(range(12)), pt, aad).
const exampleSealedPage = "000102030405060708090a0b" + "32de76eb1e8d2029" + "8b13777538bd6622b39cfa75b9632544"

var examplePlain = []byte{1, 3, 5, 7, 9, 11, 13, 15}

func TestPageAADExample(t *testing.T) {
	c := newExampleCipher(t, 2)
	aad := c.PageAAD(nil, 0, 0, 8, 8)
	require.Len(t, aad, 114)
	assert.Equal(t, examplePageAAD, hex.EncodeToString(aad))

	// Version 1: aad_version 1 and no ordinal, 8 bytes shorter.
	v1 := newExampleCipher(t, 1).PageAAD([]byte("x"), 99, 0, 8, 8)
	want := "00000001" + examplePageAAD[8:len(examplePageAAD)-40] + "00000000" + "00000008" + "00000008"
	assert.Equal(t, "x", string(v1[:1]))
	assert.Equal(t, want, hex.EncodeToString(v1[1:]))
	assert.Len(t, v1[1:], 106)
}

func TestSealPageExample(t *testing.T) {
	c := newExampleCipher(t, 2)
	nonce := mustUnhex(exampleSealedPage[:24])
	got, err := c.sealPage([]byte("hdr"), examplePlain, nonce, 0, 0, 8)
	require.NoError(t, err)
	assert.Equal(t, "hdr", string(got[:3]))
	assert.Equal(t, exampleSealedPage, hex.EncodeToString(got[3:]))

	plain, err := c.OpenPage(nil, mustUnhex(exampleSealedPage), 0, 0, 8)
	require.NoError(t, err)
	assert.Equal(t, examplePlain, plain)

	// The same vector through a reader-side cipher opened from the bytes.
	h, _, _, err := ParseHeader(mustUnhex(exampleHeader))
	require.NoError(t, err)
	reg, err := NewRegistry(NewTestProvider())
	require.NoError(t, err)
	r, err := OpenFileCipher(context.Background(), reg, h)
	require.NoError(t, err)
	plain, err = r.OpenPage([]byte{0xee}, mustUnhex(exampleSealedPage), 0, 0, 8)
	require.NoError(t, err)
	assert.Equal(t, append([]byte{0xee}, examplePlain...), plain)
}

// TestSealPageAES256Vector pins the proposed 256-bit profile with a vector
// computed in Python: AESGCM(bytes(range(32))).encrypt(bytes(range(12)),
// b"hello page", aad) with provider tsarrow-kek, key main version 7, file
// crypto id aa*16, ordinal 5, page 3, uncompressed_size 100.
func TestSealPageAES256Vector(t *testing.T) {
	p := NewKEKProvider(KeyFileProviderID)
	require.NoError(t, p.Add("main", "7", make([]byte, 32)))
	dek := make([]byte, 32)
	for i := range dek {
		dek[i] = byte(i)
	}
	c, err := NewFileCipher(context.Background(), nil, WriterConfig{Provider: p, ProfileID: ProfileAESGCM256,
		KeyID: "main", KeyVersion: "7", Rand: randBytes(dek, bytes.Repeat([]byte{0xaa}, 16))})
	require.NoError(t, err)
	got, err := c.sealPage(nil, []byte("hello page"), mustUnhex("000102030405060708090a0b"), 5, 3, 100)
	require.NoError(t, err)
	assert.Equal(t, "000102030405060708090a0b"+"2f67ba77aac5b27aea24242a6559adddf11b3d619ccb193c9bcc", hex.EncodeToString(got))
	assert.Len(t, c.Header().WrappedKey, 40)
}

// ciphers returns a writer-side cipher of each profile with header
// version v.
func ciphers(t testing.TB, v byte) map[string]*FileCipher {
	t.Helper()
	out := map[string]*FileCipher{}
	for _, prof := range []string{ProfileAESGCM128, ProfileAESGCM256} {
		p := NewKEKProvider(KeyFileProviderID)
		kek := make([]byte, 16)
		if prof == ProfileAESGCM256 {
			kek = make([]byte, 32)
		}
		_, _ = rand.Read(kek)
		require.NoError(t, p.Add("k", "1", kek))
		c, err := NewFileCipher(context.Background(), nil, WriterConfig{Provider: p, ProfileID: prof, KeyID: "k", KeyVersion: "1", HeaderVersion: v})
		require.NoError(t, err)
		out[prof] = c
	}
	return out
}

func TestSealOpenRoundTrip(t *testing.T) {
	for prof, c := range ciphers(t, 0) {
		t.Run(prof, func(t *testing.T) {
			assert.Equal(t, byte(3), c.Header().Version)
			assert.Equal(t, 28, c.Overhead())
			for _, n := range []int{0, 1, 15, 16, 17, 1000, 65536} {
				plain := make([]byte, n)
				_, _ = rand.Read(plain)
				body, err := c.SealPage(nil, plain, 7, 2, n+5)
				require.NoError(t, err)
				require.Len(t, body, n+c.Overhead())
				got, err := c.OpenPage(nil, body, 7, 2, n+5)
				require.NoError(t, err)
				assert.Equal(t, plain, append([]byte{}, got...))
				// A second seal of the same page uses a new nonce.
				again, err := c.SealPage(nil, plain, 7, 2, n+5)
				require.NoError(t, err)
				assert.NotEqual(t, body[:12], again[:12])
			}
		})
	}
}

func TestOpenPageBitFlips(t *testing.T) {
	for prof, c := range ciphers(t, 2) {
		t.Run(prof, func(t *testing.T) {
			body, err := c.SealPage(nil, []byte("a page of compressed bytes"), 1, 0, 40)
			require.NoError(t, err)
			for i := 0; i < len(body)*8; i++ {
				bad := bytes.Clone(body)
				bad[i/8] ^= 1 << (i % 8)
				_, err := c.OpenPage(nil, bad, 1, 0, 40)
				require.ErrorIs(t, err, ErrAuthentication, "bit %d", i)
			}
			_, err = c.OpenPage(nil, body[:len(body)-1], 1, 0, 40)
			assert.ErrorIs(t, err, ErrAuthentication, "truncated body")
			_, err = c.OpenPage(nil, append(bytes.Clone(body), 0), 1, 0, 40)
			assert.ErrorIs(t, err, ErrAuthentication, "extended body")
		})
	}
}

// TestOpenPageContext changes one element of the page context at a time:
// each is bound into the associated data.
func TestOpenPageContext(t *testing.T) {
	ctx := context.Background()
	const ordinal, page, usize = int64(4), 3, 100
	c := newExampleCipher(t, 3)
	plain := []byte("compressed page")
	body, err := c.SealPage(nil, plain, ordinal, page, usize)
	require.NoError(t, err)

	// Reader-side ciphers for relabelled headers: the wrapped key still
	// unwraps (the provider ignores the labels it is not keyed by, or is
	// given the same KEK under the new labels), so only the page tag
	// catches the change.
	relabel := func(change func(h *Header)) *FileCipher {
		h := c.Header()
		change(h)
		p := NewKEKProvider(h.ProviderID)
		require.NoError(t, p.Add(h.KeyID, h.KeyVersion, testKEK[:]))
		reg, err := NewRegistry(p)
		require.NoError(t, err)
		if _, err := LookupProfile(h.ProfileID); err != nil {
			// A foreign profile id cannot be opened at all; bind-test it
			// through the associated data instead.
			return nil
		}
		r, err := OpenFileCipher(ctx, reg, h)
		require.NoError(t, err)
		return r
	}
	same := relabel(func(*Header) {})
	got, err := same.OpenPage(nil, body, ordinal, page, usize)
	require.NoError(t, err)
	require.Equal(t, plain, got)

	tests := []struct {
		name    string
		c       *FileCipher
		ordinal int64
		page    int
		usize   int
	}{
		{"ordinal", same, ordinal + 1, page, usize},
		{"page index", same, ordinal, page + 1, usize},
		{"uncompressed size", same, ordinal, page, usize - 1},
		{"file crypto id", relabel(func(h *Header) { h.FileCryptoID[15] ^= 1 }), ordinal, page, usize},
		{"provider id", relabel(func(h *Header) { h.ProviderID = "other" }), ordinal, page, usize},
		{"key id", relabel(func(h *Header) { h.KeyID = "test-key2" }), ordinal, page, usize},
		{"key version", relabel(func(h *Header) { h.KeyVersion = "2" }), ordinal, page, usize},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.c.OpenPage(nil, body, tt.ordinal, tt.page, tt.usize)
			assert.ErrorIs(t, err, ErrAuthentication)
		})
	}
	t.Run("compressed size", func(t *testing.T) {
		// The plaintext size is bound: a body sealed for 15 bytes and cut
		// to claim fewer fails even with the tag moved along.
		cut := append(bytes.Clone(body[:len(body)-17]), body[len(body)-16:]...)
		_, err := same.OpenPage(nil, cut, ordinal, page, usize)
		assert.ErrorIs(t, err, ErrAuthentication)
	})
	t.Run("profile id", func(t *testing.T) {
		// A 256-bit file cannot open 128-bit pages; the profile label also
		// differs in the associated data.
		h := c.Header()
		h.ProfileID = ProfileAESGCM256
		assert.NotEqual(t, c.PageAAD(nil, ordinal, page, usize, len(plain)), func() []byte {
			f, err := newFileCipher(h, &profiles[1], make([]byte, 32))
			require.NoError(t, err)
			return f.PageAAD(nil, ordinal, page, usize, len(plain))
		}())
	})
	t.Run("another file", func(t *testing.T) {
		other := newExampleCipher(t, 3) // same DEK and labels, same file id: same file
		_, err := other.OpenPage(nil, body, ordinal, page, usize)
		require.NoError(t, err)
		for _, f := range ciphers(t, 3) {
			_, err := f.OpenPage(nil, body, ordinal, page, usize)
			assert.ErrorIs(t, err, ErrAuthentication)
		}
	})
}

// TestAADVersion1HasNoOrdinal: under AAD v1 two chunks' pages with equal
// index and sizes are interchangeable (the gap v2 closed); under v2 not.
func TestAADVersion1HasNoOrdinal(t *testing.T) {
	for _, tt := range []struct {
		v    byte
		open bool
	}{{1, true}, {2, false}, {3, false}} {
		t.Run(fmt.Sprint("version ", tt.v), func(t *testing.T) {
			c := newExampleCipher(t, tt.v)
			a, err := c.SealPage(nil, []byte("page"), 0, 0, 4)
			require.NoError(t, err)
			b, err := c.SealPage(nil, []byte("page"), 1, 0, 4)
			require.NoError(t, err)
			_, errA := c.OpenPage(nil, a, 1, 0, 4)
			_, errB := c.OpenPage(nil, b, 0, 0, 4)
			if tt.open {
				assert.NoError(t, errA)
				assert.NoError(t, errB)
			} else {
				assert.ErrorIs(t, errA, ErrAuthentication)
				assert.ErrorIs(t, errB, ErrAuthentication)
			}
		})
	}
}

func TestOpenPageTooShort(t *testing.T) {
	c := newExampleCipher(t, 2)
	for _, n := range []int{0, 1, 12, 27} {
		_, err := c.OpenPage(nil, make([]byte, n), 0, 0, 8)
		assert.ErrorIs(t, err, ErrBodyTooShort, "%d bytes", n)
		assert.NotErrorIs(t, err, ErrAuthentication)
	}
	_, err := c.OpenPage(nil, make([]byte, 28), 0, 0, 0)
	assert.ErrorIs(t, err, ErrAuthentication, "28 bytes is long enough to be checked")
}

func TestPageInvalidContext(t *testing.T) {
	c := newExampleCipher(t, 2)
	tests := []struct {
		name    string
		ordinal int64
		page    int
		usize   int
	}{
		{"negative ordinal", -1, 0, 1},
		{"negative page index", 0, -1, 1},
		{"negative uncompressed size", 0, 0, -1},
		{"page index over int32", 0, math.MaxInt32 + 1, 1},
		{"uncompressed size over int32", 0, 0, math.MaxInt32 + 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.SealPage(nil, []byte("x"), tt.ordinal, tt.page, tt.usize)
			assert.ErrorIs(t, err, ErrInvalidContext)
			_, err = c.OpenPage(nil, make([]byte, 40), tt.ordinal, tt.page, tt.usize)
			assert.ErrorIs(t, err, ErrInvalidContext)
			_, err = c.OpenPage(nil, make([]byte, 4), tt.ordinal, tt.page, tt.usize)
			assert.ErrorIs(t, err, ErrInvalidContext, "context is checked before the body length")
		})
	}
}

func TestFileCipherClose(t *testing.T) {
	c := newExampleCipher(t, 3)
	body, err := c.SealPage(nil, []byte("x"), 0, 0, 1)
	require.NoError(t, err)
	key := c.state.Load().key
	require.Len(t, key, 16)
	key[0] = 0xff // the example DEK is all zero: make the check meaningful
	require.NoError(t, c.Close())
	assert.Equal(t, make([]byte, 16), key, "DEK zeroed")

	id := &ChunkIdentity{Measurement: "s"}
	_, err = c.SealPage(nil, []byte("x"), 0, 0, 1)
	assert.ErrorIs(t, err, ErrClosed)
	_, err = c.OpenPage(nil, body, 0, 0, 1)
	assert.ErrorIs(t, err, ErrClosed)
	_, err = c.AuthenticateChunk(nil, id)
	assert.ErrorIs(t, err, ErrClosed)
	assert.ErrorIs(t, c.VerifyChunk(make([]byte, 28), id), ErrClosed)
	assert.ErrorIs(t, c.Close(), ErrClosed)
	// Key-free accessors still work.
	assert.Equal(t, 28, c.Overhead())
	assert.Len(t, c.PageAAD(nil, 0, 0, 1, 1), 114)
	assert.Equal(t, exampleFileID, c.Header().FileCryptoID)
}

func TestOpenFileCipherErrors(t *testing.T) {
	ctx := context.Background()
	reg, err := NewRegistry(NewTestProvider())
	require.NoError(t, err)
	good, _, _, err := ParseHeader(mustUnhex(exampleHeader))
	require.NoError(t, err)

	tests := []struct {
		name   string
		reg    *Registry
		change func(h *Header)
		want   error
		says   []string
	}{
		{"nil registry", nil, func(*Header) {}, ErrUnknownProvider, []string{`"test-aead-provider"`}},
		{"unknown provider", reg, func(h *Header) { h.ProviderID = "kms-x" }, ErrUnknownProvider, []string{`"kms-x"`}},
		{"unknown profile", reg, func(h *Header) { h.ProfileID = "CHACHA" }, ErrUnknownProfile, []string{`"CHACHA"`}},
		{"unknown key id", reg, func(h *Header) { h.KeyID = "other" }, ErrKeyNotFound, []string{`"other"`, `version "1"`}},
		{"unknown key version", reg, func(h *Header) { h.KeyVersion = "9" }, ErrKeyNotFound, []string{`"test-key"`, `version "9"`}},
		{"wrapped key changed", reg, func(h *Header) { h.WrappedKey[3] ^= 1 }, ErrWrongKey, []string{`"test-key"`}},
		{"wrapped key not a wrap", reg, func(h *Header) { h.WrappedKey = h.WrappedKey[:20] }, ErrWrongKey, nil},
		{"256-bit profile, 128-bit key", reg, func(h *Header) { h.ProfileID = ProfileAESGCM256 }, ErrWrongKey, []string{"16-byte", "needs 32"}},
		{"invalid header", reg, func(h *Header) { h.Version = 9 }, ErrMalformedHeader, []string{"header_version"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := good.Clone()
			tt.change(h)
			c, err := OpenFileCipher(ctx, tt.reg, h)
			assert.Nil(t, c)
			require.ErrorIs(t, err, tt.want)
			for _, s := range tt.says {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
	_, err = OpenFileCipher(ctx, reg, nil)
	assert.ErrorIs(t, err, ErrMalformedHeader)

	// Another KEK under the same labels: the wrap's integrity check fails.
	p := NewKEKProvider(TestProviderID)
	require.NoError(t, p.Add("test-key", "1", bytes.Repeat([]byte{1}, 16)))
	other, err := NewRegistry(p)
	require.NoError(t, err)
	_, err = OpenFileCipher(ctx, other, good)
	assert.ErrorIs(t, err, ErrWrongKey)
	assert.Contains(t, err.Error(), `"test-key"`)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = OpenFileCipher(cancelled, reg, good)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestNewFileCipherConfig(t *testing.T) {
	ctx := context.Background()
	reg, err := NewRegistry(NewTestProvider())
	require.NoError(t, err)
	base := WriterConfig{ProviderID: TestProviderID, ProfileID: ProfileAESGCM128, KeyID: "test-key", KeyVersion: "1"}

	c, err := NewFileCipher(ctx, reg, base)
	require.NoError(t, err)
	h := c.Header()
	assert.Equal(t, byte(3), h.Version)
	assert.NotEqual(t, make([]byte, 16), h.FileCryptoID, "random file id")
	assert.Len(t, h.WrappedKey, 24)
	// A reader with the same registry opens what the writer sealed.
	body, err := c.SealPage(nil, []byte("abc"), 0, 0, 3)
	require.NoError(t, err)
	r, err := OpenFileCipher(ctx, reg, h)
	require.NoError(t, err)
	got, err := r.OpenPage(nil, body, 0, 0, 3)
	require.NoError(t, err)
	assert.Equal(t, "abc", string(got))

	tests := []struct {
		name   string
		change func(cfg *WriterConfig)
		want   error
	}{
		{"unknown provider", func(cfg *WriterConfig) { cfg.ProviderID = "nope" }, ErrUnknownProvider},
		{"provider mismatch", func(cfg *WriterConfig) { cfg.Provider = NewKEKProvider("x") }, ErrInvalidProvider},
		{"no profile", func(cfg *WriterConfig) { cfg.ProfileID = "" }, ErrUnknownProfile},
		{"unknown profile", func(cfg *WriterConfig) { cfg.ProfileID = "AES_GCM_512" }, ErrUnknownProfile},
		{"blank key id", func(cfg *WriterConfig) { cfg.KeyID = " " }, ErrMalformedHeader},
		{"blank key version", func(cfg *WriterConfig) { cfg.KeyVersion = "" }, ErrMalformedHeader},
		{"header version 4", func(cfg *WriterConfig) { cfg.HeaderVersion = 4 }, ErrMalformedHeader},
		{"unknown key", func(cfg *WriterConfig) { cfg.KeyVersion = "2" }, ErrKeyNotFound},
		{"KEK too short for the profile", func(cfg *WriterConfig) { cfg.ProfileID = ProfileAESGCM256 }, ErrKeySize},
		{"short Rand", func(cfg *WriterConfig) { cfg.Rand = randBytes(make([]byte, 20)) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			tt.change(&cfg)
			c, err := NewFileCipher(ctx, reg, cfg)
			assert.Nil(t, c)
			require.Error(t, err)
			if tt.want != nil {
				assert.ErrorIs(t, err, tt.want)
			}
		})
	}
}

// TestFileCipherConcurrent seals and opens from several goroutines at once
// (run with -race to check the shared state).
func TestFileCipherConcurrent(t *testing.T) {
	c := newExampleCipher(t, 3)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				plain := []byte(fmt.Sprint(g, "/", i))
				body, err := c.SealPage(nil, plain, int64(g), i, 10)
				if err != nil {
					t.Error(err)
					return
				}
				got, err := c.OpenPage(nil, body, int64(g), i, 10)
				if err != nil || !bytes.Equal(got, plain) {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestSealPageAllocations checks the hot path allocates nothing when dst
// has room.
func TestSealPageAllocations(t *testing.T) {
	c := newExampleCipher(t, 3)
	plain := make([]byte, 4096)
	sealed := make([]byte, 0, len(plain)+28)
	opened := make([]byte, 0, len(plain))
	body, err := c.SealPage(nil, plain, 1, 1, 4096)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = c.SealPage(sealed[:0], plain, 1, 1, 4096)
		_, _ = c.OpenPage(opened[:0], body, 1, 1, 4096)
	})
	assert.Zero(t, allocs)
}
