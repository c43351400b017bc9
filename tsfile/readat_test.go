package tsfile

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// eofReaderAt returns io.EOF together with a full read, as io.ReaderAt
// allows when the bytes read end at the end of the input (and as some
// readers, such as those over an HTTP range or a section, do).
type eofReaderAt struct {
	b []byte
	// always returns io.EOF with every full read, not only the one that
	// reaches the last byte: the reader must judge a read by its count.
	always bool
}

func (r *eofReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(r.b)) {
		return 0, io.EOF
	}
	n := copy(p, r.b[off:])
	if n < len(p) || r.always || off+int64(n) == int64(len(r.b)) {
		return n, io.EOF
	}
	return n, nil
}

// shortReaderAt breaks the io.ReaderAt contract the other way: it reads
// one byte less than asked and reports no error. The file must fail as
// corrupt rather than decode the unread byte as zero.
type shortReaderAt struct{ b []byte }

func (r *shortReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n := copy(p[:max(len(p)-1, 0)], r.b[off:])
	return n, nil
}

// TestReadAtEOFWithFullRead opens every sample and interop file through
// readers that return io.EOF with full reads and requires the same rows,
// records and recovery as through bytes.Reader.
func TestReadAtEOFWithFullRead(t *testing.T) {
	files := append([]sweepFile{sampleFile(t)}, interopFiles(t)...)
	for _, sf := range files {
		for _, always := range []bool{false, true} {
			name := sf.name + "/eof-at-end"
			if always {
				name = sf.name + "/eof-always"
			}
			t.Run(name, func(t *testing.T) {
				size := int64(len(sf.data))
				plain, err := Open(bytes.NewReader(sf.data), size, nil)
				require.NoError(t, err)
				f, err := Open(&eofReaderAt{b: sf.data, always: always}, size, nil)
				require.NoError(t, err)
				require.Equal(t, plain.Metadata, f.Metadata)
				require.Equal(t, readDevices(t, plain), readDevices(t, f))

				require.Equal(t, readAtScan(t, bytes.NewReader(sf.data), size), readAtScan(t, &eofReaderAt{b: sf.data, always: always}, size))

				rec, err := Recover(&eofReaderAt{b: sf.data, always: always}, size, nil)
				require.NoError(t, err)
				require.True(t, rec.Complete, "cause: %v", rec.Cause)
				require.Nil(t, rec.Cause)
			})
		}
	}
}

// TestReadAtShortReadWithoutError requires a reader that returns fewer
// bytes than asked without an error to fail as corruption.
func TestReadAtShortReadWithoutError(t *testing.T) {
	sf := sampleFile(t)
	_, err := Open(&shortReaderAt{b: sf.data}, int64(len(sf.data)), nil)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "short read")
}

func readAtScan(t *testing.T, r io.ReaderAt, size int64) []Record {
	t.Helper()
	s, err := NewScanner(r, size, nil)
	require.NoError(t, err)
	var out []Record
	for s.Next() {
		out = append(out, s.Record())
	}
	require.NoError(t, s.Err())
	return out
}
