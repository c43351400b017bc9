//go:build cgo && duckdb_arrow

package main

// PLACEHOLDER until package query (branch sqlcore) is merged: a DuckDB
// database without the inputs' tables, so that the command, its output and
// its errors can be built and tested. On merging sqlcore, openSQLEngine
// becomes query.Open with the job's options.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
)

type placeholderEngine struct {
	db   *sql.DB
	conn *sql.Conn
}

func openSQLEngine(ctx context.Context, j *sqlJob) (sqlEngine, error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	if j.threads > 0 {
		if _, err := conn.ExecContext(ctx, fmt.Sprintf("SET threads = %d", j.threads)); err != nil {
			db.Close()
			return nil, err
		}
	}
	return &placeholderEngine{db, conn}, nil
}

func (e *placeholderEngine) QueryArrow(ctx context.Context, q string, args ...any) (array.RecordReader, error) {
	var rdr array.RecordReader
	err := e.conn.Raw(func(dc any) error {
		a, err := duckdb.NewArrowFromConn(dc.(driver.Conn))
		if err != nil {
			return err
		}
		rdr, err = a.QueryContext(ctx, q, args...)
		return err
	})
	return rdr, err
}

func (e *placeholderEngine) Close() error {
	e.conn.Close()
	return e.db.Close()
}
