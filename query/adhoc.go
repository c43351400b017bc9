//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/duckdb/duckdb-go/v2"
)

// registerScan registers tsfile_scan(id VARCHAR) on conn's database,
// reading the tables of the registry; rows counts the rows it hands to
// DuckDB.
func registerScan(conn *sql.Conn, rows *atomic.Int64) error {
	return ignoreExists(registerFastScan(conn, func(id string) (*scanTable, bool) {
		t, err := lookupTable(id)
		return t, err == nil
	}, rows))
}

// ignoreExists drops the error of registering a function a database
// already has (a second Register on the same DuckDB database).
func ignoreExists(err error) error {
	if err != nil && strings.Contains(err.Error(), "already exists") {
		return nil
	}
	return err
}

// tsfileID is the scalar function tsfile_id(path, table): it resolves
// the input as tsfile() names it (db.adhoc) and returns the id its
// tsfile_scan reads. DuckDB folds it while binding tsfile_scan's
// argument (a table function takes constants only, and a non-volatile
// function of constants is one), so tsfile() and `FROM 'x.tsfile'` read
// through the same fast scan as the registered tables.
type tsfileID struct{ db *DB }

func (f tsfileID) Config() duckdb.ScalarFuncConfig {
	varchar, _ := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	return duckdb.ScalarFuncConfig{
		InputTypeInfos: []duckdb.TypeInfo{varchar, varchar},
		ResultTypeInfo: varchar,
	}
}

func (f tsfileID) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowContextExecutor: func(ctx context.Context, v []driver.Value) (any, error) {
		path, _ := v[0].(string)
		table, _ := v[1].(string)
		if path == "" {
			return nil, errors.New("tsfile: the path is empty")
		}
		t, err := f.db.adhoc(ctx, path, table)
		if err != nil {
			return nil, err
		}
		return t.ID, nil
	}}
}

// registerTsfileFunc registers tsfile(path, "table" := NAME) on conn's
// database: path is a file, directory, glob or URL, resolved by db as
// Open resolves inputs. tsfile is a table macro (a macro's parameter
// takes a default, where duckdb-go fails the bind of a table function
// whose named argument the call leaves out) over
// tsfile_scan(tsfile_id(path, table)).
func registerTsfileFunc(ctx context.Context, conn *sql.Conn, db *DB) error {
	if err := ignoreExists(duckdb.RegisterScalarUDF(conn, "tsfile_id", tsfileID{db})); err != nil {
		return err
	}
	_, err := conn.ExecContext(ctx, `CREATE OR REPLACE MACRO tsfile(path, "table" := '') AS TABLE SELECT * FROM `+scanFunction+`(tsfile_id(path, "table"))`)
	return err
}
