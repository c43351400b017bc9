package arrowconv

import (
	"bytes"
	"encoding/base32"
	"encoding/binary"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// v25Dir holds files laid out as the TsFile 2.5 writers lay them out
// (testdata/upstream/v25/README.md): built from the byte layouts read in
// upstream source, not written by an upstream writer. Its index is
// files.json, not manifest.json, so TestUpstreamCorpus does not take it.
const v25Dir = "../testdata/upstream/v25"

type v25File struct {
	Path   string   `json:"path"`
	Needs  []string `json:"needs"`
	Tables []struct {
		Name          string   `json:"name"`
		ExpectedCSV   string   `json:"expected_csv"`
		TimeColumn    string   `json:"time_column"`
		ObjectColumns []string `json:"object_columns"`
		Rows          int      `json:"rows"`
		FieldPoints   int64    `json:"field_points"`
	} `json:"tables"`
	TotalRows  int `json:"total_rows"`
	Properties []struct {
		Key  string `json:"key"`
		Hex  string `json:"hex"`
		Null bool   `json:"null"`
	} `json:"properties"`
	TablePointCount string `json:"table_point_count"` // "long", "decimal" or ""
	ObjectRoot      string `json:"object_root"`
	ObjectForm      string `json:"object_form"`
}

func v25Files(t *testing.T) []v25File {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(v25Dir, "files.json"))
	require.NoError(t, err)
	var m struct {
		Files []v25File `json:"files"`
	}
	require.NoError(t, json.Unmarshal(b, &m))
	require.NotEmpty(t, m.Files)
	return m.Files
}

var v25Base32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// v25Object is an OBJECT cell decoded by this test's own model of the
// layouts (apache/iotdb ObjectTypeUtils.generateObjectBinary: an i64 size,
// big-endian, then Base32ObjectPath.serialize, a uvarint segment count and
// zigzag-varint-length strings, or the older PlainObjectPath's bare bytes).
type v25Object struct {
	size int64
	segs []string // base32 form: the stored segments
	path string   // the relative path, segments joined by "/"
}

func decodeV25Object(t testing.TB, form string, cell []byte) v25Object {
	t.Helper()
	require.GreaterOrEqual(t, len(cell), 8, "OBJECT cell shorter than its size")
	o := v25Object{size: int64(binary.BigEndian.Uint64(cell))}
	rest := cell[8:]
	if form == "plain" {
		o.path = string(rest)
		return o
	}
	n, k := binary.Uvarint(rest)
	require.Positive(t, k)
	rest = rest[k:]
	for i := uint64(0); i < n; i++ {
		zz, k := binary.Uvarint(rest)
		require.Positive(t, k)
		l := int64(zz>>1) ^ -int64(zz&1)
		require.True(t, l >= 0 && int(l) <= len(rest)-k, "segment %d length %d", i, l)
		o.segs = append(o.segs, string(rest[k:k+int(l)]))
		rest = rest[k+int(l):]
	}
	require.Empty(t, rest, "bytes after the path")
	o.path = strings.Join(o.segs, "/")
	return o
}

func (o v25Object) String() string { return fmt.Sprintf("size=%d path=%s", o.size, o.path) }

// v25Cell is canonArrow plus the OBJECT struct<size, path> of issue 40.
func v25Cell(a arrow.Array, i int) string {
	if s, ok := a.(*array.Struct); ok {
		if s.IsNull(i) {
			return nullCell
		}
		size := s.Field(0).(*array.Int64).Value(i)
		return fmt.Sprintf("size=%d path=%s", size, s.Field(1).(*array.String).Value(i))
	}
	return canonArrow(a, i)
}

// TestUpstreamV25 reads each file of testdata/upstream/v25 and requires
// its rows: the time column named after the table's TIME column (or
// "time"), OBJECT columns as struct<size int64, path utf8> with the size
// and path the cells hold, and the footer properties byte for byte, null
// apart from empty, with tablePointCount.<table> equal to the table's
// non-null FIELD points. It also checks the committed files against
// themselves: each OBJECT cell's path names its row's device, column and
// time, and its object file (where the file comes with an object root)
// has the size the cell declares.
func TestUpstreamV25(t *testing.T) {
	for _, vf := range v25Files(t) {
		t.Run(strings.TrimSuffix(vf.Path, ".tsfile"), func(t *testing.T) {
			f, err := tsfile.OpenFile(filepath.Join(v25Dir, vf.Path), nil)
			require.NoError(t, err, "needs %v", vf.Needs)
			defer f.Close()

			t.Run("properties", func(t *testing.T) {
				got := f.Metadata.Properties
				require.Len(t, got, len(vf.Properties))
				for i, p := range vf.Properties {
					require.Equal(t, p.Key, got[i].Key)
					require.Equal(t, p.Null, got[i].Null, "property %s: null", p.Key)
					if !p.Null {
						want, err := hex.DecodeString(p.Hex)
						require.NoError(t, err)
						require.True(t, bytes.Equal(want, got[i].Value), "property %s: %x, want %x", p.Key, got[i].Value, want)
						require.NotNil(t, got[i].Value, "property %s: an empty value read as null", p.Key)
					}
				}
				for _, tb := range vf.Tables {
					v, ok := f.Metadata.Property("tablePointCount." + tb.Name)
					require.Equal(t, vf.TablePointCount != "", ok, "tablePointCount.%s", tb.Name)
					switch vf.TablePointCount {
					case "long":
						require.Len(t, v, 8)
						require.Equal(t, tb.FieldPoints, int64(binary.BigEndian.Uint64(v)), "tablePointCount.%s", tb.Name)
					case "decimal":
						n, err := strconv.ParseInt(string(v), 10, 64)
						require.NoError(t, err)
						require.Equal(t, tb.FieldPoints, n, "tablePointCount.%s", tb.Name)
					}
				}
			})

			rows := 0
			for _, tb := range vf.Tables {
				t.Run(tb.Name, func(t *testing.T) {
					want := readV25CSV(t, filepath.Join(v25Dir, tb.ExpectedCSV))
					require.Len(t, want.rows, tb.Rows)
					objCols := map[int]bool{}
					for c, name := range want.header {
						for _, o := range tb.ObjectColumns {
							if o == name {
								objCols[c] = true
							}
						}
					}
					nTags := 0
					if s, ok := f.SchemaOf(tb.Name); ok {
						nTags = len(s.Tags())
					}
					for _, row := range want.rows {
						for c := range objCols {
							if row[c] == nullCell {
								continue
							}
							raw, err := hex.DecodeString(strings.TrimPrefix(row[c], "0x"))
							require.NoError(t, err)
							o := decodeV25Object(t, vf.ObjectForm, raw)
							checkV25ObjectPath(t, vf, tb.Name, want.header[c], row[:1+nTags], o)
							row[c] = o.String()
						}
					}

					r, err := NewTableReader(f, tb.Name, nil)
					require.NoError(t, err, "needs %v", vf.Needs)
					defer r.Release()
					sc := r.Schema()
					require.Equal(t, tb.TimeColumn, sc.Field(0).Name, "time field (needs timeread)")
					require.Equal(t, arrow.TIMESTAMP, sc.Field(0).Type.ID())
					for c := range objCols {
						require.True(t, arrow.TypeEqual(sc.Field(c).Type, arrow.StructOf(
							arrow.Field{Name: "size", Type: arrow.PrimitiveTypes.Int64},
							arrow.Field{Name: "path", Type: arrow.BinaryTypes.String},
						)), "OBJECT column %s is %s (needs objcell)", sc.Field(c).Name, sc.Field(c).Type)
					}
					got := &table{header: fieldNames(sc)}
					for r.Next() {
						rec := r.RecordBatch()
						for i := 0; i < int(rec.NumRows()); i++ {
							row := make([]string, rec.NumCols())
							for c := range row {
								row[c] = strings.Clone(v25Cell(rec.Column(c), i))
							}
							got.rows = append(got.rows, row)
						}
					}
					require.NoError(t, r.Err())
					for _, row := range want.rows {
						for c, cell := range row {
							if !objCols[c] && cell != nullCell {
								row[c] = canonCell(t, sc.Field(c).Type, cell)
							}
						}
					}
					rows += len(got.rows)
					requireSameSet(t, want, got, tagsAndTime(sc))
				})
			}
			if !t.Failed() {
				require.Equal(t, vf.TotalRows, rows)
			}
		})
	}
}

// checkV25ObjectPath requires that o's path name the row's device (table,
// TAG values: the key's cells after the time), the column and the time, as
// the path form of the file spells them, and that its object file, when
// the file comes with an object root, have the size the cell declares.
func checkV25ObjectPath(t testing.TB, vf v25File, table, column string, key []string, o v25Object) {
	t.Helper()
	tm, tags := key[0], key[1:]
	if vf.ObjectForm == "plain" {
		// PlainObjectPath: region/segments lower-cased ("null" for null)/measurement/time.bin.
		want := []string{table}
		for _, v := range tags {
			if v == nullCell {
				v = "null"
			}
			want = append(want, strings.ToLower(v))
		}
		want = append(want, column, tm+".bin")
		_, rest, ok := strings.Cut(o.path, "/")
		require.True(t, ok, o.path)
		require.Equal(t, strings.Join(want, "/"), rest)
		return
	}
	require.Len(t, o.segs, 1+1+len(tags)+2, o.path)
	_, err := strconv.Atoi(o.segs[0])
	require.NoError(t, err, "region id of %s", o.path)
	dec := func(s string) string {
		b, err := v25Base32.DecodeString(s)
		require.NoError(t, err, "segment %q of %s", s, o.path)
		return string(b)
	}
	require.Equal(t, table, dec(o.segs[1]))
	for i, v := range tags {
		s := o.segs[2+i]
		switch {
		case v == nullCell:
			require.Equal(t, "NUL", s)
		case v == "":
			require.Equal(t, "EPT", s)
		default:
			require.Equal(t, v, dec(s))
		}
	}
	require.Equal(t, column, dec(o.segs[len(o.segs)-2]))
	require.Equal(t, tm+".bin", o.segs[len(o.segs)-1])
	if vf.ObjectRoot != "" {
		fi, err := os.Stat(filepath.Join(v25Dir, vf.ObjectRoot, filepath.FromSlash(path.Clean(o.path))))
		require.NoError(t, err)
		require.Equal(t, o.size, fi.Size(), "object %s", o.path)
	}
}

// readV25CSV reads a gzipped expected CSV as is: cells canonicalized later,
// once the reader's schema is known.
func readV25CSV(t testing.TB, p string) *table {
	t.Helper()
	recs, err := csv.NewReader(openGzip(t, p)).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	out := &table{header: recs[0]}
	for _, rec := range recs[1:] {
		row := make([]string, len(rec))
		for c, cell := range rec {
			row[c] = cell
			if cell == "" {
				row[c] = nullCell
			}
		}
		out.rows = append(out.rows, row)
	}
	return out
}
