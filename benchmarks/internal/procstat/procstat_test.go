package procstat

import (
	"runtime"
	"testing"
)

// TestPeakRSS: the peak covers a 64 MiB buffer the test has touched, and
// never falls.
func TestPeakRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	before, err := PeakRSS()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	after, err := PeakRSS()
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(buf)
	if after < before || after < 64<<20 {
		t.Fatalf("peak RSS %d before, %d after touching 64 MiB", before, after)
	}
}
