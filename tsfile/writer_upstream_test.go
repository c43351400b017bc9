package tsfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/encoding"
)

// The writer's option matrix, checked against the upstream Java reader.
//
// upstreamMatrix lists files of our writer: every value type x every
// encoding the writer accepts for it x every compression, in each layout
// (aligned tree, non-aligned tree, table; tree files in v4 and v3), with
// multi-page and one-row chunks, nulls, extremes, NaN, infinities, -0.0 and
// subnormals (where the encoding keeps them). The upstream reader's rows for
// each were recorded in testdata/upstream-matrix.txt by running this test
// with TSFILE_UPSTREAM_DUMP naming a script that prints a file's rows in the
// interop CSV format (the corpus tooling's check-ours.sh around upstream's
// TsFileReader, apache/tsfile java 2.1.0-SNAPSHOT 69ff73d7) and -update-upstream.
//
// Without Java, TestWriterMatrixMatchesUpstream regenerates every file and
// requires (1) the same bytes as were validated, so that any change to what
// the writer writes fails until it is validated again, and (2) that this
// package's reader returns the rows the upstream reader returned for those
// bytes. Files upstream cannot read are recorded with its error; the
// encodings and the type newer than that upstream build (CAMEL, the TsFile
// 2.3 integer encodings, OBJECT) are in files of their own, which that
// build refuses ("Invalid input: 12", an encoding code it does not know);
// their bytes and this reader's rows are pinned all the same, and
// TestWriterPagesMatchJavaCheckedVectors ties the writer's SEPARATE_STORAGE
// and LAMINAR pages to streams the newer upstream decoders were seen to read.
var updateUpstream = flag.Bool("update-upstream", false, "rewrite testdata/upstream-matrix.txt from the reader named by TSFILE_UPSTREAM_DUMP")

const upstreamMatrixFile = "testdata/upstream-matrix.txt"

// matrixCase is one file of the matrix.
type matrixCase struct {
	name    string
	layout  string // "aligned", "nonaligned" or "table"
	version byte
	comp    Compression
	cols    []SeriesSchema

	// What the writer refuses (ErrUnsupportedOption), written with its
	// checks lifted to record how upstream misreads it.
	timeEnc TimeEncoding // a time encoding other than TS_2DIFF
	nan     bool         // NaN in the float columns of d1, at rows 2 and 9
	refused bool
}

// newerThanOracle reports whether the upstream build that validated the
// matrix predates e or t.
func newerThanOracle(t DataType, e Encoding) bool {
	switch e {
	case encoding.Camel, encoding.DescendingBitPacking, encoding.SeparateStorage, encoding.Laminar:
		return true
	}
	return t == Object
}

func upstreamMatrix() []matrixCase {
	var classic, newer []SeriesSchema
	for _, dt := range allValueTypes {
		for _, e := range allEncodings {
			if !encodingAllowed(dt, e) {
				continue
			}
			// Lower case: upstream's table model lowers every name (see
			// TestWriterTableNamesLowerCase).
			s := SeriesSchema{Name: strings.ToLower(dt.String() + "_" + e.String()), DataType: dt, Encoding: e}
			if newerThanOracle(dt, e) {
				newer = append(newer, s)
			} else {
				classic = append(classic, s)
			}
		}
	}
	with := func(cols []SeriesSchema, c Compression) []SeriesSchema {
		out := slices.Clone(cols)
		for i := range out {
			out[i].Compression = c
		}
		return out
	}
	var cases []matrixCase
	for _, layout := range []string{"aligned", "nonaligned", "table"} {
		for _, c := range allCompressions {
			cases = append(cases, matrixCase{name: fmt.Sprintf("v4_%s_%s", layout, c), layout: layout, version: Version, comp: c, cols: with(classic, c)})
		}
		cases = append(cases, matrixCase{name: fmt.Sprintf("v4_%s_newer_LZ4", layout), layout: layout, version: Version, comp: encoding.LZ4, cols: with(newer, encoding.LZ4)})
	}
	for _, layout := range []string{"aligned", "nonaligned"} {
		for _, c := range []Compression{encoding.Uncompressed, encoding.Snappy, encoding.Gzip, encoding.LZ4} {
			cases = append(cases, matrixCase{name: fmt.Sprintf("v3_%s_%s", layout, c), layout: layout, version: VersionV3, comp: c, cols: with(classic, c)})
		}
	}
	v1 := []SeriesSchema{{Name: "d_gorilla_v1", DataType: Double, Encoding: encoding.GorillaV1}, {Name: "f_gorilla_v1", DataType: Float, Encoding: encoding.GorillaV1}}
	i64 := []SeriesSchema{{Name: "v", DataType: Int64, Encoding: encoding.Plain}}
	for _, layout := range []string{"aligned", "nonaligned"} {
		cases = append(cases,
			matrixCase{name: "refused_gorilla_v1_nan_" + layout, layout: layout, version: Version, cols: v1, nan: true, refused: true},
			matrixCase{name: "refused_time_plain_" + layout, layout: layout, version: Version, cols: i64, timeEnc: TimeEncodingOf(encoding.Plain), refused: true},
			matrixCase{name: "refused_time_gorilla_" + layout, layout: layout, version: Version, cols: i64, timeEnc: TimeEncodingOf(encoding.Gorilla), refused: true})
	}
	cases = append(cases, matrixCase{name: "refused_upper_case_column_table", layout: "table", version: Version, cols: []SeriesSchema{{Name: "Temp", DataType: Double, Encoding: encoding.Gorilla}}, refused: true})
	return cases
}

// matrixDevices are the devices of a case: d1 with 40 rows (pages of 16,
// 16 and 8), d2 with one.
func matrixDevices(layout string) []DeviceID {
	if layout == "table" {
		return []DeviceID{NewDeviceID("t", "d1"), NewDeviceID("t", "d2")}
	}
	return []DeviceID{NewDeviceID("root.sg", "d1"), NewDeviceID("root.sg", "d2")}
}

// matrixSeed makes each column's values depend on its name and device only.
func matrixSeed(parts ...string) *rand.Rand {
	h := fnv.New64a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return rand.New(rand.NewPCG(h.Sum64(), 35))
}

// matrixValues makes n values of s with nulls at the rows null marks.
func matrixValues(r *rand.Rand, s SeriesSchema, n int, null []bool) Values {
	v := NewValues(s.DataType, n)
	if null != nil {
		v.Null = null
	}
	lossyPair := lossy(s.DataType, s.Encoding)
	floats := []float64{math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, 5e-324, math.MaxFloat64, -math.MaxFloat64, 1.5, math.SmallestNonzeroFloat64 * 3}
	floats32 := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Copysign(0, -1)), 0, math.SmallestNonzeroFloat32, math.MaxFloat32, -math.MaxFloat32, 1.5}
	ints := []int64{math.MinInt64, math.MaxInt64, 0, -1, 1, math.MinInt32, math.MaxInt32}
	for i := range n {
		k := r.IntN(10)
		switch s.DataType {
		case Boolean:
			v.Bools[i] = r.IntN(2) == 1
		case Int32:
			switch {
			case k < 2:
				v.Int32s[i] = int32(ints[r.IntN(len(ints))])
			case k < 6:
				v.Int32s[i] = int32(1000 + i*3 + r.IntN(5))
			default:
				v.Int32s[i] = int32(r.Uint32())
			}
		case Int64, Timestamp:
			switch {
			case k < 2:
				v.Int64s[i] = ints[r.IntN(len(ints))]
			case k < 6:
				v.Int64s[i] = 1_700_000_000_000 + int64(i)*1000 + int64(r.IntN(7))
			default:
				v.Int64s[i] = int64(r.Uint64())
			}
		case Date:
			y, m, d := 1970+r.IntN(130), 1+r.IntN(12), 1+r.IntN(28)
			v.Int32s[i] = int32(y*10000 + m*100 + d)
		case Float:
			switch {
			case lossyPair:
				v.Float32s[i] = float32(r.IntN(2_000_000)-1_000_000) / 100
			case k < 3:
				v.Float32s[i] = floats32[r.IntN(len(floats32))]
			case k < 4 && s.Encoding != encoding.GorillaV1:
				v.Float32s[i] = float32(math.NaN())
			case k < 7:
				v.Float32s[i] = float32(20 + float64(r.IntN(1000))/10)
			default:
				v.Float32s[i] = math.Float32frombits(r.Uint32() &^ (1 << 30)) // finite
			}
		case Double:
			switch {
			case lossyPair:
				v.Float64s[i] = float64(r.IntN(2_000_000)-1_000_000) / 100
			case k < 3:
				v.Float64s[i] = floats[r.IntN(len(floats))]
			case k < 4 && s.Encoding != encoding.GorillaV1:
				v.Float64s[i] = math.NaN()
			case k < 7:
				v.Float64s[i] = 20 + float64(r.IntN(1000))/10
			default:
				v.Float64s[i] = math.Float64frombits(r.Uint64() &^ (1 << 62)) // finite
			}
		case Text, String:
			// The interop CSV quotes nothing: letters and digits only, never empty.
			const abc = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
			b := make([]byte, 1+r.IntN(12))
			for j := range b {
				b[j] = abc[r.IntN(len(abc))]
			}
			if k < 4 {
				b = []byte(fmt.Sprintf("v%d", r.IntN(4))) // repeats, for DICTIONARY
			}
			v.Binaries[i] = b
		default:
			b := make([]byte, r.IntN(9))
			for j := range b {
				b[j] = byte(r.Uint32())
			}
			v.Binaries[i] = b
		}
	}
	return v
}

// writeMatrixCase writes the file of c, with the writer's refusals lifted
// for a refused case.
// It returns the file and its canonical rows as written (see ourMatrixRows).
func writeMatrixCase(t testing.TB, c matrixCase) ([]byte, []string) {
	t.Helper()
	b, want, err := tryMatrixCase(t, c, c.refused)
	require.NoError(t, err)
	return b, want
}

// tryMatrixCase writes the file of c, unchecked or not.
func tryMatrixCase(t testing.TB, c matrixCase, unchecked bool) ([]byte, []string, error) {
	t.Helper()
	want := map[string]map[string]string{}
	note := func(dev DeviceID, times []int64, name string, v *Values) {
		for i, tm := range times {
			d := dev.String()
			if c.layout == "table" {
				d = ""
			}
			k := d + "|" + strconv.FormatInt(tm, 10)
			r := want[k]
			if r == nil {
				r = map[string]string{}
				if c.layout == "table" {
					r["tag"] = dev.Segments()[1].Value
				}
				want[k] = r
			}
			if !v.IsNull(i) {
				r[name] = ourCell(v, i)
			}
		}
	}
	var out bytes.Buffer
	o := &WriteOptions{MaxPointsPerPage: 16, Version: c.version, unchecked: unchecked}
	o.TimeEncoding = c.timeEnc
	w, err := NewWriter(&out, o)
	if err != nil {
		return nil, nil, err
	}
	if c.layout == "table" {
		ts := TableSchema{Name: "t", Columns: []Column{{Name: "tag", DataType: String, Category: Tag}}}
		for _, s := range c.cols {
			ts.Columns = append(ts.Columns, Column{Name: s.Name, DataType: s.DataType, Encoding: s.Encoding, Compression: s.Compression, Category: Field})
		}
		if err := w.RegisterTable(ts); err != nil {
			return nil, nil, err
		}
	}
	for k, dev := range matrixDevices(c.layout) {
		n := 40
		if k == 1 {
			n = 1
		}
		tr := matrixSeed("times", dev.String())
		times := make([]int64, n)
		tm := int64(1_700_000_000_000)
		for i := range times {
			tm += 1 + int64(tr.IntN(1000))
			times[i] = tm
		}
		var cols []AlignedColumn
		var series []NonAlignedSeries
		for _, s := range c.cols {
			r := matrixSeed(s.Name, dev.String())
			var null []bool
			if n > 1 {
				null = make([]bool, n)
				for i := range null {
					null[i] = i > 0 && r.IntN(7) == 0 // row 0 always has a value
				}
			}
			v := matrixValues(r, s, n, null)
			if c.nan && n > 1 {
				for _, i := range []int{2, 9} {
					null[i] = false
					if s.DataType == Float {
						v.Float32s[i] = float32(math.NaN())
					} else {
						v.Float64s[i] = math.NaN()
					}
				}
			}
			if c.layout != "nonaligned" {
				cols = append(cols, AlignedColumn{SeriesSchema: s, Values: v})
				note(dev, times, s.Name, &v)
				continue
			}
			// A non-aligned series holds only its points: the null rows are left out.
			dense := Values{Type: v.Type, Bools: gather(v.Bools, v.Null, 0), Int32s: gather(v.Int32s, v.Null, 0), Int64s: gather(v.Int64s, v.Null, 0),
				Float32s: gather(v.Float32s, v.Null, 0), Float64s: gather(v.Float64s, v.Null, 0), Binaries: gather(v.Binaries, v.Null, 0)}
			series = append(series, NonAlignedSeries{SeriesSchema: s, Times: gather(times, v.Null, 0), Values: dense})
			note(dev, series[len(series)-1].Times, s.Name, &dense)
		}
		if c.layout == "nonaligned" {
			err = w.WriteNonAligned(dev, series)
		} else {
			err = w.WriteAligned(dev, times, cols)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, nil, err
	}
	if c.layout != "table" {
		// A tree row exists where some series has a point: upstream's tree
		// query returns no row of an aligned device whose values are all null.
		for k, r := range want {
			if len(r) == 0 {
				delete(want, k)
			}
		}
	}
	return out.Bytes(), canonRows(want), nil
}

// canonCell spells a cell of type dt as both sides compare it: FLOAT and
// DOUBLE by their bits (every NaN as NaN, since the CSV keeps no payload),
// the rest as the interop CSV spells it.
func canonFloat(f float64, bits uint64, w int) string {
	if math.IsNaN(f) {
		return "NaN"
	}
	return fmt.Sprintf("%0*x", w/4, bits)
}

// ourMatrixRows reads the file of c with this package's reader and returns
// its canonical rows: "device|time|col=value|..." with the columns sorted
// and nulls left out, the rows sorted.
func ourMatrixRows(t testing.TB, c matrixCase, b []byte) []string {
	t.Helper()
	f, err := Open(bytes.NewReader(b), int64(len(b)), nil)
	require.NoError(t, err)
	type row map[string]string
	rows := map[string]row{}
	at := func(dev DeviceID, tm int64) row {
		d := dev.String()
		if c.layout == "table" {
			d = ""
		}
		k := d + "|" + strconv.FormatInt(tm, 10)
		r, ok := rows[k]
		if !ok {
			r = row{}
			if c.layout == "table" {
				r["tag"] = dev.Segments()[1].Value
			}
			rows[k] = r
		}
		return r
	}
	put := func(dev DeviceID, times []int64, v *Values, name string) {
		for i, tm := range times {
			r := at(dev, tm)
			if v.IsNull(i) {
				continue
			}
			r[name] = ourCell(v, i)
		}
	}
	for _, dev := range matrixDevices(c.layout) {
		ss, err := f.Series(dev)
		require.NoError(t, err)
		if c.layout == "nonaligned" {
			for i := range ss {
				times, v, err := f.ReadNonAligned(&ss[i])
				require.NoError(t, err, "%s %s", dev, ss[i].Measurement)
				put(dev, times, &v, ss[i].Measurement)
			}
			continue
		}
		cols, err := f.ReadAligned(ss)
		require.NoError(t, err, "%s", dev)
		for name, v := range cols.Columns {
			put(dev, cols.Times, v, name)
		}
	}
	return canonRows(rows)
}

func ourCell(v *Values, i int) string {
	switch v.Type {
	case Boolean:
		return strconv.FormatBool(v.Bools[i])
	case Int32:
		return strconv.FormatInt(int64(v.Int32s[i]), 10)
	case Date:
		d := v.Int32s[i]
		return fmt.Sprintf("%04d-%02d-%02d", d/10000, d/100%100, d%100)
	case Int64, Timestamp:
		return strconv.FormatInt(v.Int64s[i], 10)
	case Float:
		return canonFloat(float64(v.Float32s[i]), uint64(math.Float32bits(v.Float32s[i])), 32)
	case Double:
		return canonFloat(v.Float64s[i], math.Float64bits(v.Float64s[i]), 64)
	case Blob, Object:
		return "0x" + hex.EncodeToString(v.Binaries[i])
	}
	return string(v.Binaries[i])
}

func canonRows[R ~map[string]string](rows map[string]R) []string {
	out := make([]string, 0, len(rows))
	for k, r := range rows {
		names := make([]string, 0, len(r))
		for n := range r {
			names = append(names, n)
		}
		sort.Strings(names)
		var b strings.Builder
		b.WriteString(k)
		for _, n := range names {
			fmt.Fprintf(&b, "|%s=%s", n, r[n])
		}
		out = append(out, b.String())
	}
	sort.Strings(out)
	return out
}

// upstreamMatrixRows canonicalises the interop CSV of a case.
func upstreamMatrixRows(t testing.TB, c matrixCase, data []byte) []string {
	t.Helper()
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	header := recs[0]
	types := map[string]DataType{"tag": String}
	for _, s := range c.cols {
		types[s.Name] = s.DataType
	}
	for _, h := range header {
		if _, ok := types[h]; !ok && h != "time" && h != "device" && !c.refused {
			t.Fatalf("upstream names a column %q that the file does not have", h)
		}
	}
	rows := map[string]map[string]string{}
	for _, rec := range recs[1:] {
		r := map[string]string{}
		dev := ""
		var tm string
		for j, cell := range rec {
			switch name := header[j]; {
			case name == "time":
				tm = cell
			case name == "device":
				dev = cell
			case cell == "":
			default:
				switch types[name] {
				case Float:
					f, err := strconv.ParseFloat(cell, 32)
					require.NoError(t, err, cell)
					cell = canonFloat(f, uint64(math.Float32bits(float32(f))), 32)
				case Double:
					f, err := strconv.ParseFloat(cell, 64)
					require.NoError(t, err, cell)
					cell = canonFloat(f, math.Float64bits(f), 64)
				}
				r[name] = cell
			}
		}
		rows[dev+"|"+tm] = r
	}
	return canonRows(rows)
}

func digest(lines []string) string {
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// matrixEntry is one line of testdata/upstream-matrix.txt.
type matrixEntry struct {
	name, fileSHA, rowsDigest, status string
}

func readMatrixFile(t testing.TB) map[string]matrixEntry {
	t.Helper()
	data, err := os.ReadFile(upstreamMatrixFile)
	require.NoError(t, err)
	out := map[string]matrixEntry{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, " ", 4)
		require.Len(t, f, 4, line)
		out[f[0]] = matrixEntry{f[0], f[1], f[2], f[3]}
	}
	return out
}

// TestWriterMatrixMatchesUpstream: see upstreamMatrix.
func TestWriterMatrixMatchesUpstream(t *testing.T) {
	if dump := os.Getenv("TSFILE_UPSTREAM_DUMP"); dump != "" {
		checkMatrixUpstream(t, dump)
		return
	}
	want := readMatrixFile(t)
	cases := upstreamMatrix()
	require.Len(t, want, len(cases), "%s lists another matrix; regenerate it", upstreamMatrixFile)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, ok := want[c.name]
			require.True(t, ok, "%s is not in %s", c.name, upstreamMatrixFile)
			if c.refused {
				_, _, err := tryMatrixCase(t, c, false)
				require.ErrorIs(t, err, ErrUnsupportedOption, "the writer must refuse what upstream misreads")
			}
			b, want := writeMatrixCase(t, c)
			sum := sha256.Sum256(b)
			require.Equal(t, e.fileSHA, hex.EncodeToString(sum[:]),
				"the writer's bytes changed since the upstream reader validated them: check them with TSFILE_UPSTREAM_DUMP and -update-upstream")
			require.Equal(t, e.rowsDigest, digest(want), "the rows written changed")
			if c.refused {
				// Written with the checks lifted: upstream misread it or
				// threw, which is why the writer refuses it.
				require.NotEqual(t, "same", e.status, "upstream read a refused case right: the refusal is needless")
				return
			}
			ours := digest(ourMatrixRows(t, c, b))
			switch {
			case e.status == "same":
				require.Equal(t, e.rowsDigest, ours, "this reader returns other rows than were written, which the upstream reader returned")
			case strings.HasPrefix(e.status, "refused"):
				// The upstream build cannot read it (see the status); this
				// reader's rows are pinned all the same.
				require.Equal(t, e.rowsDigest, ours)
			default:
				t.Fatalf("upstream misread %s: %s", c.name, e.status)
			}
		})
	}
}

// checkMatrixUpstream runs the upstream reader on every file of the matrix,
// compares its rows with this reader's, and with -update-upstream records
// the result.
func checkMatrixUpstream(t *testing.T, dump string) {
	dir := t.TempDir()
	var lines []string
	misread := 0
	for _, c := range upstreamMatrix() {
		b, want := writeMatrixCase(t, c)
		if keep := os.Getenv("TSFILE_UPSTREAM_KEEP"); keep != "" {
			dir = keep
		}
		path := filepath.Join(dir, c.name+".tsfile")
		require.NoError(t, os.WriteFile(path, b, 0o644))
		sum := sha256.Sum256(b)
		if !c.refused {
			if ours := ourMatrixRows(t, c, b); digest(ours) != digest(want) {
				t.Errorf("%s: this reader misreads: %s", c.name, describeDiff(want, ours))
			}
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(dump, path)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		status := "same"
		if err := cmd.Run(); err != nil {
			first := strings.SplitN(strings.TrimSpace(stderr.String()), "\n", 2)[0]
			status = "refused by upstream: " + first
			t.Logf("%s: %s", c.name, status)
		} else {
			theirs := upstreamMatrixRows(t, c, stdout.Bytes())
			if digest(theirs) != digest(want) {
				if !c.refused {
					misread++
				}
				status = "MISREAD: " + describeDiff(want, theirs)
				if !c.refused {
					t.Errorf("%s: %s", c.name, status)
				}
			}
		}
		cells := 0
		for _, r := range want {
			cells += strings.Count(r, "=")
		}
		t.Logf("%s: %d bytes, %d columns, %d rows, %d cells: %s", c.name, len(b), len(c.cols), len(want), cells, status)
		lines = append(lines, fmt.Sprintf("%s %s %s %s", c.name, hex.EncodeToString(sum[:]), digest(want), status))
	}
	if *updateUpstream && misread == 0 {
		head := "# Our writer's files (TestWriterMatrixMatchesUpstream) as the upstream Java reader read them:\n" +
			"# name sha256-of-the-file sha256-of-the-canonical-rows-written status.\n" +
			"# \"same\": the upstream reader returned exactly the rows written (apache/tsfile java 2.1.0-SNAPSHOT 69ff73d7, TsFileReader\n" +
			"# and the table query API, through the corpus tooling's Dump). Regenerate with\n" +
			"# TSFILE_UPSTREAM_DUMP=/path/to/dump go test ./tsfile -run TestWriterMatrixMatchesUpstream -update-upstream\n" +
			"# refused_*: what the writer refuses (ErrUnsupportedOption), written with its checks lifted: how upstream misreads it.\n"
		require.NoError(t, os.WriteFile(upstreamMatrixFile, []byte(head+strings.Join(lines, "\n")+"\n"), 0o644))
	}
}

// describeDiff names the columns whose cells differ and the first row.
func describeDiff(ours, theirs []string) string {
	split := func(rows []string) map[string]map[string]string {
		out := map[string]map[string]string{}
		for _, r := range rows {
			f := strings.Split(r, "|")
			key := f[0] + "|" + f[1]
			out[key] = map[string]string{}
			for _, c := range f[2:] {
				kv := strings.SplitN(c, "=", 2)
				out[key][kv[0]] = kv[1]
			}
		}
		return out
	}
	o, th := split(ours), split(theirs)
	bad := map[string]int{}
	first := ""
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := o[k]
		u, ok := th[k]
		if !ok {
			bad["(row missing upstream)"]++
			continue
		}
		cols := make([]string, 0, len(r))
		for c := range r {
			cols = append(cols, c)
		}
		sort.Strings(cols)
		for _, c := range cols {
			v := r[c]
			if u[c] != v {
				bad[c]++
				if first == "" {
					first = fmt.Sprintf("first %s at %s: ours %s, upstream %q", c, k, v, u[c])
				}
			}
		}
		for c := range u {
			if _, ok := r[c]; !ok {
				bad[c]++
			}
		}
	}
	if len(th) != len(o) {
		bad["(row count)"] = len(th) - len(o)
	}
	var names []string
	for c, n := range bad {
		names = append(names, fmt.Sprintf("%s(%d)", c, n))
	}
	sort.Strings(names)
	return strings.Join(names, ",") + "; " + first
}

// TestWriterPagesMatchJavaCheckedVectors ties the writer to the pages of
// ../encoding/testdata/intpack-java-checked.txt, whose SEPARATE_STORAGE and
// LAMINAR streams the upstream Java decoders were seen to read back exactly
// (the upstream build that validated the matrix predates both encodings):
// an uncompressed page of each vector's values holds exactly that stream,
// in the encoding its chunk header names.
func TestWriterPagesMatchJavaCheckedVectors(t *testing.T) {
	data, err := os.ReadFile("../encoding/testdata/intpack-java-checked.txt")
	require.NoError(t, err)
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		require.GreaterOrEqual(t, len(f), 3, line)
		code, err := strconv.Atoi(f[0])
		require.NoError(t, err)
		var vals []int64
		for _, s := range strings.Split(f[1], ",") {
			v, err := strconv.ParseInt(s, 10, 64)
			require.NoError(t, err)
			vals = append(vals, v)
		}
		want, err := hex.DecodeString(f[2])
		require.NoError(t, err)
		enc := Encoding(code)
		times := make([]int64, len(vals))
		for i := range times {
			times[i] = int64(i + 1)
		}
		for _, aligned := range []bool{false, true} {
			var out bytes.Buffer
			w, err := NewWriter(&out, &WriteOptions{MaxPointsPerPage: len(vals)})
			require.NoError(t, err)
			s := SeriesSchema{Name: "v", DataType: Int64, Encoding: enc}
			v := Values{Type: Int64, Int64s: vals}
			dev := NewDeviceID("root.sg", "d")
			if aligned {
				require.NoError(t, w.WriteAligned(dev, times, []AlignedColumn{{SeriesSchema: s, Values: v}}))
			} else {
				require.NoError(t, w.WriteNonAligned(dev, []NonAlignedSeries{{SeriesSchema: s, Times: times, Values: v}}))
			}
			require.NoError(t, w.Close())
			b := out.Bytes()
			fl, err := Open(bytes.NewReader(b), int64(len(b)), nil)
			require.NoError(t, err)
			ss, err := fl.SeriesByName(dev, "v")
			require.NoError(t, err)
			h, err := fl.ReadChunkHeader(ss.Chunks[0].Offset)
			require.NoError(t, err)
			require.Equal(t, enc, h.Encoding, "%s: the chunk keeps its encoding", line)
			require.True(t, bytes.Contains(b, want), "%s (aligned %v): the page does not hold the stream the upstream decoder read", line, aligned)
			checked++
		}
	}
	require.Equal(t, 2*146, checked)
}
