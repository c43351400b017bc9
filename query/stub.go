//go:build !(cgo && duckdb_arrow)

package query

import (
	"context"
	"database/sql"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// DB is a DuckDB database with the tables of some inputs registered. This
// build has no SQL engine: every method returns ErrNoSQL.
type DB struct{}

// Open returns ErrNoSQL in this build.
func Open(ctx context.Context, inputs []string, opts *Options) (*DB, error) { return nil, ErrNoSQL }

// Register returns ErrNoSQL in this build.
func Register(ctx context.Context, conn *sql.Conn, inputs []string, opts *Options) (*DB, error) {
	return nil, ErrNoSQL
}

// Tables returns nil in this build.
func (db *DB) Tables() []Table { return nil }

// SQL returns nil in this build.
func (db *DB) SQL() *sql.DB { return nil }

// Conn returns ErrNoSQL in this build.
func (db *DB) Conn(ctx context.Context) (*sql.Conn, error) { return nil, ErrNoSQL }

// NumInput returns ErrNoSQL in this build.
func (db *DB) NumInput(ctx context.Context, query string) (int, error) { return 0, ErrNoSQL }

// QueryArrow returns ErrNoSQL in this build.
func (db *DB) QueryArrow(ctx context.Context, query string, args ...any) (array.RecordReader, error) {
	return nil, ErrNoSQL
}

// Stats returns zero counts in this build.
func (db *DB) Stats() ScanStats { return ScanStats{} }

// Close does nothing in this build.
func (db *DB) Close() error { return nil }
