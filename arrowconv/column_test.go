package arrowconv

import (
	"bytes"
	"testing"
)

// TestASCIIOnly puts one byte above 0x7f at every position of every length
// around the 32- and 8-byte steps.
func TestASCIIOnly(t *testing.T) {
	for n := 0; n <= 100; n++ {
		s := bytes.Repeat([]byte{0x7f}, n)
		if !asciiOnly(s) {
			t.Fatalf("len %d: ASCII reported otherwise", n)
		}
		for at := range s {
			s[at] = 0x80
			if asciiOnly(s) {
				t.Fatalf("len %d: byte 0x80 at %d missed", n, at)
			}
			s[at] = 0x7f
		}
	}
}
