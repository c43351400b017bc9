// Package tsfile reads and writes Apache TsFile version 4 files, and
// version 3 files (IoTDB 1.x and the SDKs of that era) through the same API:
// a v3 device's path string becomes a DeviceID split as the reference
// implementation splits it (ParseTreePath), and its single device index is
// grouped by first segment so that it reads as a v4 tree-model file.
//
// A TsFile is a data section of chunk groups (one device each), chunks (one
// column each) and pages, followed by a footer of index trees and file
// metadata. Open reads the footer first, as the format intends, and walks the
// index trees lazily so that the metadata touched is proportional to the
// devices and series asked for. NewScanner reads the data section from the
// front without the footer; recovery and streaming build on it. NewWriter
// produces spec-valid files for both the table model (aligned chunks) and the
// tree model (non-aligned series).
//
// Every length and offset read from a file is checked against the bytes
// that enclose it before it is used, and a buffer grows only as far as the
// bytes already in it parse: a chunk or index range that declares more than
// its bytes bear out (a gigabyte of zeros in a sparse file) fails at its
// first structure that does not parse, not after the declared size is read.
// Errors name the structure and the absolute offset and wrap ErrCorrupt or
// ErrUnsupported so callers can tell a damaged file from one that uses a
// feature this package lacks.
//
// # Page-level access
//
// ReadAligned and ReadNonAligned decode a device's rows whole. A reader
// that decodes pages itself, into its own buffers and in parallel (package
// arrowconv), uses the page-level API instead: [AlignedChunkSets] pairs an
// aligned device's chunks, [File.ReadChunkPages], [File.ReadChunkBuffer],
// [File.ReadChunkInto] and [File.OpenPageStream] fetch a chunk's pages (the
// last two into buffers from an [Allocator] the caller counts),
// [PayloadDecoder]
// decrypts and decompresses a page, [SplitValuePage],
// [SplitNonAlignedPage] and [CountTimes] take its payload apart for the
// decoders of package encoding, and [CodecError] places their errors in
// the file. These serve that reader; most programs need none of them.
package tsfile
