package arrowconv

import (
	"bytes"
	"io/fs"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
	"github.com/tsarrow/tsarrow/internal/quirklayout"
	"github.com/tsarrow/tsarrow/internal/testkit"
	"github.com/tsarrow/tsarrow/tsfile"
)

// cppPage is the page_max_point_count of the C++-layout test files.
const cppPage = 10

// writeCPPFile writes a table of two devices, two chunk groups each, with
// the layouts of the C++ writer's quirks q (internal/quirklayout).
// Column "sparse" has nulls in runs, so that its value pages sealed by
// their non-null count (QuirkValuePageRows) cover other rows than the time
// pages; column "full" of device d1's second group has exactly cppPage
// values, the chunk QuirkLostFullPage loses in the C++ page layout (and
// with rows2 of cppPage, every second group's time chunk).
func writeCPPFile(t *testing.T, q tsfile.WriterQuirk, timeEnc encoding.Encoding, rows2 ...int) []byte {
	t.Helper()
	var out bytes.Buffer
	o := &tsfile.WriteOptions{MaxPointsPerPage: cppPage, ConfiguredTimeEncoding: true, TimeEncoding: tsfile.TimeEncodingOf(timeEnc)}
	quirklayout.Set(o, uint32(q))
	w, err := tsfile.NewWriter(&out, o)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "id", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "full", DataType: tsfile.Int64, Category: tsfile.Field},
		{Name: "sparse", DataType: tsfile.Int32, Category: tsfile.Field},
		{Name: "text", DataType: tsfile.Text, Category: tsfile.Field},
	}}))
	t0 := int64(1000)
	for _, dev := range []string{"d0", "d1"} {
		second := cppPage + 2
		if len(rows2) > 0 {
			second = rows2[0]
		}
		for g, rows := range []int{37, second} {
			times := make([]int64, rows)
			full := tsfile.NewValues(tsfile.Int64, rows)
			full.Null = make([]bool, rows)
			sparse := tsfile.NewValues(tsfile.Int32, rows)
			text := tsfile.NewValues(tsfile.Text, rows)
			sparse.Null, text.Null = make([]bool, rows), make([]bool, rows)
			for i := range rows {
				t0 += int64(1 + i%3)
				times[i] = t0
				full.Int64s[i] = int64(i*7 - 50)
				full.Null[i] = g == 1 && i >= cppPage // cppPage values, in one C++ page
				sparse.Int32s[i] = int32(i - 20)
				sparse.Null[i] = (i/4)%3 == 1 || i >= rows-3 // trailing nulls: no page in C++
				text.Binaries[i] = []byte(strings.Repeat("x", i%5))
				text.Null[i] = i%2 == 0 || g == 1
			}
			cols := []tsfile.AlignedColumn{
				{SeriesSchema: tsfile.SeriesSchema{Name: "full", DataType: tsfile.Int64, Encoding: encoding.TS2Diff, Compression: tsfile.Compression(1)}, Values: full},
				{SeriesSchema: tsfile.SeriesSchema{Name: "sparse", DataType: tsfile.Int32, Encoding: encoding.Plain}, Values: sparse},
				{SeriesSchema: tsfile.SeriesSchema{Name: "text", DataType: tsfile.Text, Encoding: encoding.Plain}, Values: text},
			}
			if dev == "d0" && g == 1 {
				cols = cols[1:] // full is absent here, so d0 loses no page
			}
			require.NoError(t, w.WriteAligned(tsfile.NewDeviceID("t", dev), times, cols))
		}
	}
	require.NoError(t, w.Close())
	return out.Bytes()
}

func readCPP(t *testing.T, b []byte, lenient bool, opts *Options) (*table, *tsfile.File, error) {
	t.Helper()
	f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), &tsfile.ReadOptions{Lenient: lenient})
	require.NoError(t, err)
	r, err := NewTableReader(f, "t", opts)
	if err != nil {
		return nil, f, err
	}
	defer r.Release()
	out := &table{}
	for r.Next() {
		rec := r.RecordBatch()
		out.rows = appendRows(out.rows, rec)
	}
	return out, f, r.Err()
}

// quirkWarnings counts the warnings that name a writer quirk.
func quirkWarnings(f *tsfile.File) int {
	n := 0
	for _, w := range f.Warnings() {
		if strings.Contains(w.Msg, "writer quirk of") {
			n++
		}
	}
	return n
}

// TestCPPQuirks reads files with each structural quirk of the C++ writer
// alone and all together, and checks that they give the rows of the same
// data written conformantly, with one warning per quirk, detected from the
// bytes where they are unambiguous and under Lenient where not.
func TestCPPQuirks(t *testing.T) {
	const cpp = tsfile.QuirkTimePageLength | tsfile.QuirkNoRoleBits | tsfile.QuirkValuePageRows
	for _, tc := range []struct {
		name    string
		q       tsfile.WriterQuirk
		timeEnc encoding.Encoding
		lenient bool // needed to read it
	}{
		{"time-length-ts2diff", tsfile.QuirkTimePageLength, encoding.TS2Diff, false},
		{"time-length-plain", tsfile.QuirkTimePageLength, encoding.Plain, false},
		{"no-role-bits", tsfile.QuirkNoRoleBits, encoding.TS2Diff, false},
		{"value-page-rows", tsfile.QuirkValuePageRows, encoding.TS2Diff, true},
		{"value-page-rows-with-roles", tsfile.QuirkValuePageRows | tsfile.QuirkNoRoleBits, encoding.TS2Diff, false},
		{"cpp-file", cpp, encoding.TS2Diff, false},
		{"cpp-file-plain", cpp, encoding.Plain, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wf, err := readCPP(t, writeCPPFile(t, 0, tc.timeEnc), false, nil)
			require.NoError(t, err)
			require.Zero(t, wf.Quirks(), "conformant file read with a quirk")
			require.Empty(t, wf.Warnings())
			b := writeCPPFile(t, tc.q, tc.timeEnc)
			if tc.lenient {
				_, _, err := readCPP(t, b, false, nil)
				require.ErrorIs(t, err, tsfile.ErrCorrupt, "a strict read of an ambiguous quirk")
			}
			for _, workers := range []int{1, 2} {
				for _, opts := range []*Options{{Workers: workers}, {Workers: workers, BatchSize: 7}, {Workers: workers, Time: &TimeRange{1030, 1060}}} {
					got, f, err := readCPP(t, b, tc.lenient, opts)
					require.NoError(t, err)
					w, _, err := readCPP(t, writeCPPFile(t, 0, tc.timeEnc), false, opts)
					require.NoError(t, err)
					require.Equal(t, w.rows, got.rows)
					require.Equal(t, tc.q, f.Quirks())
					require.Equal(t, bits.OnesCount32(uint32(tc.q)), quirkWarnings(f), "%v", f.Warnings())
				}
			}
			require.NotEmpty(t, want.rows)
			// The tsfile reference path reads them alike.
			f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), &tsfile.ReadOptions{Lenient: tc.lenient})
			require.NoError(t, err)
			dev := tsfile.NewDeviceID("t", "d0")
			series, err := f.Series(dev)
			require.NoError(t, err)
			cols, err := f.ReadAligned(series)
			require.NoError(t, err)
			require.Len(t, cols.Times, 37+cppPage+2)
			require.Equal(t, tc.q, f.Quirks())
			cb := writeCPPFile(t, 0, tc.timeEnc)
			cf := openBytes(t, cb)
			cseries, err := cf.Series(dev)
			require.NoError(t, err)
			wantCols, err := cf.ReadAligned(cseries)
			require.NoError(t, err)
			require.Equal(t, wantCols, cols)
			require.Zero(t, cf.Quirks())
		})
	}
}

// TestCPPLostFullPage checks the chunks that lost their page: a clear
// error naming the writer and --lenient, and under Lenient a value column
// null for its chunk's rows (a time chunk's rows skipped), the rest of the
// file kept, with warnings.
func TestCPPLostFullPage(t *testing.T) {
	all := tsfile.QuirkLostFullPage | tsfile.QuirkNoRoleBits | tsfile.QuirkTimePageLength | tsfile.QuirkValuePageRows
	for _, tc := range []struct {
		name     string
		q        tsfile.WriterQuirk
		rows2    int
		lostRows int // rows skipped with lost time chunks
		nulled   int // cells nulled by lost value chunks
	}{
		{"time-chunk", tsfile.QuirkLostFullPage, cppPage, 2 * cppPage, 0},
		{"value-chunk", all, cppPage + 2, 0, cppPage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := writeCPPFile(t, tc.q, encoding.TS2Diff, tc.rows2)
			_, _, err := readCPP(t, b, false, nil)
			require.ErrorIs(t, err, tsfile.ErrLostFullPage)
			require.ErrorIs(t, err, tsfile.ErrCorrupt)
			require.Contains(t, err.Error(), "--lenient")
			want, _, err := readCPP(t, writeCPPFile(t, 0, encoding.TS2Diff, tc.rows2), false, nil)
			require.NoError(t, err)
			for _, workers := range []int{1, 2} {
				got, f, err := readCPP(t, b, true, &Options{Workers: workers})
				require.NoError(t, err)
				require.Len(t, got.rows, len(want.rows)-tc.lostRows)
				// got is want with rows left out and cells nulled.
				nulled, k := 0, 0
				for _, row := range got.rows {
					for k < len(want.rows) && want.rows[k][0] != row[0] {
						k++
					}
					require.Less(t, k, len(want.rows), "row %v is not in the conformant read", row)
					for c := range row {
						if row[c] != want.rows[k][c] {
							require.Equal(t, nullCell, row[c])
							nulled++
						}
					}
					k++
				}
				require.Equal(t, tc.nulled, nulled)
				require.NotZero(t, f.Quirks()&tsfile.QuirkLostFullPage)
				require.Equal(t, tc.q&^tsfile.QuirkLostFullPage, f.Quirks()&^tsfile.QuirkLostFullPage)
			}
		})
	}
}

// TestCPPQuirksNoFalsePositive reads every conformant file at hand, by
// every table, with and without Lenient, and requires that none is read
// with a writer quirk: the upstream Java corpus, the bundled sample, the
// IoTDB data directory and our writer's outputs.
func TestCPPQuirksNoFalsePositive(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(testkit.InteropDir, "*.tsfile"))
	require.NoError(t, err)
	if len(paths) == 0 {
		t.Log("interop corpus not available")
	}
	paths = append(paths, "../testdata/sample.tsfile")
	require.NoError(t, filepath.WalkDir("../testdata/iotdb", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".tsfile") {
			paths = append(paths, p)
		}
		return err
	}))
	type file struct {
		name string
		b    []byte
	}
	var files []file
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		files = append(files, file{p, b})
	}
	for _, enc := range []encoding.Encoding{encoding.TS2Diff, encoding.Plain} {
		files = append(files, file{"ours-" + enc.String(), writeCPPFile(t, 0, enc)}, file{"ours-10-" + enc.String(), writeCPPFile(t, 0, enc, cppPage)})
	}
	require.Greater(t, len(files), 6)
	for _, fl := range files {
		for _, lenient := range []bool{false, true} {
			f, err := tsfile.Open(bytes.NewReader(fl.b), int64(len(fl.b)), &tsfile.ReadOptions{Lenient: lenient})
			require.NoError(t, err, fl.name)
			rows := 0
			for _, table := range f.Tables() {
				open := NewTreeReader
				if _, ok := f.SchemaOf(table); ok {
					open = NewTableReader
				}
				r, err := open(f, table, nil)
				require.NoError(t, err, fl.name)
				for r.Next() {
					rows += int(r.RecordBatch().NumRows())
				}
				require.NoError(t, r.Err(), fl.name)
				r.Release()
			}
			require.NotZero(t, rows, fl.name)
			require.Zero(t, f.Quirks(), "%s lenient=%v: %v", fl.name, lenient, f.Warnings())
			require.Zero(t, quirkWarnings(f), fl.name)
		}
	}
}

// TestCPPWrittenFiles reads the files of ../testdata/cpp-aligned, written
// by the C++ writer itself (see its README), and requires the values its
// generator wrote, with the quirks noted.
func TestCPPWrittenFiles(t *testing.T) {
	for _, tc := range []struct {
		file  string
		bNull func(r int) bool
	}{
		{"aligned.tsfile", func(r int) bool { return r%3 == 1 }},
		{"lost.tsfile", func(r int) bool { return true }}, // its chunk is skipped
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile("../testdata/cpp-aligned/" + tc.file)
			require.NoError(t, err)
			read := func(lenient bool, opts *Options) (*table, *tsfile.File, error) {
				f, err := tsfile.Open(bytes.NewReader(b), int64(len(b)), &tsfile.ReadOptions{Lenient: lenient})
				require.NoError(t, err)
				r, err := NewTreeReader(f, "root.sg", opts)
				require.NoError(t, err)
				defer r.Release()
				out := &table{}
				for r.Next() {
					rec := r.RecordBatch()
					out.header = fieldNames(rec.Schema())
					out.rows = appendRows(out.rows, rec)
				}
				return out, f, r.Err()
			}
			lost := tc.file == "lost.tsfile"
			if lost {
				_, _, err := read(false, nil)
				require.ErrorIs(t, err, tsfile.ErrLostFullPage)
			}
			for _, workers := range []int{1, 2} {
				got, f, err := read(lost, &Options{Workers: workers, BatchSize: 4})
				require.NoError(t, err)
				require.Len(t, got.rows, 23)
				ia, ib, ic := slices.Index(got.header, "a"), slices.Index(got.header, "b"), slices.Index(got.header, "c")
				for r, row := range got.rows {
					require.Equal(t, strconv.FormatInt(int64(r*3+1), 10), row[ia], "a row %d", r)
					wantB := nullCell
					if !tc.bNull(r) {
						wantB = strconv.FormatInt(int64(100+r), 10)
					}
					require.Equal(t, wantB, row[ib], "b row %d", r)
					wantC := nullCell
					if r%4 != 0 {
						wantC = canonFloat64(0.5 * float64(r))
					}
					require.Equal(t, wantC, row[ic], "c row %d", r)
				}
				want := tsfile.QuirkNoRoleBits | tsfile.QuirkTimePageLength | tsfile.QuirkValuePageRows
				if lost {
					want |= tsfile.QuirkLostFullPage
				}
				require.Equal(t, want, f.Quirks())
				require.Equal(t, bits.OnesCount32(uint32(want)), quirkWarnings(f))
			}
		})
	}
}
