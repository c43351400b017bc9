package tsfile

import (
	"errors"
	"fmt"

	"github.com/tsarrow/tsarrow/encoding"
)

// ErrCorrupt is wrapped by every error caused by bytes that violate the
// format: bad magic, lengths past their enclosing structure, unsorted index
// keys, pages that decode to the wrong number of values and so on.
var ErrCorrupt = errors.New("tsfile: corrupt file")

// ErrUnsupported is wrapped by errors about valid files that use something
// this package cannot decode: another format version, an encoding or a
// compression without a codec, an encryption scheme without a key.
var ErrUnsupported = errors.New("tsfile: unsupported feature")

// ErrIncomplete is the kind of the error of a file that ends before its
// footer: a writer that never finished it (a crash, a full disk) or a copy
// still in progress. Such a file can still hold complete chunk groups,
// which Recover salvages, so callers may want to say so. It matches
// ErrCorrupt as well: errors.Is(err, ErrCorrupt) holds for these errors
// as for any other damage.
var ErrIncomplete error = incompleteError{}

type incompleteError struct{}

func (incompleteError) Error() string        { return "tsfile: incomplete file" }
func (incompleteError) Is(target error) bool { return target == ErrCorrupt }

// FormatError describes a problem at a definite place in a file.
type FormatError struct {
	Offset    int64  // absolute offset of the offending structure or field
	Structure string // the structure being decoded, such as "chunk header"
	Msg       string // what is wrong
	Kind      error  // ErrCorrupt (or ErrIncomplete, a kind of it) or ErrUnsupported
	Err       error  // underlying cause, if any (for example a codec error)
}

func (e *FormatError) Error() string {
	s := fmt.Sprintf("tsfile: %s at offset %d: %s", e.Structure, e.Offset, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap lets errors.Is match both the kind and the cause.
func (e *FormatError) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

func corruptf(off int64, structure, format string, args ...any) error {
	return &FormatError{Offset: off, Structure: structure, Msg: fmt.Sprintf(format, args...), Kind: ErrCorrupt}
}

func unsupportedf(off int64, structure, format string, args ...any) error {
	return &FormatError{Offset: off, Structure: structure, Msg: fmt.Sprintf(format, args...), Kind: ErrUnsupported}
}

// CodecError places an error from the encoding package at offset off of
// structure, keeping the codec's message and mapping its sentinel onto
// ErrCorrupt or ErrUnsupported, so callers need one pair of errors.Is
// checks. A FormatError passes through unchanged.
//
// It is part of the page-level access (see the package doc) that arrowconv uses.
func CodecError(off int64, structure string, err error) error {
	if err == nil {
		return nil
	}
	var fe *FormatError
	if errors.As(err, &fe) {
		return err
	}
	kind := ErrCorrupt
	if errors.Is(err, encoding.ErrUnsupported) {
		kind = ErrUnsupported
	}
	return &FormatError{Offset: off, Structure: structure, Msg: "cannot decode", Kind: kind, Err: err}
}

// ErrUnsupportedOption is wrapped by the errors of a Writer that refuses to
// write what upstream readers would misread or refuse, though this package
// could encode it: NaN values under GORILLA_V1, FLOAT and DOUBLE values that
// RLE and TS_2DIFF would not keep (NaN, infinities, values beyond the scaled
// integer range), table and column names not in lower case, and a WriteOptions.TimeEncoding
// other than TS_2DIFF without WriteOptions.ConfiguredTimeEncoding. The error
// names the column (or the option) and what to choose instead; nothing of the
// chunk group is written.
var ErrUnsupportedOption = errors.New("tsfile: option that upstream readers misread")

// optionError is an ErrUnsupportedOption whose message says all.
type optionError struct{ msg string }

func (e *optionError) Error() string { return e.msg }
func (e *optionError) Unwrap() error { return ErrUnsupportedOption }

func optionErrorf(format string, args ...any) error {
	return &optionError{msg: fmt.Sprintf(format, args...)}
}
