package tsfile

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/aead"
	"github.com/tsarrow/tsarrow/internal/sample"
)

// metaAuthFile is sweep layout 1 (table model, multi-page chunks with
// nulls, a null TAG, an operation index range, two chunk groups of one
// device) written under cfg.
func metaAuthFile(t testing.TB, reg *aead.Registry, cfg string) []byte {
	return sweepLayoutsWith(t, encrypting(t, reg, aeadConfigs()[cfg]))[1].data
}

// fullContent renders what a conversion returns: the table names and
// schemas (column names, types and categories) and every value.
func fullContent(b []byte, opts *ReadOptions) (string, error) {
	f, err := Open(bytes.NewReader(b), int64(len(b)), opts)
	if err != nil {
		return "", err
	}
	var sb strings.Builder
	names := make([]string, 0, len(f.Metadata.TableSchemas))
	for n := range f.Metadata.TableSchemas {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&sb, "schema %q", n)
		for _, c := range f.Metadata.TableSchemas[n].Columns {
			fmt.Fprintf(&sb, " %q:%s:%d", c.Name, c.DataType, c.Category)
		}
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "tables %q\n", f.Tables())
	f.Close()
	s, err := dumpContent(b, opts)
	return sb.String() + s, err
}

// metaRange returns [meta_offset, size) and the data section start.
func metaRange(t testing.TB, b []byte) (dataFrom, metaOffset int) {
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	defer f.Close()
	return int(f.dataFrom), int(f.metaOffset)
}

// TestPageAEADMetadataAuthRoundTrip: every header version gets a tag,
// which verifies with the key; without the key the file still opens and
// its index, schemas and properties read.
func TestPageAEADMetadataAuthRoundTrip(t *testing.T) {
	reg := testKeys(t)
	for name := range aeadConfigs() {
		t.Run(name, func(t *testing.T) {
			b := metaAuthFile(t, reg, name)
			f, err := Open(bytes.NewReader(b), int64(len(b)), &ReadOptions{Keys: reg})
			require.NoError(t, err)
			require.True(t, f.Encryption().MetadataAuthenticated)
			props := f.Metadata.Properties
			last := props[len(props)-1]
			require.Equal(t, MetadataAuthProperty, last.Key, "the tag is the last property")
			require.Len(t, last.Value, 2*aead.MetadataTagSize)
			_, err = hex.DecodeString(string(last.Value))
			require.NoError(t, err)
			require.Equal(t, string(last.Value), string(b[len(b)-tailSize-len(last.Value):len(b)-tailSize]), "the value ends TsFileMetadata")
			require.NoError(t, f.Close())

			// Without the key: inspect-level reads work, nothing is
			// authenticated, values stay locked.
			f, err = Open(bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
			require.False(t, f.Encryption().MetadataAuthenticated)
			require.NotEmpty(t, f.Tables())
			_, ok := f.SchemaOf("t")
			require.True(t, ok)
			devs, err := f.Devices("t")
			require.NoError(t, err)
			require.NotEmpty(t, devs)
			series, err := f.Series(devs[0])
			require.NoError(t, err)
			require.NotEmpty(t, series)
			require.NoError(t, f.Close())

			// With the key the content equals the plaintext twin's.
			want, err := dumpContent(sweepLayouts(t)[1].data, nil)
			require.NoError(t, err)
			got, err := dumpContent(b, &ReadOptions{Keys: reg})
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}

// TestPageAEADMetadataAuthTamper changes one thing in the metadata of a
// file, each a change that parses and (for most) reads with different
// content when nothing authenticates the metadata: with the key every one
// fails at Open with an authentication error naming the structure.
func TestPageAEADMetadataAuthTamper(t *testing.T) {
	reg := testKeys(t)
	b := metaAuthFile(t, reg, "v3-gcm256")
	dataFrom, metaOffset := metaRange(t, b)
	last := func(s string) int {
		i := bytes.LastIndex(b, []byte(s))
		require.Greater(t, i, metaOffset, "%q is in the metadata section", s)
		return i
	}
	cases := []struct {
		name string
		edit func(m []byte)
	}{
		{"measurement name in timeseries metadata", func(m []byte) { m[bytes.Index(b[metaOffset:], []byte("i32"))+metaOffset+1] ^= 0x01 }},
		{"column name in the table schema", func(m []byte) { m[last("allnull")+2] = 0 }},
		{"column category", func(m []byte) {
			// "allnull": name, 3 type bytes, int32 property_count 0, then
			// the int32 category, whose last byte flips FIELD to TAG.
			m[last("allnull")+len("allnull")+3+4+3] ^= 0x01
		}},
		{"Bloom filter", func(m []byte) {
			f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
			bits := f.Metadata.Bloom
			require.NotNil(t, bits)
			// meta_offset (8 bytes) precedes the Bloom filter in the footer.
			i := bytes.LastIndex(b, appendInt64(nil, int64(metaOffset)))
			require.Greater(t, i, metaOffset)
			m[i+8+2] ^= 0x10
		}},
		{"legacy property value", func(m []byte) { m[last(aead.LegacyTypeUnencrypted)] ^= 0x20 }},
		{"tag value", func(m []byte) { m[len(m)-tailSize-1] ^= 0x01 }},
		{"tag value in upper case", func(m []byte) {
			v := m[len(m)-tailSize-2*aead.MetadataTagSize : len(m)-tailSize]
			copy(v, strings.ToUpper(string(v)))
		}},
		{"tag value to another hex digit", func(m []byte) {
			i := len(m) - tailSize - 5
			if m[i] == 'a' {
				m[i] = 'b'
			} else {
				m[i] = 'a'
			}
		}},
		{"separator", func(m []byte) { m[metaOffset] ^= 0x80 }},
		{"tail length", func(m []byte) { m[len(m)-tailSize+3] ^= 0x01 }},
		{"wrapped key in the header", func(m []byte) { m[dataFrom-1] ^= 0x01 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := bytes.Clone(b)
			c.edit(m)
			require.NotEqual(t, b, m)
			_, err := Open(bytes.NewReader(m), int64(len(m)), &ReadOptions{Keys: reg})
			require.Error(t, err)
			require.True(t, errors.Is(err, ErrCorrupt) || isKeyError(err), "%v", err)
			// Without the key the change goes unnoticed, or is caught by
			// the parser: the metadata is not authenticated then.
			_, _ = Open(bytes.NewReader(m), int64(len(m)), nil)
		})
	}

	// A change that parses: the tag is what catches it, with one line
	// naming the structure, the range and what to do.
	m := bytes.Clone(b)
	i := bytes.Index(b[metaOffset:], []byte("i32")) + metaOffset
	m[i+1] = '4' // i32 -> i42, a valid name the schema does not hold
	_, err := Open(bytes.NewReader(m), int64(len(m)), &ReadOptions{Keys: reg})
	require.ErrorIs(t, err, aead.ErrAuthentication)
	require.ErrorIs(t, err, ErrCorrupt)
	require.Contains(t, err.Error(), "metadata authentication at offset")
	require.Contains(t, err.Error(), fmt.Sprintf("[%d, %d)", metaOffset, len(b)))
	require.Contains(t, err.Error(), "restore it from a copy")
	require.NotContains(t, err.Error(), "\n")
	f, err := Open(bytes.NewReader(m), int64(len(m)), nil)
	require.NoError(t, err, "without the key the metadata is read as it is")
	require.NoError(t, f.Close())
}

// TestPageAEADMetadataAuthAbsent: a renamed tag property reads as absent.
// A header version 3 file must have it (a warning under Lenient, for
// tsarrow files older than the tag); versions 1 and 2, which upstream's
// draft writes without a tag, read as before.
func TestPageAEADMetadataAuthAbsent(t *testing.T) {
	reg := testKeys(t)
	cases := []struct {
		cfg     string
		lenient bool
		wantErr bool
	}{
		{"v3-gcm256", false, true},
		{"v3-gcm128", false, true},
		{"v3-gcm256", true, false},
		{"v2-test", false, false},
		{"v1-test", false, false},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s-lenient=%v", c.cfg, c.lenient), func(t *testing.T) {
			b := metaAuthFile(t, reg, c.cfg)
			m := bytes.Clone(b)
			i := bytes.LastIndex(m, []byte(MetadataAuthProperty))
			m[i+len("tsarrow.")] ^= 0x20 // tsarrow.MetadataAuth
			opts := &ReadOptions{Keys: reg, Lenient: c.lenient}
			f, err := Open(bytes.NewReader(m), int64(len(m)), opts)
			if c.wantErr {
				require.ErrorIs(t, err, aead.ErrAuthentication)
				require.ErrorIs(t, err, ErrCorrupt)
				require.Contains(t, err.Error(), "--lenient")
				return
			}
			require.NoError(t, err)
			require.False(t, f.Encryption().MetadataAuthenticated)
			if c.lenient {
				require.Len(t, f.Warnings(), 1)
				require.Contains(t, f.Warnings()[0].Msg, MetadataAuthProperty)
			} else {
				require.Empty(t, f.Warnings())
			}
			require.NoError(t, f.Close())
			want, err := dumpContent(b, &ReadOptions{Keys: reg})
			require.NoError(t, err)
			got, err := dumpContent(m, opts)
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}

// TestPageAEADMetadataAuthWriterRules: the property name is reserved, and
// plaintext and legacy-encrypted files carry no tag.
func TestPageAEADMetadataAuthWriterRules(t *testing.T) {
	_, err := NewWriter(&bytes.Buffer{}, &WriteOptions{Properties: []Property{{Key: MetadataAuthProperty, Value: []byte("x")}}})
	require.ErrorContains(t, err, "reserved")
	legacy := sweepLayoutsWith(t, func(o *WriteOptions) *WriteOptions {
		var cp WriteOptions
		if o != nil {
			cp = *o
		}
		cp.LegacyEncryption = legacyProps("1", aead.LegacyTypeAES128, []byte("0123456789abcdef"))
		return &cp
	})[1].data
	for i, b := range [][]byte{sweepLayouts(t)[1].data, legacy} {
		f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
		require.NoError(t, err, i)
		_, ok := f.Metadata.Property(MetadataAuthProperty)
		require.False(t, ok)
		require.NoError(t, f.Close())
	}
}

// TestPageAEADMetadataAuthRecover: a footer rebuilt by Recover, for a cut
// file and for a complete one, carries a valid tag.
func TestPageAEADMetadataAuthRecover(t *testing.T) {
	reg := testKeys(t)
	b := metaAuthFile(t, reg, "v3-gcm256")
	_, metaOffset := metaRange(t, b)
	for _, c := range []struct {
		name string
		src  []byte
	}{{"cut", b[:metaOffset-40]}, {"complete", b}} {
		t.Run(c.name, func(t *testing.T) {
			ropts := &ReadOptions{Keys: reg}
			rec, err := Recover(bytes.NewReader(c.src), int64(len(c.src)), &RecoverOptions{ReadOptions: ropts})
			require.NoError(t, err)
			var out bytes.Buffer
			_, err = rec.Rebuild(&out, bytes.NewReader(c.src), nil)
			require.NoError(t, err)
			rb := out.Bytes()
			f, err := Open(bytes.NewReader(rb), int64(len(rb)), ropts)
			require.NoError(t, err)
			require.True(t, f.Encryption().MetadataAuthenticated)
			require.NoError(t, f.Close())
			f, err = rec.Open(bytes.NewReader(c.src), ropts)
			require.NoError(t, err)
			require.True(t, f.Encryption().MetadataAuthenticated)
			require.NoError(t, f.Close())
			_, err = dumpContent(rb, ropts)
			require.NoError(t, err)
		})
	}
}

// TestPageAEADWholeFileTamperSweep changes every byte of small encrypted
// files with a few bit patterns (every bit of every byte with
// TSARROW_FULL_SWEEP=1) and reads each with the key as a conversion
// would: the schemas and every value. A change must either fail or read
// exactly the original content; none may read different content. Every
// change to the file prefix, the encryption header or the metadata
// section must fail.
func TestPageAEADWholeFileTamperSweep(t *testing.T) {
	t.Parallel()
	reg := testKeys(t)
	patterns := []byte{0x01, 0x08, 0x80, 0xff}
	if os.Getenv("TSARROW_FULL_SWEEP") != "" {
		patterns = []byte{0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80}
	}
	for _, c := range []struct{ cfg, layout string }{
		{"v3-gcm256", "table-multipage-nulls"},
		{"v3-gcm128", "tree-nonaligned"},
	} {
		t.Run(c.cfg+"/"+c.layout, func(t *testing.T) {
			var b []byte
			for _, lf := range sweepLayoutsWith(t, encrypting(t, reg, aeadConfigs()[c.cfg])) {
				if lf.name == c.layout {
					b = lf.data
				}
			}
			require.NotNil(t, b)
			opts := &ReadOptions{Keys: reg}
			want, err := fullContent(b, opts)
			require.NoError(t, err)
			dataFrom, metaOffset := metaRange(t, b)
			offsets := sample.Span(0, len(b))
			if testing.Short() {
				offsets = sample.Short(offsets, len(b)/8, 29)
			}
			var tried, detected, silent, harmless, metaTried int
			for _, off := range offsets {
				for _, p := range patterns {
					m := bytes.Clone(b)
					m[off] ^= p
					tried++
					var got string
					panicked, hung, err := runCase(func() error {
						var e error
						got, e = fullContent(m, opts)
						return e
					})
					require.False(t, panicked || hung, "byte %d ^ %#02x: panic or hang", off, p)
					mustFail := off < dataFrom || off >= metaOffset
					if mustFail {
						metaTried++
					}
					switch {
					case err != nil:
						detected++
						if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) && !errors.Is(err, aead.ErrAuthentication) && !isKeyError(err) {
							t.Errorf("byte %d ^ %#02x: error of the wrong kind: %v", off, p, err)
						}
					case got != want:
						silent++
						t.Errorf("byte %d ^ %#02x: read different content with no error", off, p)
					default:
						harmless++
						if mustFail {
							t.Errorf("byte %d ^ %#02x: a change to the prefix or the metadata section [%d, %d) went unnoticed", off, p, metaOffset, len(b))
						}
					}
				}
			}
			t.Logf("%s: %d bytes (metadata section %d), %d changes tried (%d in prefix or metadata), %d detected, %d silently changed output, %d harmless",
				c.layout, len(b), len(b)-metaOffset, tried, metaTried, detected, silent, harmless)
		})
	}
}

// FuzzMetadataTamper applies up to eight byte changes, three input bytes
// each (a big-endian uint16 offset into the file and an XOR mask), to a
// small v3 encrypted file and reads it with the key as a conversion would:
// whatever the changes, the read fails or returns the original content.
// Several changes at once reach what a single-flip sweep cannot, such as
// a change whose damage another change repairs.
func FuzzMetadataTamper(f *testing.F) {
	reg, err := newTestKeys()
	require.NoError(f, err)
	b := metaAuthFile(f, reg, "v3-gcm256")
	opts := &ReadOptions{Keys: reg}
	want, err := fullContent(b, opts)
	require.NoError(f, err)
	_, metaOffset := metaRange(f, b)
	at := func(off int) []byte { return []byte{byte(off >> 8), byte(off), 0x01} }
	f.Add(at(metaOffset + 20))
	f.Add(append(at(len(b)-tailSize-1), at(metaOffset+40)...))
	f.Add(append(at(200), at(len(b)-30)...))
	f.Fuzz(func(t *testing.T, edits []byte) {
		m := bytes.Clone(b)
		for i := 0; i+3 <= len(edits) && i < 8*3; i += 3 {
			off := int(edits[i])<<8 | int(edits[i+1])
			m[off%len(m)] ^= edits[i+2]
		}
		got, err := fullContent(m, opts)
		if err == nil && got != want {
			t.Fatalf("edits %x read different content with no error", edits)
		}
	})
}

// BenchmarkOpenMetadataAuth opens an encrypted file with 2,000 series
// (a metadata section of a few hundred KiB) with the key, so the tag is
// verified, and with the tag property renamed in a version 2 file, so it is
// not; the ratio is the cost of verification at Open.
func BenchmarkOpenMetadataAuth(b *testing.B) {
	reg := testKeys(b)
	write := func(cfg string) []byte {
		var out bytes.Buffer
		c := aeadConfigs()[cfg]
		c.Rand = &detRand{}
		w, err := NewWriter(&out, &WriteOptions{Encryption: &c, Keys: reg})
		require.NoError(b, err)
		for d := range 200 {
			var series []NonAlignedSeries
			for s := range 10 {
				v := NewValues(Int64, 2)
				series = append(series, NonAlignedSeries{SeriesSchema: SeriesSchema{Name: fmt.Sprintf("s%02d", s), DataType: Int64, Encoding: Encoding(0), Compression: Compression(0)}, Times: []int64{1, 2}, Values: v})
			}
			require.NoError(b, w.WriteNonAligned(NewDeviceID(fmt.Sprintf("root.sg.d%04d", d)), series))
		}
		require.NoError(b, w.Close())
		return out.Bytes()
	}
	v2 := write("v2-test")
	stripped := bytes.Clone(v2)
	stripped[bytes.LastIndex(stripped, []byte(MetadataAuthProperty))] ^= 0x20
	for _, c := range []struct {
		name string
		data []byte
	}{{"verified", v2}, {"no-tag", stripped}} {
		b.Run(c.name, func(b *testing.B) {
			_, metaOffset := metaRange(b, c.data)
			b.SetBytes(int64(len(c.data) - metaOffset))
			for b.Loop() {
				f, err := Open(bytes.NewReader(c.data), int64(len(c.data)), &ReadOptions{Keys: reg})
				if err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
	}
}
