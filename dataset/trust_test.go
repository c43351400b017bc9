package dataset

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// copyTree copies the regular files and folders under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if e.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	}))
}

// readAllRows reads every table of a data directory as text, one line per
// row under a "# table" line, without failing the test: the error and the
// warnings come back for the caller to judge.
func readAllRows(root string, o *Options) (rows string, warnings []string, err error) {
	ds, err := Open([]string{root}, o)
	if err != nil {
		return "", nil, err
	}
	defer ds.Close()
	tables, err := ds.Tables()
	if err != nil {
		return "", ds.Warnings(), err
	}
	var b strings.Builder
	for _, tb := range tables {
		rd, err := ds.NewReader(tb.Ref, &arrowconv.Options{PlainTags: true})
		if err != nil {
			return "", ds.Warnings(), err
		}
		fmt.Fprintf(&b, "# %s\n", tb.Ref)
		for rd.Next() {
			rec := rd.RecordBatch()
			for i := 0; i < int(rec.NumRows()); i++ {
				var cells []string
				for _, c := range rec.Columns() {
					cells = append(cells, c.ValueStr(i))
				}
				b.WriteString(strings.Join(cells, ",") + "\n")
			}
		}
		err = rd.Err()
		rd.Release()
		if err != nil {
			return "", ds.Warnings(), err
		}
	}
	return b.String(), ds.Warnings(), nil
}

// sameRows reports whether two readAllRows texts hold the same rows,
// in any order: a resource changes which files are merged together, and
// so the order in which devices come out, not the rows.
func sameRows(a, b string) bool {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// resourceFlips changes one byte of one .resource of the sample data
// directory at a time, 100 times (fixed seed), and counts the outcomes:
// the same rows, an error, other rows with a warning, and other rows
// without a word (silent: the worst outcome).
func resourceFlips(t *testing.T, o *Options) (same, loud, warned, silent int) {
	t.Helper()
	base := t.TempDir()
	want, _, err := readAllRows(sampleDir, o)
	require.NoError(t, err)
	var resources []string
	require.NoError(t, filepath.WalkDir(sampleDir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ResourceSuffix) {
			rel, _ := filepath.Rel(sampleDir, p)
			resources = append(resources, rel)
		}
		return err
	}))
	slices.Sort(resources)
	r := rand.New(rand.NewSource(36))
	for i := range 100 {
		dir := filepath.Join(base, fmt.Sprint(i))
		copyTree(t, sampleDir, dir)
		res := filepath.Join(dir, resources[r.Intn(len(resources))])
		b, err := os.ReadFile(res)
		require.NoError(t, err)
		at := r.Intn(len(b))
		b[at] ^= byte(1 + r.Intn(255))
		require.NoError(t, os.WriteFile(res, b, 0o644))
		got, ws, err := readAllRows(dir, o)
		switch {
		case err != nil:
			loud++
		case sameRows(got, want):
			same++
		case len(ws) > 0:
			warned++
		default:
			silent++
			t.Logf("silent: %s byte %d", res, at)
		}
	}
	return
}

// TestResourceFlips: no single changed byte of a .resource makes the
// sample directory read other rows without an error or a warning, unless
// the resources are trusted (the figures before the check, logged).
func TestResourceFlips(t *testing.T) {
	same, loud, warned, silent := resourceFlips(t, &Options{TrustResources: true})
	t.Logf("trusted (no check): %d same rows, %d errors, %d warned, %d silent", same, loud, warned, silent)
	same, loud, warned, silent = resourceFlips(t, nil)
	t.Logf("strict: %d same rows, %d errors, %d warned, %d silent", same, loud, warned, silent)
	require.Zero(t, silent, "rows changed without a word")
	same, loud, warned, silent = resourceFlips(t, &Options{Read: &tsfile.ReadOptions{Lenient: true}})
	t.Logf("lenient: %d same rows, %d errors, %d warned, %d silent", same, loud, warned, silent)
	require.Zero(t, silent, "rows changed without a word under Lenient")
}

// TestResourceCheck: Open checks each resource against its file's index
// (table t, device t.a at times 1..3). What IoTDB writes passes: the exact
// range, a wider one (times inserted and then deleted before the flush),
// a device with no point left; a resource that leaves out a device or cuts
// its range short fails, or under Lenient is set aside with a warning, the
// file read by its index. Trusted, nothing is checked.
func TestResourceCheck(t *testing.T) {
	a, zz := tsfile.NewDeviceID("t", "a"), tsfile.NewDeviceID("t", "zz")
	for _, tc := range []struct {
		name string
		devs []DeviceTimes
		diff string // "" for a resource IoTDB may write
	}{
		{"exact", []DeviceTimes{{a, 1, 3}}, ""},
		{"wider", []DeviceTimes{{a, -5, 90}}, ""},
		{"device without points", []DeviceTimes{{zz, 0, 9}, {a, 1, 3}}, ""},
		{"start too late", []DeviceTimes{{a, 2, 3}}, "it says device t.a spans [2, 3], but the file holds it over [1, 3]"},
		{"end too early", []DeviceTimes{{a, 1, 2}}, "it says device t.a spans [1, 2], but the file holds it over [1, 3]"},
		{"open end", []DeviceTimes{{a, 1, math.MinInt64}}, "it says device t.a spans [1, -9223372036854775808]"},
		{"start after end", []DeviceTimes{{a, 3, 1}}, "it says device t.a spans [3, 1], but the file holds it over [1, 3]"},
		{"device missing", []DeviceTimes{{zz, 1, 3}}, "it does not list device t.a, which the file holds over [1, 3]"},
		{"no devices", nil, "it does not list device t.a"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			paths := writeTyped(t, root, typedFile{Sequence, 1, 1, tsfile.Int64, []int64{1, 2, 3}, tsfile.Values{Type: tsfile.Int64, Int64s: []int64{1, 2, 3}}})
			b, err := (&Resource{IndexType: IndexArray, Devices: tc.devs}).AppendBinary(nil)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(paths[0]+ResourceSuffix, b, 0o644))
			const want = "# t\n1970-01-01T00:00:00.001Z,a,1\n1970-01-01T00:00:00.002Z,a,2\n1970-01-01T00:00:00.003Z,a,3\n"

			rows, ws, err := readAllRows(root, nil)
			if tc.diff == "" {
				require.NoError(t, err)
				require.Empty(t, ws)
				require.Equal(t, want, rows)
				ds, err := Open([]string{root}, nil)
				require.NoError(t, err)
				devs, err := ds.Devices("t")
				require.NoError(t, err)
				require.Equal(t, []tsfile.DeviceID{a}, devs, "a device the file lacks is not listed")
				ds.Close()
			} else {
				require.ErrorIs(t, err, ErrResourceMismatch)
				require.ErrorContains(t, err, paths[0]+ResourceSuffix+" does not match the index of its data file: "+tc.diff)
				require.NotContains(t, err.Error(), "\n")
			}

			rows, ws, err = readAllRows(root, &Options{Read: &tsfile.ReadOptions{Lenient: true}})
			require.NoError(t, err)
			require.Equal(t, want, rows)
			if tc.diff == "" {
				require.Empty(t, ws)
			} else {
				require.Len(t, ws, 1)
				require.Contains(t, ws[0], tc.diff)
				require.Contains(t, ws[0], "reading "+paths[0]+" by its own index instead (--lenient)")
			}

			// Trusted, Open reads no footer: a data file that is not a
			// TsFile at all opens.
			require.NoError(t, os.WriteFile(paths[0], []byte("not a tsfile, same size?"), 0o644))
			ds, err := Open([]string{root}, &Options{TrustResources: true})
			require.NoError(t, err)
			ds.Close()
			_, err = Open([]string{root}, nil)
			require.ErrorIs(t, err, tsfile.ErrCorrupt)
			require.ErrorContains(t, err, "--trust-resources")
		})
	}
}

// BenchmarkOpenResources measures what the resource check costs Open on a
// data directory of 3,000 small files (10 partitions of 300), with the
// check and trusted: go test ./dataset -run - -bench OpenResources.
func BenchmarkOpenResources(b *testing.B) {
	root := b.TempDir()
	src := writeTyped(b, b.TempDir(), typedFile{Sequence, 1, 1, tsfile.Int64, []int64{1, 2, 3}, tsfile.Values{Type: tsfile.Int64, Int64s: []int64{1, 2, 3}}})[0]
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	res, err := os.ReadFile(src + ResourceSuffix)
	if err != nil {
		b.Fatal(err)
	}
	const files = 3000
	for i := range files {
		dir := filepath.Join(root, "sequence", "db", "1", fmt.Sprint(i%10))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		p := filepath.Join(dir, Name{Time: int64(i), Version: int64(i + 1)}.String())
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p+ResourceSuffix, res, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, trust := range []bool{false, true} {
		b.Run(fmt.Sprintf("trust=%v", trust), func(b *testing.B) {
			for b.Loop() {
				ds, err := Open([]string{root}, &Options{TrustResources: trust})
				if err != nil {
					b.Fatal(err)
				}
				ds.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/files, "µs/file")
		})
	}
}

// TestResourceCheckPlainIndex: the check matches the devices of an IoTDB
// 1.x resource (paths, IndexPlain) with those of a TsFile v3, deep and
// quoted paths included, and of an IoTDB 2.x one (IndexArray) with a v4
// file's: no false alarm on what either server writes.
func TestResourceCheckPlainIndex(t *testing.T) {
	paths := []string{"root.sg.d1", "root.sg.a.b.c", "root.sg.`x.y`", "root.sg.d2.`1`"}
	for _, tc := range []struct {
		version byte
		index   byte
	}{{tsfile.VersionV3, IndexPlain}, {tsfile.VersionV3, IndexArray}, {tsfile.Version, IndexArray}, {tsfile.Version, IndexPlain}} {
		t.Run(fmt.Sprintf("v%d-index%d", tc.version, tc.index), func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "sequence", "root.sg", "1", "0")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			var buf bytes.Buffer
			w, err := tsfile.NewWriter(&buf, &tsfile.WriteOptions{Version: tc.version})
			require.NoError(t, err)
			res := &Resource{IndexType: tc.index}
			for i, p := range paths {
				dev := tsfile.ParseTreePath(p)
				v := tsfile.NewValues(tsfile.Int64, 2)
				v.Int64s[0], v.Int64s[1] = 1, 2
				require.NoError(t, w.WriteNonAligned(dev, []tsfile.NonAlignedSeries{{SeriesSchema: tsfile.SeriesSchema{Name: "s", DataType: tsfile.Int64}, Times: []int64{int64(i), int64(i + 10)}, Values: v}}))
				res.Devices = append(res.Devices, DeviceTimes{Device: dev, Start: int64(i), End: int64(i + 10)})
			}
			require.NoError(t, w.Close())
			path := filepath.Join(dir, "1-1-0-0.tsfile")
			require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
			rb, err := res.AppendBinary(nil)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path+ResourceSuffix, rb, 0o644))
			rows, ws, err := readAllRows(root, nil)
			require.NoError(t, err)
			require.Empty(t, ws)
			require.Equal(t, 2*len(paths), strings.Count(rows, "\n")-strings.Count(rows, "# "), rows)
		})
	}
}
