package tsfile

import (
	"bytes"
	"testing"
)

// FuzzRecover: whatever the bytes, Recover does not panic, reports damage
// as a FormatError, and what it recovers rebuilds into a file that opens
// and reads in full.
func FuzzRecover(f *testing.F) {
	for _, b := range recoverLayouts(f) {
		f.Add(b)
		f.Add(b[:len(b)*2/3])
	}
	f.Add(smallFile(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := Recover(bytes.NewReader(b), int64(len(b)), nil)
		if err != nil {
			if !isFormatError(err) {
				t.Fatalf("not a FormatError: %v", err)
			}
			return
		}
		if rec.Cause != nil && !isFormatError(rec.Cause) {
			t.Fatalf("cause not a FormatError: %v", rec.Cause)
		}
		if rec.ValidEnd > int64(len(b)) {
			t.Fatalf("ValidEnd %d past the %d-byte input", rec.ValidEnd, len(b))
		}
		var out bytes.Buffer
		if _, err := rec.Rebuild(&out, bytes.NewReader(b), nil); err != nil {
			// A device recovered both aligned and not, or a series
			// whose type changes between groups, cannot be indexed.
			if !isFormatError(err) {
				t.Fatalf("rebuild: not a FormatError: %v", err)
			}
			return
		}
		if err := readAll(out.Bytes()); err != nil {
			t.Fatalf("the rebuilt file does not read: %v", err)
		}
	})
}
