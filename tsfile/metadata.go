package tsfile

import (
	"math"
	"sort"
)

// ChunkMetadata locates one chunk of a series and summarises it.
type ChunkMetadata struct {
	Offset     int64 // absolute offset of the chunk header's marker
	Statistics Statistics
}

// TimeseriesMetadata describes one series of a device: an aligned time
// column (Measurement "", DataType VECTOR), an aligned value column, or a
// non-aligned series.
type TimeseriesMetadata struct {
	Offset      int64 // absolute offset of this structure
	Type        byte  // timeseries_type: role bits and chunk-list layout
	Measurement string
	DataType    DataType
	Statistics  Statistics
	Chunks      []ChunkMetadata
	// plainRole is set on an aligned time column whose timeseries_type
	// had no role bits (QuirkNoRoleBits), which the parser then added.
	plainRole bool
}

// IsTimeColumn reports whether this is the time column of aligned data.
func (t *TimeseriesMetadata) IsTimeColumn() bool { return t.Type&markerTimeColumnMask != 0 }

// IsValueColumn reports whether this is a value column of aligned data.
func (t *TimeseriesMetadata) IsValueColumn() bool { return t.Type&markerValueColumnMask != 0 }

// timeseriesMetadata decodes one TimeseriesMetadata at the cursor.
func (d *buf) timeseriesMetadata() TimeseriesMetadata { return d.timeseries(false) }

// timeseries decodes a TimeseriesMetadata; skim skips its chunk metadata
// list (Chunks stays nil), for checks that need only the names, types and
// statistics.
func (d *buf) timeseries(skim bool) TimeseriesMetadata {
	t := TimeseriesMetadata{Offset: d.off()}
	typeAt := d.pos
	t.Type = d.byte1("timeseries_type")
	if d.err == nil && (t.Type&markerLowBits > 1 || t.Type&0xc0 == 0xc0) {
		d.pos = typeAt
		d.fail("invalid timeseries_type 0x%02x", t.Type)
		return t
	}
	t.Measurement = d.varStringNotNull("timeseries measurement_id")
	dtAt := d.pos
	t.DataType = DataType(d.byte1("timeseries data_type"))
	if d.err == nil && t.Type&^markerLowBits == 0 && t.Measurement == "" && t.DataType == Vector {
		// The C++ writer of early 2025 writes the aligned time column's
		// TimeseriesMetadata with a plain 0x00/0x01 type (apache/tsfile
		// cpp/src/file/tsfile_io_writer.cc, "mask = 0"). An empty name
		// with type VECTOR is that column in every other file too, so the
		// role is not a guess.
		t.Type |= markerTimeColumnMask
		t.plainRole = true
	}
	if d.err == nil {
		switch {
		case !t.DataType.Valid() || t.DataType == Unknown:
			d.pos = dtAt
			d.fail("timeseries %q has unknown data_type %d", t.Measurement, uint8(t.DataType))
		case t.IsTimeColumn() != (t.DataType == Vector):
			d.pos = dtAt
			d.fail("timeseries %q: data_type %s does not match timeseries_type 0x%02x", t.Measurement, t.DataType, t.Type)
		}
	}
	listSize := int(d.uvarint("chunk_metadata_list_size"))
	t.Statistics = d.statistics(t.DataType)
	listAt := d.pos
	list := d.bytesN(listSize, "chunk metadata list")
	if d.err != nil || skim {
		return t
	}
	ld := newBuf(list, d.base+int64(listAt), "chunk metadata list")
	if t.Type&markerLowBits == 0 {
		ld.need(8, "chunk offset")
		t.Chunks = []ChunkMetadata{{Offset: ld.int64("chunk offset"), Statistics: t.Statistics}}
	} else {
		for ld.err == nil && ld.remaining() > 0 {
			c := ChunkMetadata{Offset: ld.int64("chunk offset")}
			c.Statistics = ld.statistics(t.DataType)
			t.Chunks = append(t.Chunks, c)
		}
	}
	if ld.err == nil && ld.remaining() != 0 {
		ld.fail("%d bytes left over after the chunk metadata", ld.remaining())
	}
	if ld.err != nil {
		d.err = ld.err
	}
	return t
}

func appendTimeseriesMetadata(dst []byte, t *TimeseriesMetadata) []byte {
	multi := len(t.Chunks) > 1
	typ := t.Type &^ markerLowBits
	if t.plainRole {
		typ = 0
	}
	if multi {
		typ |= 1
	}
	dst = append(dst, typ)
	dst = appendVarString(dst, t.Measurement)
	dst = append(dst, byte(t.DataType))
	var list []byte
	for i := range t.Chunks {
		list = appendInt64(list, t.Chunks[i].Offset)
		if multi {
			list = t.Chunks[i].Statistics.AppendTo(list)
		}
	}
	dst = appendUVarint(dst, uint32(len(list)))
	dst = t.Statistics.AppendTo(dst)
	return append(dst, list...)
}

// IndexEntry is one child of a MetadataIndexNode. Device nodes key their
// entries by Device, measurement nodes by Measurement.
type IndexEntry struct {
	Device      DeviceID
	Measurement string
	Offset      int64 // start of the child's byte range
	End         int64 // the next entry's offset, or the node's end_offset
}

// IndexNode is a decoded MetadataIndexNode.
type IndexNode struct {
	Offset    int64 // absolute offset of the node (-1 for a root in the footer)
	Entries   []IndexEntry
	EndOffset int64
	Type      NodeType
}

// indexNode decodes a MetadataIndexNode at the cursor and checks the rules
// of Metadata.md that one node can check on its own. The entry layout
// depends on node_type, which comes last, so the caller says which family
// (device or measurement) the context requires; a mismatching node_type is
// then an error rather than a guess.
func (d *buf) indexNode(opts *ReadOptions, isDevice bool) IndexNode {
	n := IndexNode{Offset: d.off()}
	at := d.pos
	count := d.count("index node child_count", 9)
	if d.err != nil {
		return n
	}
	n.Entries = make([]IndexEntry, 0, min(count, 1024))
	for i := 0; i < count && d.err == nil; i++ {
		var e IndexEntry
		switch {
		case isDevice && d.v3:
			e.Device = d.v3DeviceID(opts.MaxDeviceSegments)
		case isDevice:
			e.Device = d.deviceID(opts.MaxDeviceSegments)
		default:
			e.Measurement = d.varStringNotNull("index entry measurement")
		}
		e.Offset = d.int64("index entry offset")
		n.Entries = append(n.Entries, e)
	}
	n.EndOffset = d.int64("index node end_offset")
	typeAt := d.pos
	n.Type = NodeType(d.byte1("index node_type"))
	if d.err != nil {
		return n
	}
	if n.Type > LeafMeasurement || n.Type.isDevice() != isDevice {
		d.pos = typeAt
		want := "measurement"
		if isDevice {
			want = "device"
		}
		d.fail("node_type %d where a %s index node is required", uint8(n.Type), want)
		return n
	}
	if count == 0 {
		d.pos = at
		d.fail("index node has no children")
		return n
	}
	for i := range n.Entries {
		e := &n.Entries[i]
		if e.Offset < 0 {
			d.pos = at
			d.fail("entry %d has negative offset %d", i, e.Offset)
			return n
		}
		if i+1 < len(n.Entries) {
			e.End = n.Entries[i+1].Offset
		} else {
			e.End = n.EndOffset
		}
		if e.End < e.Offset {
			d.pos = at
			d.fail("entry %d offsets are not monotonic: %d then %d", i, e.Offset, e.End)
			return n
		}
		if i > 0 {
			var c int
			if isDevice {
				c = compareDevices(d.v3, n.Entries[i-1].Device, e.Device)
			} else {
				c = compareStrings(n.Entries[i-1].Measurement, e.Measurement)
			}
			if c >= 0 {
				d.pos = at
				d.fail("entry %d key is not greater than entry %d key", i, i-1)
				return n
			}
		}
	}
	return n
}

// compareDevices orders device index keys: by segments in v4, by the
// path string in v3, whose writers sort devices as strings (Java's
// String.compareTo of PlainDeviceID), which differs from the order of the
// split segments ("root.a.b" < "root.a.b.c" < "root.a.bb").
func compareDevices(v3 bool, a, b DeviceID) int {
	if v3 {
		return compareStrings(a.TreePath(), b.TreePath())
	}
	return a.Compare(b)
}

func appendIndexNode(dst []byte, n *IndexNode) []byte { return appendIndexNodeV(dst, n, false) }

// appendIndexNodeV appends n, with v3 device keys when v3.
func appendIndexNodeV(dst []byte, n *IndexNode, v3 bool) []byte {
	dst = appendUVarint(dst, uint32(len(n.Entries)))
	for i := range n.Entries {
		switch {
		case n.Type.isDevice() && v3:
			dst = appendV3Device(dst, n.Entries[i].Device)
		case n.Type.isDevice():
			dst = appendDeviceID(dst, n.Entries[i].Device)
		default:
			dst = appendVarString(dst, n.Entries[i].Measurement)
		}
		dst = appendInt64(dst, n.Entries[i].Offset)
	}
	dst = appendInt64(dst, n.EndOffset)
	return append(dst, byte(n.Type))
}

// findDevice returns the index of the last entry whose key <= id, or -1.
func (n *IndexNode) findDevice(id DeviceID) int {
	i := sort.Search(len(n.Entries), func(i int) bool { return n.Entries[i].Device.Compare(id) > 0 })
	return i - 1
}

// findMeasurement returns the index of the last entry whose key <= m, or -1.
func (n *IndexNode) findMeasurement(m string) int {
	i := sort.Search(len(n.Entries), func(i int) bool { return compareStrings(n.Entries[i].Measurement, m) > 0 })
	return i - 1
}

// Column is one column of a table schema.
type Column struct {
	Name        string
	DataType    DataType
	Encoding    Encoding
	Compression Compression
	Properties  map[string]string
	Category    ColumnCategory
}

// TableSchema is the schema of one table of the table model.
type TableSchema struct {
	Name    string
	Columns []Column
}

// Tags returns the TAG columns in schema order; their order is the order
// of the DeviceID segments after the table name.
func (s *TableSchema) Tags() []Column { return s.byCategory(Tag) }

// Fields returns the FIELD columns in schema order.
func (s *TableSchema) Fields() []Column { return s.byCategory(Field) }

// TimeColumn returns the column of category TIME, if the schema has one:
// the C++ writer records the time column of a table under the name its
// user gave it (apache/tsfile cpp/src/common/schema.h,
// TableSchema::serialize_to writes each column's category, TIME = 3 of
// common::ColumnCategory), and the C API and the Python readers name the
// time column after it. Such a column has no chunks of its own: the time
// chunks hold its values. It may stand anywhere in the schema; it is not a
// TAG, so it takes no DeviceID segment (Tags skips it). With several, the
// first is returned.
func (s *TableSchema) TimeColumn() (Column, bool) {
	for _, c := range s.Columns {
		if c.Category == TimeCol {
			return c, true
		}
	}
	return Column{}, false
}

func (s *TableSchema) byCategory(c ColumnCategory) []Column {
	var out []Column
	for _, col := range s.Columns {
		if col.Category == c {
			out = append(out, col)
		}
	}
	return out
}

func (d *buf) tableSchema(name string) TableSchema {
	s := TableSchema{Name: name}
	n := d.count("table column_count", 16)
	for i := 0; i < n && d.err == nil; i++ {
		var c Column
		c.Name = d.string32("column_name")
		c.DataType = DataType(d.byte1("column data_type"))
		c.Encoding = Encoding(d.byte1("column encoding_type"))
		c.Compression = Compression(d.byte1("column compression_type"))
		pcAt := d.pos
		pc := d.int32("column property_count")
		if d.err == nil && (pc < 0 || int(pc)*8 > d.remaining()) {
			d.pos = pcAt
			d.fail("column %q property_count %d is invalid", c.Name, pc)
		}
		for j := 0; j < int(pc) && d.err == nil; j++ {
			k := d.string32("column property key")
			v := d.string32("column property value")
			if c.Properties == nil {
				c.Properties = map[string]string{}
			}
			c.Properties[k] = v
		}
		catAt := d.pos
		c.Category = ColumnCategory(d.int32("column_category"))
		if d.err == nil && (c.Category < Tag || c.Category > TimeCol) {
			d.pos = catAt
			d.fail("column %q has unknown category %d", c.Name, int32(c.Category))
		}
		if d.err == nil && !c.DataType.IsValueType() {
			d.pos = catAt
			d.fail("column %q has data_type %s", c.Name, c.DataType)
		}
		s.Columns = append(s.Columns, c)
	}
	return s
}

func appendTableSchema(dst []byte, s *TableSchema) []byte {
	dst = appendUVarint(dst, uint32(len(s.Columns)))
	for _, c := range s.Columns {
		dst = appendBinary32(dst, []byte(c.Name), true)
		dst = append(dst, byte(c.DataType), byte(c.Encoding), byte(c.Compression))
		dst = appendInt32(dst, int32(len(c.Properties)))
		keys := make([]string, 0, len(c.Properties))
		for k := range c.Properties {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			dst = appendBinary32(dst, []byte(k), true)
			dst = appendBinary32(dst, []byte(c.Properties[k]), true)
		}
		dst = appendInt32(dst, int32(c.Category))
	}
	return dst
}

// Property is one footer property. Values are raw bytes and may be null.
type Property struct {
	Key   string
	Value []byte
	Null  bool
}

// FileMetadata is the decoded TsFileMetadata footer.
type FileMetadata struct {
	// TableIndexes maps a table name (for the tree model, the first
	// DeviceID segment) to the root of its device index.
	TableIndexes map[string]*IndexNode
	// TableNames lists TableIndexes' keys in file order.
	TableNames   []string
	TableSchemas map[string]*TableSchema
	MetaOffset   int64
	Bloom        *BloomFilter
	Properties   []Property
	// V3Root is the single device index root of a TsFile v3 footer, whose
	// devices all hang below it whatever their first segment. Open walks
	// it and fills TableIndexes with one LEAF_DEVICE node per first
	// segment (Offset -1, not in the file) listing that table's device
	// entries in segment order, so that table lookups work as for v4. A
	// v3 file has no TableSchemas and no Properties. Nil in v4.
	V3Root *IndexNode
}

// Property returns the value of footer property key.
func (m *FileMetadata) Property(key string) (value []byte, ok bool) {
	for _, p := range m.Properties {
		if p.Key == key {
			return p.Value, !p.Null
		}
	}
	return nil, false
}

func (d *buf) fileMetadata(opts *ReadOptions) *FileMetadata {
	m := &FileMetadata{TableIndexes: map[string]*IndexNode{}, TableSchemas: map[string]*TableSchema{}}
	n := d.count("table_index_count", 11)
	for i := 0; i < n && d.err == nil; i++ {
		at := d.pos
		name := d.varStringNotNull("table index name")
		node := d.indexNode(opts, true)
		if d.err != nil {
			break
		}
		if _, dup := m.TableIndexes[name]; dup {
			d.pos = at
			d.fail("table %q has two index roots", name)
			break
		}
		m.TableIndexes[name] = &node
		m.TableNames = append(m.TableNames, name)
	}
	n = d.count("table_schema_count", 2)
	for i := 0; i < n && d.err == nil; i++ {
		at := d.pos
		name := d.varStringNotNull("table schema name")
		s := d.tableSchema(name)
		if d.err != nil {
			break
		}
		if _, dup := m.TableSchemas[name]; dup {
			d.pos = at
			d.fail("table %q has two schemas", name)
			break
		}
		m.TableSchemas[name] = &s
	}
	m.MetaOffset = d.int64("meta_offset")
	if opts.quirks&quirkBloomInt32 != 0 && d.remaining() >= 4 && string(d.b[d.pos:d.pos+4]) == "\x00\x00\x00\x00" {
		d.pos += 4
	} else {
		m.Bloom = d.bloomFilter()
	}
	pcAt := d.pos
	var pc int32
	if opts.quirks&quirkPropertyCountUnsigned != 0 {
		pc = int32(min(d.uvarint("property_count"), math.MaxInt32))
	} else {
		pc = d.varint("property_count")
	}
	if d.err == nil && (pc < 0 || int(pc)*2 > d.remaining()) {
		d.pos = pcAt
		d.fail("property_count %d is invalid", pc)
	}
	for i := 0; i < int(pc) && d.err == nil; i++ {
		k := d.varStringNotNull("property key")
		v, ok := d.varBinary("property value")
		m.Properties = append(m.Properties, Property{Key: k, Value: v, Null: !ok})
	}
	return m
}

// fileMetadataV3 decodes a TsFile v3 footer: the device index root,
// meta_offset and, when bytes remain, a v3 Bloom filter. The root of a
// file without devices has no entries, as the reference writer leaves it.
func (d *buf) fileMetadataV3(opts *ReadOptions) *FileMetadata {
	m := &FileMetadata{TableIndexes: map[string]*IndexNode{}, TableSchemas: map[string]*TableSchema{}}
	if d.remaining() > 0 && d.b[d.pos] == 0 {
		// count 0, end_offset, node_type
		at := d.pos
		d.pos++
		n := IndexNode{Offset: d.off() - 1, EndOffset: d.int64("index node end_offset")}
		typeAt := d.pos
		n.Type = NodeType(d.byte1("index node_type"))
		if d.err == nil && !n.Type.isDevice() {
			d.pos = typeAt
			d.fail("node_type %d where a device index node is required", uint8(n.Type))
		}
		if d.err == nil && n.EndOffset < 0 {
			d.pos = at
			d.fail("index node end_offset %d is negative", n.EndOffset)
		}
		m.V3Root = &n
	} else {
		n := d.indexNode(opts, true)
		m.V3Root = &n
	}
	m.MetaOffset = d.int64("meta_offset")
	if d.err == nil && d.remaining() > 0 {
		m.Bloom = d.bloomFilterV3()
	}
	return m
}

func appendFileMetadata(dst []byte, m *FileMetadata) []byte {
	dst = appendUVarint(dst, uint32(len(m.TableNames)))
	for _, name := range m.TableNames {
		dst = appendVarString(dst, name)
		dst = appendIndexNode(dst, m.TableIndexes[name])
	}
	names := make([]string, 0, len(m.TableSchemas))
	for name := range m.TableSchemas {
		names = append(names, name)
	}
	sort.Strings(names)
	dst = appendUVarint(dst, uint32(len(names)))
	for _, name := range names {
		dst = appendVarString(dst, name)
		dst = appendTableSchema(dst, m.TableSchemas[name])
	}
	dst = appendInt64(dst, m.MetaOffset)
	dst = m.Bloom.appendTo(dst)
	dst = appendVarint(dst, int32(len(m.Properties)))
	for _, p := range m.Properties {
		dst = appendVarString(dst, p.Key)
		dst = appendVarBinary(dst, p.Value, !p.Null)
	}
	return dst
}

// appendFileMetadataV3 appends a TsFile v3 footer: the device index root,
// meta_offset, and the Bloom filter unless m.Bloom is nil.
func appendFileMetadataV3(dst []byte, m *FileMetadata) []byte {
	dst = appendIndexNodeV(dst, m.V3Root, true)
	dst = appendInt64(dst, m.MetaOffset)
	if m.Bloom != nil {
		dst = m.Bloom.appendToV3(dst)
	}
	return dst
}
