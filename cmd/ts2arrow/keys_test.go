package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/aead"
	"github.com/tsarrow/tsarrow/tsfile"
)

// Key-encryption keys of the tests: their hex must never be printed.
const (
	kek256 = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"
	kek128 = "0f0e0d0c0b0a09080706050403020100"
)

func writeKeys(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	return p
}

// TestEncryptedRoundTrip writes the sample as Page AEAD through convert,
// then reads it back with every output format: each output equals the
// plaintext sample's byte for byte, with --kek-file and with --kek-env.
func TestEncryptedRoundTrip(t *testing.T) {
	dir := t.TempDir()
	keys := writeKeys(t, dir, "keys.txt", "# sample keys\nprod 3 "+kek256+"\nold 1 "+kek128+"\n")
	enc := filepath.Join(dir, "enc.tsfile")
	code, _, stderr := runCLI("convert", sample, "-o", enc, "--encrypt-key", "prod", "--encrypt-key-version", "3", "--kek-file", keys)
	require.Equal(t, 0, code, stderr)

	t.Setenv("TSARROW_TEST_KEKS", "prod 3 "+kek256)
	for _, format := range []string{"csv", "parquet", "arrow", "jsonl"} {
		plain := filepath.Join(dir, "plain."+format)
		code, _, stderr := runCLI("convert", sample, "-o", plain)
		require.Equal(t, 0, code, stderr)
		want, err := os.ReadFile(plain)
		require.NoError(t, err)
		for _, flags := range [][]string{{"--kek-file", keys}, {"--kek-env", "TSARROW_TEST_KEKS"}} {
			out := filepath.Join(dir, "dec."+format)
			code, _, stderr := runCLI(append([]string{"convert", enc, "-o", out, "--force"}, flags...)...)
			require.Equal(t, 0, code, stderr)
			got, err := os.ReadFile(out)
			require.NoError(t, err)
			require.True(t, bytes.Equal(want, got), "%s output of the encrypted file (%v) differs from the plaintext one", format, flags)
		}
	}
	// The encrypted file shares no page bytes with the plaintext one:
	// a long run of the plaintext CSV's values cannot appear in it.
	b, err := os.ReadFile(enc)
	require.NoError(t, err)
	pb, err := os.ReadFile(sample)
	require.NoError(t, err)
	require.NotContains(t, string(b), string(pb[200:264]))
}

// TestEncryptedErrors: a missing key, a wrong key and an unknown key id
// are one-line errors naming the key id, with exit status 1, that never
// print key material; inspect shows the header without keys.
func TestEncryptedErrors(t *testing.T) {
	dir := t.TempDir()
	keys := writeKeys(t, dir, "keys.txt", "prod 3 "+kek256+"\n")
	enc := filepath.Join(dir, "enc.tsfile")
	code, _, stderr := runCLI("convert", sample, "-o", enc, "--encrypt-key", "prod", "--encrypt-key-version", "3", "--kek-file", keys)
	require.Equal(t, 0, code, stderr)

	wrong := writeKeys(t, dir, "wrong.txt", "prod 3 "+strings.Repeat("ab", 32)+"\n")
	otherVersion := writeKeys(t, dir, "v4.txt", "prod 4 "+kek256+"\n")
	for _, c := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"no key", nil, `key id "prod" version "3"`},
		{"wrong key", []string{"--kek-file", wrong}, `key id "prod"`},
		{"other version", []string{"--kek-file", otherVersion}, `"prod"`},
	} {
		code, stdout, stderr := runCLI(append([]string{"convert", enc, "-o", filepath.Join(dir, "x.csv"), "--force"}, c.flags...)...)
		require.Equal(t, 1, code, c.name)
		require.Empty(t, stdout, c.name)
		require.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "%s: one line: %s", c.name, stderr)
		require.Contains(t, stderr, c.want, c.name)
		for _, secret := range []string{kek256, strings.Repeat("ab", 32), strings.ToUpper(kek256)} {
			require.NotContains(t, stderr, secret, c.name)
		}
		_, err := os.Stat(filepath.Join(dir, "x.csv"))
		require.True(t, os.IsNotExist(err), "%s: nothing is left behind", c.name)
	}

	// inspect without keys: the header and the structure, no values.
	code, stdout, stderr := runCLI("inspect", "--json", enc)
	require.Equal(t, 0, code, stderr)
	var info inspectFile
	require.NoError(t, json.Unmarshal([]byte(stdout), &info))
	require.NotNil(t, info.PageAEAD)
	require.Equal(t, 3, info.PageAEAD.HeaderVersion)
	require.Equal(t, "tsarrow-kek", info.PageAEAD.Provider)
	require.Equal(t, "AES_GCM_256_AES_WRAP_256_V1", info.PageAEAD.Profile)
	require.Equal(t, "prod", info.PageAEAD.KeyID)
	require.Equal(t, "3", info.PageAEAD.KeyVersion)
	require.Contains(t, info.PageAEAD.Locked, "prod")
	require.Equal(t, "unchecked", info.PageAEAD.MetadataAuth, "the tag is there but needs the key")
	require.Positive(t, info.Chunks)

	// With the key: not locked, and still no key bytes anywhere, neither
	// the KEK nor the wrapped data key.
	code, stdout, stderr = runCLI("inspect", "--kek-file", keys, enc)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "Page AEAD (AES_GCM_256_AES_WRAP_256_V1)")
	require.Contains(t, stdout, `id "prod" version "3"`)
	require.NotContains(t, stdout, "locked:")
	require.Contains(t, stdout, "metadata:  authenticated")
	b, err := os.ReadFile(enc)
	require.NoError(t, err)
	h, _, _, err := aead.ParseHeader(b[7:])
	require.NoError(t, err)
	require.NotContains(t, stdout, kek256)
	require.NotContains(t, stdout, hex.EncodeToString(h.WrappedKey))

	// Usage errors.
	code, _, stderr = runCLI("convert", sample, "-o", filepath.Join(dir, "y.tsfile"), "--encrypt-key", "prod")
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--kek-file")
	code, _, stderr = runCLI("convert", sample, "-o", filepath.Join(dir, "y.csv"), "--encrypt-key", "prod", "--kek-file", keys)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "tsfile output only")
	code, _, stderr = runCLI("inspect", "--kek-file", keys, "--kek-env", "X", enc)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "exclusive")
}

// TestLegacyMasterKey reads a file of the legacy scheme at encryptLevel 2
// (its data key wrapped by the reference's default master key) with
// --legacy-master-key-file, and refuses it without one.
func TestLegacyMasterKey(t *testing.T) {
	dir := t.TempDir()
	master := []byte("abcdefghijklmnop")
	unwrap, err := aead.LegacyAESUnwrap(master)
	require.NoError(t, err)
	wrapped, err := unwrap([]byte("0123456789abcdef")) // the construction is its own inverse
	require.NoError(t, err)
	props := &aead.LegacyProperties{Level: []byte("2"), Type: []byte(aead.LegacyTypeAES128), Key: aead.AppendLegacyKeyText(nil, wrapped), HasLevel: true, HasType: true, HasKey: true}
	write := func(name string, o *tsfile.WriteOptions) string {
		var buf bytes.Buffer
		w, err := tsfile.NewWriter(&buf, o)
		require.NoError(t, err)
		v := tsfile.NewValues(tsfile.Int64, 3)
		v.Int64s[0], v.Int64s[1], v.Int64s[2] = 10, -20, 30
		require.NoError(t, w.WriteNonAligned(tsfile.NewDeviceID("root.sg.d1"), []tsfile.NonAlignedSeries{{
			SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64, Encoding: tsfile.Encoding(0), Compression: tsfile.Compression(0)},
			Times:        []int64{1, 2, 3}, Values: v}}))
		require.NoError(t, w.Close())
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
		return p
	}
	enc := write("legacy.tsfile", &tsfile.WriteOptions{LegacyEncryption: props, LegacyUnwrap: unwrap})
	plain := write("plain.tsfile", nil)

	mk := writeKeys(t, dir, "master.txt", string(master)+"\n")
	code, _, stderr := runCLI("convert", plain, "-o", filepath.Join(dir, "plain.csv"))
	require.Equal(t, 0, code, stderr)
	code, _, stderr = runCLI("convert", enc, "-o", filepath.Join(dir, "enc.csv"), "--legacy-master-key-file", mk)
	require.Equal(t, 0, code, stderr)
	want, err := os.ReadFile(filepath.Join(dir, "plain.csv"))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(dir, "enc.csv"))
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))

	code, _, stderr = runCLI("convert", enc, "-o", filepath.Join(dir, "x.csv"))
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "master key")
	require.NotContains(t, stderr, string(master))

	code, stdout, stderr := runCLI("inspect", enc, "--legacy-master-key-file", mk)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "encryption:  level 2 (org.apache.tsfile.encrypt.AES128)\n")
	require.NotContains(t, stdout, "encryptKey")
	// Without it the structure still shows, marked locked.
	code, stdout, stderr = runCLI("inspect", enc)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "level 2 (org.apache.tsfile.encrypt.AES128) (locked:")
	require.Contains(t, stdout, "master key")
}

// TestEncryptedMetadataTamper: with the key, a changed byte anywhere in
// the index or footer of an encrypted file fails before any row is
// written, even with --lenient, with one line naming the metadata
// authentication; without the key the structure still inspects.
func TestEncryptedMetadataTamper(t *testing.T) {
	dir := t.TempDir()
	keys := writeKeys(t, dir, "keys.txt", "prod 3 "+kek256+"\n")
	enc := filepath.Join(dir, "enc.tsfile")
	code, _, stderr := runCLI("convert", sample, "-o", enc, "--encrypt-key", "prod", "--encrypt-key-version", "3", "--kek-file", keys)
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(enc)
	require.NoError(t, err)
	tail := len(b) - 4096 // the footer region of this small file
	for _, c := range []struct {
		name string
		at   func() int
	}{
		// A series name in TimeseriesMetadata: hum -> hUm.
		{"measurement name", func() int { return bytes.Index(b[tail:], []byte("humidity")) + tail + 1 }},
		// The legacy property value, which nothing else checks.
		{"footer property", func() int { return bytes.LastIndex(b, []byte("UNENCRYPTED")) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			i := c.at()
			require.Greater(t, i, tail)
			m := bytes.Clone(b)
			m[i] ^= 0x20
			bad := filepath.Join(dir, "bad.tsfile")
			require.NoError(t, os.WriteFile(bad, m, 0o600))
			for _, lenient := range [][]string{nil, {"--lenient"}} {
				out := filepath.Join(dir, "x.csv")
				code, stdout, stderr := runCLI(append([]string{"convert", bad, "-o", out, "--force", "--kek-file", keys}, lenient...)...)
				require.Equal(t, 1, code, stderr)
				require.Empty(t, stdout)
				require.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one line: %s", stderr)
				require.Contains(t, stderr, "metadata authentication")
				require.Contains(t, stderr, "restore it from a copy")
				_, err := os.Stat(out)
				require.True(t, os.IsNotExist(err), "nothing is left behind")
			}
			code, _, stderr := runCLI("inspect", bad)
			require.Equal(t, 0, code, stderr)
		})
	}
}

// TestEncryptHeaderVersion: --encrypt-header-version writes each Page AEAD
// header version, every one with the footer encryptLevel that readers
// without Page AEAD refuse, and each reads back as the plaintext sample.
func TestEncryptHeaderVersion(t *testing.T) {
	dir := t.TempDir()
	keys := writeKeys(t, dir, "keys.txt", "prod 3 "+kek256+"\n")
	plain := filepath.Join(dir, "plain.csv")
	code, _, stderr := runCLI("convert", sample, "-o", plain)
	require.Equal(t, 0, code, stderr)
	want, err := os.ReadFile(plain)
	require.NoError(t, err)
	for _, v := range []string{"1", "2", "3"} {
		enc := filepath.Join(dir, "enc"+v+".tsfile")
		code, _, stderr := runCLI("convert", sample, "-o", enc, "--encrypt-key", "prod", "--encrypt-key-version", "3", "--encrypt-header-version", v, "--kek-file", keys)
		require.Equal(t, 0, code, stderr)
		code, stdout, stderr := runCLI("inspect", "--json", "--kek-file", keys, enc)
		require.Equal(t, 0, code, stderr)
		var info inspectFile
		require.NoError(t, json.Unmarshal([]byte(stdout), &info))
		require.Equal(t, v, strconv.Itoa(info.PageAEAD.HeaderVersion))
		require.Equal(t, aead.LegacyLevelPageAEAD, info.Properties["encryptLevel"], "a reader without Page AEAD refuses the file")
		require.Equal(t, "authenticated", info.PageAEAD.MetadataAuth)
		out := filepath.Join(dir, "dec"+v+".csv")
		code, _, stderr = runCLI("convert", enc, "-o", out, "--kek-file", keys)
		require.Equal(t, 0, code, stderr)
		got, err := os.ReadFile(out)
		require.NoError(t, err)
		require.True(t, bytes.Equal(want, got), "header version %s", v)
	}
	for _, args := range [][]string{
		{"--encrypt-key", "prod", "--encrypt-header-version", "4", "--kek-file", keys},
		{"--encrypt-key", "prod", "--encrypt-header-version", "0", "--kek-file", keys},
		{"--encrypt-header-version", "2"},
	} {
		code, _, stderr := runCLI(append([]string{"convert", sample, "-o", filepath.Join(dir, "bad.tsfile")}, args...)...)
		require.Equal(t, 2, code, "%v: %s", args, stderr)
		require.Contains(t, stderr, "--encrypt-", "%v", args)
	}
}
