package arrowconv

import (
	"bytes"
	"encoding/base32"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"testing/fstest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/stretchr/testify/require"

	"github.com/tsarrow/tsarrow/tsfile"
)

// b32 is the segment encoding of IoTDB's Base32ObjectPath: Guava's
// BaseEncoding.base32().omitPadding(), RFC 4648 without padding.
func b32(s string) string {
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString([]byte(s))
}

// plainObjectCell is the cell of an older build (or PlainObjectPath): the
// size, then the path as bare UTF-8.
func plainObjectCell(size int64, path string) []byte {
	b := make([]byte, 8, 8+len(path))
	for i := range 8 {
		b[i] = byte(size >> (56 - 8*i))
	}
	return append(b, path...)
}

// objectCase is one row of the OBJECT test file.
type objectCase struct {
	time int64
	path string // the path the cell names; "" for a null cell
	data []byte // the object's bytes
}

// objectCases are cells in both encodings, a null, and device segments
// with the NUL and EPT markers. "OQ" is base32 of "t", "N4" of "o" (the
// hand-written expectations check b32 itself).
func objectCases() []objectCase {
	seg := "7/OQ/" + b32("d1") + "/N4/1.bin"
	return []objectCase{
		{time: 1, path: seg, data: []byte("first object")},
		{time: 2, path: "7/t/d1/o/2.bin", data: []byte("plain path, older build")},
		{time: 3},
		{time: 4, path: "7/OQ/NUL/EPT/N4/4_12.bin", data: bytes.Repeat([]byte{0xfe}, 1000)},
	}
}

// objectFile writes table t (TAG dev, FIELD o OBJECT, FIELD v INT32) with
// one device holding objectCases, and the object folder holding their
// files.
func objectFile(t *testing.T) (*tsfile.File, fstest.MapFS, []objectCase) {
	t.Helper()
	cases := objectCases()
	root := fstest.MapFS{}
	var times []int64
	vals := tsfile.Values{Type: tsfile.Object, Null: make([]bool, len(cases))}
	ints := tsfile.Values{Type: tsfile.Int32}
	for i, c := range cases {
		times = append(times, c.time)
		ints.Int32s = append(ints.Int32s, int32(i))
		switch {
		case c.path == "":
			vals.Null[i] = true
			vals.Binaries = append(vals.Binaries, nil)
		case c.time == 2:
			vals.Binaries = append(vals.Binaries, plainObjectCell(int64(len(c.data)), c.path))
		default:
			vals.Binaries = append(vals.Binaries, tsfile.AppendObjectCell(nil, int64(len(c.data)), c.path))
		}
		if c.path != "" {
			root[c.path] = &fstest.MapFile{Data: c.data}
		}
	}
	w := newFileBuilder(t, nil)
	w.table("t",
		tsfile.Column{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag},
		tsfile.Column{Name: "o", DataType: tsfile.Object, Category: tsfile.Field},
		tsfile.Column{Name: "v", DataType: tsfile.Int32, Category: tsfile.Field},
	)
	w.aligned(tsfile.NewDeviceID("t", "d1"), times, col{"o", vals}, col{"v", ints})
	return w.open(), root, cases
}

// readAll reads table t and returns its records' column "o", or the error.
func readObjects(t *testing.T, f *tsfile.File, o *Options) ([]arrow.Array, *arrow.Schema, error) {
	t.Helper()
	o.Allocator = checkedMem(t)
	r, err := NewTableReader(f, "t", o)
	if err != nil {
		return nil, nil, err
	}
	defer r.Release()
	var cols []arrow.Array
	for r.Next() {
		rec := r.RecordBatch()
		require.True(t, rec.Schema().Equal(r.Schema()))
		c := rec.Column(rec.Schema().FieldIndices("o")[0])
		c.Retain()
		cols = append(cols, c)
		t.Cleanup(c.Release)
	}
	return cols, r.Schema(), r.Err()
}

func TestObjectB32(t *testing.T) {
	require.Equal(t, "OQ", b32("t"))
	require.Equal(t, "N4", b32("o"))
	require.Equal(t, "MQYQ", b32("d1"))
}

// TestObjectReferences: by default an OBJECT column is a struct of the
// object's size and path, from cells in both encodings, null where the
// cell is; never the cell's raw bytes.
func TestObjectReferences(t *testing.T) {
	f, _, cases := objectFile(t)
	sc, err := TableArrowSchema(f, "t", nil)
	require.NoError(t, err)
	fo := sc.Field(sc.FieldIndices("o")[0])
	require.True(t, arrow.TypeEqual(ObjectType, fo.Type), "%s", fo.Type)
	require.True(t, fo.Nullable)
	require.True(t, IsObjectField(fo))

	for _, workers := range []int{1, 2} {
		cols, rs, err := readObjects(t, f, &Options{Workers: workers, BatchSize: 1 + workers})
		require.NoError(t, err)
		require.True(t, rs.Equal(sc))
		var got []string
		for _, c := range cols {
			s := c.(*array.Struct)
			require.NoError(t, s.ValidateFull())
			require.Equal(t, s.Len(), s.Field(0).Len())
			require.Equal(t, s.Len(), s.Field(1).Len())
			for i := 0; i < s.Len(); i++ {
				if s.IsNull(i) {
					got = append(got, "null")
					continue
				}
				got = append(got, s.Field(1).(*array.String).Value(i)+"#"+
					itoa(s.Field(0).(*array.Int64).Value(i)))
			}
		}
		var want []string
		for _, c := range cases {
			if c.path == "" {
				want = append(want, "null")
				continue
			}
			want = append(want, c.path+"#"+itoa(int64(len(c.data))))
		}
		require.Equal(t, want, got)
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// TestObjectBytes: with ObjectBytes and the object folder the column holds
// the objects' bytes; a missing file fails naming it, one over
// MaxObjectSize fails naming the option, and one whose length is not the
// cell's fails.
func TestObjectBytes(t *testing.T) {
	f, root, cases := objectFile(t)
	o := &Options{ObjectBytes: true, ObjectRoot: root}
	sc, err := TableArrowSchema(f, "t", o)
	require.NoError(t, err)
	require.True(t, arrow.TypeEqual(ObjectBytesType, sc.Field(sc.FieldIndices("o")[0]).Type))

	cols, _, err := readObjects(t, f, &Options{ObjectBytes: true, ObjectRoot: root, BatchSize: 2})
	require.NoError(t, err)
	var got [][]byte
	for _, c := range cols {
		b := c.(*array.LargeBinary)
		for i := 0; i < b.Len(); i++ {
			if b.IsNull(i) {
				got = append(got, nil)
				continue
			}
			got = append(got, bytes.Clone(b.Value(i)))
		}
	}
	require.Len(t, got, len(cases))
	for i, c := range cases {
		require.Equal(t, c.data, got[i], "row %d", i)
	}

	t.Run("missing", func(t *testing.T) {
		r := fstest.MapFS{}
		for k, v := range root {
			r[k] = v
		}
		delete(r, cases[1].path)
		_, _, err := readObjects(t, f, &Options{ObjectBytes: true, ObjectRoot: r})
		require.ErrorIs(t, err, fs.ErrNotExist)
		require.ErrorContains(t, err, "object file "+cases[1].path+" is missing")
	})
	t.Run("limit", func(t *testing.T) {
		_, _, err := readObjects(t, f, &Options{ObjectBytes: true, ObjectRoot: root, MaxObjectSize: 999})
		var oe *OptionError
		require.True(t, errors.As(err, &oe), "%v", err)
		require.Equal(t, "MaxObjectSize", oe.Option)
		require.ErrorContains(t, err, cases[3].path)
		// At the limit it reads.
		_, _, err = readObjects(t, f, &Options{ObjectBytes: true, ObjectRoot: root, MaxObjectSize: 1000})
		require.NoError(t, err)
	})
	t.Run("size mismatch", func(t *testing.T) {
		r := fstest.MapFS{}
		for k, v := range root {
			r[k] = v
		}
		r[cases[0].path] = &fstest.MapFile{Data: []byte("first object!")}
		_, _, err := readObjects(t, f, &Options{ObjectBytes: true, ObjectRoot: r})
		require.ErrorIs(t, err, tsfile.ErrCorrupt)
		require.ErrorContains(t, err, "holds more bytes")
		r[cases[0].path] = &fstest.MapFile{Data: []byte("first")}
		_, _, err = readObjects(t, f, &Options{ObjectBytes: true, ObjectRoot: r})
		require.ErrorContains(t, err, "holds fewer bytes")
	})
	t.Run("no root", func(t *testing.T) {
		_, _, err := readObjects(t, f, &Options{ObjectBytes: true})
		require.ErrorIs(t, err, ErrObjectRoot)
	})
	t.Run("projection without OBJECT", func(t *testing.T) {
		// No OBJECT column read, so no object folder needed.
		o := &Options{ObjectBytes: true, Columns: []string{"v"}, Allocator: checkedMem(t)}
		r, err := NewTableReader(f, "t", o)
		require.NoError(t, err)
		drain(t, r)
	})
}

// TestObjectBadCell: a cell that is no OBJECT reference fails the read as
// corrupt, naming the column.
func TestObjectBadCell(t *testing.T) {
	w := newFileBuilder(t, nil)
	w.table("t",
		tsfile.Column{Name: "dev", DataType: tsfile.String, Category: tsfile.Tag},
		tsfile.Column{Name: "o", DataType: tsfile.Object, Category: tsfile.Field},
	)
	w.aligned(tsfile.NewDeviceID("t", "d1"), []int64{1}, col{"o", tsfile.Values{Type: tsfile.Object, Binaries: [][]byte{{1, 2, 3}}}})
	_, _, err := readObjects(t, w.open(), &Options{})
	require.ErrorIs(t, err, tsfile.ErrCorrupt)
	require.ErrorContains(t, err, `column "o"`)
}

// TestObjectLoaderPaths: a path that leaves the object folder (or is
// absolute) is refused as corrupt before any file is opened.
func TestObjectLoaderPaths(t *testing.T) {
	mem := checkedMem(t)
	root := fstest.MapFS{"x.bin": &fstest.MapFile{Data: []byte("x")}}
	for _, p := range []string{"../x.bin", "1/../../x.bin", "/x.bin", "."} {
		b := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
		b.Append(plainObjectCell(1, p))
		raw := b.NewBinaryArray()
		b.Release()
		refs, err := objectRefs(mem, raw, "o")
		raw.Release()
		require.NoError(t, err, p)
		md := arrow.NewMetadata([]string{MetaType}, []string{tsfile.Object.String()})
		sc := arrow.NewSchema([]arrow.Field{{Name: "o", Type: ObjectType, Nullable: true, Metadata: md}}, nil)
		rec := array.NewRecordBatch(sc, []arrow.Array{refs}, 1)
		refs.Release()
		_, err = (&ObjectLoader{Root: root, Mem: mem}).Load(rec)
		rec.Release()
		require.ErrorIs(t, err, tsfile.ErrCorrupt, p)
		require.ErrorContains(t, err, "does not name a file inside the object folder", p)
	}
}

// TestObjectBytesV25: the v25 files that come with their object folder
// (testdata/upstream/v25, built from IoTDB's layouts by gen25) read as
// bytes from it, each object as long as its reference says and holding
// the bytes of the file its path names.
func TestObjectBytesV25(t *testing.T) {
	n := 0
	for _, vf := range v25Files(t) {
		if vf.ObjectRoot == "" {
			continue
		}
		f, err := tsfile.OpenFile(filepath.Join(v25Dir, vf.Path), nil)
		require.NoError(t, err)
		root := os.DirFS(filepath.Join(v25Dir, vf.ObjectRoot))
		for _, tb := range vf.Tables {
			if len(tb.ObjectColumns) == 0 {
				continue
			}
			cols := append([]string(nil), tb.ObjectColumns...)
			refs := drainObjects(t, f, tb.Name, &Options{Columns: cols})
			vals := drainObjects(t, f, tb.Name, &Options{Columns: cols, ObjectBytes: true, ObjectRoot: root})
			require.Equal(t, len(refs), len(vals))
			for i, r := range refs {
				if r == nil {
					require.Nil(t, vals[i])
					continue
				}
				ref := r.(objectRef)
				want, err := fs.ReadFile(root, ref.path)
				require.NoError(t, err)
				require.Len(t, want, int(ref.size))
				require.Equal(t, want, vals[i].([]byte), ref.path)
				n++
			}
		}
		f.Close()
	}
	require.Positive(t, n)
}

type objectRef struct {
	size int64
	path string
}

// drainObjects reads the OBJECT columns of a table, row by row and column
// by column: an objectRef, the bytes, or nil for a null.
func drainObjects(t *testing.T, f *tsfile.File, table string, o *Options) []any {
	t.Helper()
	o.Allocator = checkedMem(t)
	r, err := NewTableReader(f, table, o)
	require.NoError(t, err)
	defer r.Release()
	var out []any
	for r.Next() {
		rec := r.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			for c := 1; c < int(rec.NumCols()); c++ {
				switch a := rec.Column(c).(type) {
				case *array.Struct:
					if a.IsNull(i) {
						out = append(out, nil)
						continue
					}
					out = append(out, objectRef{a.Field(0).(*array.Int64).Value(i), a.Field(1).(*array.String).Value(i)})
				case *array.LargeBinary:
					if a.IsNull(i) {
						out = append(out, nil)
						continue
					}
					out = append(out, bytes.Clone(a.Value(i)))
				default:
					t.Fatalf("column %s is %s", rec.Schema().Field(c).Name, a.DataType())
				}
			}
		}
	}
	require.NoError(t, r.Err())
	return out
}

// TestObjectTree: OBJECT series of the tree model, aligned and not
// (the non-aligned merge builds its own value columns), read as
// references too.
func TestObjectTree(t *testing.T) {
	w := newFileBuilder(t, nil)
	cell := func(i int) []byte {
		return tsfile.AppendObjectCell(nil, int64(i), "3/"+b32("root.sg")+"/N4/"+strconv.Itoa(i)+".bin")
	}
	w.aligned(tsfile.NewDeviceID("root.sg", "a"), []int64{1, 2},
		col{"o", tsfile.Values{Type: tsfile.Object, Binaries: [][]byte{cell(1), cell(2)}}})
	w.nonAligned(tsfile.NewDeviceID("root.sg", "n"), map[string][]int64{"o": {1, 3}, "v": {2, 3}},
		col{"o", tsfile.Values{Type: tsfile.Object, Binaries: [][]byte{cell(11), cell(13)}}},
		col{"v", tsfile.Values{Type: tsfile.Int32, Int32s: []int32{7, 8}}})
	f := w.open()
	for _, workers := range []int{1, 2} {
		r, err := NewTreeReader(f, "", &Options{Allocator: checkedMem(t), Workers: workers})
		require.NoError(t, err)
		var got []string
		for r.Next() {
			rec := r.RecordBatch()
			i := rec.Schema().FieldIndices("o")[0]
			require.True(t, arrow.TypeEqual(ObjectType, rec.Schema().Field(i).Type))
			s := rec.Column(i).(*array.Struct)
			for j := 0; j < s.Len(); j++ {
				if s.IsNull(j) {
					got = append(got, "null")
					continue
				}
				got = append(got, s.Field(1).(*array.String).Value(j))
			}
		}
		require.NoError(t, r.Err())
		r.Release()
		p := "3/" + b32("root.sg") + "/N4/"
		require.Equal(t, []string{p + "1.bin", p + "2.bin", p + "11.bin", "null", p + "13.bin"}, got)
	}
}
