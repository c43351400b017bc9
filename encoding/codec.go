package encoding

import "fmt"

// valueCodec is one encoding's implementation for each value type. A nil
// field means the (encoding, type) pair is not supported. The functions
// follow the contracts of the exported functions of the same names.
type valueCodec struct {
	decodeBool func(dst []bool, src []byte) error
	// decodeBoolBits, optional, decodes BOOLEAN values straight into a
	// bitmap.
	decodeBoolBits func(dst []byte, n int, src []byte) error
	decodeInt32    func(dst []int32, src []byte) error
	decodeInt64    func(dst []int64, src []byte) error
	decodeFloat32  func(dst []float32, src []byte) error
	decodeFloat64  func(dst []float64, src []byte) error
	decodeBinary   func(offsets []int32, data []byte, n int, src []byte) ([]int32, []byte, error)
	// countInt64 must be set with decodeInt64: time streams can use any
	// INT64 encoding and their length comes from the stream.
	countInt64 func(src []byte) (int, error)

	encodeBool    func(dst []byte, v []bool) ([]byte, error)
	encodeInt32   func(dst []byte, v []int32) ([]byte, error)
	encodeInt64   func(dst []byte, v []int64) ([]byte, error)
	encodeFloat32 func(dst []byte, v []float32) ([]byte, error)
	encodeFloat64 func(dst []byte, v []float64) ([]byte, error)
	encodeBinary  func(dst []byte, v [][]byte) ([]byte, error)
}

// valueCodecs is filled by the init functions of the encodings' files, before
// any exported function can run, and only read afterwards.
var valueCodecs [Laminar + 1]valueCodec

// noCodec answers lookups of identifiers outside the table.
var noCodec valueCodec

func lookup(enc Encoding) *valueCodec {
	if int(enc) < len(valueCodecs) && enc != Freq {
		return &valueCodecs[enc]
	}
	return &noCodec
}

// register adds the non-nil functions of c to enc's entry, so that one
// encoding's types can live in several files (the FLOAT/DOUBLE forms of
// RLE and TS_2DIFF beside their integer forms). Setting a function twice is
// a programming error.
func register(enc Encoding, c valueCodec) {
	e := &valueCodecs[enc]
	dup := func(name string) { panic(fmt.Sprintf("encoding: %s of %v registered twice", name, enc)) }
	if c.decodeBool != nil {
		if e.decodeBool != nil {
			dup("decodeBool")
		}
		e.decodeBool = c.decodeBool
	}
	if c.decodeBoolBits != nil {
		if e.decodeBoolBits != nil {
			dup("decodeBoolBits")
		}
		e.decodeBoolBits = c.decodeBoolBits
	}
	if c.decodeInt32 != nil {
		if e.decodeInt32 != nil {
			dup("decodeInt32")
		}
		e.decodeInt32 = c.decodeInt32
	}
	if c.decodeInt64 != nil {
		if e.decodeInt64 != nil {
			dup("decodeInt64")
		}
		e.decodeInt64 = c.decodeInt64
	}
	if c.decodeFloat32 != nil {
		if e.decodeFloat32 != nil {
			dup("decodeFloat32")
		}
		e.decodeFloat32 = c.decodeFloat32
	}
	if c.decodeFloat64 != nil {
		if e.decodeFloat64 != nil {
			dup("decodeFloat64")
		}
		e.decodeFloat64 = c.decodeFloat64
	}
	if c.decodeBinary != nil {
		if e.decodeBinary != nil {
			dup("decodeBinary")
		}
		e.decodeBinary = c.decodeBinary
	}
	if c.countInt64 != nil {
		if e.countInt64 != nil {
			dup("countInt64")
		}
		e.countInt64 = c.countInt64
	}
	if c.encodeBool != nil {
		if e.encodeBool != nil {
			dup("encodeBool")
		}
		e.encodeBool = c.encodeBool
	}
	if c.encodeInt32 != nil {
		if e.encodeInt32 != nil {
			dup("encodeInt32")
		}
		e.encodeInt32 = c.encodeInt32
	}
	if c.encodeInt64 != nil {
		if e.encodeInt64 != nil {
			dup("encodeInt64")
		}
		e.encodeInt64 = c.encodeInt64
	}
	if c.encodeFloat32 != nil {
		if e.encodeFloat32 != nil {
			dup("encodeFloat32")
		}
		e.encodeFloat32 = c.encodeFloat32
	}
	if c.encodeFloat64 != nil {
		if e.encodeFloat64 != nil {
			dup("encodeFloat64")
		}
		e.encodeFloat64 = c.encodeFloat64
	}
	if c.encodeBinary != nil {
		if e.encodeBinary != nil {
			dup("encodeBinary")
		}
		e.encodeBinary = c.encodeBinary
	}
}
