package icescan

import "github.com/tsarrow/tsarrow/iceref"

// The spelling of an Iceberg input lives in package iceref, which needs no
// iceberg-go, so that ts2arrow (built without it) tells such inputs; these
// are its names here.

// Prefix starts every input that names an Iceberg table.
const Prefix = iceref.Prefix

// Form is the spelling of an Iceberg input, as error messages name it.
const Form = iceref.Form

// ErrInput is returned for an input that starts with Prefix but is not
// of the Form.
var ErrInput = iceref.ErrInput

// Ref is a parsed Iceberg input (see iceref.Ref).
type Ref = iceref.Ref

// IsInput reports whether s is meant as an Iceberg input (it may still
// be malformed: ParseInput says).
func IsInput(s string) bool { return iceref.IsInput(s) }

// ParseInput parses iceberg:CATALOG#NAMESPACE.TABLE (see iceref.ParseInput).
func ParseInput(s string) (Ref, error) { return iceref.ParseInput(s) }
