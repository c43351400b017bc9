package tsfile

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tsarrow/tsarrow/aead"
	"github.com/tsarrow/tsarrow/encoding"
)

// The fuzz targets check that no input makes a parser panic or hang, that
// every error is a *FormatError of exactly one kind, ErrCorrupt or
// ErrUnsupported, and, where a structure parses, that the writer's
// serializer gives it back: a reader and a writer that disagree on a
// structure corrupt files on a rewrite. Seeds are real structures from the
// writer and from testdata/sample.tsfile. Each target's named seeds are
// committed under testdata/fuzz/<target>/ so that go test replays them
// without -fuzz; regenerate them with
//
//	go test ./tsfile -run 'Fuzz' -args -write-fuzz-corpus
//
// Crashers the fuzzer writes next to them have hash names and stay as
// regression cases.

var writeFuzzCorpus = flag.Bool("write-fuzz-corpus", false, "write each Fuzz target's named seeds to testdata/fuzz/<target>/")

// maxSeedFile keeps the committed corpus small: it runs in every go test.
const maxSeedFile = 64 << 10

// addSeed adds a seed to f and, with -write-fuzz-corpus, writes it to the
// target's corpus directory in the fuzzer's own file format, so that the
// committed corpus and the f.Add seeds cannot drift apart.
func addSeed(f *testing.F, name string, args ...any) {
	f.Helper()
	f.Add(args...)
	if *writeFuzzCorpus {
		writeSeed(f, f.Name(), name, args...)
	}
}

func writeSeed(t testing.TB, target, name string, args ...any) {
	t.Helper()
	b := marshalSeed(args...)
	if len(b) > maxSeedFile {
		t.Fatalf("seed %s of %s is %d bytes, over the %d-byte budget", name, target, len(b), maxSeedFile)
	}
	dir := filepath.Join("testdata", "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWriteFuzzCorpus writes the committed seeds of the targets that do not
// add theirs through addSeed: FuzzRecover (recover_fuzz_test.go) takes
// damaged and truncated files, which the seed files here are.
func TestWriteFuzzCorpus(t *testing.T) {
	if !*writeFuzzCorpus {
		t.Skip("regenerates the committed corpus; run with -args -write-fuzz-corpus")
	}
	for name, b := range seedFiles(t) {
		writeSeed(t, "FuzzRecover", name, b)
		writeSeed(t, "FuzzRecover", name+"-truncated", b[:len(b)*2/3])
		damaged := slices.Clone(b)
		damaged[len(b)/3] ^= 0xff
		writeSeed(t, "FuzzRecover", name+"-damaged", damaged)
	}
	if b := fuzzSample(); len(b) > 12000 {
		writeSeed(t, "FuzzRecover", "sample-head", b[:12000])
	}
}

// marshalSeed writes a "go test fuzz v1" file as internal/fuzz does for
// the argument types the targets use.
func marshalSeed(args ...any) []byte {
	b := []byte("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case []byte:
			b = fmt.Appendf(b, "[]byte(%q)\n", v)
		case byte:
			b = fmt.Appendf(b, "byte(%q)\n", v)
		case string:
			b = fmt.Appendf(b, "string(%q)\n", v)
		case bool, int, int64, uint16, uint32, uint64:
			b = fmt.Appendf(b, "%T(%v)\n", v, v)
		default:
			panic(fmt.Sprintf("marshalSeed: unsupported type %T", a))
		}
	}
	return b
}

// fuzzOptions keep one input from making a reader allocate much: a few
// bytes of TS_2DIFF can claim millions of timestamps, which the default
// limits allow and which would make each execution slow without testing
// anything more.
var fuzzOptions = &ReadOptions{MaxPagePoints: 1 << 16, MaxPageSize: 1 << 20, Keys: fuzzKeys()}

// fuzzKeys holds the keys of the encrypted seeds, so that mutations reach
// chunk proofs and sealed pages.
func fuzzKeys() *aead.Registry {
	r, err := newTestKeys()
	if err != nil {
		panic(err)
	}
	return r
}

// checkFuzzError fails unless err is nil or a *FormatError of exactly one kind.
// With size >= 0 the error must also point into the size-byte input, as
// the errors of the parsers over one buffer do; errors about a whole file
// may name an offset that the file itself claimed.
func checkFuzzError(t *testing.T, err error, size int) {
	t.Helper()
	if err == nil {
		return
	}
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("not a *FormatError: %v", err)
	}
	if errors.Is(err, ErrCorrupt) == errors.Is(err, ErrUnsupported) {
		t.Fatalf("must wrap exactly one of ErrCorrupt and ErrUnsupported: %v", err)
	}
	if fe.Structure == "" || fe.Msg == "" {
		t.Fatalf("error names no structure or problem: %#v", fe)
	}
	if size >= 0 && (fe.Offset < 0 || fe.Offset > int64(size)) {
		t.Fatalf("offset %d is outside the %d-byte input: %v", fe.Offset, size, err)
	}
}

// fuzzParse runs parse over b the way the readers do and checks its error.
func fuzzParse(t *testing.T, b []byte, parse func(d *buf)) *buf {
	t.Helper()
	d := newBuf(b, 0, "fuzz")
	parse(d)
	checkFuzzError(t, d.err, len(b))
	return d
}

// fuzzReparse parses b, which a serializer wrote, and requires it to parse
// whole and cleanly.
func fuzzReparse(t *testing.T, b []byte, what string, parse func(d *buf)) {
	t.Helper()
	d := newBuf(b, 0, "re-serialized "+what)
	parse(d)
	if d.err != nil {
		t.Fatalf("re-serialized %s does not parse: %v\n%x", what, d.err, b)
	}
	if d.remaining() != 0 {
		t.Fatalf("re-serialized %s leaves %d of %d bytes", what, d.remaining(), len(b))
	}
}

// Seed material: small files from the writer covering every data type,
// both models, every chunk kind and internal index nodes.

var fuzzValueTypes = []DataType{Boolean, Int32, Int64, Float, Double, Text, Timestamp, Date, Blob, String, Object}

// fuzzValues returns n deterministic values of type t, null where
// null(i) says so.
func fuzzValues(t DataType, n int, null func(i int) bool) Values {
	v := NewValues(t, n)
	if null != nil {
		v.Null = make([]bool, n)
	}
	for i := 0; i < n; i++ {
		if null != nil && null(i) {
			v.Null[i] = true
			continue
		}
		switch t {
		case Boolean:
			v.Bools[i] = i%3 == 0
		case Int32, Date:
			v.Int32s[i] = int32(20240101 + i*7 - i*i)
		case Int64, Timestamp:
			v.Int64s[i] = int64(i*i) - 3 + int64(i)<<40
		case Float:
			v.Float32s[i] = float32(i)*1.5 - 2
		case Double:
			v.Float64s[i] = float64(i)/3 - 1e10
		default:
			v.Binaries[i] = []byte(fmt.Sprintf("%s é%d", t, i*i))[:3+i%5]
		}
	}
	return v
}

// seedEncodings gives each type one encoding other than PLAIN where it has
// one, so the seed files reach more decoders.
var seedEncodings = map[DataType]Encoding{
	Boolean: encoding.RLE, Int32: encoding.ZigZag, Int64: encoding.TS2Diff, Float: encoding.Gorilla,
	Double: encoding.Chimp, Text: encoding.Dictionary, Timestamp: encoding.RLBE, Date: encoding.Sprintz,
	String: encoding.Dictionary,
}

var seedCompressions = []Compression{encoding.Uncompressed, encoding.Snappy, encoding.LZ4, encoding.Gzip, encoding.ZSTD, encoding.LZMA2}

// seedTableFile is a table-model file with a FIELD of every data type in
// pages of three rows, with scattered nulls, a column null in a whole page
// (an empty page), a column null everywhere in a group (an empty chunk),
// a device whose chunks have one page and a column absent from a group.
func seedTableFile(t testing.TB) []byte {
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{MaxPointsPerPage: 3, MaxDegree: 2, TimeCompression: encoding.Snappy})
	fuzzMust(t, err)
	schema := TableSchema{Name: "t", Columns: []Column{{Name: "k", DataType: String, Category: Tag}}}
	for _, dt := range fuzzValueTypes {
		schema.Columns = append(schema.Columns, Column{Name: "f_" + strings.ToLower(dt.String()), DataType: dt, Encoding: seedEncodings[dt], Category: Field})
	}
	fuzzMust(t, w.RegisterTable(schema))
	for d, rows := range []int{7, 2} {
		times := make([]int64, rows)
		for i := range times {
			times[i] = int64(1000*d + 10*i + i*i)
		}
		var cols []AlignedColumn
		for j, dt := range fuzzValueTypes {
			if d == 1 && dt == Text {
				continue // absent from this group
			}
			null := func(i int) bool { return (i+j)%4 == 0 }
			switch dt {
			case Double:
				null = func(i int) bool { return i >= 3 && i < 6 } // the second page is empty
			case Blob:
				if d == 1 {
					null = func(int) bool { return true } // an empty chunk
				}
			}
			cols = append(cols, AlignedColumn{
				SeriesSchema: SeriesSchema{Name: "f_" + strings.ToLower(dt.String()), DataType: dt, Encoding: seedEncodings[dt], Compression: seedCompressions[j%len(seedCompressions)]},
				Values:       fuzzValues(dt, rows, null),
			})
		}
		fuzzMust(t, w.WriteAligned(NewDeviceID("t", fmt.Sprintf("dev%d", d)), times, cols))
	}
	fuzzMust(t, w.Close())
	return out.Bytes()
}

// seedTreeFile is a tree-model file: non-aligned devices written in two
// chunk groups (so series have several chunks and multi-chunk metadata),
// single- and multi-page chunks, an aligned device, an operation index
// range and enough devices and series for internal index nodes.
func seedTreeFile(t testing.TB) []byte {
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{MaxPointsPerPage: 3, MaxDegree: 2, Properties: []Property{{Key: "seed", Value: []byte("tree")}, {Key: "null", Null: true}}})
	fuzzMust(t, err)
	for g := 0; g < 2; g++ {
		for d := 0; d < 3; d++ {
			var series []NonAlignedSeries
			for j, dt := range []DataType{Int64, Double, Text, Boolean, Int32} {
				n := 1 + (j+d+g)%5
				times := make([]int64, n)
				for i := range times {
					times[i] = int64(100*g + 7*i + j)
				}
				series = append(series, NonAlignedSeries{
					SeriesSchema: SeriesSchema{Name: fmt.Sprintf("s%d", j), DataType: dt, Encoding: seedEncodings[dt], Compression: seedCompressions[(j+d)%len(seedCompressions)]},
					Times:        times, Values: fuzzValues(dt, n, nil),
				})
			}
			fuzzMust(t, w.WriteNonAligned(NewDeviceID("root.sg", fmt.Sprintf("d%d", d)), series))
		}
		fuzzMust(t, w.WriteOperationIndexRange(int64(10*g), int64(10*g+9)))
	}
	times := []int64{1, 2, 3, 4}
	fuzzMust(t, w.WriteAligned(NewDeviceID("root.al", "d"), times, []AlignedColumn{
		{SeriesSchema: SeriesSchema{Name: "x", DataType: Float}, Values: fuzzValues(Float, 4, func(i int) bool { return i == 1 })},
		{SeriesSchema: SeriesSchema{Name: "y", DataType: String}, Values: fuzzValues(String, 4, nil)},
	}))
	fuzzMust(t, w.Close())
	return out.Bytes()
}

func fuzzMust(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

var fuzzFileCache map[string][]byte

// seedFiles returns the whole files the file-level targets start from.
// Callers must not modify them.
func seedFiles(t testing.TB) map[string][]byte {
	if fuzzFileCache == nil {
		fuzzFileCache = map[string][]byte{"small": smallFile(t), "table": seedTableFile(t), "tree": seedTreeFile(t)}
		// Page AEAD with chunk proofs (v3) and with ordinals only (v2).
		for _, cfg := range []string{"v3-gcm256", "v2-test"} {
			fuzzFileCache["aead-"+cfg] = sweepLayoutsWith(t, encrypting(t, fuzzKeys(), aeadConfigs()[cfg]))[0].data
		}
		// TsFile v3: aligned and non-aligned devices, and a device index
		// with internal nodes keyed by path strings.
		for _, l := range sweepLayoutsWith(t, asV3) {
			if l.name == "mixed" || l.name == "deep-index" {
				fuzzFileCache["tsfile-v3-"+l.name] = l.data
			}
		}
	}
	return fuzzFileCache
}

// fuzzSample returns testdata/sample.tsfile, or nil where it is absent.
// interopSeeds reads the upstream-written TsFiles of ../../shared/interop
// (beside the checkout, as CI has it) of at most max bytes each, sorted by
// name; none when the directory is absent.
func interopSeeds(max int64) [][]byte {
	paths, _ := filepath.Glob("../../shared/interop/*.tsfile")
	sort.Strings(paths)
	var out [][]byte
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || st.Size() > max {
			continue
		}
		if b, err := os.ReadFile(p); err == nil {
			out = append(out, b)
		}
	}
	return out
}

func fuzzSample() []byte {
	b, _ := os.ReadFile("../testdata/sample.tsfile")
	return b
}

// seedChunk is one chunk cut out of a seed file.
type seedChunk struct {
	name   string
	header ChunkHeader
	raw    []byte // the header and its pages
}

// seedChunks returns chunks of the seed files that together have every
// chunk marker and every data type, in file order.
func seedChunks(t testing.TB) []seedChunk {
	var out []seedChunk
	seen := map[any]bool{}
	for _, name := range []string{"table", "tree", "small"} {
		b := seedFiles(t)[name]
		s, err := NewScanner(bytes.NewReader(b), int64(len(b)), nil)
		fuzzMust(t, err)
		for s.Next() {
			r := s.Record()
			if r.Kind != ChunkRecord {
				continue
			}
			h := r.Chunk.Header
			if !seen[h.Marker] || !seen[h.DataType] {
				seen[h.Marker], seen[h.DataType] = true, true
				out = append(out, seedChunk{name: fmt.Sprintf("%02x-%s", h.Marker, h.DataType), header: h, raw: b[r.Offset:r.End]})
			}
		}
		fuzzMust(t, s.Err())
	}
	return out
}

// fuzzScan runs a Scanner over b to its end and checks that it reports
// the data section as contiguous records inside the file, never moving
// Offset back or past a structure it failed to read.
func fuzzScan(t *testing.T, b []byte) {
	t.Helper()
	size := int64(len(b))
	s, err := NewScanner(bytes.NewReader(b), size, fuzzOptions)
	checkFuzzError(t, err, len(b))
	if err != nil {
		return
	}
	last := s.Offset()
	var kind RecordKind
	for s.Next() {
		r := s.Record()
		kind = r.Kind
		if r.Offset != last {
			t.Fatalf("%s record starts at %d, the previous one ended at %d", r.Kind, r.Offset, last)
		}
		if r.End <= r.Offset || r.End > size {
			t.Fatalf("%s record [%d, %d) is empty or runs past the %d-byte file", r.Kind, r.Offset, r.End, size)
		}
		if s.Offset() != r.End {
			t.Fatalf("Offset() is %d after a record ending at %d", s.Offset(), r.End)
		}
		switch r.Kind {
		case ChunkGroupRecord:
			if r.Device.Len() == 0 {
				t.Fatalf("chunk group at %d has an empty DeviceID", r.Offset)
			}
		case ChunkRecord:
			c := r.Chunk
			if c == nil || c.Header.Offset != r.Offset || c.Header.End() != r.End {
				t.Fatalf("chunk record [%d, %d) does not match its chunk", r.Offset, r.End)
			}
			pos := c.Header.DataOffset()
			for i := range c.Pages {
				p := &c.Pages[i]
				if p.Header.Offset != pos || len(p.Stored) != p.Header.CompressedSize {
					t.Fatalf("page %d of the chunk at %d: header at %d, want %d; %d stored bytes for %d", i, r.Offset, p.Header.Offset, pos, len(p.Stored), p.Header.CompressedSize)
				}
				pos = p.Header.End()
			}
			if pos != r.End {
				t.Fatalf("the pages of the chunk at %d end at %d, the chunk at %d", r.Offset, pos, r.End)
			}
		}
		last = r.End
	}
	checkFuzzError(t, s.Err(), len(b))
	if s.Offset() != last {
		t.Fatalf("Offset() moved from %d to %d on a failed Next", last, s.Offset())
	}
	if s.Err() == nil && kind != SeparatorRecord {
		t.Fatalf("scan ended without an error before the separator (last record %s)", kind)
	}
	if s.Next() {
		t.Fatalf("Next returned true after the scan ended")
	}
}

// errDisagree marks a disagreement between two read paths; it is not a
// FormatError, so the targets report it.
var errDisagree = errors.New("read paths disagree")

// sameChunk reads the chunk at off whole with ReadChunk and page by page
// with ReadChunkPages, keeping every other page, and requires the two to
// agree: a reader that skips pages by their Statistics must see the same
// pages as one that reads everything.
func sameChunk(f *File, off int64, j int) error {
	whole, err := f.ReadChunk(off)
	paged, perr := f.ReadChunkPages(off, func(i int, _ *PageHeader) bool { return (i+j)%2 == 0 })
	switch {
	case (err == nil) != (perr == nil):
		return fmt.Errorf("%w: chunk at %d: ReadChunk: %v; ReadChunkPages: %v", errDisagree, off, err, perr)
	case err != nil:
		if serr := streamAll(f, off); serr == nil {
			return fmt.Errorf("%w: chunk at %d: ReadChunk: %v; streamed without error", errDisagree, off, err)
		}
		return err
	case !reflect.DeepEqual(whole.Header, paged.Header) || len(whole.Pages) != len(paged.Pages):
		return fmt.Errorf("%w: chunk at %d: %+v with %d pages, page by page %+v with %d", errDisagree, off, whole.Header, len(whole.Pages), paged.Header, len(paged.Pages))
	}
	for i := range whole.Pages {
		w, p := &whole.Pages[i], &paged.Pages[i]
		kept := (i+j)%2 == 0
		if w.Header.Offset != p.Header.Offset || w.Header.HeaderSize != p.Header.HeaderSize || w.Header.CompressedSize != p.Header.CompressedSize ||
			w.Header.UncompressedSize != p.Header.UncompressedSize || (w.Header.Statistics == nil) != (p.Header.Statistics == nil) ||
			(kept && !bytes.Equal(p.Stored, w.Stored)) || (!kept && p.Stored != nil) {
			return fmt.Errorf("%w: page %d of the chunk at %d: %+v, page by page %+v", errDisagree, i, off, w.Header, p.Header)
		}
	}
	return sameStream(f, whole, j)
}

// streamAll reads every page of the chunk at off through a PageStream.
func streamAll(f *File, off int64) error {
	s, err := f.OpenPageStream(off, nil, 64)
	if err != nil {
		return err
	}
	_, err = s.Rest()
	return err
}

// sameStream reads the chunk through a PageStream, with a window that
// varies with j (down to one byte, so that every page straddles reads),
// taking every page or every other one, and compares it with whole, which
// ReadChunk read without error.
func sameStream(f *File, whole *Chunk, j int) error {
	off := whole.Header.Offset
	windows := []int{1, 13, 200, 0}
	s, err := f.OpenPageStream(off, nil, windows[j%len(windows)])
	if err != nil {
		return fmt.Errorf("%w: chunk at %d: ReadChunk read it, OpenPageStream: %v", errDisagree, off, err)
	}
	if !reflect.DeepEqual(whole.Header, s.Header) {
		return fmt.Errorf("%w: chunk at %d: %+v, streamed %+v", errDisagree, off, whole.Header, s.Header)
	}
	step := 1 + j%2
	for i := 0; i <= len(whole.Pages); i += step {
		p, err := s.Page(i)
		if err != nil {
			return fmt.Errorf("%w: page %d of the chunk at %d: ReadChunk read it, streamed: %v", errDisagree, i, off, err)
		}
		if i == len(whole.Pages) {
			if p != nil {
				return fmt.Errorf("%w: chunk at %d: streamed a page %d past its %d", errDisagree, off, i, len(whole.Pages))
			}
			break
		}
		w := &whole.Pages[i]
		if p == nil || w.Header.Offset != p.Header.Offset || w.Header.HeaderSize != p.Header.HeaderSize || w.Header.CompressedSize != p.Header.CompressedSize ||
			w.Header.UncompressedSize != p.Header.UncompressedSize || (w.Header.Statistics == nil) != (p.Header.Statistics == nil) || !bytes.Equal(w.Stored, p.Stored) {
			return fmt.Errorf("%w: page %d of the chunk at %d: %+v, streamed %+v", errDisagree, i, off, w.Header, p)
		}
	}
	n, err := s.Rest()
	if err != nil || n != len(whole.Pages) {
		return fmt.Errorf("%w: chunk at %d: %d pages, streamed %d (%v)", errDisagree, off, len(whole.Pages), n, err)
	}
	if err := sameStatistics(whole, &s.Chunk); err != nil {
		return err
	}
	// Reset onto the same chunk: the stream's reused storage must give
	// the same pages and headers again.
	if err := s.Reset(off); err != nil {
		return fmt.Errorf("%w: chunk at %d: Reset: %v", errDisagree, off, err)
	}
	for i := range whole.Pages {
		if p, err := s.Page(i); err != nil || p == nil || !bytes.Equal(p.Stored, whole.Pages[i].Stored) {
			return fmt.Errorf("%w: page %d of the chunk at %d after Reset: %v", errDisagree, i, off, err)
		}
	}
	if n, err := s.Rest(); err != nil || n != len(whole.Pages) {
		return fmt.Errorf("%w: chunk at %d after Reset: %d pages, streamed %d (%v)", errDisagree, off, len(whole.Pages), n, err)
	}
	return sameStatistics(whole, &s.Chunk)
}

// sameStatistics compares the page headers' Statistics of a streamed
// chunk, kept after the window passed them, with those read whole.
func sameStatistics(whole, streamed *Chunk) error {
	for i := range whole.Pages {
		w, p := whole.Pages[i].Header.Statistics, streamed.Pages[i].Header.Statistics
		// Compared serialized: bitwise, so that a NaN sum equals itself.
		if (w == nil) != (p == nil) || (w != nil && !bytes.Equal(w.AppendTo(nil), p.AppendTo(nil))) {
			return fmt.Errorf("%w: page %d of the chunk at %d: statistics %+v, streamed %+v", errDisagree, i, whole.Header.Offset, w, p)
		}
	}
	return nil
}

// fuzzReadFile opens b and reads every series through each read path:
// Series and SeriesByName, every chunk with its pages, the Bloom filter,
// and the rows of aligned and non-aligned devices.
func fuzzReadFile(b []byte) error {
	f, err := Open(bytes.NewReader(b), int64(len(b)), fuzzOptions)
	if err != nil {
		return err
	}
	for _, tb := range f.Tables() {
		f.SchemaOf(tb)
		// A disagreement between index and schema is ErrCorrupt; the
		// walk below goes on, to reach the rest of the file.
		if err := f.CheckTable(tb, nil); err != nil && !errors.Is(err, ErrCorrupt) {
			return err
		}
		devs, err := f.Devices(tb)
		if err != nil {
			return err
		}
		for _, dev := range devs {
			series, err := f.Series(dev)
			if err != nil {
				return err
			}
			aligned := false
			for i := range series {
				s := &series[i]
				f.Metadata.Bloom.MayContain(seriesPath(dev, s.Measurement))
				if _, err := f.SeriesByName(dev, s.Measurement); err != nil {
					return err
				}
				for j, c := range s.Chunks {
					if err := sameChunk(f, c.Offset, j); err != nil {
						return err
					}
				}
				if s.IsTimeColumn() {
					aligned = true
				} else if !s.IsValueColumn() {
					if _, _, err := f.ReadNonAligned(s); err != nil {
						return err
					}
				}
			}
			if aligned {
				if _, err := f.ReadAligned(series); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// FuzzOpenAndScan opens whole files and reads everything in them, then
// scans the data section from the front as recovery does. The file is b
// with patch written over it at off: a mutation that inserts or deletes
// bytes in b shifts every offset after it and mostly fails at the footer,
// while one in patch damages a structure in place and leaves the rest of
// the file readable.
func FuzzOpenAndScan(f *testing.F) {
	for name, b := range seedFiles(f) {
		addSeed(f, name, b, uint32(0), []byte{})
		addSeed(f, name+"-patched", b, uint32(len(b)/2), []byte{0xff, 0x7f, 0})
	}
	if b := fuzzSample(); b != nil {
		f.Add(b, uint32(0), []byte{}) // too large to commit twice; it is in testdata already
	}
	// The upstream-written files, where they are beside the checkout:
	// seeds added at run time, never committed (they are not ours).
	for _, b := range interopSeeds(1 << 20) {
		f.Add(b, uint32(0), []byte{})
	}
	f.Fuzz(func(t *testing.T, b []byte, off uint32, patch []byte) {
		if len(b) > 0 && len(patch) > 0 {
			b = slices.Clone(b)
			copy(b[int(off%uint32(len(b))):], patch)
		}
		checkFuzzError(t, fuzzReadFile(b), -1)
		fuzzScan(t, b)
	})
}

// prefixVerdict is what the prefix of b alone decides: nil when a reader
// must go on to the data section, otherwise the kind of error it must
// return.
func prefixVerdict(b []byte) error {
	switch {
	case len(b) < len(Magic)+1 || string(b[:len(Magic)]) != Magic:
		return ErrCorrupt
	case b[len(Magic)] != Version && b[len(Magic)] != VersionV3:
		return ErrUnsupported
	case b[len(Magic)] == Version && len(b) > 7 && b[7] == MarkerEncryptionHeader:
		// The header must parse, and name a profile this reader has;
		// a missing key leaves the file readable up to its pages.
		h, _, _, err := aead.ParseHeader(b[7:])
		if err != nil {
			return ErrCorrupt
		}
		if _, err := aead.LookupProfile(h.ProfileID); err != nil {
			return ErrUnsupported
		}
	}
	return nil
}

// FuzzPrefix puts arbitrary leading bytes in front of, and over the start
// of, a valid file. The prefix is the magic, the version and, in an
// encrypted file, the 0x06 marker of the encryption header right after
// them. This target covers the prefix and the detection of that marker;
// the Page AEAD header parser behind it gets its own target in the aead
// package (FuzzParseHeader).
func FuzzPrefix(f *testing.F) {
	good := smallFile(f)
	g, err := Open(bytes.NewReader(good), int64(len(good)), nil)
	fuzzMust(f, err)
	sep := int(g.metaOffset)
	v := string(Magic) + string(Version)
	for name, s := range map[string]string{
		"empty": "", "magic": Magic, "prefix": v, "version-3": Magic + "\x03", "version-5": Magic + "\x05",
		"bad-magic": "TsFilE\x04", "encrypted": v + "\x06\x01\x00\x00\x00\x10", "encrypted-alone": v + "\x06",
		"chunk-group": v + "\x00", "separator": v + "\x02", "head": string(good[:40]),
	} {
		addSeed(f, name, []byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		file := slices.Clone(good)
		if len(head) > len(file) {
			file = slices.Clone(head)
		}
		copy(file, head)
		for _, b := range [][]byte{head, file} {
			want := prefixVerdict(b)
			s, err := NewScanner(bytes.NewReader(b), int64(len(b)), fuzzOptions)
			checkFuzzError(t, err, len(b))
			switch {
			case want == nil && err != nil:
				t.Fatalf("valid prefix %q refused: %v", b[:min(len(b), 8)], err)
			case want != nil && !errors.Is(err, want):
				t.Fatalf("prefix %q: got %v, want an error wrapping %v", b[:min(len(b), 8)], err, want)
			}
			if s != nil {
				for s.Next() {
				}
				checkFuzzError(t, s.Err(), len(b))
			}
			_, err = Open(bytes.NewReader(b), int64(len(b)), fuzzOptions)
			checkFuzzError(t, err, -1)
			if want != nil && !errors.Is(err, want) {
				t.Fatalf("Open of prefix %q: got %v, want an error wrapping %v", b[:min(len(b), 8)], err, want)
			}
		}
		// Open reads the prefix and the footer only; bytes before the
		// separator are the data section, which it must not look at. (A
		// version byte changed to 3 makes the footer one of another
		// grammar.)
		if prefixVerdict(file) == nil && len(head) <= sep && file[len(Magic)] == Version {
			if _, err := Open(bytes.NewReader(file), int64(len(file)), fuzzOptions); err != nil {
				t.Fatalf("Open failed on a valid prefix over a valid file: %v", err)
			}
		}
	})
}

// FuzzScanner scans data sections: whole files, truncated files (the
// input of recovery) and slices of the sample.
func FuzzScanner(f *testing.F) {
	for name, b := range seedFiles(f) {
		addSeed(f, name, b)
		addSeed(f, name+"-truncated", b[:len(b)*2/3])
	}
	if b := fuzzSample(); len(b) > 12000 {
		addSeed(f, "sample-head", b[:12000])
	}
	addSeed(f, "separator-only", []byte(Magic+string(Version)+"\x02"))
	addSeed(f, "operation-index-range", append([]byte(Magic+string(Version)+"\x04"), make([]byte, 16)...))
	f.Fuzz(fuzzScan)
}

// FuzzDeviceID decodes DeviceIDs, which the re-serialized form must give
// back segment for segment.
func FuzzDeviceID(f *testing.F) {
	ids := map[string]DeviceID{
		"table":       NewDeviceID("weather", "north", "s01"),
		"tree":        NewDeviceID("root.sg1", "d1"),
		"one":         NewDeviceID("t"),
		"empty-seg":   NewDeviceID(""),
		"null-middle": DeviceIDFromSegments([]Segment{{Value: "t"}, {Null: true}, {Value: "x.y"}}),
		"unicode":     NewDeviceID("表", "\U0001F600", "\uE000"),
	}
	for name, id := range ids {
		addSeed(f, name, appendDeviceID(nil, id))
	}
	addSeed(f, "zero-count", []byte{0})
	addSeed(f, "trailing-null", []byte{2, 2, 't', 1})
	addSeed(f, "all-null", []byte{2, 1, 1})
	if b := fuzzSample(); len(b) > 64 {
		addSeed(f, "sample-chunk-group", b[8:64])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var id DeviceID
		d := fuzzParse(t, b, func(d *buf) { id = d.deviceID(16) })
		if d.err != nil {
			return
		}
		if id.Len() == 0 || id.Compare(id) != 0 {
			t.Fatalf("parsed DeviceID %v is empty or unequal to itself", id)
		}
		_ = id.String() + id.Table()
		var back DeviceID
		fuzzReparse(t, appendDeviceID(nil, id), "DeviceID", func(d *buf) { back = d.deviceID(16) })
		if !back.Equal(id) {
			t.Fatalf("DeviceID %v re-serialized reads back as %v", id.Segments(), back.Segments())
		}
	})
}

// FuzzChunkHeader decodes a chunk header and the page headers after it.
func FuzzChunkHeader(f *testing.F) {
	for _, c := range seedChunks(f) {
		addSeed(f, c.name, c.raw)
	}
	addSeed(f, "time-header", []byte{0x85, 0x00, 0x4a, 0x06, 0x00, 0x04})
	addSeed(f, "value-header", []byte{0x41, 0x02, 's', 0xac, 0x02, 0x01, 0x01, 0x02})
	// The C++ writer's time chunk without its role bit (QuirkNoRoleBits).
	addSeed(f, "time-header-plain", []byte{0x05, 0x00, 0x4a, 0x06, 0x00, 0x04})
	f.Fuzz(func(t *testing.T, b []byte) {
		var h ChunkHeader
		d := fuzzParse(t, b, func(d *buf) { h = d.chunkHeader() })
		if d.err != nil {
			return
		}
		if h.HeaderSize != d.pos || h.DataOffset() != int64(d.pos) {
			t.Fatalf("HeaderSize %d, but the header took %d bytes", h.HeaderSize, d.pos)
		}
		re := appendChunkHeader(nil, &h)
		var back ChunkHeader
		fuzzReparse(t, re, "chunk header", func(d *buf) { back = d.chunkHeader() })
		back.HeaderSize = h.HeaderSize
		if !reflect.DeepEqual(back, h) {
			t.Fatalf("chunk header %+v re-serialized reads back as %+v", h, back)
		}
		// Varints have one shortest form, which the writer uses: as
		// long as the input, it is the input.
		if len(re) == h.HeaderSize && !bytes.Equal(re, b[:h.HeaderSize]) {
			t.Fatalf("chunk header %x re-serialized as %x", b[:h.HeaderSize], re)
		}
		for d.err == nil && d.remaining() > 0 {
			p := d.pageHeader(&h)
			d.bytesN(p.CompressedSize, "page")
		}
		checkFuzzError(t, d.err, len(b))
	})
}

var fuzzChunkMarkers = [...]byte{MarkerChunkHeader, MarkerOnlyOnePageChunkHeader, MarkerValueChunkHeader, MarkerOnlyOnePageValueChunk, MarkerTimeChunkHeader, MarkerOnlyOnePageTimeChunk}

// pageChunkHeader is the chunk header FuzzPageHeader decodes pages of.
func pageChunkHeader(kind, dt uint8) ChunkHeader {
	h := ChunkHeader{Marker: fuzzChunkMarkers[int(kind)%len(fuzzChunkMarkers)], DataType: fuzzValueTypes[int(dt)%len(fuzzValueTypes)]}
	if h.IsTimeChunk() {
		h.DataType = Vector
	}
	return h
}

// FuzzPageHeader decodes the pages of every kind of chunk: single-page
// headers carry no Statistics, multi-page ones carry the chunk type's, and
// only aligned value chunks may have empty pages.
func FuzzPageHeader(f *testing.F) {
	for _, c := range seedChunks(f) {
		kind := uint8(slices.Index(fuzzChunkMarkers[:], c.header.Marker))
		dt := uint8(max(0, slices.Index(fuzzValueTypes, c.header.DataType)))
		addSeed(f, c.name, kind, dt, c.raw[c.header.HeaderSize:])
	}
	addSeed(f, "empty-value-page", uint8(2), uint8(1), []byte{0, 0})
	f.Fuzz(func(t *testing.T, kind, dt uint8, b []byte) {
		h := pageChunkHeader(kind, dt)
		d := newBuf(b, 0, "fuzz")
		for d.err == nil && d.remaining() > 0 {
			start := d.pos
			p := d.pageHeader(&h)
			if d.err != nil {
				break
			}
			consumed := b[start:d.pos]
			if p.HeaderSize != len(consumed) || p.Offset != int64(start) {
				t.Fatalf("page header at %d: HeaderSize %d, took %d bytes", start, p.HeaderSize, len(consumed))
			}
			switch {
			case p.Empty() && !h.IsValueChunk():
				t.Fatalf("empty page accepted in chunk marker 0x%02x", h.Marker)
			case p.Empty() && p.Statistics != nil:
				t.Fatalf("empty page with Statistics")
			case !p.Empty() && (p.Statistics == nil) != h.SinglePage():
				t.Fatalf("chunk marker 0x%02x: page Statistics present = %t", h.Marker, p.Statistics != nil)
			case p.Statistics != nil && p.Statistics.Type != h.DataType:
				t.Fatalf("page Statistics of %s in a %s chunk", p.Statistics.Type, h.DataType)
			}
			re := appendPageHeader(nil, &p)
			var back PageHeader
			fuzzReparse(t, re, "page header", func(d *buf) { back = d.pageHeader(&h) })
			if back.UncompressedSize != p.UncompressedSize || back.CompressedSize != p.CompressedSize || (back.Statistics == nil) != (p.Statistics == nil) {
				t.Fatalf("page header %+v re-serialized reads back as %+v", p, back)
			}
			if p.Statistics != nil {
				_, n1, _ := uvarint32(consumed)
				_, n2, _ := uvarint32(consumed[n1:])
				checkStatisticsRoundTrip(t, p.Statistics, consumed[n1+n2:])
				if len(re) == len(consumed) && canonicalStatistics(p.Statistics, consumed[n1+n2:]) && !bytes.Equal(re, consumed) {
					t.Fatalf("page header %x re-serialized as %x", consumed, re)
				}
			} else if len(re) == len(consumed) && !bytes.Equal(re, consumed) {
				t.Fatalf("page header %x re-serialized as %x", consumed, re)
			}
			d.bytesN(p.CompressedSize, "page payload")
		}
		checkFuzzError(t, d.err, len(b))
	})
}

// canonicalStatistics reports whether consumed, from which s was decoded,
// is the one form AppendTo writes for s. It is not when the count's varint
// is overlong, a string is the null length -1 (read as absent, written as
// empty), or a FLOAT field is a NaN, whose widening to the float64 field
// quiets a signalling NaN.
func canonicalStatistics(s *Statistics, consumed []byte) bool {
	if _, n, _ := uvarint32(consumed); n != len(appendUVarint(nil, uint32(s.Count))) {
		return false
	}
	switch s.Type {
	case Float:
		for _, v := range []float64{s.MinFloat, s.MaxFloat, s.FirstFloat, s.LastFloat} {
			if math.IsNaN(v) {
				return false
			}
		}
	case Text:
		return s.First != nil && s.Last != nil
	case String:
		return s.First != nil && s.Last != nil && s.Min != nil && s.Max != nil
	}
	return true
}

// checkStatisticsRoundTrip requires s, decoded from consumed, to survive AppendTo:
// the bytes parse back to the same Statistics, and they are consumed
// itself when that was in canonical form.
func checkStatisticsRoundTrip(t *testing.T, s *Statistics, consumed []byte) {
	t.Helper()
	re := s.AppendTo(nil)
	var back Statistics
	fuzzReparse(t, re, "statistics", func(d *buf) { back = d.statistics(s.Type) })
	if back.Type != s.Type || back.Count != s.Count || back.StartTime != s.StartTime || back.EndTime != s.EndTime || !bytes.Equal(back.AppendTo(nil), re) {
		t.Fatalf("%s statistics %+v re-serialized read back as %+v", s.Type, *s, back)
	}
	if consumed != nil && canonicalStatistics(s, consumed) && !bytes.Equal(re, consumed) {
		t.Fatalf("%s statistics %x re-serialized as %x", s.Type, consumed, re)
	}
}

// seedStatistics returns the Statistics the writer builds for a few values
// of type t, as a page or chunk carries them.
func seedStatistics(t DataType) Statistics {
	b := newStatsBuilder(t)
	if t == Vector {
		for _, ts := range []int64{-5, 0, 1 << 40} {
			b.time(ts)
		}
		return b.result()
	}
	v := fuzzValues(t, 5, nil)
	for i := 0; i < v.Len(); i++ {
		b.add(int64(1700000000000+i*1000), &v, i)
	}
	return b.result()
}

// FuzzStatistics decodes Statistics of every data type the format has,
// and of bytes that are none.
func FuzzStatistics(f *testing.F) {
	for _, t := range append(slices.Clone(fuzzValueTypes), Vector) {
		s := seedStatistics(t)
		addSeed(f, t.String(), uint8(t), s.AppendTo(nil))
	}
	empty := emptyStats(Int64)
	addSeed(f, "empty-INT64", uint8(Int64), empty.AppendTo(nil))
	nan := Statistics{Type: Float, Count: 1, MinFloat: math.NaN(), MaxFloat: math.Inf(1), FirstFloat: math.Inf(-1), LastFloat: math.Copysign(0, -1)}
	addSeed(f, "nan-FLOAT", uint8(Float), nan.AppendTo(nil))
	nullText := h([]byte{1}, be64(1), be64(1), be32(-1), be32(0))
	addSeed(f, "null-TEXT", uint8(Text), nullText)
	str := seedStatistics(String)
	addSeed(f, "truncated-STRING", uint8(String), str.AppendTo(nil)[:30])
	addSeed(f, "UNKNOWN", uint8(Unknown), h([]byte{3}, be64(1), be64(2)))
	f.Fuzz(func(t *testing.T, dt uint8, b []byte) {
		var s Statistics
		d := fuzzParse(t, b, func(d *buf) { s = d.statistics(DataType(dt)) })
		if d.err != nil {
			return
		}
		if !DataType(dt).Valid() || DataType(dt) == Unknown {
			t.Fatalf("Statistics of data type %d accepted", dt)
		}
		checkStatisticsRoundTrip(t, &s, b[:d.pos])
	})
}

// seedIndexNode is one MetadataIndexNode of a seed file, serialized.
type seedIndexNode struct {
	name     string
	isDevice bool
	b        []byte
}

// seedIndexNodes returns the index roots of the seed files and the nodes
// under them: internal and leaf nodes of both families.
func seedIndexNodes(t testing.TB) []seedIndexNode {
	var out []seedIndexNode
	seen := map[string]bool{}
	add := func(file string, n *IndexNode) {
		key := fmt.Sprintf("%s-%s", file, n.Type)
		if !seen[key] {
			seen[key] = true
			out = append(out, seedIndexNode{key, n.Type.isDevice(), appendIndexNode(nil, n)})
		}
	}
	for _, name := range []string{"table", "tree"} {
		b := seedFiles(t)[name]
		f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
		fuzzMust(t, err)
		var walk func(n *IndexNode)
		walk = func(n *IndexNode) {
			add(name, n)
			if n.Type == LeafMeasurement {
				return
			}
			for _, e := range n.Entries {
				child, err := f.readNode(e, n.Type == InternalDevice)
				fuzzMust(t, err)
				walk(child)
			}
		}
		for _, tb := range f.Tables() {
			walk(f.Metadata.TableIndexes[tb])
		}
	}
	return out
}

// FuzzIndexNode decodes MetadataIndexNodes of the device or the
// measurement family, as the context of a node requires one.
func FuzzIndexNode(f *testing.F) {
	opts := (&ReadOptions{}).withDefaults()
	for _, n := range seedIndexNodes(f) {
		addSeed(f, n.name, n.isDevice, n.b)
	}
	addSeed(f, "two-measurements", false, h([]byte{2, 2, 'a'}, be64(100), []byte{2, 'b'}, be64(150), be64(200), []byte{3}))
	addSeed(f, "no-children", true, h([]byte{0}, be64(10), []byte{1}))
	f.Fuzz(func(t *testing.T, isDevice bool, b []byte) {
		var n IndexNode
		d := fuzzParse(t, b, func(d *buf) { n = d.indexNode(&opts, isDevice) })
		if d.err != nil {
			return
		}
		if len(n.Entries) == 0 || n.Type.isDevice() != isDevice {
			t.Fatalf("accepted a %s node with %d entries where isDevice=%t", n.Type, len(n.Entries), isDevice)
		}
		re := appendIndexNode(nil, &n)
		var back IndexNode
		fuzzReparse(t, re, "index node", func(d *buf) { back = d.indexNode(&opts, isDevice) })
		if back.Type != n.Type || back.EndOffset != n.EndOffset || len(back.Entries) != len(n.Entries) {
			t.Fatalf("index node %+v re-serialized reads back as %+v", n, back)
		}
		for i, e := range n.Entries {
			g := back.Entries[i]
			if !g.Device.Equal(e.Device) || g.Measurement != e.Measurement || g.Offset != e.Offset || g.End != e.End {
				t.Fatalf("index entry %d %+v re-serialized reads back as %+v", i, e, g)
			}
		}
	})
}

// seedSeriesLists returns, per device of the seed files, its
// TimeseriesMetadata serialized back to back as a LEAF_MEASUREMENT range
// holds them.
func seedSeriesLists(t testing.TB) map[string][]byte {
	out := map[string][]byte{}
	for _, name := range []string{"table", "tree", "small"} {
		b := seedFiles(t)[name]
		f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
		fuzzMust(t, err)
		for _, tb := range f.Tables() {
			devs, err := f.Devices(tb)
			fuzzMust(t, err)
			for _, dev := range devs[:min(2, len(devs))] {
				series, err := f.Series(dev)
				fuzzMust(t, err)
				var list []byte
				for i := range series {
					list = appendTimeseriesMetadata(list, &series[i])
				}
				out[name+"-"+dev.String()] = list
			}
		}
	}
	return out
}

// FuzzTimeseriesMetadata decodes runs of TimeseriesMetadata.
func FuzzTimeseriesMetadata(f *testing.F) {
	for name, b := range seedSeriesLists(f) {
		addSeed(f, name, b)
	}
	addSeed(f, "time-column", h([]byte{0x80, 0, 6, 8, 2}, be64(1), be64(2), be64(13)))
	addSeed(f, "time-column-plain", h([]byte{0x00, 0, 6, 8, 2}, be64(1), be64(2), be64(13)))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := newBuf(b, 0, "fuzz")
		for d.err == nil && d.remaining() > 0 {
			start := d.pos
			ts := d.timeseriesMetadata()
			if d.err != nil {
				break
			}
			checkStatisticsRoundTrip(t, &ts.Statistics, nil)
			for i := range ts.Chunks {
				checkStatisticsRoundTrip(t, &ts.Chunks[i].Statistics, nil)
			}
			// An empty chunk list has no serialized form: the writer
			// writes only series that have chunks.
			if len(ts.Chunks) == 0 {
				continue
			}
			var back TimeseriesMetadata
			fuzzReparse(t, appendTimeseriesMetadata(nil, &ts), "timeseries metadata", func(d *buf) { back = d.timeseriesMetadata() })
			if back.Type&^markerLowBits != ts.Type&^markerLowBits || back.Measurement != ts.Measurement || back.DataType != ts.DataType ||
				!bytes.Equal(back.Statistics.AppendTo(nil), ts.Statistics.AppendTo(nil)) || len(back.Chunks) != len(ts.Chunks) {
				t.Fatalf("timeseries metadata at %d %+v re-serialized reads back as %+v", start, ts, back)
			}
			for i, c := range ts.Chunks {
				g := back.Chunks[i]
				// One chunk is written in the layout without chunk
				// Statistics, where the series Statistics stand in.
				if g.Offset != c.Offset || (len(ts.Chunks) > 1 && !bytes.Equal(g.Statistics.AppendTo(nil), c.Statistics.AppendTo(nil))) {
					t.Fatalf("chunk metadata %d %+v re-serialized reads back as %+v", i, c, g)
				}
			}
		}
		checkFuzzError(t, d.err, len(b))
	})
}

// fuzzFooter returns the TsFileMetadata bytes of a complete file.
func fuzzFooter(b []byte) []byte {
	l := int(b[len(b)-10])<<24 | int(b[len(b)-9])<<16 | int(b[len(b)-8])<<8 | int(b[len(b)-7])
	return b[len(b)-10-l : len(b)-10]
}

// FuzzFileMetadata decodes TsFileMetadata footers.
func FuzzFileMetadata(f *testing.F) {
	opts := (&ReadOptions{}).withDefaults()
	for name, b := range seedFiles(f) {
		addSeed(f, name, fuzzFooter(b))
	}
	var out bytes.Buffer
	w, err := NewWriter(&out, &WriteOptions{NoBloomFilter: true, NoEncryptionProperties: true})
	fuzzMust(f, err)
	fuzzMust(f, w.WriteNonAligned(NewDeviceID("root.x"), []NonAlignedSeries{{SeriesSchema: SeriesSchema{Name: "s", DataType: Int32}, Times: []int64{1}, Values: fuzzValues(Int32, 1, nil)}}))
	fuzzMust(f, w.Close())
	addSeed(f, "no-bloom-no-properties", fuzzFooter(out.Bytes()))
	f.Fuzz(func(t *testing.T, b []byte) {
		var m *FileMetadata
		d := fuzzParse(t, b, func(d *buf) { m = d.fileMetadata(&opts) })
		if d.err != nil {
			return
		}
		if len(m.TableNames) != len(m.TableIndexes) {
			t.Fatalf("%d table names for %d index roots", len(m.TableNames), len(m.TableIndexes))
		}
		re := appendFileMetadata(nil, m)
		var back *FileMetadata
		fuzzReparse(t, re, "TsFileMetadata", func(d *buf) { back = d.fileMetadata(&opts) })
		if again := appendFileMetadata(nil, back); !bytes.Equal(again, re) {
			t.Fatalf("TsFileMetadata serializes as\n%x\nthen, read back, as\n%x", re, again)
		}
	})
}

// FuzzBloomFilter decodes Bloom filters. One that parses must answer
// queries, give itself back when re-serialized (less the zero bytes at its
// end, which the format drops) and never deny a path added to it.
func FuzzBloomFilter(f *testing.F) {
	for name, b := range seedFiles(f) {
		g, err := Open(bytes.NewReader(b), int64(len(b)), nil)
		fuzzMust(f, err)
		addSeed(f, name, g.Metadata.Bloom.appendTo(nil))
	}
	big := newBloomFilter(500, 0.01)
	for i := 0; i < 500; i++ {
		big.Add(fmt.Sprintf("root.sg.d%d.s%d", i%7, i))
	}
	addSeed(f, "500-paths", big.appendTo(nil))
	addSeed(f, "none", []byte{0})
	addSeed(f, "one-byte", []byte{1, 0x81, 0x80, 0x02, 0x03})
	addSeed(f, "nine-hashes", []byte{1, 0xff, 0x08, 0x09})
	f.Fuzz(func(t *testing.T, b []byte) {
		var bf *BloomFilter
		d := fuzzParse(t, b, func(d *buf) { bf = d.bloomFilter() })
		if d.err != nil || bf == nil {
			return
		}
		paths := []string{"", "root.sg.d1.s1", "t.a.v", "é\xff", string(b)}
		for _, p := range paths {
			bf.MayContain(p)
		}
		re := bf.appendTo(nil)
		var back *BloomFilter
		fuzzReparse(t, re, "Bloom filter", func(d *buf) { back = d.bloomFilter() })
		trimmed := bytes.TrimRight(bf.bits, "\x00")
		switch {
		case len(trimmed) == 0 && back != nil:
			t.Fatalf("an all-zero filter re-serialized reads back as %+v", back)
		case len(trimmed) > 0 && (back == nil || back.BitCount != bf.BitCount || back.HashCount != bf.HashCount || !bytes.Equal(back.bits, trimmed)):
			t.Fatalf("Bloom filter %+v re-serialized reads back as %+v", bf, back)
		}
		if back != nil {
			for _, p := range paths {
				if back.MayContain(p) != bf.MayContain(p) {
					t.Fatalf("re-serialized filter answers %q differently", p)
				}
			}
			if bf.bits[len(bf.bits)-1] != 0 && len(re) == d.pos && !bytes.Equal(re, b[:d.pos]) {
				t.Fatalf("Bloom filter %x re-serialized as %x", b[:d.pos], re)
			}
		}
		if bf.BitCount <= 1<<20 {
			c := &BloomFilter{bits: slices.Clone(bf.bits), BitCount: bf.BitCount, HashCount: bf.HashCount}
			for _, p := range paths {
				c.Add(p)
				if !c.MayContain(p) {
					t.Fatalf("filter denies %q right after adding it", p)
				}
			}
		}
	})
}

// TestBloomFilterAddAfterRead: the format drops a filter's zero bytes at
// the end, so a filter read from a file can be shorter than its bit count
// says; Add must grow it rather than index past it (FuzzBloomFilter's
// one-byte seed).
func TestBloomFilterAddAfterRead(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"one byte of 256 bits", []byte{1, 0x81, 0x80, 0x02, 0x03}},
		{"written by the writer", newBloomFilter(3, 0.05).appendTo(nil)},
		{"last byte set", append(append([]byte{32}, make([]byte, 31)...), 0x80, 0x80, 0x02, 0x05)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := newBuf(tc.b, 0, "Bloom filter")
			bf := d.bloomFilter()
			if d.err != nil {
				t.Fatal(d.err)
			}
			if bf == nil {
				bf = newBloomFilter(0, 0.05)
			}
			for _, p := range []string{"root.sg.d1.s1", "t.a.v", ""} {
				bf.Add(p)
				if !bf.MayContain(p) {
					t.Fatalf("%q absent right after Add", p)
				}
			}
		})
	}
}

// FuzzV3DevicePath decodes TsFile v3 device paths (a VarString) and splits
// arbitrary strings as tree paths: the split never fails or loses the
// path, and a parsed device re-serializes to itself.
func FuzzV3DevicePath(f *testing.F) {
	for name, p := range map[string]string{
		"plain": "root.sg.d1", "deep": "root.a.b.c.d", "one": "root", "quoted": "root.sg.`d.1`",
		"redundant-quotes": "root.sg.`d1`", "number": "root.sg.`1e5`", "escaped": "root.sg.`a``b`.c",
		"blanks": "root. sg .d1", "unicode": "root.表.\U0001F600", "unterminated": "root.`a.b",
	} {
		addSeed(f, name, appendVarString(nil, p))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		id := ParseTreePath(string(b))
		if id.Len() == 0 || id.TreePath() != string(b) {
			t.Fatalf("ParseTreePath(%q) = %q, path %q", b, segmentValues(id), id.TreePath())
		}
		var got DeviceID
		d := fuzzParse(t, b, func(d *buf) { got = d.v3DeviceID(16) })
		if d.err != nil {
			return
		}
		if got.Len() == 0 || got.Len() > 16 || got.TreePath() == "" {
			t.Fatalf("accepted v3 device %q with %d segments", got.TreePath(), got.Len())
		}
		var back DeviceID
		fuzzReparse(t, appendV3Device(nil, got), "v3 device path", func(d *buf) { back = d.v3DeviceID(16) })
		if !back.Equal(got) || back.TreePath() != got.TreePath() {
			t.Fatalf("v3 device %q re-serialized reads back as %q", got.TreePath(), back.TreePath())
		}
	})
}

// FuzzV3FileMetadata decodes TsFile v3 footers: the single device index
// root (v3 device keys in path order), meta_offset and the optional v3
// Bloom filter. What parses re-serializes to a footer that parses the
// same.
func FuzzV3FileMetadata(f *testing.F) {
	opts := (&ReadOptions{}).withDefaults()
	for name, b := range seedFiles(f) {
		if b[len(Magic)] == VersionV3 {
			addSeed(f, name, fuzzFooter(b))
		}
	}
	for name, o := range map[string]*WriteOptions{"empty": {Version: VersionV3}, "empty-no-bloom": {Version: VersionV3, NoBloomFilter: true}} {
		var out bytes.Buffer
		w, err := NewWriter(&out, o)
		fuzzMust(f, err)
		fuzzMust(f, w.Close())
		addSeed(f, name, fuzzFooter(out.Bytes()))
	}
	parse := func(d *buf) *FileMetadata {
		d.v3 = true
		return d.fileMetadataV3(&opts)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m *FileMetadata
		d := fuzzParse(t, b, func(d *buf) { m = parse(d) })
		if d.err != nil {
			return
		}
		for _, e := range m.V3Root.Entries {
			e.Device.TreePath()
		}
		if m.Bloom != nil {
			m.Bloom.MayContain("root.sg.d1.s1")
		}
		re := appendFileMetadataV3(nil, m)
		var back *FileMetadata
		d2 := newBuf(re, 0, "re-serialized v3 TsFileMetadata")
		back = parse(d2)
		if d2.err != nil {
			t.Fatalf("re-serialized v3 TsFileMetadata does not parse: %v\n%x", d2.err, re)
		}
		// The footer may end early, without the Bloom filter: compare
		// what was parsed.
		if again := appendFileMetadataV3(nil, back); !bytes.Equal(again, re) {
			t.Fatalf("v3 TsFileMetadata serializes as\n%x\nthen, read back, as\n%x", re, again)
		}
	})
}
