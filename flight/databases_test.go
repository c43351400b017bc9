package flight

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	arrowflight "github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tsarrow/tsarrow/dataset"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// twoDatabasesDir lays out table t in databases dbA and dbB of the data
// directory dir, both with device a at time 1000.
func twoDatabasesDir(t *testing.T, dir string) {
	for i, db := range []string{"dbA", "dbB"} {
		n := int64(i + 1)
		writeIoTDBFile(t, dir, "sequence", dataset.Name{Time: n, Version: n}, dsPoint{id: "a", time: 1000, s1: 10 * n}, dsPoint{id: "a", time: 1000 * (n + 1), s1: 100 * n})
		require.NoError(t, os.Rename(filepath.Join(dir, "sequence", "root.db"), filepath.Join(dir, "sequence", db)))
	}
}

// TestDatasetTwoDatabases: Flight never reads two databases as one table
// (it used to, dbB's row at time 1000 replacing dbA's): [t] is refused
// with the paths to ask for; [database, table], [dir, database, table] and
// a command's "database" pick one; ListFlights lists each.
func TestDatasetTwoDatabases(t *testing.T) {
	root := t.TempDir()
	twoDatabasesDir(t, root)
	srv := startServer(t, Options{Root: root})
	c := dial(t, srv.addr)

	_, err := c.GetFlightInfo(context.Background(), pathDesc("t"))
	assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	assert.Contains(t, status.Convert(err).Message(), `holds table "t" in several databases, which IoTDB never reads as one table: ask for ["dbA", "t"] or ["dbB", "t"]`)

	assert.Equal(t, []string{"a@1000=10", "a@2000=100"}, tRows(t, c, getInfo(t, c, pathDesc("dbA", "t"))))
	assert.Equal(t, []string{"a@1000=20", "a@3000=200"}, tRows(t, c, getInfo(t, c, cmdDesc(t, Query{Table: "t", Database: "dbB"}))))
	_, err = c.GetFlightInfo(context.Background(), cmdDesc(t, Query{Table: "t", Database: "dbC"}))
	assert.Equal(t, codes.NotFound, status.Code(err), "%v", err)

	stream, err := c.ListFlights(context.Background(), &arrowflight.Criteria{})
	require.NoError(t, err)
	var got [][]string
	for {
		fi, err := stream.Recv()
		if err != nil {
			break
		}
		got = append(got, fi.FlightDescriptor.Path)
		assert.Len(t, tRows(t, c, fi), 2, "%v", fi.FlightDescriptor.Path)
	}
	assert.Equal(t, [][]string{{"dbA", "t"}, {"dbB", "t"}}, got)

	// A data directory below the root: [dir, database, table].
	outer := t.TempDir()
	twoDatabasesDir(t, filepath.Join(outer, "iotdb"))
	srv = startServer(t, Options{Root: outer})
	c = dial(t, srv.addr)
	assert.Equal(t, []string{"a@1000=20", "a@3000=200"}, tRows(t, c, getInfo(t, c, pathDesc("iotdb", "dbB", "t"))))
	_, err = c.GetFlightInfo(context.Background(), pathDesc("iotdb", "t"))
	assert.Equal(t, codes.InvalidArgument, status.Code(err), "%v", err)
	assert.Contains(t, status.Convert(err).Message(), `ask for ["iotdb", "dbA", "t"] or ["iotdb", "dbB", "t"]`)
}
