package tsfile

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/tsarrow/tsarrow/aead"
	"github.com/tsarrow/tsarrow/bitmap"
	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/quirklayout"
)

// WriteOptions configure a Writer. The zero value (or nil) selects the
// defaults noted on each field, which match the reference writer.
type WriteOptions struct {
	// MaxDegree is the metadata index fanout (default 256, minimum 2).
	MaxDegree int
	// MaxPointsPerPage ends a page after this many rows (default 10000).
	MaxPointsPerPage int
	// PageSizeTarget ends a page once its estimated uncompressed values
	// reach this many bytes (default 64 KiB).
	PageSizeTarget int
	// TimeEncoding encodes aligned time chunks and the time streams of
	// non-aligned pages (default TS_2DIFF). Any other encoding needs
	// ConfiguredTimeEncoding, and is otherwise refused with an error
	// wrapping ErrUnsupportedOption. With LAMINAR, an aligned time chunk
	// with a page of one row (and a non-zero time) is written in TS_2DIFF,
	// as SeriesSchema.Encoding says; a non-aligned page of one such point is
	// refused, since its chunk header has no time encoding to change.
	TimeEncoding TimeEncoding
	// ConfiguredTimeEncoding declares that every reader of the file is
	// configured to decode time streams in TimeEncoding, which lets
	// TimeEncoding be other than TS_2DIFF.
	//
	// The upstream Java reader decodes every time stream, of an aligned
	// time chunk as of a non-aligned page, with the time encoder of its
	// configuration (TSFileConfig.timeEncoder, IoTDB's time_encoder,
	// default TS_2DIFF): the decoder is AbstractChunkReader.defaultTimeDecoder,
	// which AbstractAlignedChunkReader.constructAlignedPageReader and
	// ChunkReader.constructPageReader hand to the page readers, never the
	// encoding in the time chunk's header (apache/tsfile java/tsfile
	// read/reader/chunk; apache/tsfile#203: "this information is not
	// included in a TsFile"). A time stream in another encoding therefore
	// throws or reads as wrong times in a default upstream reader. This
	// package's reader takes an aligned time chunk's encoding from its
	// header and a non-aligned page's from ReadOptions.NonAlignedTimeEncoding
	// (default TS_2DIFF). Set it for readers configured to match, and for
	// tests of other readers; a LAMINAR chunk that falls back to TS_2DIFF
	// (see SeriesSchema) is then misread by an upstream reader configured for
	// LAMINAR.
	ConfiguredTimeEncoding bool
	// TimeCompression compresses aligned time chunks (default UNCOMPRESSED).
	TimeCompression Compression
	// BloomFilterFPR is the Bloom filter false-positive rate, clamped to
	// 0.01..0.1 (default 0.05).
	BloomFilterFPR float64
	// NoBloomFilter writes an empty Bloom filter.
	NoBloomFilter bool
	// Properties are extra footer properties, written after the three
	// encryption properties the reference writer always writes.
	Properties []Property
	// TablePointCount writes, for every registered table, the footer
	// property TablePointCountPrefix+table holding the number of non-null
	// FIELD values written for it as 8 bytes big-endian, as TsFile 2.5's
	// Java writer does when asked (TsFileIOWriter's table point counting,
	// BytesUtils.longToBytes; apache/tsfile java/tsfile, write/writer).
	// Any such property in Properties is left out: a count carried over
	// from another file would not describe this one.
	TablePointCount bool
	// NoEncryptionProperties omits those three properties; readers treat
	// an absent encryptLevel as "0".
	NoEncryptionProperties bool
	// Encryption, when set, writes a Page AEAD file (PAGE-AEAD.md): a
	// FileEncryptionHeader after the version byte, a fresh data key
	// wrapped by the provider's key-encryption key, every page body
	// sealed, chunk ordinals (and, with header version 3, chunk proofs)
	// after each chunk header, and the metadata authentication tag as the
	// last footer property (MetadataAuthProperty), whatever the header
	// version.
	Encryption *aead.WriterConfig
	// Keys resolves Encryption.ProviderID when Encryption.Provider is nil.
	Keys *aead.Registry
	// Context is passed to the key provider when the data key is wrapped;
	// nil means context.Background().
	Context context.Context
	// LegacyEncryption encrypts pages with the footer-property scheme of
	// DataPages/Encryption.md instead, and writes these properties, for
	// files that the reference reader of that scheme must open. It has no
	// authentication and reuses one keystream for every page: prefer
	// Encryption.
	LegacyEncryption *aead.LegacyProperties
	// LegacyUnwrap unwraps the data key of LegacyEncryption at
	// encryptLevel 2.
	LegacyUnwrap aead.LegacyUnwrapFunc
	// Version is the format version to write: 0 or Version (4), or
	// VersionV3 for readers that predate v4 (IoTDB 1.x, the older C++
	// and Python SDKs). A v3 file holds the tree model only: each device
	// is stored as its path string (DeviceID.TreePath), and the footer
	// has one device index, a v3 Bloom filter and no table schemas or
	// properties. RegisterTable, Encryption, LegacyEncryption,
	// Properties, the OBJECT type and the CAMEL encoding, none of which
	// a v3 reader knows, are refused.
	Version byte
	// Overlapping lets a chunk group of a device hold times at or before
	// those of the device's earlier chunk groups; the times of one call
	// must still rise. IoTDB's unsequence files look like this after
	// several flushes of out-of-order data into one file (a later chunk
	// group wins where times repeat). Readers that expect one time order
	// per device, arrowconv's among them, return such a device's rows
	// group by group; package dataset resolves them.
	Overlapping bool

	// quirkLayouts writes the layouts of these writer quirks of the C++
	// writer of early 2025 (QuirkTimePageLength, QuirkNoRoleBits,
	// QuirkValuePageRows, QuirkLostFullPage; others are ignored) in
	// aligned chunk groups, so that tests can build such files. Files
	// written with it are not conformant, so only tests set it, through
	// internal/quirklayout.
	quirkLayouts WriterQuirk
	// unchecked lifts the refusals of what upstream readers misread
	// (ErrUnsupportedOption), so that tests can show upstream misreading
	// it. Only tests set it.
	unchecked bool
}

func init() {
	quirklayout.Set = func(opts any, q uint32) { opts.(*WriteOptions).quirkLayouts = WriterQuirk(q) }
}

func (o *WriteOptions) withDefaults() (WriteOptions, error) {
	var r WriteOptions
	if o != nil {
		r = *o
	}
	if r.MaxDegree == 0 {
		r.MaxDegree = 256
	}
	if r.MaxDegree < 2 {
		return r, fmt.Errorf("tsfile: MaxDegree %d is below 2", r.MaxDegree)
	}
	if r.MaxPointsPerPage <= 0 {
		r.MaxPointsPerPage = 10000
	}
	if r.PageSizeTarget <= 0 {
		r.PageSizeTarget = 64 << 10
	}
	if !encodingAllowed(Int64, r.TimeEncoding.Encoding()) {
		return r, fmt.Errorf("tsfile: %s cannot encode timestamps", r.TimeEncoding)
	}
	if r.BloomFilterFPR == 0 {
		r.BloomFilterFPR = bloomDefaultFPR
	}
	switch r.Version {
	case 0:
		r.Version = Version
	case Version:
	case VersionV3:
		switch {
		case r.Encryption != nil:
			return r, errors.New("tsfile: Page AEAD is a TsFile v4 extension; a v3 file cannot be encrypted")
		case r.LegacyEncryption != nil:
			return r, errors.New("tsfile: a TsFile v3 footer has no properties to hold legacy encryption")
		case len(r.Properties) > 0 || r.TablePointCount:
			return r, errors.New("tsfile: a TsFile v3 footer has no properties")
		case r.TimeEncoding.Encoding() > encoding.RLBE:
			// CAMEL and the TsFile 2.3 integer encodings came after every v3 reader.
			return r, fmt.Errorf("tsfile: v3 readers have no %s decoder for timestamps", r.TimeEncoding)
		}
	default:
		return r, fmt.Errorf("tsfile: cannot write format version %d (versions %d and %d can be written)", r.Version, VersionV3, Version)
	}
	if e := r.TimeEncoding.Encoding(); e != encoding.TS2Diff && !r.ConfiguredTimeEncoding && !r.unchecked {
		return r, optionErrorf("tsfile: WriteOptions.TimeEncoding %s: upstream readers decode every time stream with their configured time encoder (TS_2DIFF unless configured otherwise), not the chunk header's; keep TS_2DIFF, or set WriteOptions.ConfiguredTimeEncoding for readers configured with %s", e, e)
	}
	for _, p := range r.Properties {
		if p.Key == MetadataAuthProperty {
			// A caller's value would either be overwritten or, in a
			// plaintext file, pass for a tag that is not there.
			return r, fmt.Errorf("tsfile: footer property %q is reserved for the metadata authentication tag of encrypted files", MetadataAuthProperty)
		}
	}
	return r, nil
}

// SeriesSchema names a measurement and how its chunks are written.
//
// Encoding LAMINAR has one exception: a chunk with a page of exactly one
// non-null value that is not 0 is written in TS_2DIFF, and its chunk header
// says so. No LAMINAR page of that one value reads correctly in the upstream
// Java reader (its LaminarDecoder misreads a one-value array; see
// encoding.ErrLaminarSingleValue), while each chunk header names its own
// encoding, so the rest of the series keeps LAMINAR.
type SeriesSchema struct {
	Name        string
	DataType    DataType
	Encoding    Encoding
	Compression Compression
}

// AlignedColumn is one value column of an aligned chunk group. Values.Len()
// must equal the number of timestamps; Values.Null marks nulls.
type AlignedColumn struct {
	SeriesSchema
	Values Values
}

// NonAlignedSeries is one series of a non-aligned chunk group: its own
// timestamps and values (Values.Null is not allowed: a non-aligned series
// stores only the points that exist).
type NonAlignedSeries struct {
	SeriesSchema
	Times  []int64
	Values Values
}

// Writer writes a TsFile v4, or v3 (WriteOptions.Version). Each Write call
// emits one chunk group; Close writes the index and footer. It is not safe
// for concurrent use.
type Writer struct {
	w      *bufio.Writer
	pos    int64
	opts   WriteOptions
	err    error
	closed bool

	tables  map[string]*TableSchema
	devices map[string]*deviceState // by deviceKey
	order   []*deviceState
	scratch []byte
	comp    []byte
	sealed  []byte

	cipher  *aead.FileCipher  // Page AEAD, or nil
	prefix  []byte            // Page AEAD: the bytes before the data section, which the metadata tag binds
	mac     *aead.MetadataMAC // while the metadata section is written: every byte written goes into it
	legacy  *aead.LegacyScheme
	suffix  int   // chunk header suffix fields, as fileCrypt.suffix
	ordinal int64 // the next chunk_ordinal

	v3    bool                    // writing TsFile v3
	paths map[string]*deviceState // v3: devices by path string

	// lowerNames refuses table and column names not in lower case
	// (checkLowerCase). NewWriter sets it; Recover, which writes again
	// the schemas a file holds, does not.
	lowerNames bool
}

type deviceState struct {
	id      DeviceID
	aligned bool
	series  map[string]*seriesState
	lastEnd int64 // last timestamp written, for ordering across groups
	hasData bool
}

type seriesState struct {
	meta   TimeseriesMetadata
	stats  *statsBuilder
	schema SeriesSchema // as first written, for the empty chunks of groups without it
}

// NewWriter writes the file prefix to w and returns a Writer.
func NewWriter(w io.Writer, opts *WriteOptions) (*Writer, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if o.Encryption != nil && o.LegacyEncryption != nil {
		return nil, errors.New("tsfile: Page AEAD and legacy encryption are exclusive")
	}
	tw := &Writer{w: bufio.NewWriterSize(w, 1<<16), opts: o, tables: map[string]*TableSchema{}, devices: map[string]*deviceState{}, lowerNames: !o.unchecked}
	tw.setVersion()
	tw.write([]byte(Magic))
	tw.write([]byte{o.Version})
	if o.LegacyEncryption != nil {
		if tw.legacy, err = aead.ParseLegacy(*o.LegacyEncryption, o.LegacyUnwrap); err != nil {
			return nil, fmt.Errorf("tsfile: legacy encryption: %w", err)
		}
		if tw.legacy == nil {
			return nil, errors.New("tsfile: LegacyEncryption names no encryption")
		}
	}
	if o.Encryption != nil {
		ctx := o.Context
		if ctx == nil {
			ctx = context.Background()
		}
		c, err := aead.NewFileCipher(ctx, o.Keys, *o.Encryption)
		if err != nil {
			return nil, fmt.Errorf("tsfile: Page AEAD: %w", err)
		}
		hb, err := c.Header().AppendBinary(nil)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("tsfile: Page AEAD: %w", err)
		}
		tw.cipher = c
		tw.suffix = (&fileCrypt{info: Encryption{Header: c.Header()}}).suffix()
		tw.prefix = append(append([]byte(Magic), o.Version), hb...)
		tw.write(hb)
	}
	return tw, tw.err
}

// setVersion prepares the writer for opts.Version.
func (w *Writer) setVersion() {
	if w.opts.Version == VersionV3 {
		w.v3, w.paths = true, map[string]*deviceState{}
	}
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(b)
	w.pos += int64(n)
	w.err = err
	if w.mac != nil {
		w.mac.Write(b[:n])
	}
}

// Offset returns the number of bytes written so far.
func (w *Writer) Offset() int64 { return w.pos }

// RegisterTable declares a table-model table. Devices of the table are
// DeviceIDs whose first segment is the table name followed by one segment
// per TAG column. The table and column names must be in lower case, as
// upstream writers and IoTDB store them (see checkLowerCase); others are
// refused with an error wrapping ErrUnsupportedOption.
func (w *Writer) RegisterTable(s TableSchema) error {
	if w.v3 {
		return fmt.Errorf("tsfile: table %q: TsFile v3 has no table model", s.Name)
	}
	if s.Name == "" {
		return errors.New("tsfile: table name is empty")
	}
	if _, dup := w.tables[s.Name]; dup {
		return fmt.Errorf("tsfile: table %q registered twice", s.Name)
	}
	if err := w.checkLowerCase("table", s.Name, s.Name); err != nil {
		return err
	}
	seen := map[string]bool{}
	timeCol := ""
	for _, c := range s.Columns {
		if c.Category == TimeCol {
			// A TIME column names the time column (TsFile 2.5's C++
			// writer, apache/tsfile cpp/src/common/schema.h): one at
			// most, of a type that holds timestamps.
			if timeCol != "" {
				return fmt.Errorf("tsfile: table %q has two TIME columns, %q and %q", s.Name, timeCol, c.Name)
			}
			if c.DataType != Timestamp && c.DataType != Int64 {
				return fmt.Errorf("tsfile: TIME column %q must be TIMESTAMP or INT64, not %s", c.Name, c.DataType)
			}
			timeCol = c.Name
		}
		if err := w.checkLowerCase("column", s.Name, c.Name); err != nil {
			return err
		}
		if seen[c.Name] {
			return fmt.Errorf("tsfile: table %q has two columns named %q", s.Name, c.Name)
		}
		seen[c.Name] = true
		if !c.DataType.IsValueType() {
			return fmt.Errorf("tsfile: column %q has data type %s", c.Name, c.DataType)
		}
		if c.Category == Tag && c.DataType != String {
			return fmt.Errorf("tsfile: TAG column %q must be STRING, not %s", c.Name, c.DataType)
		}
	}
	cp := s
	cp.Columns = append([]Column(nil), s.Columns...)
	w.tables[s.Name] = &cp
	return nil
}

// checkLowerCase refuses a table or column name of the table model that
// is not in lower case. The upstream Java reader lowers both as it reads
// the table schema (TableSchema's constructors in apache/tsfile java/tsfile
// file/metadata call toLowerCase, as its writer does for the names it
// writes, AlignedChunkGroupWriterImpl), and then finds no chunk stored
// under the name as written: a table query returns no rows at all, with
// no error. IoTDB's table model is case-insensitive the same way.
func (w *Writer) checkLowerCase(what, table, name string) error {
	if !w.lowerNames || strings.ToLower(name) == name {
		return nil
	}
	return optionErrorf("tsfile: table %q: %s name %q is not in lower case; upstream readers lower table and column names as they read the schema and then find none of its chunks, so they return no rows: name it %q", table, what, name, strings.ToLower(name))
}

func deviceKey(id DeviceID) string { return string(appendDeviceID(nil, id)) }

func (w *Writer) device(id DeviceID, aligned bool) (*deviceState, error) {
	if id.Len() == 0 {
		return nil, errors.New("tsfile: device has no segments")
	}
	k := deviceKey(id)
	d, ok := w.devices[k]
	if !ok {
		if w.v3 {
			if err := w.v3Device(id); err != nil {
				return nil, err
			}
		}
		d = &deviceState{id: id, aligned: aligned, series: map[string]*seriesState{}}
		w.devices[k] = d
		w.order = append(w.order, d)
		if w.v3 {
			w.paths[id.TreePath()] = d
		}
	}
	if d.aligned != aligned {
		return nil, fmt.Errorf("tsfile: device %s is written both aligned and non-aligned", id)
	}
	return d, nil
}

// v3Device checks that a new device can be stored as a v3 path string:
// no null segments, a non-empty path, and no other device with that path
// (("root.a", "b.c") and ("root.a.b", "c") are both "root.a.b.c").
func (w *Writer) v3Device(id DeviceID) error {
	for _, s := range id.segs {
		if s.Null {
			return fmt.Errorf("tsfile: device %s has a null segment, which a TsFile v3 path cannot hold", id)
		}
	}
	p := id.TreePath()
	if p == "" {
		return errors.New("tsfile: device path is empty")
	}
	if o, dup := w.paths[p]; dup {
		return fmt.Errorf("tsfile: devices %q and %q have the same TsFile v3 path %q", segmentValues(o.id), segmentValues(id), p)
	}
	return nil
}

// segmentValues lists id's segments, for messages where the dotted form
// would hide the difference.
func segmentValues(id DeviceID) []string {
	out := make([]string, len(id.segs))
	for i, s := range id.segs {
		out[i] = s.Value
	}
	return out
}

// checkV3Series refuses what a v3 reader cannot decode.
func (w *Writer) checkV3Series(s *SeriesSchema) error {
	if !w.v3 {
		return nil
	}
	if s.DataType == Object {
		return fmt.Errorf("tsfile: series %q: TsFile v3 has no OBJECT type", s.Name)
	}
	switch s.Encoding {
	case encoding.Camel, encoding.DescendingBitPacking, encoding.SeparateStorage, encoding.Laminar:
		return fmt.Errorf("tsfile: series %q: v3 readers have no %s decoder", s.Name, s.Encoding)
	}
	return nil
}

func checkTimes(times []int64, after int64, hasData bool) error {
	for i, t := range times {
		if (i > 0 && t <= times[i-1]) || (i == 0 && hasData && t <= after) {
			return fmt.Errorf("tsfile: timestamp %d at row %d is not greater than the previous one", t, i)
		}
	}
	return nil
}

func checkSeries(s *SeriesSchema) error {
	if !s.DataType.IsValueType() {
		return fmt.Errorf("tsfile: series %q has data type %s", s.Name, s.DataType)
	}
	if !encodingAllowed(s.DataType, s.Encoding) {
		return fmt.Errorf("tsfile: series %q: %s cannot encode %s", s.Name, s.Encoding, s.DataType)
	}
	return nil
}

// WriteAligned writes one aligned chunk group: a time chunk for times and a
// value chunk per column. A column that is null everywhere gets an empty
// chunk (data_size 0), and so does every column of the device that cols
// leave out: each FIELD of a registered table, and each column an earlier
// group of the device had. The upstream Java reader pairs the i-th value
// chunk of a column with the i-th time chunk of its device
// (AbstractAlignedTimeSeriesMetadata.getAlignedChunkMetadata in
// apache/tsfile) and fails on a column with fewer chunks, so this is what
// its writer does (ValueChunkWriter.writeAllPagesOfChunkToTsFile writes the
// header of an empty value chunk). For the same reason a device not of a
// registered table takes no new column after its first group: give every
// column, all null if need be, in the first one.
func (w *Writer) WriteAligned(dev DeviceID, times []int64, cols []AlignedColumn) error {
	if err := w.usable(); err != nil {
		return err
	}
	d, err := w.device(dev, true)
	if err != nil {
		return err
	}
	if len(times) == 0 {
		return errors.New("tsfile: aligned chunk group without rows")
	}
	if err := checkTimes(times, d.lastEnd, d.hasData && !w.opts.Overlapping); err != nil {
		return fmt.Errorf("%w (device %s)", err, dev)
	}
	ts, isTable := w.tables[dev.Table()]
	if isTable {
		if err := checkTableDevice(ts, dev, cols); err != nil {
			return err
		}
	}
	seen := map[string]bool{"": true}
	for i := range cols {
		c := &cols[i]
		if err := checkSeries(&c.SeriesSchema); err != nil {
			return err
		}
		if err := w.checkValues(dev, &c.SeriesSchema, times, &c.Values); err != nil {
			return err
		}
		if seen[c.Name] {
			return fmt.Errorf("tsfile: column %q given twice", c.Name)
		}
		seen[c.Name] = true
		if c.Values.Type != c.DataType || c.Values.Len() != len(times) || (c.Values.Null != nil && len(c.Values.Null) != len(times)) {
			return fmt.Errorf("tsfile: column %q has %d %s values for %d rows", c.Name, c.Values.Len(), c.Values.Type, len(times))
		}
		if err := w.checkGorillaV1NaN(dev, &c.SeriesSchema, times, &c.Values); err != nil {
			return err
		}
		s, ok := d.series[c.Name]
		if ok && s.meta.DataType != c.DataType {
			return fmt.Errorf("tsfile: column %q changes type from %s to %s", c.Name, s.meta.DataType, c.DataType)
		}
		if !ok && !isTable && d.hasData {
			return fmt.Errorf("tsfile: column %q of aligned device %s is new after its first chunk group; upstream readers pair a column's value chunks with the device's time chunks by position, so give every column (all null if need be) in the device's first group", c.Name, dev)
		}
	}
	absent := absentColumns(d, ts, seen)
	bounds := w.pageBounds(times, cols)
	w.chunkGroupHeader(d.id) // one spelling of a v3 path per device
	// Time chunk.
	timeSeries := SeriesSchema{DataType: Vector, Encoding: w.opts.TimeEncoding.Encoding(), Compression: w.opts.TimeCompression}
	var pages []builtPage
	for p := 0; p+1 < len(bounds); p++ {
		lo, hi := bounds[p], bounds[p+1]
		body, err := encoding.AppendEncodedInt64(timeSeries.Encoding, nil, times[lo:hi])
		if errors.Is(err, encoding.ErrLaminarSingleValue) {
			// Restart the chunk in the fallback (see SeriesSchema); the Java
			// reader takes the time encoding from this chunk's header.
			timeSeries.Encoding, pages, p = laminarFallback, pages[:0], -1
			continue
		}
		if err != nil {
			return err
		}
		sb := newStatsBuilder(Vector)
		for _, t := range times[lo:hi] {
			sb.time(t)
		}
		if w.opts.quirkLayouts&QuirkTimePageLength != 0 {
			body = append(appendUVarint(nil, uint32(len(body))), body...)
		}
		pages = append(pages, builtPage{payload: body, stats: sb.result()})
	}
	timeMarker, valueMarker, timeRole, valueRole := MarkerTimeChunkHeader, MarkerValueChunkHeader, byte(0x80), byte(0x40)
	if w.opts.quirkLayouts&QuirkNoRoleBits != 0 {
		timeMarker, valueMarker, timeRole, valueRole = MarkerChunkHeader, MarkerChunkHeader, 0, 0
	}
	if err := w.writeChunk(d, &timeSeries, timeMarker, pages, timeRole); err != nil {
		return err
	}
	for i := range cols {
		c := &cols[i]
		pages = pages[:0]
		allNull := true
		vb := bounds
		if w.opts.quirkLayouts&QuirkValuePageRows != 0 {
			vb = cppValueBounds(&c.Values, w.opts.MaxPointsPerPage)
		}
		for p := 0; p+1 < len(vb); p++ {
			lo, hi := vb[p], vb[p+1]
			bp, err := buildValuePage(c, times, lo, hi)
			if errors.Is(err, encoding.ErrLaminarSingleValue) {
				// Restart the chunk in the fallback (see SeriesSchema).
				c = withLaminarFallback(c)
				pages, p = pages[:0], -1 // allNull is false anyway: the failed page holds a value
				continue
			}
			if err != nil {
				return err
			}
			if !bp.empty {
				allNull = false
			}
			pages = append(pages, bp)
		}
		if allNull {
			pages = pages[:0]
		}
		if err := w.writeChunk(d, &c.SeriesSchema, valueMarker, pages, valueRole); err != nil {
			return err
		}
	}
	for i := range absent {
		if err := w.writeChunk(d, &absent[i], valueMarker, nil, valueRole); err != nil {
			return err
		}
	}
	if end := times[len(times)-1]; !d.hasData || end > d.lastEnd {
		d.lastEnd = end
	}
	d.hasData = true
	return w.err
}

// cppValueBounds cuts the rows of a value column into pages as the C++
// writer of early 2025 does (QuirkValuePageRows): a page ends with its
// maxPoints-th non-null value, and trailing rows without a value get no
// page (apache/tsfile cpp/src/writer/value_chunk_writer.h
// is_cur_page_full counts the page statistics, non-null values only).
func cppValueBounds(v *Values, maxPoints int) []int {
	bounds := []int{0}
	k := 0
	for i := 0; i < v.Len(); i++ {
		if v.IsNull(i) {
			continue
		}
		k++
		if k == maxPoints {
			bounds = append(bounds, i+1)
			k = 0
		}
	}
	if k > 0 {
		bounds = append(bounds, v.Len())
	}
	return bounds
}

// absentColumns lists the columns of the device that a group's cols leave
// out (see WriteAligned): the FIELDs of its table ts in schema order, or,
// without one, the value columns its earlier groups had, in name order.
// seen holds the names in cols.
func absentColumns(d *deviceState, ts *TableSchema, seen map[string]bool) []SeriesSchema {
	var absent []SeriesSchema
	if ts != nil {
		for _, c := range ts.Columns {
			if c.Category == Field && !seen[c.Name] {
				absent = append(absent, SeriesSchema{Name: c.Name, DataType: c.DataType, Encoding: c.Encoding, Compression: c.Compression})
			}
		}
		return absent
	}
	for name, s := range d.series {
		if name != "" && !seen[name] {
			absent = append(absent, s.schema)
		}
	}
	slices.SortFunc(absent, func(a, b SeriesSchema) int { return strings.Compare(a.Name, b.Name) })
	return absent
}

func checkTableDevice(ts *TableSchema, dev DeviceID, cols []AlignedColumn) error {
	tags := ts.Tags()
	if dev.Len()-1 > len(tags) {
		return fmt.Errorf("tsfile: device %s has %d tag segments, table %q has %d TAG columns", dev, dev.Len()-1, ts.Name, len(tags))
	}
	fields := map[string]Column{}
	for _, c := range ts.Columns {
		if c.Category == Field {
			fields[c.Name] = c
		}
	}
	for _, c := range cols {
		f, ok := fields[c.Name]
		if !ok {
			return fmt.Errorf("tsfile: column %q is not a FIELD of table %q", c.Name, ts.Name)
		}
		if f.DataType != c.DataType {
			return fmt.Errorf("tsfile: column %q is %s in table %q, got %s", c.Name, f.DataType, ts.Name, c.DataType)
		}
	}
	return nil
}

// WriteNonAligned writes one chunk group of non-aligned series.
func (w *Writer) WriteNonAligned(dev DeviceID, series []NonAlignedSeries) error {
	if err := w.usable(); err != nil {
		return err
	}
	d, err := w.device(dev, false)
	if err != nil {
		return err
	}
	if _, ok := w.tables[dev.Table()]; ok {
		return fmt.Errorf("tsfile: device %s of table-model table %q must be written aligned", dev, dev.Table())
	}
	seen := map[string]bool{}
	for i := range series {
		s := &series[i]
		if err := checkSeries(&s.SeriesSchema); err != nil {
			return err
		}
		if err := w.checkValues(dev, &s.SeriesSchema, s.Times, &s.Values); err != nil {
			return err
		}
		if s.Name == "" || seen[s.Name] {
			return fmt.Errorf("tsfile: series name %q is empty or repeated", s.Name)
		}
		seen[s.Name] = true
		if len(s.Times) == 0 || s.Values.Type != s.DataType || s.Values.Len() != len(s.Times) || s.Values.Null != nil {
			return fmt.Errorf("tsfile: series %q needs one non-null %s value per timestamp", s.Name, s.DataType)
		}
		if err := w.checkGorillaV1NaN(dev, &s.SeriesSchema, s.Times, &s.Values); err != nil {
			return err
		}
		st, ok := d.series[s.Name]
		var last int64
		if ok {
			last = st.meta.Statistics.EndTime
			if st.stats != nil && !st.stats.empty {
				last = st.stats.s.EndTime
			}
			if st.meta.DataType != s.DataType {
				return fmt.Errorf("tsfile: series %q changes type", s.Name)
			}
		}
		if err := checkTimes(s.Times, last, ok && !w.opts.Overlapping); err != nil {
			return fmt.Errorf("%w (series %s.%s)", err, dev, s.Name)
		}
		if err := w.checkLaminarTimes(s); err != nil {
			return fmt.Errorf("tsfile: series %s.%s: %w", dev, s.Name, err)
		}
	}
	w.chunkGroupHeader(d.id) // one spelling of a v3 path per device
	for i := range series {
		s := &series[i]
		var pages []builtPage
		col := &AlignedColumn{SeriesSchema: s.SeriesSchema, Values: s.Values}
		bounds := w.pageBounds(s.Times, []AlignedColumn{*col})
		for p := 0; p+1 < len(bounds); p++ {
			lo, hi := bounds[p], bounds[p+1]
			ts, err := encoding.AppendEncodedInt64(w.opts.TimeEncoding.Encoding(), nil, s.Times[lo:hi])
			if err != nil {
				return err
			}
			vp, err := buildValuePage(col, s.Times, lo, hi)
			if errors.Is(err, encoding.ErrLaminarSingleValue) {
				// Restart the chunk in the fallback (see SeriesSchema).
				col = withLaminarFallback(col)
				pages, p = pages[:0], -1
				continue
			}
			if err != nil {
				return err
			}
			// buildValuePage framed the values for an aligned page;
			// a non-aligned page carries the dense stream directly.
			payload := appendUVarint(nil, uint32(len(ts)))
			payload = append(payload, ts...)
			payload = append(payload, vp.dense...)
			pages = append(pages, builtPage{payload: payload, stats: vp.stats})
		}
		if err := w.writeChunk(d, &col.SeriesSchema, MarkerChunkHeader, pages, 0); err != nil {
			return err
		}
	}
	d.hasData = true
	return w.err
}

// checkGorillaV1NaN refuses NaN values in a GORILLA_V1 column, before
// anything of the group is written.
//
// The upstream Java decoder of GORILLA_V1 (GorillaDecoderV1 with
// SinglePrecisionDecoderV1 and DoublePrecisionDecoderV1 in apache/tsfile
// java/tsfile encoding/decoder) takes a NaN as the end of the stream, which
// its encoder marks with one: each value after the first that a '10' or '11'
// control makes NaN sets isEnd, and from then on readBit stops loading bytes,
// so the bits left in the current byte decode as garbage and every later
// value of the page as a repetition of the last one (NaN or garbage),
// without an error. Its own encoder
// writes such pages. A NaN as a page's first value, or one that repeats the
// value before it, happens to escape, but which value starts a page is this
// writer's business, so every NaN is refused. GORILLA has no such end
// marker in value columns (they are read by count) and keeps NaN payloads.
func (w *Writer) checkGorillaV1NaN(dev DeviceID, s *SeriesSchema, times []int64, v *Values) error {
	if s.Encoding != encoding.GorillaV1 || w.opts.unchecked {
		return nil
	}
	for i := range times {
		var nan bool
		switch {
		case v.Type == Float && i < len(v.Float32s):
			nan = v.Float32s[i] != v.Float32s[i]
		case v.Type == Double && i < len(v.Float64s):
			nan = math.IsNaN(v.Float64s[i])
		default:
			return nil // checkSeries and the length checks report the rest
		}
		if nan && !v.IsNull(i) {
			return optionErrorf("tsfile: device %s column %q: NaN at time %d cannot be written in GORILLA_V1: upstream readers take a NaN for the end of a GORILLA_V1 page and read the values after it wrong, without an error; choose GORILLA (or another encoding) for this column", dev, s.Name, times[i])
		}
	}
	return nil
}

// checkLaminarTimes refuses, before anything of the group is written, a
// non-aligned series whose LAMINAR time streams would hold a page of one
// non-zero time: unlike an aligned time chunk, a non-aligned chunk header
// records no time encoding, so there is none to fall back to.
func (w *Writer) checkLaminarTimes(s *NonAlignedSeries) error {
	if w.opts.TimeEncoding.Encoding() != encoding.Laminar {
		return nil
	}
	bounds := w.pageBounds(s.Times, []AlignedColumn{{SeriesSchema: s.SeriesSchema, Values: s.Values}})
	for p := 0; p+1 < len(bounds); p++ {
		lo, hi := bounds[p], bounds[p+1]
		if _, err := encoding.AppendEncodedInt64(encoding.Laminar, nil, s.Times[lo:hi]); err != nil {
			return fmt.Errorf("page of the one point at time %d cannot be a LAMINAR time stream that upstream Java readers read; use another WriteOptions.TimeEncoding: %w", s.Times[lo], err)
		}
	}
	return nil
}

// laminarFallback is the encoding of a chunk declared LAMINAR that has a page
// of one non-zero value (see SeriesSchema): TS_2DIFF takes every type LAMINAR
// does and every upstream reader decodes it.
const laminarFallback = encoding.TS2Diff

// withLaminarFallback returns a copy of c to be written in laminarFallback.
func withLaminarFallback(c *AlignedColumn) *AlignedColumn {
	fb := *c
	fb.Encoding = laminarFallback
	return &fb
}

// WriteOperationIndexRange writes an OperationIndexRange record after the
// chunk groups written so far.
func (w *Writer) WriteOperationIndexRange(minIndex, maxIndex int64) error {
	if err := w.usable(); err != nil {
		return err
	}
	b := append([]byte{MarkerOperationIndexRange}, appendInt64(nil, minIndex)...)
	w.write(appendInt64(b, maxIndex))
	return w.err
}

func (w *Writer) usable() error {
	if w.closed {
		return errors.New("tsfile: writer is closed")
	}
	return w.err
}

func (w *Writer) chunkGroupHeader(dev DeviceID) {
	if w.v3 {
		w.write(appendV3Device([]byte{MarkerChunkGroupHeader}, dev))
		return
	}
	w.write(appendDeviceID([]byte{MarkerChunkGroupHeader}, dev))
}

// pageBounds cuts rows into pages by point count and estimated size; the
// aligned time and value columns share these bounds.
func (w *Writer) pageBounds(times []int64, cols []AlignedColumn) []int {
	bounds := []int{0}
	size, n := 0, 0
	for i := range times {
		row := 8
		for j := range cols {
			row += valueSize(&cols[j].Values, i)
		}
		if n > 0 && (n >= w.opts.MaxPointsPerPage || size+row > w.opts.PageSizeTarget) {
			bounds = append(bounds, i)
			size, n = 0, 0
		}
		size += row
		n++
	}
	return append(bounds, len(times))
}

func valueSize(v *Values, i int) int {
	if v.IsNull(i) {
		return 0
	}
	switch v.Type {
	case Boolean:
		return 1
	case Int32, Date, Float:
		return 4
	case Int64, Timestamp, Double:
		return 8
	}
	return 4 + len(v.Binaries[i])
}

type builtPage struct {
	payload []byte // uncompressed payload
	dense   []byte // the encoded non-null values alone
	stats   Statistics
	empty   bool
}

// buildValuePage encodes rows [lo, hi) of c as an aligned value page.
func buildValuePage(c *AlignedColumn, times []int64, lo, hi int) (builtPage, error) {
	v := &c.Values
	n := hi - lo
	present := make([]byte, bitmap.Bytes(n))
	sb := newStatsBuilder(c.DataType)
	k := 0
	for i := lo; i < hi; i++ {
		if v.IsNull(i) {
			continue
		}
		bitmap.SetMSB(present, i-lo)
		k++
		sb.add(times[i], v, i)
	}
	if k == 0 {
		return builtPage{empty: true, stats: emptyStats(c.DataType)}, nil
	}
	var dense []byte
	var err error
	switch c.DataType {
	case Boolean:
		dense, err = encoding.AppendEncodedBool(c.Encoding, nil, gather(v.Bools[lo:hi], v.Null, lo))
	case Int32, Date:
		dense, err = encoding.AppendEncodedInt32(c.Encoding, nil, gather(v.Int32s[lo:hi], v.Null, lo))
	case Int64, Timestamp:
		dense, err = encoding.AppendEncodedInt64(c.Encoding, nil, gather(v.Int64s[lo:hi], v.Null, lo))
	case Float:
		dense, err = encoding.AppendEncodedFloat32(c.Encoding, nil, gather(v.Float32s[lo:hi], v.Null, lo))
	case Double:
		dense, err = encoding.AppendEncodedFloat64(c.Encoding, nil, gather(v.Float64s[lo:hi], v.Null, lo))
	default:
		dense, err = encoding.AppendEncodedBinary(c.Encoding, nil, gather(v.Binaries[lo:hi], v.Null, lo))
	}
	if err != nil {
		return builtPage{}, fmt.Errorf("tsfile: encoding column %q: %w", c.Name, err)
	}
	payload := appendInt32(nil, int32(n))
	payload = append(payload, present...)
	payload = append(payload, dense...)
	return builtPage{payload: payload, dense: dense, stats: sb.result()}, nil
}

// add folds value i of v, at time t, into b.
func (b *statsBuilder) add(t int64, v *Values, i int) {
	switch v.Type {
	case Boolean:
		b.addBool(t, v.Bools[i])
	case Int32, Date:
		b.addInt(t, int64(v.Int32s[i]))
	case Int64, Timestamp:
		b.addInt(t, v.Int64s[i])
	case Float:
		b.addFloat(t, float64(v.Float32s[i]))
	case Double:
		b.addFloat(t, v.Float64s[i])
	default:
		b.addBinary(t, v.Binaries[i])
	}
}

// gather returns the non-null values of vals (rows lo.. of the column).
func gather[T any](vals []T, null []bool, lo int) []T {
	if null == nil {
		return vals
	}
	out := make([]T, 0, len(vals))
	for i, x := range vals {
		if !null[lo+i] {
			out = append(out, x)
		}
	}
	return out
}

// emptyStats is the Statistics of a column with no values, as the
// reference writer serializes it: count 0 and an inverted time range.
func emptyStats(t DataType) Statistics {
	return Statistics{Type: t, StartTime: math.MaxInt64, EndTime: math.MinInt64}
}

// writeChunk writes a chunk of pages and records its metadata. marker is
// the multi-page marker of the column role; role is the timeseries_type
// role bits.
func (w *Writer) writeChunk(d *deviceState, s *SeriesSchema, marker byte, pages []builtPage, role byte) error {
	if s.Compression == encoding.LZO {
		// The LZO codec only decodes (encoding/compress_lzo.go), and its Compress would
		// refuse each page; refusing here covers chunks with no page to compress too, so
		// that no file we write claims LZO.
		return fmt.Errorf("tsfile: series %q: LZO pages can be read but not written; choose SNAPPY, LZ4, ZSTD, GZIP or LZMA2: %w", s.Name, encoding.ErrUnsupported)
	}
	codec, err := encoding.LookupCodec(s.Compression)
	if err != nil {
		return fmt.Errorf("tsfile: series %q: %w", s.Name, err)
	}
	single := len(pages) <= 1
	if single {
		marker = marker&^markerLowBits | MarkerOnlyOnePageChunkHeader
	}
	body := w.scratch[:0]
	chunkStats := newStatsBuilder(s.DataType)
	ordinal := w.ordinal
	if w.cipher != nil {
		if ordinal == math.MaxInt64 {
			return errors.New("tsfile: Page AEAD chunk ordinals are exhausted")
		}
		w.ordinal++
	}
	for i := range pages {
		p := &pages[i]
		if p.empty {
			body = appendUVarint(body, 0)
			continue
		}
		w.comp, err = codec.Compress(w.comp[:0], p.payload)
		if err != nil {
			return fmt.Errorf("tsfile: compressing series %q: %w", s.Name, err)
		}
		stored := w.comp
		switch {
		case w.cipher != nil:
			// The page index counts empty pages too (PAGE-AEAD.md 5.2).
			w.sealed, err = w.cipher.SealPage(w.sealed[:0], w.comp, ordinal, i, len(p.payload))
			stored = w.sealed
		case w.legacy != nil:
			w.sealed, err = w.legacy.Encrypt(w.sealed[:0], w.comp)
			stored = w.sealed
		}
		if err != nil {
			return fmt.Errorf("tsfile: encrypting series %q: %w", s.Name, err)
		}
		ph := PageHeader{UncompressedSize: len(p.payload), CompressedSize: len(stored)}
		if !single {
			ph.Statistics = &p.stats
		}
		body = appendPageHeader(body, &ph)
		if !(single && w.opts.quirkLayouts&QuirkLostFullPage != 0 && p.stats.Count == int64(w.opts.MaxPointsPerPage)) {
			body = append(body, stored...)
		}
		chunkStats.merge(&p.stats)
	}
	w.scratch = body
	h := ChunkHeader{Marker: marker, Measurement: s.Name, DataSize: int64(len(body)), DataType: s.DataType, Compression: s.Compression, Encoding: s.Encoding, Ordinal: ordinal}
	if h.DataSize > math.MaxUint32 {
		return fmt.Errorf("tsfile: chunk of %q is %d bytes, over the format's 32-bit data_size", s.Name, h.DataSize)
	}
	off := w.pos
	if w.suffix == 2 {
		id := aead.ChunkIdentity{
			Ordinal: ordinal, Offset: off, Marker: marker, Device: appendDeviceID(nil, d.id), Measurement: s.Name,
			DataSize: h.DataSize, DataType: byte(h.DataType), Compression: byte(h.Compression), Encoding: byte(h.Encoding),
		}
		if h.Auth, err = w.cipher.AuthenticateChunk(nil, &id); err != nil {
			return fmt.Errorf("tsfile: authenticating chunk of %q: %w", s.Name, err)
		}
	}
	w.write(appendChunkSuffix(appendChunkHeader(nil, &h), &h, w.suffix))
	w.write(body)
	st := chunkStats.result()
	if chunkStats.empty {
		st = emptyStats(s.DataType)
	}
	ss, ok := d.series[s.Name]
	if !ok {
		ss = &seriesState{meta: TimeseriesMetadata{Type: role, Measurement: s.Name, DataType: s.DataType}, stats: newStatsBuilder(s.DataType), schema: *s}
		d.series[s.Name] = ss
	}
	ss.meta.Chunks = append(ss.meta.Chunks, ChunkMetadata{Offset: off, Statistics: st})
	ss.stats.merge(&st)
	return w.err
}

// Close writes the separator, the index and the footer, and flushes. It
// does not close the underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.cipher != nil {
		defer w.cipher.Close()
	}
	if w.legacy != nil {
		defer w.legacy.Close()
	}
	if w.err != nil {
		return w.err
	}
	metaOffset := w.pos
	if w.cipher != nil && !w.v3 {
		// Everything from here to the tail magic is authenticated.
		mac, err := w.cipher.NewMetadataMAC(w.prefix, metaOffset)
		if err != nil {
			w.err = fmt.Errorf("tsfile: metadata authentication: %w", err)
			return w.err
		}
		w.mac = mac
	}
	w.write([]byte{MarkerSeparator})

	devs := append([]*deviceState(nil), w.order...)
	sort.Slice(devs, func(i, j int) bool { return compareDevices(w.v3, devs[i].id, devs[j].id) < 0 })
	var bloom *BloomFilter
	if !w.opts.NoBloomFilter {
		paths := 0
		for _, d := range devs {
			paths += len(d.series)
		}
		bloom = newBloomFilter(paths, w.opts.BloomFilterFPR)
	}
	tables := w.writeSeriesIndexes(devs, bloom)
	meta := &FileMetadata{TableIndexes: map[string]*IndexNode{}, TableSchemas: map[string]*TableSchema{}, MetaOffset: metaOffset, Bloom: bloom}
	if w.v3 {
		// A file without devices gets a LEAF_DEVICE root without
		// entries, as the reference v3 writer leaves it.
		meta.V3Root = w.writeDeviceIndex(tables[""])
		return w.finish(appendFileMetadataV3(nil, meta))
	}
	tableNames := make([]string, 0, len(tables))
	for t := range tables {
		tableNames = append(tableNames, t)
	}
	sort.Strings(tableNames)
	for _, t := range tableNames {
		meta.TableIndexes[t] = w.writeDeviceIndex(tables[t])
		meta.TableNames = append(meta.TableNames, t)
	}
	for name, s := range w.tables {
		meta.TableSchemas[name] = s
	}
	meta.Properties = w.footerProperties()
	if w.opts.TablePointCount {
		meta.Properties = w.withTablePointCounts(meta.Properties)
	}
	return w.finish(appendFileMetadata(nil, meta))
}

// deviceRoot is a device and the root of its measurement index, which its
// device index entry points at.
type deviceRoot struct {
	id   DeviceID
	root *IndexNode
}

// writeSeriesIndexes writes, for each device of devs (sorted) in turn, the
// timeseries metadata of its series sorted by name and the measurement
// index levels over them, adding each series path to bloom (if not nil).
// It returns the devices' measurement roots by table, in devs order; a v3
// file has one device index over every device, filed under "".
func (w *Writer) writeSeriesIndexes(devs []*deviceState, bloom *BloomFilter) map[string][]deviceRoot {
	tables := map[string][]deviceRoot{}
	for _, d := range devs {
		if len(d.series) == 0 {
			// Its writes held no point: an index entry would be a
			// measurement node without children, which readers refuse.
			continue
		}
		names := make([]string, 0, len(d.series))
		for name := range d.series {
			names = append(names, name)
		}
		sort.Slice(names, func(i, j int) bool { return compareStrings(names[i], names[j]) < 0 })
		var leaves []*IndexNode
		cur := &IndexNode{Type: LeafMeasurement}
		for i, name := range names {
			ss := d.series[name]
			if bloom != nil && w.v3 {
				bloom.Add(d.id.TreePath() + "." + name)
			} else if bloom != nil {
				bloom.Add(seriesPath(d.id, name))
			}
			if i%w.opts.MaxDegree == 0 {
				if len(cur.Entries) == w.opts.MaxDegree {
					cur.EndOffset = w.pos
					leaves = append(leaves, cur)
					cur = &IndexNode{Type: LeafMeasurement}
				}
				cur.Entries = append(cur.Entries, IndexEntry{Measurement: name, Offset: w.pos})
			}
			ss.meta.Statistics = ss.stats.result()
			if ss.stats.empty {
				ss.meta.Statistics = emptyStats(ss.meta.DataType)
			}
			w.write(appendTimeseriesMetadata(nil, &ss.meta))
		}
		cur.EndOffset = w.pos
		leaves = append(leaves, cur)
		root := w.buildLevels(leaves, InternalMeasurement)
		t := d.id.Table()
		if w.v3 {
			t = ""
		}
		tables[t] = append(tables[t], deviceRoot{d.id, root})
	}
	return tables
}

// writeDeviceIndex writes the measurement roots of list (one table's
// devices, sorted) and the device index levels over them, and returns the
// device index root.
func (w *Writer) writeDeviceIndex(list []deviceRoot) *IndexNode {
	var leaves []*IndexNode
	cur := &IndexNode{Type: LeafDevice}
	for _, dr := range list {
		if len(cur.Entries) == w.opts.MaxDegree {
			cur.EndOffset = w.pos
			leaves = append(leaves, cur)
			cur = &IndexNode{Type: LeafDevice}
		}
		cur.Entries = append(cur.Entries, IndexEntry{Device: dr.id, Offset: w.pos})
		w.write(appendIndexNode(nil, dr.root))
	}
	cur.EndOffset = w.pos
	leaves = append(leaves, cur)
	return w.buildLevels(leaves, InternalDevice)
}

// footerProperties returns the footer properties of a v4 file: the legacy
// encryption properties that are set; for a Page AEAD file, the three with
// an encryptLevel that readers without Page AEAD refuse
// (aead.LegacyLevelPageAEAD); or else the three "unencrypted" ones the
// reference writer always writes (unless NoEncryptionProperties); then
// WriteOptions.Properties.
func (w *Writer) footerProperties() []Property {
	var props []Property
	if l := w.opts.LegacyEncryption; l != nil {
		for _, p := range []struct {
			key   string
			value []byte
			ok    bool
		}{{aead.LegacyPropLevel, l.Level, l.HasLevel}, {aead.LegacyPropType, l.Type, l.HasType}, {aead.LegacyPropKey, l.Key, l.HasKey}} {
			if p.ok {
				props = append(props, Property{Key: p.key, Value: p.value})
			}
		}
	} else if w.cipher != nil {
		// Whatever NoEncryptionProperties says: an encrypted file must
		// fail loudly in readers that do not know Page AEAD.
		props = []Property{
			{Key: aead.LegacyPropLevel, Value: []byte(aead.LegacyLevelPageAEAD)},
			{Key: aead.LegacyPropType, Value: []byte(aead.LegacyTypeUnencrypted)},
			{Key: aead.LegacyPropKey, Value: []byte{}},
		}
	} else if !w.opts.NoEncryptionProperties {
		props = []Property{
			{Key: aead.LegacyPropLevel, Value: []byte("0")},
			{Key: aead.LegacyPropType, Value: []byte(aead.LegacyTypeUnencrypted)},
			{Key: aead.LegacyPropKey, Value: []byte{}},
		}
	}
	props = append(props, w.opts.Properties...)
	if w.mac != nil {
		// Last, so that its value is the last bytes of TsFileMetadata;
		// finish fills it in.
		props = append(props, Property{Key: MetadataAuthProperty, Value: []byte(metadataAuthPlaceholder)})
	}
	return props
}

// TablePointCountPrefix starts the footer property that TsFile 2.5's Java
// writer keeps the number of non-null FIELD values of a table in
// (TsFileIOWriter.TABLE_POINT_COUNT_PROPERTY_PREFIX): the table name
// follows, and the value is 8 bytes big-endian.
const TablePointCountPrefix = "tablePointCount."

// withTablePointCounts replaces the table point counts of props by those
// of the file written (WriteOptions.TablePointCount), in table name order,
// before the metadata authentication tag, which must stay last. The series
// indexes are written, so every series' statistics are complete.
func (w *Writer) withTablePointCounts(props []Property) []Property {
	out := make([]Property, 0, len(props)+len(w.tables))
	var mac []Property
	for _, p := range props {
		switch {
		case strings.HasPrefix(p.Key, TablePointCountPrefix):
		case p.Key == MetadataAuthProperty && w.mac != nil:
			mac = append(mac, p)
		default:
			out = append(out, p)
		}
	}
	counts := make(map[string]int64, len(w.tables))
	for _, d := range w.order {
		ts := w.tables[d.id.Table()]
		if ts == nil {
			continue
		}
		for _, c := range ts.Columns {
			if ss := d.series[c.Name]; c.Category == Field && ss != nil {
				counts[ts.Name] += ss.meta.Statistics.Count
			}
		}
	}
	names := make([]string, 0, len(w.tables))
	for name := range w.tables {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		out = append(out, Property{Key: TablePointCountPrefix + name, Value: binary.BigEndian.AppendUint64(nil, uint64(counts[name]))})
	}
	return append(out, mac...)
}

// finish writes the footer fm, its length and the tail magic, and flushes.
func (w *Writer) finish(fm []byte) error {
	tail := append(appendInt32(nil, int32(len(fm))), Magic...)
	if mac := w.mac; mac != nil {
		// The tag covers the footer with its own value as the
		// placeholder, the length and the tail magic; then the value
		// replaces the placeholder, which has the same length.
		w.mac = nil
		mac.Write(fm)
		mac.Write(tail)
		hex.Encode(fm[len(fm)-metadataAuthHexLen:], mac.Sum(nil))
	}
	w.write(fm)
	w.write(tail)
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

// buildLevels writes all but the root of an index tree over leaves (whose
// entries are complete and whose EndOffset is set) and returns the root,
// which the caller stores in its parent. Each level groups up to MaxDegree
// nodes of the level below under entries keyed by their first key; a
// child's entry offset is where the child is written.
func (w *Writer) buildLevels(level []*IndexNode, internal NodeType) *IndexNode {
	for len(level) > 1 {
		var next []*IndexNode
		cur := &IndexNode{Type: internal}
		for _, child := range level {
			if len(cur.Entries) == w.opts.MaxDegree {
				cur.EndOffset = w.pos
				next = append(next, cur)
				cur = &IndexNode{Type: internal}
			}
			first := child.Entries[0]
			cur.Entries = append(cur.Entries, IndexEntry{Device: first.Device, Measurement: first.Measurement, Offset: w.pos})
			w.write(appendIndexNodeV(nil, child, w.v3))
		}
		cur.EndOffset = w.pos
		next = append(next, cur)
		level = next
	}
	return level[0]
}
