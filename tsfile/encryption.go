package tsfile

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tsarrow/tsarrow/aead"
)

// MetadataAuthProperty is the footer property that holds the metadata
// authentication tag of a Page AEAD file, tsarrow's extension of the
// draft: aead.MetadataTagSize bytes as lowercase hex, always the last
// property. Readers that do not know it keep it as an unknown property.
// The tag covers every byte from meta_offset (the separator before the
// index) to the end of the file, with this property's value read as
// metadataAuthPlaceholder, and the file's bytes before its data section
// (see aead.FileCipher.NewMetadataMAC).
const MetadataAuthProperty = "tsarrow.metadataAuth"

// metadataAuthHexLen is the length of the property's value.
const metadataAuthHexLen = 2 * aead.MetadataTagSize

// metadataAuthPlaceholder stands for the value while the tag is computed:
// a fixed-length value makes the covered bytes the same before and after
// the tag is filled in.
var metadataAuthPlaceholder = strings.Repeat("0", metadataAuthHexLen)

// metadataReadSize is how much of the metadata section verification reads
// at a time: the section is streamed through the MAC, never held whole.
const metadataReadSize = 1 << 20

// maxChunkAuthSize bounds a chunk_authentication_size before it is checked
// against the profile's overhead, so a damaged size never drives a read.
const maxChunkAuthSize = 1 << 10

// Encryption describes how a file's pages are encrypted. Keys never appear
// in it. A file encrypted with the legacy properties whose key or cipher is
// not available has neither Header nor Legacy, only Locked.
type Encryption struct {
	// Header is the Page AEAD FileEncryptionHeader at offset 7, or nil.
	Header *aead.Header
	// HeaderSize is the header's serialized length E; the data section
	// starts at 7 + E.
	HeaderSize int
	// Legacy is the footer-property scheme of DataPages/Encryption.md
	// (encryptLevel 1 or 2), or nil.
	Legacy *aead.LegacyScheme
	// Locked is why pages cannot be decrypted (no registry given, no key
	// for the key id), or nil when they can.
	Locked error
	// MetadataAuthenticated reports that Open verified the metadata
	// authentication tag (MetadataAuthProperty) with the file's key: the
	// index, table schemas, statistics, Bloom filter and footer
	// properties are as the writer wrote them. It is false without the
	// key, and for files without a tag (header versions 1 and 2 from
	// other writers, or a version 3 file read with Lenient).
	MetadataAuthenticated bool
}

// fileCrypt is an open file's decryption state, shared by every chunk read
// from it.
type fileCrypt struct {
	info    Encryption
	profile *aead.Profile    // Page AEAD only
	cipher  *aead.FileCipher // nil while locked or legacy

	// devices maps a chunk offset to the serialized DeviceID the index
	// put it under: a chunk proof binds its device, and a chunk is found
	// through the index, not through its chunk group header.
	devices sync.Map // int64 -> string
	// ordinals maps each chunk_ordinal met to the chunk offset holding it:
	// two chunks with one ordinal mean a copied chunk.
	ordinals sync.Map // int64 -> int64
}

// suffix is how many fields a chunk header carries after encoding_type:
// 0 none, 1 the ordinal, 2 the ordinal and the chunk authentication.
func (c *fileCrypt) suffix() int {
	if c == nil || c.info.Header == nil {
		return 0
	}
	switch {
	case c.info.Header.HasChunkAuth():
		return 2
	case c.info.Header.HasOrdinal():
		return 1
	}
	return 0
}

// Encryption reports how the file's pages are encrypted, or nil for a
// plaintext file.
func (f *File) Encryption() *Encryption {
	if f.crypt == nil {
		return nil
	}
	e := f.crypt.info
	return &e
}

func (f *File) closeCrypt() {
	if f.crypt == nil {
		return
	}
	if f.crypt.cipher != nil {
		f.crypt.cipher.Close()
	}
	if f.crypt.info.Legacy != nil {
		f.crypt.info.Legacy.Close()
	}
}

func (f *File) keyContext() context.Context {
	if f.opts.Context != nil {
		return f.opts.Context
	}
	return context.Background()
}

// readEncryptionHeader parses the FileEncryptionHeader whose marker is at
// offset 7 and resolves its key, so that no chunk is touched before the
// file's cipher is known.
func (f *File) readEncryptionHeader() error {
	n := min(f.size-prefixSize, 512)
	var h *aead.Header
	var e int
	for {
		b, err := f.readAt(prefixSize, n, "file encryption header")
		if err != nil {
			return err
		}
		var need int
		h, e, need, err = aead.ParseHeader(b)
		if err == nil {
			break
		}
		if need > 0 && int64(need) > n && int64(need) <= f.size-prefixSize {
			n = int64(need)
			continue
		}
		return &FormatError{Offset: prefixSize, Structure: "file encryption header", Msg: "cannot parse", Kind: ErrCorrupt, Err: err}
	}
	c := &fileCrypt{info: Encryption{Header: h, HeaderSize: e}}
	f.crypt = c
	f.dataFrom = prefixSize + int64(e)
	p, err := aead.LookupProfile(h.ProfileID)
	if err != nil {
		return &FormatError{Offset: prefixSize, Structure: "file encryption header", Msg: "cannot read pages", Kind: ErrUnsupported, Err: err}
	}
	c.profile = p
	if f.opts.Keys == nil {
		c.info.Locked = fmt.Errorf("%w: no key registry given for provider %q, key id %q version %q", aead.ErrKeyNotFound, h.ProviderID, h.KeyID, h.KeyVersion)
		return nil
	}
	c.cipher, err = aead.OpenFileCipher(f.keyContext(), f.opts.Keys, h)
	if err != nil {
		// A key that exists but does not fit is worth failing Open for;
		// a missing one leaves the footer and index readable.
		if errors.Is(err, aead.ErrKeyNotFound) || errors.Is(err, aead.ErrUnknownProvider) {
			c.info.Locked = err
			return nil
		}
		return &FormatError{Offset: prefixSize, Structure: "file encryption header", Msg: "the key does not unwrap the data key", Kind: ErrCorrupt, Err: err}
	}
	return nil
}

// readLegacyEncryption resolves the footer's encryption properties.
func (f *File) readLegacyEncryption() error {
	var p aead.LegacyProperties
	p.Level, p.HasLevel = f.Metadata.Property(aead.LegacyPropLevel)
	p.Type, p.HasType = f.Metadata.Property(aead.LegacyPropType)
	p.Key, p.HasKey = f.Metadata.Property(aead.LegacyPropKey)
	if f.crypt != nil {
		// Page AEAD wins over the footer properties (PAGE-AEAD.md 2.4);
		// a writer fills them with the unencrypted defaults anyway.
		return nil
	}
	s, err := aead.ParseLegacy(p, f.opts.LegacyUnwrap)
	switch {
	case err != nil:
		// Like a Page AEAD file without its key: the structure stays
		// readable, the pages do not.
		f.crypt = &fileCrypt{info: Encryption{Locked: err}}
	case s != nil:
		f.crypt = &fileCrypt{info: Encryption{Legacy: s}}
	}
	return nil
}

// noteChunkDevices records the device the index files the chunks of series
// under, for chunk authentication.
func (f *File) noteChunkDevices(dev DeviceID, series []TimeseriesMetadata) error {
	if f.crypt.suffix() < 2 {
		return nil
	}
	key := deviceKey(dev)
	for i := range series {
		for _, cm := range series[i].Chunks {
			if old, dup := f.crypt.devices.LoadOrStore(cm.Offset, key); dup && old.(string) != key {
				return corruptf(cm.Offset, "chunk metadata", "chunk is indexed under two devices")
			}
		}
	}
	return nil
}

// verifyChunkHeader checks the Page AEAD suffix of h: its proof against the
// device dev (nil: the one the index gave), and that no other chunk holds
// its ordinal.
func (f *File) verifyChunkHeader(h *ChunkHeader, dev *DeviceID) error {
	c := f.crypt
	switch c.suffix() {
	case 0:
		return nil
	case 2:
		if len(h.Auth) != c.profile.Overhead {
			return corruptf(h.Offset, "chunk header", "chunk_authentication_size %d, profile %s needs %d", len(h.Auth), c.profile.ID, c.profile.Overhead)
		}
		if c.cipher == nil {
			if f.opts.Unauthenticated {
				break
			}
			return &FormatError{Offset: h.Offset, Structure: "chunk header", Msg: "cannot authenticate the chunk", Kind: ErrUnsupported, Err: c.info.Locked}
		}
		var devBytes []byte
		if dev != nil {
			devBytes = appendDeviceID(nil, *dev)
		} else if v, ok := c.devices.Load(h.Offset); ok {
			devBytes = []byte(v.(string))
		} else {
			return corruptf(h.Offset, "chunk header", "no index entry names this chunk's device, which its proof binds")
		}
		id := aead.ChunkIdentity{
			Ordinal: h.Ordinal, Offset: h.Offset, Marker: h.Marker, Device: devBytes, Measurement: h.Measurement,
			DataSize: h.DataSize, DataType: byte(h.DataType), Compression: byte(h.Compression), Encoding: byte(h.Encoding),
		}
		if err := c.cipher.VerifyChunk(h.Auth, &id); err != nil {
			return &FormatError{Offset: h.Offset, Structure: "chunk header", Msg: "chunk authentication failed", Kind: ErrCorrupt, Err: err}
		}
	}
	if h.Ordinal < 0 {
		return corruptf(h.Offset, "chunk header", "negative chunk_ordinal %d", h.Ordinal)
	}
	if old, dup := c.ordinals.LoadOrStore(h.Ordinal, h.Offset); dup && old.(int64) != h.Offset {
		return corruptf(h.Offset, "chunk header", "chunk_ordinal %d is also held by the chunk at offset %d", h.Ordinal, old.(int64))
	}
	return nil
}

// decryptPage returns the compressed plaintext of page i of c, appended to
// dst.
func (c *fileCrypt) decryptPage(dst []byte, ch *Chunk, i int) ([]byte, error) {
	p := &ch.Pages[i]
	if c.info.Legacy != nil {
		out, err := c.info.Legacy.Decrypt(dst, p.Stored)
		if err != nil {
			return nil, &FormatError{Offset: p.Header.BodyOffset(), Structure: "page body", Msg: "cannot decrypt", Kind: ErrUnsupported, Err: err}
		}
		return out, nil
	}
	if c.cipher == nil {
		return nil, &FormatError{Offset: p.Header.BodyOffset(), Structure: "page body", Msg: "cannot decrypt", Kind: ErrUnsupported, Err: c.info.Locked}
	}
	out, err := c.cipher.OpenPage(dst, p.Stored, ch.Header.Ordinal, i, p.Header.UncompressedSize)
	if err != nil {
		return nil, &FormatError{Offset: p.Header.BodyOffset(), Structure: "page body", Msg: fmt.Sprintf("page %d of chunk %q", i, ch.Header.Measurement), Kind: ErrCorrupt, Err: err}
	}
	return out, nil
}

// checkSealedSize refuses a page body shorter than the profile's overhead
// before anything is read for it.
func (c *fileCrypt) checkSealedSize(p *PageHeader) error {
	if c == nil || c.profile == nil || p.UncompressedSize == 0 {
		return nil
	}
	if p.CompressedSize < c.profile.Overhead {
		return corruptf(p.Offset, "page header", "compressed_size %d is shorter than the %d bytes of Page AEAD overhead", p.CompressedSize, c.profile.Overhead)
	}
	return nil
}

// chunkSuffix decodes the Page AEAD fields after encoding_type: n is
// fileCrypt.suffix.
func (d *buf) chunkSuffix(h *ChunkHeader, n int) {
	if n == 0 || d.err != nil {
		return
	}
	h.Ordinal = d.int64("chunk_ordinal")
	if n == 2 {
		at := d.pos
		size := d.int32("chunk_authentication_size")
		if d.err != nil {
			return
		}
		if size < 0 || size > maxChunkAuthSize {
			d.pos = at
			d.fail("chunk_authentication_size %d is outside 0..%d", size, maxChunkAuthSize)
			return
		}
		h.Auth = d.bytesN(int(size), "chunk_authentication")
	}
}

func appendChunkSuffix(dst []byte, h *ChunkHeader, n int) []byte {
	if n == 0 {
		return dst
	}
	dst = appendInt64(dst, h.Ordinal)
	if n == 2 {
		dst = appendInt32(dst, int32(len(h.Auth)))
		dst = append(dst, h.Auth...)
	}
	return dst
}

// verifyMetadata checks the metadata authentication tag of a Page AEAD
// file whose key is available, before anything from the index is used: it
// streams every byte from meta_offset to the end of the file through the
// MAC, so index nodes, series metadata and everything else read later
// from that region are the bytes the writer wrote (as long as the file
// does not change while it is open).
//
// A file without the tag is refused when its header is version 3, a
// version only tsarrow writes: there a missing tag means the property was
// removed or renamed, which must not turn authentication off. Lenient
// reads accept it with a warning, for tsarrow files written before the
// tag existed. Versions 1 and 2 are what upstream's draft writes, which
// has no tag, so there its absence is accepted silently; a tag that is
// present is verified whatever the version.
func (f *File) verifyMetadata() error {
	c := f.crypt
	if c == nil || c.info.Header == nil || c.cipher == nil || f.Version != Version {
		return nil
	}
	props := f.Metadata.Properties
	at := -1
	for i := range props {
		if props[i].Key == MetadataAuthProperty {
			at = i
		}
	}
	const structure = "metadata authentication"
	if at < 0 {
		if !c.info.Header.HasChunkAuth() {
			return nil
		}
		return f.Tolerate(&FormatError{Offset: f.metaPos, Structure: structure, Kind: ErrCorrupt, Err: aead.ErrAuthentication,
			Msg: fmt.Sprintf("a header version %d file has no %s footer property, so its index and footer [%d, %d) cannot be authenticated: the property was removed or renamed, or a tsarrow build older than the tag wrote the file; read with --lenient to accept unauthenticated metadata",
				c.info.Header.Version, MetadataAuthProperty, f.metaOffset, f.size)})
	}
	valueAt := f.size - tailSize - metadataAuthHexLen
	p := props[at]
	tag, err := hex.DecodeString(string(p.Value))
	// Lowercase only: the value is outside what the tag covers, so an
	// upper-case spelling of the same tag would be a change that passes.
	if at != len(props)-1 || p.Null || len(p.Value) != metadataAuthHexLen || err != nil || hex.EncodeToString(tag) != string(p.Value) {
		return &FormatError{Offset: f.metaPos, Structure: structure, Kind: ErrCorrupt, Err: aead.ErrAuthentication,
			Msg: fmt.Sprintf("the %s footer property must be the last one and hold %d lowercase hex digits: the footer was changed after writing; do not trust this file's index or footer",
				MetadataAuthProperty, metadataAuthHexLen)}
	}
	prefix, err := f.readAt(0, f.dataFrom, "file prefix")
	if err != nil {
		return err
	}
	mac, err := c.cipher.NewMetadataMAC(prefix, f.metaOffset)
	if err != nil {
		return &FormatError{Offset: f.metaOffset, Structure: structure, Msg: "cannot start", Kind: ErrCorrupt, Err: err}
	}
	buf := make([]byte, min(f.size-f.metaOffset, metadataReadSize))
	for off := f.metaOffset; off < f.size; {
		b, err := f.readInto(buf[:min(int64(len(buf)), f.size-off)], off, "metadata section")
		if err != nil {
			return err
		}
		// The value as the writer hashed it: the placeholder.
		if lo, hi := max(valueAt, off), min(valueAt+metadataAuthHexLen, off+int64(len(b))); lo < hi {
			if !bytes.Equal(b[lo-off:hi-off], p.Value[lo-valueAt:hi-valueAt]) {
				return corruptf(valueAt, structure, "the %s value is not the last bytes of TsFileMetadata", MetadataAuthProperty)
			}
			copy(b[lo-off:hi-off], metadataAuthPlaceholder)
		}
		mac.Write(b)
		off += int64(len(b))
	}
	if err := mac.Verify(tag); err != nil {
		return &FormatError{Offset: f.metaOffset, Structure: structure, Kind: ErrCorrupt, Err: err,
			Msg: fmt.Sprintf("bytes [%d, %d) (index, table schemas, statistics, Bloom filter, footer properties) or the file's header changed after writing; do not trust this file, restore it from a copy",
				f.metaOffset, f.size)}
	}
	c.info.MetadataAuthenticated = true
	return nil
}
