package tsfile

import (
	"bytes"
	"fmt"
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

// TestReadAtEOFRecoverTruncated recovers copies of the sample cut where a
// chunk group ends through a reader that returns io.EOF with the full read
// that reaches the cut, and requires what bytes.Reader gives: the group's
// last chunk is read up to the end of the input and the group recovered.
func TestReadAtEOFRecoverTruncated(t *testing.T) {
	sf := sampleFile(t)
	var ends []int64 // where a chunk group ends with a chunk
	recs := readAtScan(t, bytes.NewReader(sf.data), int64(len(sf.data)))
	for i, r := range recs[1:] {
		if recs[i].Kind == ChunkRecord && r.Kind != ChunkRecord {
			ends = append(ends, r.Offset)
		}
	}
	require.GreaterOrEqual(t, len(ends), 2)
	for _, end := range []int64{ends[len(ends)/2], ends[len(ends)-1]} {
		cut := sf.data[:end]
		want, err := Recover(bytes.NewReader(cut), int64(len(cut)), nil)
		require.NoError(t, err)
		require.NotEmpty(t, want.Groups)
		got, err := Recover(&eofReaderAt{b: cut}, int64(len(cut)), nil)
		require.NoError(t, err)
		require.Equal(t, want.ValidEnd, got.ValidEnd)
		require.Equal(t, want.Groups, got.Groups)
		require.Equal(t, fmt.Sprint(want.Cause), fmt.Sprint(got.Cause))

		f, err := got.Open(&eofReaderAt{b: cut}, nil)
		require.NoError(t, err)
		g, err := want.Open(bytes.NewReader(cut), nil)
		require.NoError(t, err)
		require.Equal(t, readDevices(t, g), readDevices(t, f))
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
