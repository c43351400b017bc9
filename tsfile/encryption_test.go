package tsfile

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/tsarrow/tsarrow/internal/sample"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/aead"
	"github.com/tsarrow/tsarrow/encoding"
)

// detRand is a deterministic byte stream for data keys, file ids and
// nonces, so that encrypted test files are reproducible.
type detRand struct{ n byte }

func (r *detRand) Read(p []byte) (int, error) {
	for i := range p {
		r.n = r.n*131 + 7
		p[i] = r.n
	}
	return len(p), nil
}

// testKeys is a registry with the upstream test provider and a KEK
// provider holding one 128-bit and one 256-bit key.
func testKeys(t testing.TB) *aead.Registry {
	t.Helper()
	reg, err := newTestKeys()
	require.NoError(t, err)
	return reg
}

func newTestKeys() (*aead.Registry, error) {
	kp := aead.NewKEKProvider(aead.KeyFileProviderID)
	if err := kp.Add("k128", "1", bytes.Repeat([]byte{0x11}, 16)); err != nil {
		return nil, err
	}
	if err := kp.Add("k256", "7", bytes.Repeat([]byte{0x22}, 32)); err != nil {
		return nil, err
	}
	return aead.NewRegistry(aead.NewTestProvider(), kp)
}

// aeadConfigs are the writer configurations the tests cover: both
// profiles, every header version.
func aeadConfigs() map[string]aead.WriterConfig {
	return map[string]aead.WriterConfig{
		"v3-gcm256": {ProviderID: aead.KeyFileProviderID, ProfileID: aead.ProfileAESGCM256, KeyID: "k256", KeyVersion: "7"},
		"v3-gcm128": {ProviderID: aead.KeyFileProviderID, ProfileID: aead.ProfileAESGCM128, KeyID: "k128", KeyVersion: "1", HeaderVersion: 3},
		"v2-test":   {ProviderID: aead.TestProviderID, ProfileID: aead.ProfileAESGCM128, KeyID: "test-key", KeyVersion: "1", HeaderVersion: 2},
		"v1-test":   {ProviderID: aead.TestProviderID, ProfileID: aead.ProfileAESGCM128, KeyID: "test-key", KeyVersion: "1", HeaderVersion: 1},
	}
}

// encrypting returns a sweepLayoutsWith wrapper that adds cfg.
func encrypting(t testing.TB, reg *aead.Registry, cfg aead.WriterConfig) func(*WriteOptions) *WriteOptions {
	return func(o *WriteOptions) *WriteOptions {
		var cp WriteOptions
		if o != nil {
			cp = *o
		}
		c := cfg
		c.Rand = &detRand{}
		cp.Encryption, cp.Keys = &c, reg
		return &cp
	}
}

// dumpContent renders every value of a file, device by device, so that two
// files can be compared for identical content.
func dumpContent(b []byte, opts *ReadOptions) (string, error) {
	f, err := Open(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var sb strings.Builder
	for _, tb := range f.Tables() {
		devs, err := f.Devices(tb)
		if err != nil {
			return "", err
		}
		for _, d := range devs {
			series, err := f.Series(d)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&sb, "device %s\n", d)
			if len(series) > 0 && series[0].IsTimeColumn() {
				cols, err := f.ReadAligned(series)
				if err != nil {
					return "", err
				}
				fmt.Fprintf(&sb, " times %v\n", cols.Times)
				names := make([]string, 0, len(cols.Columns))
				for n := range cols.Columns {
					names = append(names, n)
				}
				sort.Strings(names)
				for _, n := range names {
					fmt.Fprintf(&sb, " %s %s\n", n, formatValues(cols.Columns[n]))
				}
				continue
			}
			for i := range series {
				times, vals, err := f.ReadNonAligned(&series[i])
				if err != nil {
					return "", err
				}
				fmt.Fprintf(&sb, " %s %v %s\n", series[i].Measurement, times, formatValues(&vals))
			}
		}
	}
	return sb.String(), nil
}

func formatValues(v *Values) string {
	var sb strings.Builder
	for i := 0; i < v.Len(); i++ {
		if v.IsNull(i) {
			sb.WriteString("null,")
			continue
		}
		switch v.Type {
		case Boolean:
			fmt.Fprint(&sb, v.Bools[i])
		case Int32, Date:
			fmt.Fprint(&sb, v.Int32s[i])
		case Int64, Timestamp:
			fmt.Fprint(&sb, v.Int64s[i])
		case Float:
			fmt.Fprint(&sb, math.Float32bits(v.Float32s[i]))
		case Double:
			fmt.Fprint(&sb, math.Float64bits(v.Float64s[i]))
		default:
			fmt.Fprintf(&sb, "%q", v.Binaries[i])
		}
		sb.WriteByte(',')
	}
	return sb.String()
}

// TestPageAEADRoundTrip writes every sweep layout (every type, encoding,
// compression, nulls, empty pages, all-null chunks, tree and table model)
// encrypted under each configuration and requires the same content as the
// plaintext twin, and a plaintext twin's bytes nowhere in page bodies.
func TestPageAEADRoundTrip(t *testing.T) {
	reg := testKeys(t)
	plain := sweepLayouts(t)
	for name, cfg := range aeadConfigs() {
		t.Run(name, func(t *testing.T) {
			enc := sweepLayoutsWith(t, encrypting(t, reg, cfg))
			require.Len(t, enc, len(plain))
			for i := range plain {
				want, err := dumpContent(plain[i].data, nil)
				require.NoError(t, err, plain[i].name)
				got, err := dumpContent(enc[i].data, &ReadOptions{Keys: reg})
				require.NoError(t, err, enc[i].name)
				require.Equal(t, want, got, enc[i].name)
				require.NoError(t, fullScan(enc[i].data, &ReadOptions{Keys: reg}), enc[i].name)

				f, err := Open(bytes.NewReader(enc[i].data), int64(len(enc[i].data)), &ReadOptions{Keys: reg})
				require.NoError(t, err)
				e := f.Encryption()
				require.NotNil(t, e)
				require.Nil(t, e.Locked)
				wantVersion := cfg.HeaderVersion
				if wantVersion == 0 {
					wantVersion = 3
				}
				require.Equal(t, wantVersion, e.Header.Version)
				require.Equal(t, cfg.KeyID, e.Header.KeyID)
				require.NoError(t, f.Close())
			}
		})
	}
}

// TestPageAEADWriterIsDeterministicWithItsRand checks the header at
// offset 7 and the chunk suffix layout of a written file against the
// spec's structure: marker, sizes, and an ordinal per chunk in
// allocation order.
func TestPageAEADChunkSuffix(t *testing.T) {
	reg := testKeys(t)
	for name, cfg := range aeadConfigs() {
		t.Run(name, func(t *testing.T) {
			b := sweepLayoutsWith(t, encrypting(t, reg, cfg))[0].data
			require.Equal(t, byte(aead.MarkerEncryptionHeader), b[7])
			h, e, _, err := aead.ParseHeader(b[7:])
			require.NoError(t, err)
			s, err := NewScanner(bytes.NewReader(b), int64(len(b)), &ReadOptions{Keys: reg})
			require.NoError(t, err)
			require.Equal(t, int64(7+e), s.Offset(), "the data section starts at 7 + E")
			var ordinals []int64
			for _, r := range chunkRecords(t, b, reg) {
				ch := r.Chunk.Header
				base := plainHeaderSize(&ch)
				switch {
				case h.HasChunkAuth():
					require.Equal(t, base+8+4+28, ch.HeaderSize)
					require.Len(t, ch.Auth, 28)
				case h.HasOrdinal():
					require.Equal(t, base+8, ch.HeaderSize)
				default:
					require.Equal(t, base, ch.HeaderSize)
				}
				if h.HasOrdinal() {
					ordinals = append(ordinals, ch.Ordinal)
				}
			}
			for i, o := range ordinals {
				require.Equal(t, int64(i), o, "ordinals are allocated from 0 in write order")
			}
		})
	}
}

// TestPageAEADKeys covers the key errors a user meets: each is distinct
// and names the key id.
func TestPageAEADKeys(t *testing.T) {
	reg := testKeys(t)
	b := sweepLayoutsWith(t, encrypting(t, reg, aeadConfigs()["v3-gcm256"]))[0].data
	open := func(opts *ReadOptions) (*File, error) { return Open(bytes.NewReader(b), int64(len(b)), opts) }

	// No registry: the footer and index read, pages do not.
	f, err := open(nil)
	require.NoError(t, err)
	require.ErrorIs(t, f.Encryption().Locked, aead.ErrKeyNotFound)
	_, err = dumpContent(b, nil)
	require.ErrorIs(t, err, aead.ErrKeyNotFound)
	require.ErrorIs(t, err, ErrUnsupported)
	require.Contains(t, err.Error(), `"k256"`)

	// The provider is not registered.
	only, err := aead.NewRegistry(aead.NewTestProvider())
	require.NoError(t, err)
	_, err = dumpContent(b, &ReadOptions{Keys: only})
	require.ErrorIs(t, err, aead.ErrUnknownProvider)
	require.Contains(t, err.Error(), aead.KeyFileProviderID)

	// Wrong key version.
	kp := aead.NewKEKProvider(aead.KeyFileProviderID)
	require.NoError(t, kp.Add("k256", "8", bytes.Repeat([]byte{0x22}, 32)))
	other, err := aead.NewRegistry(kp)
	require.NoError(t, err)
	_, err = dumpContent(b, &ReadOptions{Keys: other})
	require.ErrorIs(t, err, aead.ErrKeyNotFound)
	require.Contains(t, err.Error(), `"k256"`)

	// Wrong key: Open fails at once.
	kp = aead.NewKEKProvider(aead.KeyFileProviderID)
	require.NoError(t, kp.Add("k256", "7", bytes.Repeat([]byte{0x23}, 32)))
	wrong, err := aead.NewRegistry(kp)
	require.NoError(t, err)
	_, err = open(&ReadOptions{Keys: wrong})
	require.ErrorIs(t, err, aead.ErrWrongKey)
	require.Contains(t, err.Error(), `"k256"`)
	require.NotContains(t, err.Error(), "2323")

	// Unknown profile.
	bad := bytes.Clone(b)
	i := bytes.Index(bad, []byte(aead.ProfileAESGCM256))
	require.Positive(t, i)
	copy(bad[i:], "AES_GCM_256_AES_WRAP_256_V9")
	_, err = Open(bytes.NewReader(bad), int64(len(bad)), &ReadOptions{Keys: reg})
	require.ErrorIs(t, err, aead.ErrUnknownProfile)
}

// TestPageAEADTamperSweep flips every bit of the encryption header, of
// every chunk suffix, of every page header's size fields and of every page
// body of an encrypted file, and requires each read to fail with an
// authentication, corruption or key error: never a panic, never content
// different from the original.
func TestPageAEADTamperSweep(t *testing.T) {
	t.Parallel()
	reg := testKeys(t)
	for _, name := range []string{"v3-gcm256", "v2-test"} {
		t.Run(name, func(t *testing.T) {
			layouts := sweepLayoutsWith(t, encrypting(t, reg, aeadConfigs()[name]))
			// Multi-page with nulls, every type, aligned and non-aligned tree
			// devices, ZSTD.
			for _, lf := range []sweepFile{layouts[1], layouts[2], layouts[4], layouts[9]} {
				want, err := dumpContent(lf.data, &ReadOptions{Keys: reg})
				require.NoError(t, err)
				regions := tamperRegions(t, lf.data, reg)
				cases, failed := 0, 0
				for _, r := range regions {
					// -short: the first, a middle and the last byte of
					// each region, every bit of them.
					for _, off := range sample.Short(sample.Span(r.from, r.to), 3, uint64(r.from)) {
						for bit := 0; bit < 8; bit++ {
							b := bytes.Clone(lf.data)
							b[off] ^= 1 << bit
							cases++
							got, panicked, hung, err := runDump(b, reg)
							require.False(t, panicked || hung, "%s: %s byte %d bit %d: panic or hang", lf.name, r.what, off, bit)
							if err == nil {
								require.Equal(t, want, got, "%s: %s byte %d bit %d: read different content", lf.name, r.what, off, bit)
								if r.mustFail(name) {
									t.Fatalf("%s: %s byte %d bit %d: tampering went unnoticed", lf.name, r.what, off, bit)
								}
								continue
							}
							failed++
							if !errors.Is(err, aead.ErrAuthentication) && !errors.Is(err, ErrCorrupt) && !isKeyError(err) {
								t.Fatalf("%s: %s byte %d bit %d: error of the wrong kind: %v", lf.name, r.what, off, bit, err)
							}
						}
					}
				}
				t.Logf("%s: %d regions, %d bit flips, %d detected", lf.name, len(regions), cases, failed)
			}
		})
	}
}

func isKeyError(err error) bool {
	return errors.Is(err, aead.ErrWrongKey) || errors.Is(err, aead.ErrKeyNotFound) ||
		errors.Is(err, aead.ErrUnknownProvider) || errors.Is(err, aead.ErrUnknownProfile) || errors.Is(err, aead.ErrMalformedHeader)
}

func runDump(b []byte, reg *aead.Registry) (got string, panicked, hung bool, err error) {
	panicked, hung, err = runCase(func() error {
		var e error
		got, e = dumpContent(b, &ReadOptions{Keys: reg})
		return e
	})
	return got, panicked, hung, err
}

// tamperRegion is a byte range whose every bit flip must be detected
// (mustFail) or at least never change what is read.
type tamperRegion struct {
	what     string
	from, to int
	always   bool // every flip must fail, in every header version
	sealed   bool // every flip must fail where pages are sealed
	authed   bool // every flip must fail with chunk authentication (v3)
}

func (r tamperRegion) mustFail(cfg string) bool {
	return r.always || r.sealed || (r.authed && strings.HasPrefix(cfg, "v3"))
}

// tamperRegions lists the header, every chunk suffix, every page header's
// size fields and every page body of an encrypted file.
func tamperRegions(t testing.TB, b []byte, reg *aead.Registry) []tamperRegion {
	_, e, _, err := aead.ParseHeader(b[7:])
	require.NoError(t, err)
	regions := []tamperRegion{{what: "encryption header", from: 7, to: 7 + e, always: true}}
	for _, r := range chunkRecords(t, b, reg) {
		ch := r.Chunk.Header
		base := plainHeaderSize(&ch)
		if ch.HeaderSize > base {
			// The ordinal binds the chunk's sealed pages (v2), if it has
			// any, and the proof binds it (v3).
			sealed := false
			for _, p := range r.Chunk.Pages {
				sealed = sealed || p.Header.UncompressedSize > 0
			}
			regions = append(regions, tamperRegion{what: "chunk suffix", from: int(ch.Offset) + base, to: int(ch.Offset) + ch.HeaderSize, sealed: sealed, authed: true})
		}
		// data_size: a changed size breaks the page tiling or the proof.
		regions = append(regions, tamperRegion{what: "chunk data_size", from: int(ch.Offset) + 1 + len(appendVarString(nil, ch.Measurement)), to: int(ch.Offset) + base - 3, authed: true})
		for _, p := range r.Chunk.Pages {
			ph := p.Header
			if ph.UncompressedSize == 0 {
				continue
			}
			sizes := len(appendUVarint(nil, uint32(ph.UncompressedSize))) + len(appendUVarint(nil, uint32(ph.CompressedSize)))
			regions = append(regions,
				tamperRegion{what: "page header sizes", from: int(ph.Offset), to: int(ph.Offset) + sizes, sealed: true},
				tamperRegion{what: "page body", from: int(ph.BodyOffset()), to: int(ph.End()), sealed: true})
		}
	}
	return regions
}

// chunkRecords scans b and returns its chunk records.
func chunkRecords(t testing.TB, b []byte, reg *aead.Registry) []Record {
	s, err := NewScanner(bytes.NewReader(b), int64(len(b)), &ReadOptions{Keys: reg})
	require.NoError(t, err)
	var out []Record
	for s.Next() {
		if r := s.Record(); r.Kind == ChunkRecord {
			out = append(out, r)
		}
	}
	require.NoError(t, s.Err())
	return out
}

// plainHeaderSize is the size of h without its Page AEAD suffix.
func plainHeaderSize(h *ChunkHeader) int {
	return len(appendChunkHeader(nil, h))
}

// TestPageAEADChunkMoves swaps two chunks, duplicates one over another
// and drops a chunk's last page, keeping every structure well formed: with
// chunk authentication each is detected.
func TestPageAEADChunkMoves(t *testing.T) {
	reg := testKeys(t)
	b := sweepLayoutsWith(t, encrypting(t, reg, aeadConfigs()["v3-gcm256"]))[1].data
	chunks := chunkRecords(t, b, reg)

	// Two value chunks of equal size in one group: swap their bytes.
	swapped := false
	for i := 0; i < len(chunks) && !swapped; i++ {
		for j := i + 1; j < len(chunks); j++ {
			a, c := chunks[i], chunks[j]
			if a.End-a.Offset != c.End-c.Offset || a.Chunk.Header.Marker != c.Chunk.Header.Marker {
				continue
			}
			m := bytes.Clone(b)
			copy(m[a.Offset:a.End], b[c.Offset:c.End])
			copy(m[c.Offset:c.End], b[a.Offset:a.End])
			_, err := dumpContent(m, &ReadOptions{Keys: reg})
			require.ErrorIs(t, err, aead.ErrAuthentication, "swap of chunks at %d and %d", a.Offset, c.Offset)
			dup := bytes.Clone(b)
			copy(dup[c.Offset:c.End], b[a.Offset:a.End])
			_, err = dumpContent(dup, &ReadOptions{Keys: reg})
			require.ErrorIs(t, err, aead.ErrAuthentication, "duplicate of chunk %d at %d", a.Offset, c.Offset)
			swapped = true
			break
		}
	}
	require.True(t, swapped, "the layout has two chunks of one size to swap")

	// Drop the last page of a multi-page chunk: its data_size shrinks by
	// the page and the file ends after the shortened chunk, so the
	// scanner meets a well-formed chunk whose remaining pages all open;
	// only the proof, which binds data_size, tells.
	for _, c := range chunks {
		if len(c.Chunk.Pages) < 2 {
			continue
		}
		last := c.Chunk.Pages[len(c.Chunk.Pages)-1].Header
		h := c.Chunk.Header
		h.DataSize -= last.End() - last.Offset
		// Rewrite the header with the smaller data_size (same varint width
		// in this small file) and cut the file after the shortened chunk.
		hb := appendChunkSuffix(appendChunkHeader(nil, &h), &h, 2)
		require.Equal(t, h.HeaderSize, len(hb), "the shorter data_size keeps its varint width")
		m := append(bytes.Clone(b[:c.Offset]), hb...)
		m = append(m, b[h.DataOffset():h.End()]...)
		rs, err := NewScanner(bytes.NewReader(m), int64(len(m)), &ReadOptions{Keys: reg})
		require.NoError(t, err)
		for rs.Next() {
		}
		require.ErrorIs(t, rs.Err(), aead.ErrAuthentication, "dropped last page of the chunk at %d", c.Offset)
		break
	}
}

// legacyReaderRefuses is the encryptLevel rule of a reader that does not
// know Page AEAD: the Java reader's TsFileMetadata.deserializeFrom
// (apache/tsfile) takes an absent level or "0" as unencrypted, "1" and "2"
// as the legacy scheme, and throws on anything else.
func legacyReaderRefuses(level []byte, ok bool) bool {
	return ok && string(level) != "0" && string(level) != "1" && string(level) != "2"
}

// TestPageAEADFooterProperties: every Page AEAD file carries an
// encryptLevel that readers without Page AEAD refuse, so they fail
// instead of decoding sealed pages as plaintext; the header overrides the
// properties in our reader, and without the header they do not read.
func TestPageAEADFooterProperties(t *testing.T) {
	reg := testKeys(t)
	for name, cfg := range aeadConfigs() {
		for _, noProps := range []bool{false, true} {
			enc := encrypting(t, reg, cfg)
			b := sweepLayoutsWith(t, func(o *WriteOptions) *WriteOptions {
				o = enc(o)
				o.NoEncryptionProperties = noProps
				return o
			})[0].data
			f, err := Open(bytes.NewReader(b), int64(len(b)), &ReadOptions{Keys: reg})
			require.NoError(t, err, name)
			v, ok := f.Metadata.Property("encryptLevel")
			require.True(t, legacyReaderRefuses(v, ok), "%s (NoEncryptionProperties %v): encryptLevel %q", name, noProps, v)
			require.Nil(t, f.Encryption().Legacy)
			require.Nil(t, f.Encryption().Locked)
			f.Close()
		}
	}
	// An unencrypted file keeps the reference writer's "0".
	b := sweepLayoutsWith(t, nil)[0].data
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	v, ok := f.Metadata.Property("encryptLevel")
	require.False(t, legacyReaderRefuses(v, ok))
	require.Equal(t, "0", string(v))

	// The properties alone, as a file whose header was stripped would
	// present them, do not read.
	_, err = aead.ParseLegacy(aead.LegacyProperties{Level: []byte(aead.LegacyLevelPageAEAD), HasLevel: true,
		Type: []byte(aead.LegacyTypeUnencrypted), HasType: true, Key: []byte{}, HasKey: true}, nil)
	require.ErrorIs(t, err, aead.ErrLegacyProperties)
	require.ErrorContains(t, err, "marks a Page AEAD file")
}

// TestPageAEADScannerRejectsLaterHeader: 0x06 is valid only at offset 7.
func TestPageAEADHeaderOnlyAtSeven(t *testing.T) {
	reg := testKeys(t)
	b := sweepLayoutsWith(t, encrypting(t, reg, aeadConfigs()["v2-test"]))[0].data
	_, e, _, err := aead.ParseHeader(b[7:])
	require.NoError(t, err)
	twice := append(bytes.Clone(b[:7+e]), b[7:]...)
	s, err := NewScanner(bytes.NewReader(twice), int64(len(twice)), &ReadOptions{Keys: reg})
	require.NoError(t, err)
	require.False(t, s.Next())
	require.ErrorIs(t, s.Err(), ErrCorrupt)
	require.Contains(t, s.Err().Error(), "only valid at offset 7")
}

// TestPageAEADSealedSizes: compressed_size is the body with its overhead,
// for UNCOMPRESSED pages too, and a body shorter than the overhead is a
// format error before any decryption.
func TestPageAEADSealedSizes(t *testing.T) {
	reg := testKeys(t)
	var out bytes.Buffer
	c := aeadConfigs()["v3-gcm256"]
	c.Rand = &detRand{}
	w, err := NewWriter(&out, &WriteOptions{Encryption: &c, Keys: reg})
	require.NoError(t, err)
	v := NewValues(Int64, 3)
	v.Int64s[0], v.Int64s[1], v.Int64s[2] = 1, 2, 3
	require.NoError(t, w.WriteNonAligned(NewDeviceID("root.a"), []NonAlignedSeries{{SeriesSchema: SeriesSchema{Name: "s", DataType: Int64, Encoding: encoding.Plain, Compression: encoding.Uncompressed}, Times: []int64{1, 2, 3}, Values: v}}))
	require.NoError(t, w.Close())
	b := out.Bytes()
	s, err := NewScanner(bytes.NewReader(b), int64(len(b)), &ReadOptions{Keys: reg})
	require.NoError(t, err)
	require.True(t, s.Next())
	require.True(t, s.Next())
	p := s.Record().Chunk.Pages[0].Header
	require.Equal(t, p.UncompressedSize+28, p.CompressedSize)
}

// legacyProps are footer properties of the legacy scheme.
func legacyProps(level, typ string, key []byte) *aead.LegacyProperties {
	return &aead.LegacyProperties{Level: []byte(level), Type: []byte(typ), Key: aead.AppendLegacyKeyText(nil, key), HasLevel: true, HasType: true, HasKey: true}
}

// TestLegacyEncryption writes every sweep layout with the footer-property
// scheme at levels 1 and 2 and reads it back: the same content as the
// plaintext twin, pages that differ from it, and the errors of a missing
// master key and of SM4.
func TestLegacyEncryption(t *testing.T) {
	dataKey := []byte("0123456789abcdef")
	master := []byte("abcdefghijklmnop") // the reference's default master key
	unwrap, err := aead.LegacyAESUnwrap(master)
	require.NoError(t, err)
	wrapped, err := unwrap(dataKey) // the construction is its own inverse
	require.NoError(t, err)
	cases := []struct {
		name  string
		props *aead.LegacyProperties
		read  *ReadOptions
	}{
		{"level1-class-name", legacyProps("1", aead.LegacyTypeAES128, dataKey), nil},
		{"level1-enum-name", legacyProps("1", "AES128", dataKey), nil},
		{"level2", legacyProps("2", aead.LegacyTypeAES128, wrapped), &ReadOptions{LegacyUnwrap: unwrap}},
	}
	plain := sweepLayouts(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			enc := sweepLayoutsWith(t, func(o *WriteOptions) *WriteOptions {
				var cp WriteOptions
				if o != nil {
					cp = *o
				}
				cp.LegacyEncryption, cp.LegacyUnwrap = c.props, unwrap
				return &cp
			})
			for i := range plain {
				want, err := dumpContent(plain[i].data, nil)
				require.NoError(t, err)
				got, err := dumpContent(enc[i].data, c.read)
				require.NoError(t, err, enc[i].name)
				require.Equal(t, want, got, enc[i].name)
				// The scheme keeps page sizes, so the data sections line up,
				// and changes the page bytes.
				pf, err := Open(bytes.NewReader(plain[i].data), int64(len(plain[i].data)), nil)
				require.NoError(t, err)
				ef, err := Open(bytes.NewReader(enc[i].data), int64(len(enc[i].data)), c.read)
				require.NoError(t, err)
				require.Equal(t, pf.metaOffset, ef.metaOffset, enc[i].name)
				require.NotEqual(t, plain[i].data[:pf.metaOffset], enc[i].data[:ef.metaOffset], enc[i].name)
			}
			f, err := Open(bytes.NewReader(enc[2].data), int64(len(enc[2].data)), c.read)
			require.NoError(t, err)
			require.NotNil(t, f.Encryption().Legacy)
			require.NoError(t, f.Close())
		})
	}
	lvl2 := sweepLayoutsWith(t, func(o *WriteOptions) *WriteOptions {
		var cp WriteOptions
		if o != nil {
			cp = *o
		}
		cp.LegacyEncryption, cp.LegacyUnwrap = cases[2].props, unwrap
		return &cp
	})[2].data
	// Without the master key the file opens, its pages do not.
	f, err := Open(bytes.NewReader(lvl2), int64(len(lvl2)), nil)
	require.NoError(t, err)
	require.ErrorIs(t, f.Encryption().Locked, aead.ErrLegacyKey)
	_, err = dumpContent(lvl2, nil)
	require.ErrorIs(t, err, aead.ErrLegacyKey, "level 2 without a master key")
	require.ErrorIs(t, err, ErrUnsupported)

	sm4 := bytes.Replace(lvl2, []byte(aead.LegacyTypeAES128), []byte("org.apache.tsfile.encrypt.SM4128"), 1)
	require.Len(t, sm4, len(lvl2)) // same length: AES128 and SM4128
	_, err = dumpContent(sm4, &ReadOptions{LegacyUnwrap: unwrap})
	require.ErrorIs(t, err, aead.ErrUnsupportedCipher)
	require.Contains(t, err.Error(), "SM4")
}

// TestPageAEADRecover cuts an encrypted file inside its data section:
// Recover with the key rebuilds the complete chunk groups, whose proofs
// still verify since chunks keep their offsets; without the key it
// refuses, naming the key id.
func TestPageAEADRecover(t *testing.T) {
	reg := testKeys(t)
	b := sweepLayoutsWith(t, encrypting(t, reg, aeadConfigs()["v3-gcm256"]))[1].data
	f, err := Open(bytes.NewReader(b), int64(len(b)), &ReadOptions{Keys: reg})
	require.NoError(t, err)
	cut := b[:f.metaOffset-40]
	rec, err := Recover(bytes.NewReader(cut), int64(len(cut)), &RecoverOptions{ReadOptions: &ReadOptions{Keys: reg}})
	require.NoError(t, err)
	require.NotEmpty(t, rec.Groups)
	var out bytes.Buffer
	_, err = rec.Rebuild(&out, bytes.NewReader(cut), nil)
	require.NoError(t, err)
	got, err := dumpContent(out.Bytes(), &ReadOptions{Keys: reg})
	require.NoError(t, err)
	require.Contains(t, got, "device ")

	_, err = Recover(bytes.NewReader(cut), int64(len(cut)), nil)
	require.ErrorIs(t, err, aead.ErrKeyNotFound)
	require.Contains(t, err.Error(), `"k256"`)
}
