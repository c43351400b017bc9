//go:build cgo && duckdb_arrow

package sqlbench

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tsarrow/tsarrow/flight"
	"github.com/tsarrow/tsarrow/query"
)

// The flight package's Flight SQL service (flight.Options.SQL) for
// BenchmarkSQLFlight: a flight.Server whose Flight SQL engine is db,
// listening on 127.0.0.1. Its root, which the plain Flight service needs,
// holds only a hard link to the generated file (not a copy: the file is
// hundreds of MB at full size), as BenchmarkFlightDoGet's does.
func init() {
	serveFlightSQL = func(b *testing.B, db *query.DB, path string) string {
		b.Helper()
		root, err := os.MkdirTemp(filepath.Dir(path), "flightsql-root-")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(root) })
		if err := os.Link(path, filepath.Join(root, filepath.Base(path))); err != nil {
			b.Fatal(err)
		}
		srv, err := flight.NewServer(flight.Options{
			Root: root, Rescan: -1, SQL: db,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		})
		if err != nil {
			b.Fatal(err)
		}
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- srv.Serve(lis) }()
		b.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			srv.Shutdown(ctx)
			<-done
		})
		return lis.Addr().String()
	}
}
