package tsfile

import (
	"fmt"

	"github.com/tsarrow/tsarrow/encoding"
)

// Magic is the six bytes at both ends of a TsFile.
const Magic = "TsFile"

// Sizes of the fixed parts at both ends of a file (TsFile.md), untyped so
// that they serve in int and int64 offset arithmetic alike.
const (
	magicSize = 6 // len(Magic)
	// prefixSize is the head Magic and the version byte: the data
	// section, or a FileEncryptionHeader, starts right after it.
	prefixSize = magicSize + 1
	// metaLengthSize is the big-endian int32 length of TsFileMetadata,
	// which comes right before the tail Magic.
	metaLengthSize = 4
	// tailSize is that length and the tail Magic.
	tailSize = metaLengthSize + magicSize
	// minFileSize is a prefix, the separator byte and a tail: a smaller
	// file cannot be complete.
	minFileSize = prefixSize + 1 + tailSize
)

// Version is the format version byte this package reads and writes by
// default.
const Version byte = 4

// VersionV3 is the version byte of the files IoTDB 1.x and the C++ and
// Python SDKs of that era wrote: a device is one path string and the footer
// has a single device index root. This package reads it through the same
// API as version 4, and writes it with WriteOptions.Version.
const VersionV3 byte = 3

// Top-level and chunk marker bytes (Chunks.md).
const (
	MarkerChunkGroupHeader       byte = 0x00
	MarkerChunkHeader            byte = 0x01
	MarkerSeparator              byte = 0x02
	MarkerVersion                byte = 0x03 // reserved since v3
	MarkerOperationIndexRange    byte = 0x04
	MarkerOnlyOnePageChunkHeader byte = 0x05
	MarkerEncryptionHeader       byte = 0x06
	MarkerValueChunkHeader       byte = 0x41
	MarkerOnlyOnePageValueChunk  byte = 0x45
	MarkerTimeChunkHeader        byte = 0x81
	MarkerOnlyOnePageTimeChunk   byte = 0x85
	markerTimeColumnMask         byte = 0x80
	markerValueColumnMask        byte = 0x40
	markerLowBits                byte = 0x3f
)

// DataType is the one-byte data_type of chunks, series and table columns.
type DataType uint8

// Data types of Types.md.
const (
	Boolean   DataType = 0
	Int32     DataType = 1
	Int64     DataType = 2
	Float     DataType = 3
	Double    DataType = 4
	Text      DataType = 5
	Vector    DataType = 6 // the aligned time column's physical marker
	Unknown   DataType = 7
	Timestamp DataType = 8
	Date      DataType = 9
	Blob      DataType = 10
	String    DataType = 11
	Object    DataType = 12
)

var dataTypeNames = [...]string{"BOOLEAN", "INT32", "INT64", "FLOAT", "DOUBLE", "TEXT", "VECTOR", "UNKNOWN", "TIMESTAMP", "DATE", "BLOB", "STRING", "OBJECT"}

func (t DataType) String() string {
	if int(t) < len(dataTypeNames) {
		return dataTypeNames[t]
	}
	return fmt.Sprintf("DATATYPE(%d)", uint8(t))
}

// Valid reports whether t is an identifier assigned by the format.
func (t DataType) Valid() bool { return t <= Object }

// IsValueType reports whether t can be the type of a measured value, which
// excludes the VECTOR and UNKNOWN markers.
func (t DataType) IsValueType() bool { return t.Valid() && t != Vector && t != Unknown }

// IsBinary reports whether values of t are length-prefixed byte strings.
func (t DataType) IsBinary() bool {
	return t == Text || t == String || t == Blob || t == Object
}

// Encoding is the one-byte encoding_type of a chunk.
type Encoding = encoding.Encoding

// Compression is the one-byte compression_type of a chunk.
type Compression = encoding.Compression

// TimeEncoding is the encoding of a time stream, for options whose zero
// value must mean the default, TS_2DIFF (the reference writer's), although
// the zero Encoding is PLAIN. Select another with TimeEncodingOf.
type TimeEncoding struct {
	enc Encoding
	set bool
}

// TimeEncodingOf returns the TimeEncoding that selects e.
func TimeEncodingOf(e Encoding) TimeEncoding { return TimeEncoding{enc: e, set: true} }

// Encoding returns the encoding selected: TS_2DIFF for the zero value.
func (t TimeEncoding) Encoding() Encoding {
	if !t.set {
		return encoding.TS2Diff
	}
	return t.enc
}

// String returns the name of the encoding selected.
func (t TimeEncoding) String() string { return t.Encoding().String() }

// encodingAllowed is the data-type/encoding table of Encodings.md.
func encodingAllowed(t DataType, e Encoding) bool {
	switch t {
	case Boolean:
		return e == encoding.Plain || e == encoding.RLE
	case Int32, Int64, Timestamp, Date, Vector:
		// The aligned time column (VECTOR) carries the time encoding,
		// which takes the integer encodings.
		switch e {
		case encoding.Plain, encoding.RLE, encoding.TS2Diff, encoding.Gorilla, encoding.ZigZag, encoding.Chimp, encoding.Sprintz, encoding.RLBE:
			return true
		case encoding.DescendingBitPacking, encoding.SeparateStorage, encoding.Laminar:
			// TsFile 2.3 added these for the integer types only (TSEncoding's
			// TYPE_SUPPORTED_ENCODINGS, apache/tsfile commit 1facf4fb). The upstream
			// writer never picks them by default: a user names them in the schema or
			// in TSFileConfig's per-type encodings, as this writer's schema does.
			return true
		}
	case Float, Double:
		switch e {
		case encoding.Plain, encoding.RLE, encoding.TS2Diff, encoding.GorillaV1, encoding.Gorilla, encoding.Chimp, encoding.Sprintz, encoding.RLBE:
			return true
		case encoding.Camel:
			return t == Double
		}
	case Text, String:
		return e == encoding.Plain || e == encoding.Dictionary
	case Blob, Object:
		return e == encoding.Plain
	}
	return false
}

// ColumnCategory is the role of a table column.
type ColumnCategory int32

// Column categories of Metadata.md.
const (
	Tag       ColumnCategory = 0
	Field     ColumnCategory = 1
	Attribute ColumnCategory = 2
	TimeCol   ColumnCategory = 3
)

func (c ColumnCategory) String() string {
	switch c {
	case Tag:
		return "TAG"
	case Field:
		return "FIELD"
	case Attribute:
		return "ATTRIBUTE"
	case TimeCol:
		return "TIME"
	}
	return fmt.Sprintf("CATEGORY(%d)", int32(c))
}

// NodeType is the kind of a MetadataIndexNode.
type NodeType uint8

// Index node types.
const (
	InternalDevice      NodeType = 0
	LeafDevice          NodeType = 1
	InternalMeasurement NodeType = 2
	LeafMeasurement     NodeType = 3
)

func (n NodeType) String() string {
	switch n {
	case InternalDevice:
		return "INTERNAL_DEVICE"
	case LeafDevice:
		return "LEAF_DEVICE"
	case InternalMeasurement:
		return "INTERNAL_MEASUREMENT"
	case LeafMeasurement:
		return "LEAF_MEASUREMENT"
	}
	return fmt.Sprintf("NODETYPE(%d)", uint8(n))
}

func (n NodeType) isDevice() bool { return n == InternalDevice || n == LeafDevice }
