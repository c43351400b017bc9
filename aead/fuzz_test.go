package aead

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
)

// FuzzParseHeader must never panic; every error wraps ErrMalformedHeader
// (with need > len(b) exactly when it also wraps io.ErrUnexpectedEOF), and
// every header it accepts re-serializes to the bytes it came from. The
// committed corpus in testdata/fuzz/FuzzParseHeader holds the §2.5 example,
// versions 1 and 3, and damaged variants.
func FuzzParseHeader(f *testing.F) {
	f.Add(mustUnhex(exampleHeader))
	f.Add([]byte{0x06, 0x01, 0x01})
	f.Add([]byte{0x06, 0x80, 0x80, 0x40})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, need, err := ParseHeader(b)
		if err != nil {
			if h != nil || n != 0 {
				t.Fatalf("error %v with header %v, n %d", err, h, n)
			}
			if !errors.Is(err, ErrMalformedHeader) {
				t.Fatalf("error %v does not wrap ErrMalformedHeader", err)
			}
			if eof := errors.Is(err, io.ErrUnexpectedEOF); eof != (need > len(b)) || !eof && need != 0 {
				t.Fatalf("error %v (EOF %v) with need %d for %d bytes", err, eof, need, len(b))
			}
			if !strings.HasPrefix(err.Error(), "aead: encryption header at offset 7: ") {
				t.Fatalf("message %q does not say where", err)
			}
			return
		}
		if n < 3 || n > len(b) || need != 0 {
			t.Fatalf("n %d, need %d for %d bytes", n, need, len(b))
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("parsed header does not validate: %v", err)
		}
		out, err := h.AppendBinary(nil)
		if err != nil {
			t.Fatalf("parsed header does not serialize: %v", err)
		}
		if !bytes.Equal(out, b[:n]) {
			t.Fatalf("re-serialized %x, parsed %x", out, b[:n])
		}
		if len(b) > n {
			// The header alone parses the same.
			h2, n2, _, err := ParseHeader(b[:n])
			if err != nil || n2 != n || h2.String() != h.String() {
				t.Fatalf("header alone: %v, %d", err, n2)
			}
		}
	})
}

var hexRun = regexp.MustCompile(`^[0-9a-fA-F]{8,}$`)

// FuzzParseKEKFile must never panic, every error wraps ErrKeyFile, and no
// error message quotes a key's hex.
func FuzzParseKEKFile(f *testing.F) {
	f.Add([]byte("# keys\nmain 1 00112233445566778899aabbccddeeff\n\nmain 2 " + strings.Repeat("ab", 32) + "\n"))
	f.Add([]byte("a 1 zz112233445566778899aabbccddeeff"))
	f.Add([]byte("a 1 0011\na 1 0011"))
	f.Add([]byte("a 1\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseKEKFile(KeyFileProviderID, data)
		if err != nil {
			if !errors.Is(err, ErrKeyFile) {
				t.Fatalf("error %v does not wrap ErrKeyFile", err)
			}
			// No field of 8 or more hex digits, wherever it stands on its
			// line, may appear in the message.
			msg := err.Error()
			for _, field := range bytes.Fields(data) {
				if hexRun.Match(field) && strings.Contains(msg, string(field)) {
					t.Fatalf("message %q quotes key material", msg)
				}
			}
			return
		}
		defer p.Close()
		if len(p.keys) == 0 {
			t.Fatal("a provider without keys")
		}
		for _, k := range p.keys {
			if len(k) != 16 && len(k) != 32 {
				t.Fatalf("KEK of %d bytes", len(k))
			}
		}
	})
}
