//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/stretchr/testify/require"
)

// fakeReader serves recs, then fails with err (nil: ends cleanly); wait,
// when set, blocks the call to Next after the first batch until it
// returns.
type fakeReader struct {
	array.RecordReader
	err      error
	served   int
	wait     func() error
	released *atomic.Int64
	failed   error
}

func (r *fakeReader) Next() bool {
	if r.served == 1 && r.wait != nil {
		if err := r.wait(); err != nil {
			r.failed = err
			return false
		}
	}
	if r.RecordReader.Next() {
		r.served++
		return true
	}
	r.failed = r.err
	return false
}

func (r *fakeReader) Err() error { return r.failed }

func (r *fakeReader) Release() {
	r.RecordReader.Release()
	r.released.Add(1)
}

var edgeSchema = arrow.NewSchema([]arrow.Field{
	{Name: "time", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
	{Name: "tag", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, Nullable: true},
	{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// edgeBatch builds n rows: time = start+i ms, tag = "d<i%3>" (null when
// i%7 == 0), v = i (null when i%5 == 0), s = "s<i>".
func edgeBatch(mem memory.Allocator, start int64, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, edgeSchema)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(start + int64(i)))
		db := b.Field(1).(*array.BinaryDictionaryBuilder)
		if i%7 == 0 {
			db.AppendNull()
		} else {
			_ = db.AppendString([]string{"d0", "d1", "d2"}[i%3])
		}
		if i%5 == 0 {
			b.Field(2).(*array.Int64Builder).AppendNull()
		} else {
			b.Field(2).(*array.Int64Builder).Append(int64(i))
		}
		b.Field(3).(*array.StringBuilder).Append("s" + strings.Repeat("x", i%20))
	}
	return b.NewRecordBatch()
}

// edgeTable is a hand-made table whose units serve batches of the given
// sizes (one unit per list), each unit then ending with errs[unit].
func edgeTable(mem memory.Allocator, id string, units [][]int, errs []error, released *atomic.Int64) *scanTable {
	return &scanTable{ID: id, Schema: edgeSchema, Units: func(ctx context.Context, cols []int, pd pushdown) ([]scanUnit, error) {
		var out []scanUnit
		for u, sizes := range units {
			out = append(out, func(ctx context.Context) (array.RecordReader, error) {
				var recs []arrow.RecordBatch
				for _, n := range sizes {
					recs = append(recs, edgeBatch(mem, int64(u)*1_000_000, n))
				}
				rd, err := array.NewRecordReader(edgeSchema, recs)
				for _, r := range recs {
					r.Release()
				}
				if err != nil {
					return nil, err
				}
				var e error
				if errs != nil {
					e = errs[u]
				}
				return &fakeReader{RecordReader: rd, err: e, released: released}, nil
			})
		}
		return out, nil
	}}
}

// naiveEdge is count(*), count(tag), count(v), sum(v), sum(len(s)) of the
// rows edgeTable serves.
func naiveEdge(units [][]int) (n, tags, vs, sumV, sumLen int64) {
	for _, sizes := range units {
		for _, k := range sizes {
			for i := range k {
				n++
				if i%7 != 0 {
					tags++
				}
				if i%5 != 0 {
					vs++
					sumV += int64(i)
				}
				sumLen += int64(1 + i%20)
			}
		}
	}
	return
}

func TestScanEdgeCases(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var released, opened atomic.Int64
	reg := newTestRegistry()
	_, conn := openScanDB(t, reg)
	ctx := context.Background()

	t.Run("rows", func(t *testing.T) {
		for _, tc := range []struct {
			name  string
			units [][]int
		}{
			{"no units", nil},
			{"units without batches", [][]int{{}, {}}},
			{"empty batches between", [][]int{{0, 3000, 0, 5, 0}, {0}, {2048, 2049, 1}}},
			{"one row", [][]int{{1}}},
			{"large batch", [][]int{{70000}}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				id := "edge-" + tc.name
				reg.add(edgeTable(mem, id, tc.units, nil, &released))
				var n, tags, vs, sumV, sumLen int64
				var nulls int64
				require.NoError(t, conn.QueryRowContext(ctx,
					"SELECT count(*), count(tag), count(v), coalesce(sum(v), 0)::BIGINT, coalesce(sum(length(s)), 0)::BIGINT, count(*) FILTER (WHERE v IS NULL) FROM tsfile_scan('"+id+"')").
					Scan(&n, &tags, &vs, &sumV, &sumLen, &nulls))
				wn, wtags, wvs, wsumV, wsumLen := naiveEdge(tc.units)
				require.Equal(t, []int64{wn, wtags, wvs, wsumV, wsumLen, wn - wvs}, []int64{n, tags, vs, sumV, sumLen, nulls})
				// A projection in another order, and a TAG group.
				var groups int64
				require.NoError(t, conn.QueryRowContext(ctx,
					"SELECT count(*) FROM (SELECT tag, count(v) FROM tsfile_scan('"+id+"') GROUP BY tag)").Scan(&groups))
				if wn > 0 {
					require.Equal(t, int64(min(wn, 4)), groups) // d0, d1, d2, NULL
				}
			})
		}
	})

	t.Run("errors", func(t *testing.T) {
		boom := errors.New("reading /data/x.tsfile: page at offset 1234: bad page\nsecond line")
		for _, tc := range []struct {
			name string
			tab  *scanTable
			q    string
			want string
		}{
			{"mid-stream", edgeTable(mem, "err-mid", [][]int{{100, 5000}, {3000, 3000}}, []error{nil, boom}, &released), "",
				`tsfile_scan("err-mid"): reading /data/x.tsfile: page at offset 1234: bad page; second line`},
			{"units", &scanTable{ID: "err-units", Schema: edgeSchema, Units: func(context.Context, []int, pushdown) ([]scanUnit, error) {
				return nil, errors.New("no such directory /data")
			}}, "", `tsfile_scan("err-units"): no such directory /data`},
			{"open", &scanTable{ID: "err-open", Schema: edgeSchema, Units: func(context.Context, []int, pushdown) ([]scanUnit, error) {
				return []scanUnit{func(context.Context) (array.RecordReader, error) {
					return nil, errors.New("open /data/y.tsfile: denied")
				}}, nil
			}}, "", `tsfile_scan("err-open"): open /data/y.tsfile: denied`},
			{"panic", &scanTable{ID: "err-panic", Schema: edgeSchema, Units: func(context.Context, []int, pushdown) ([]scanUnit, error) {
				panic("boom")
			}}, "", `tsfile_scan("err-panic"): internal error: boom`},
			{"panic in a unit", &scanTable{ID: "err-panic2", Schema: edgeSchema, Units: func(context.Context, []int, pushdown) ([]scanUnit, error) {
				return []scanUnit{func(context.Context) (array.RecordReader, error) { panic("boom2") }}, nil
			}}, "", `tsfile_scan("err-panic2"): internal error: boom2`},
			{"type", &scanTable{ID: "err-type", Schema: arrow.NewSchema([]arrow.Field{{Name: "u", Type: arrow.PrimitiveTypes.Uint8}}, nil)}, "",
				`column "u": Arrow type uint8 has no DuckDB mapping`},
			{"unknown id", nil, "SELECT * FROM tsfile_scan('nope')", `tsfile_scan: no table with id "nope"`},
			{"batch type", &scanTable{ID: "err-batch", Schema: arrow.NewSchema([]arrow.Field{{Name: "time", Type: arrow.PrimitiveTypes.Int64}}, nil),
				Units: edgeTable(mem, "", [][]int{{10}}, nil, &released).Units}, "",
				`a scan unit's column "time" is timestamp[ms, tz=UTC], the table says int64`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				q := tc.q
				if tc.tab != nil {
					reg.add(tc.tab)
					q = "SELECT count(*), sum(v) FROM tsfile_scan('" + tc.tab.ID + "')"
					if tc.tab.Schema != edgeSchema {
						q = "SELECT * FROM tsfile_scan('" + tc.tab.ID + "')"
					}
				}
				rows, err := conn.QueryContext(ctx, q)
				if err == nil {
					for rows.Next() {
					}
					err = rows.Err()
					rows.Close()
				}
				require.Error(t, err)
				// Our message is one line; DuckDB may add the query's
				// position on lines of its own after it.
				first, _, _ := strings.Cut(err.Error(), "\n")
				require.Contains(t, first, tc.want)
			})
		}
	})

	t.Run("timestamps", func(t *testing.T) {
		sch := arrow.NewSchema([]arrow.Field{{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true}}, nil)
		table := func(id string, vals []int64, valid []bool) *scanTable {
			return &scanTable{ID: id, Schema: sch, Units: func(context.Context, []int, pushdown) ([]scanUnit, error) {
				return []scanUnit{func(context.Context) (array.RecordReader, error) {
					b := array.NewTimestampBuilder(mem, sch.Field(0).Type.(*arrow.TimestampType))
					defer b.Release()
					for _, v := range vals {
						b.Append(arrow.Timestamp(v))
					}
					a := b.NewArray()
					defer a.Release()
					// Rebuild with the nulls where asked, keeping the values under them.
					bm := memory.NewResizableBuffer(mem)
					bm.Resize(int(arrow.Int64Traits.BytesRequired(len(vals))))
					defer bm.Release()
					nulls := 0
					for i := range vals {
						if valid[i] {
							bm.Bytes()[i/8] |= 1 << (i % 8)
						} else {
							nulls++
						}
					}
					d := array.NewData(a.DataType(), len(vals), []*memory.Buffer{bm, a.Data().Buffers()[1]}, nil, nulls, 0)
					defer d.Release()
					col := array.MakeFromData(d)
					defer col.Release()
					rec := array.NewRecordBatch(sch, []arrow.Array{col}, int64(len(vals)))
					defer rec.Release()
					return array.NewRecordReader(sch, []arrow.RecordBatch{rec})
				}}, nil
			}}
		}
		reg.add(table("ts-ok", []int64{-1, 0, 1_700_000_000_123, math.MaxInt64, math.MinInt64}, []bool{true, true, true, false, false}))
		var got []string
		rows, err := conn.QueryContext(ctx, "SELECT coalesce(epoch_ms(t)::VARCHAR, 'NULL') FROM tsfile_scan('ts-ok') ORDER BY ALL")
		require.NoError(t, err)
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			got = append(got, s)
		}
		require.NoError(t, rows.Err())
		rows.Close()
		require.Equal(t, []string{"-1", "0", "1700000000123", "NULL", "NULL"}, got)
		reg.add(table("ts-far", []int64{0, math.MaxInt64 / 100}, []bool{true, true}))
		err = conn.QueryRowContext(ctx, "SELECT count(t) FROM tsfile_scan('ts-far')").Scan(new(int64))
		require.ErrorContains(t, err, `column "t": time 92233720368547758 is beyond DuckDB's timestamp range`)
	})

	t.Run("utf8", func(t *testing.T) {
		sch := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "b", Type: arrow.BinaryTypes.Binary}}, nil)
		table := func(id string, vals []string) *scanTable {
			return &scanTable{ID: id, Schema: sch, Units: func(context.Context, []int, pushdown) ([]scanUnit, error) {
				return []scanUnit{func(context.Context) (array.RecordReader, error) {
					sb := array.NewStringBuilder(mem)
					bb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
					defer sb.Release()
					defer bb.Release()
					for _, v := range vals {
						sb.Append(v)
						bb.Append([]byte(v))
					}
					s, b := sb.NewArray(), bb.NewArray()
					defer s.Release()
					defer b.Release()
					rec := array.NewRecordBatch(sch, []arrow.Array{s, b}, int64(len(vals)))
					defer rec.Release()
					return array.NewRecordReader(sch, []arrow.RecordBatch{rec})
				}}, nil
			}}
		}
		// Each row alone is not UTF-8 though the bytes of both together are.
		reg.add(table("utf8-split", []string{"a\xc3", "\xa9b"}))
		err := conn.QueryRowContext(ctx, "SELECT count(s) FROM tsfile_scan('utf8-split')").Scan(new(int64))
		require.ErrorContains(t, err, `column "s": a value is not UTF-8`)
		var n int64
		require.NoError(t, conn.QueryRowContext(ctx, "SELECT sum(octet_length(b)) FROM tsfile_scan('utf8-split')").Scan(&n))
		require.Equal(t, int64(4), n, "BLOB takes any bytes")
		reg.add(table("utf8-ok", []string{"é", "", "日本語のテキストはとても長い", "a"}))
		var s string
		require.NoError(t, conn.QueryRowContext(ctx, "SELECT string_agg(s, '|' ORDER BY s) FROM tsfile_scan('utf8-ok')").Scan(&s))
		require.Equal(t, "|a|é|日本語のテキストはとても長い", s)
	})

	t.Run("interrupt", func(t *testing.T) {
		// The unit's reader blocks after its first batch until the
		// statement's ctx ends; canceling it must end the query and
		// release the reader.
		id := "slow"
		tab := edgeTable(mem, id, [][]int{{3000, 3000}}, nil, &released)
		blocked := make(chan struct{}, 1)
		units := tab.Units
		tab.Units = func(ctx context.Context, cols []int, pd pushdown) ([]scanUnit, error) {
			us, err := units(ctx, cols, pd)
			for i, u := range us {
				us[i] = func(ctx context.Context) (array.RecordReader, error) {
					rd, err := u(ctx)
					if err == nil {
						opened.Add(1)
						rd.(*fakeReader).wait = func() error {
							select {
							case blocked <- struct{}{}:
							default:
							}
							<-ctx.Done()
							return ctx.Err()
						}
					}
					return rd, err
				}
			}
			return us, err
		}
		reg.add(tab)
		before := released.Load()
		qctx, cancel := context.WithCancel(ctx)
		clear, err := setStatementPushdown(qctx, conn, nil)
		require.NoError(t, err)
		go func() {
			<-blocked
			cancel()
		}()
		rows, err := conn.QueryContext(qctx, "SELECT v FROM tsfile_scan('slow')")
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		cancel()
		clear()
		require.Error(t, err)
		require.Equal(t, before+opened.Load(), released.Load(), "every reader released")
	})
}

// TestScanPushdownHandOver checks that the pushdown set for a connection
// reaches the Units call of the scans bound on that connection, and only
// those, and only while it is set.
func TestScanPushdownHandOver(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var released atomic.Int64
	reg := newTestRegistry()
	db, conn := openScanDB(t, reg)
	ctx := context.Background()
	reg.add(edgeTable(mem, "a", [][]int{{10}}, nil, &released))
	reg.add(edgeTable(mem, "b", [][]int{{10}}, nil, &released))
	conn2, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn2.Close()
	last := func(id string) pushdown {
		reg.mu.Lock()
		defer reg.mu.Unlock()
		p := reg.pds[id]
		return p[len(p)-1]
	}
	count := func(c interface {
		QueryRowContext(context.Context, string, ...any) *sql.Row
	}, q string) {
		var n int64
		require.NoError(t, c.QueryRowContext(ctx, q).Scan(&n))
	}
	pa := pushdown{Start: 5, HasStart: true, Tags: map[string][]string{"tag": {"d1"}}, Limit: 7}
	pb := pushdown{Empty: true}
	clearPD, err := setStatementPushdown(ctx, conn, map[string]pushdown{"a": pa, "b": pb})
	require.NoError(t, err)
	count(conn, "SELECT count(*) FROM tsfile_scan('a') JOIN tsfile_scan('b') USING (time)")
	require.Equal(t, pa, last("a"))
	require.Equal(t, pb, last("b"))
	count(conn2, "SELECT count(*) FROM tsfile_scan('a')")
	require.Equal(t, pushdown{}, last("a"), "another connection's scans skip nothing")
	clearPD()
	count(conn, "SELECT count(*) FROM tsfile_scan('a')")
	require.Equal(t, pushdown{}, last("a"), "a cleared pushdown skips nothing")

	// sqlcore's hand-over: the pushdown in the context of the query call,
	// read from duckdb-go's context store at bind.
	qctx := withPushdown(ctx, map[string]pushdown{"a": pa})
	var n int64
	require.NoError(t, conn.QueryRowContext(qctx, "SELECT count(*) FROM tsfile_scan('a')").Scan(&n))
	require.Equal(t, pa, last("a"), "pushdownFor the query's context")
	count(conn, "SELECT count(*) FROM tsfile_scan('a')")
	require.Equal(t, pushdown{}, last("a"), "the next call's context holds none")

	// The driver-connection form, as QueryArrow calls it inside conn.Raw.
	require.NoError(t, conn.Raw(func(dc any) error {
		clearPD, err = setStatementPushdownDriver(ctx, dc, map[string]pushdown{"a": pa})
		return err
	}))
	count(conn, "SELECT count(*) FROM tsfile_scan('a')")
	require.Equal(t, pa, last("a"))
	clearPD()
}
