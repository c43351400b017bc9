package main

// "ts2arrow serve" over an IoTDB data directory: its tables are served
// resolved, and tickets are bound to the versions of its files.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// serveDSFile writes one data file of table t (TAG id, FIELD s1) with its
// .resource under dir/space/root.db/1/0 and returns its path. rows are
// (id, time, s1) triples.
func serveDSFile(t *testing.T, dir, space string, name dataset.Name, rows ...[3]any) string {
	t.Helper()
	folder := filepath.Join(dir, space, "root.db", "1", "0")
	require.NoError(t, os.MkdirAll(folder, 0o755))
	path := filepath.Join(folder, name.String())
	var out bytes.Buffer
	w, err := tsfile.NewWriter(&out, nil)
	require.NoError(t, err)
	require.NoError(t, w.RegisterTable(tsfile.TableSchema{Name: "t", Columns: []tsfile.Column{
		{Name: "id", DataType: tsfile.String, Category: tsfile.Tag},
		{Name: "s1", DataType: tsfile.Int64, Category: tsfile.Field},
	}}))
	res := &dataset.Resource{IndexType: dataset.IndexArray}
	var ids []string
	for _, r := range rows {
		if !slices.Contains(ids, r[0].(string)) {
			ids = append(ids, r[0].(string))
		}
	}
	for _, id := range ids {
		var times, vals []int64
		for _, r := range rows {
			if r[0] == id {
				times, vals = append(times, int64(r[1].(int))), append(vals, int64(r[2].(int)))
			}
		}
		dev := tsfile.NewDeviceID("t", id)
		require.NoError(t, w.WriteAligned(dev, times, []tsfile.AlignedColumn{{
			SeriesSchema: tsfile.SeriesSchema{Name: "s1", DataType: tsfile.Int64},
			Values:       tsfile.Values{Type: tsfile.Int64, Int64s: vals, Null: make([]bool, len(vals))},
		}}))
		res.Devices = append(res.Devices, dataset.DeviceTimes{Device: dev, Start: slices.Min(times), End: slices.Max(times)})
	}
	require.NoError(t, w.Close())
	require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644))
	b, err := res.AppendBinary(nil)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path+dataset.ResourceSuffix, b, 0o644))
	return path
}

// serveDSDelete appends a deletion of table t's rows in [start, end] to
// the .mods2 of a data file, as a DELETE on IoTDB 2.x does.
func serveDSDelete(t *testing.T, data string, start, end int64) {
	t.Helper()
	b, err := dataset.AppendModsV2(nil, dataset.Deletion{Kind: dataset.TableDeletion, Table: "t", Start: start, End: end})
	require.NoError(t, err)
	f, err := os.OpenFile(data+dataset.ModsV2Suffix, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	_, err = f.Write(b)
	require.NoError(t, errors.Join(err, f.Close()))
}

func TestServeDataDirectory(t *testing.T) {
	dir := t.TempDir()
	seq := serveDSFile(t, dir, "sequence", dataset.Name{Time: 1, Version: 1},
		[3]any{"a", 1000, 10}, [3]any{"a", 2000, 20}, [3]any{"a", 3000, 30})
	serveDSFile(t, dir, "unsequence", dataset.Name{Time: 2, Version: 2}, [3]any{"a", 2000, 200})
	serveDSDelete(t, seq, 3000, 3000)

	p := startServe(t, nil, "--root", dir, "--addr", "127.0.0.1:0", "--rescan", "0")
	require.Contains(t, p.stderr.String(), "files=0 unreadable=0 data_dirs=1")
	require.Regexp(t, `level=INFO msg="data directory served as resolved tables" dir=\. tables=t rules=".*unsequence over sequence.*deletion`, p.stderr.String())

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := dialFlight(t, p.addr)
	ls, err := c.ListFlights(ctx, &arrowflight.Criteria{})
	require.NoError(t, err)
	var paths []string
	for {
		fi, err := ls.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		paths = append(paths, strings.Join(fi.FlightDescriptor.Path, "/"))
	}
	require.Equal(t, []string{"t"}, paths, "the resolved table, not the files")

	fi, err := c.GetFlightInfo(ctx, &arrowflight.FlightDescriptor{Type: arrowflight.DescriptorPATH, Path: []string{"t"}})
	require.NoError(t, err)
	got, _ := readEndpoints(t, ctx, c, fi)
	require.Len(t, got, 2, "the overwritten point once, the deleted one not at all: %q", got)
	require.True(t, strings.HasSuffix(got[0], "|a|10"), "%q", got)
	require.True(t, strings.HasSuffix(got[1], "|a|200"), "%q", got)

	// A DELETE recorded after planning: the ticket no longer holds.
	serveDSDelete(t, seq, 1000, 1000)
	s, err := c.DoGet(ctx, fi.Endpoint[0].Ticket)
	require.NoError(t, err)
	_, err = s.Recv()
	require.Equal(t, codes.FailedPrecondition, status.Code(err), "%v", err)
	require.Contains(t, status.Convert(err).Message(), "call GetFlightInfo again")

	require.Equal(t, 0, p.stop(t, syscall.SIGTERM), p.stderr.String())
}

func TestServeInsideDataDirectoryWarns(t *testing.T) {
	dir := t.TempDir()
	serveDSFile(t, dir, "sequence", dataset.Name{Time: 1, Version: 1}, [3]any{"a", 1000, 10})
	p := startServe(t, nil, "--root", filepath.Join(dir, "sequence"), "--addr", "127.0.0.1:0", "--rescan", "0")
	require.Contains(t, p.stderr.String(), "the root lies inside an IoTDB data directory")
	require.Contains(t, p.stderr.String(), "files=1 unreadable=0 data_dirs=0")
	require.Equal(t, 0, p.stop(t, syscall.SIGTERM), p.stderr.String())
}

func TestServeDataDirectoryRaw(t *testing.T) {
	dir := t.TempDir()
	serveDSFile(t, dir, "sequence", dataset.Name{Time: 1, Version: 1}, [3]any{"a", 1000, 10})
	serveDSFile(t, dir, "unsequence", dataset.Name{Time: 2, Version: 2}, [3]any{"a", 1000, 100})
	p := startServe(t, nil, "--root", dir, "--addr", "127.0.0.1:0", "--rescan", "0", "--raw")
	require.Contains(t, p.stderr.String(), "files=2 unreadable=0 data_dirs=0")
	require.Equal(t, 0, p.stop(t, syscall.SIGTERM), p.stderr.String())
}
