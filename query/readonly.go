//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// parser is a connection to an empty in-memory DuckDB used only to split a
// query into statements with DuckDB's own parser (duckdb_extract_statements):
// preparing a query of several statements through duckdb-go runs all but
// the last, so the count must be known before anything is prepared.
var parser struct {
	once sync.Once
	mu   sync.Mutex
	db   mapping.Database
	conn mapping.Connection
	err  error
}

// countStatements returns how many statements DuckDB's parser finds in q,
// or its syntax error.
func countStatements(q string) (int, error) {
	parser.once.Do(func() {
		if mapping.Open("", &parser.db) == mapping.StateError {
			parser.err = errors.New("query: cannot open DuckDB's parser")
			return
		}
		if mapping.Connect(parser.db, &parser.conn) == mapping.StateError {
			parser.err = errors.New("query: cannot connect DuckDB's parser")
		}
	})
	if parser.err != nil {
		return 0, parser.err
	}
	parser.mu.Lock()
	defer parser.mu.Unlock()
	var stmts mapping.ExtractedStatements
	n := mapping.ExtractStatements(parser.conn, q, &stmts)
	defer mapping.DestroyExtracted(&stmts)
	if n == 0 {
		if msg := mapping.ExtractStatementsError(stmts); msg != "" {
			return 0, errors.New(msg)
		}
		return 0, nil
	}
	return int(n), nil
}

// tableInfoColumns are the columns of PRAGMA table_info's result.
var tableInfoColumns = []string{"cid", "name", "type", "notnull", "dflt_value", "pk"}

// checkReadOnly refuses a query that is not exactly one read statement:
// SELECT (with WITH, VALUES, SHOW, DESCRIBE, which DuckDB prepares as
// SELECT), EXPLAIN, or a
// PRAGMA whose result is table_info's. DuckDB's parser and binder decide
// (the prepared statement's type and result columns), never a hand parser.
func checkReadOnly(ctx context.Context, conn *sql.Conn, q string) error {
	n, err := countStatements(q)
	if err != nil {
		return err
	}
	if n != 1 {
		return fmt.Errorf("%w: the query holds %d statements; send one at a time", ErrReadOnly, n)
	}
	return conn.Raw(func(dc any) error {
		st, err := dc.(*duckdb.Conn).PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		defer st.Close()
		s := st.(*duckdb.Stmt)
		typ, err := s.StatementType()
		if err != nil {
			return err
		}
		var cols []string
		if k, err := s.ColumnCount(); err == nil {
			for i := range k {
				c, _ := s.ColumnName(i)
				cols = append(cols, c)
			}
		}
		switch typ {
		case duckdb.STATEMENT_TYPE_SELECT:
			return nil
		case duckdb.STATEMENT_TYPE_EXPLAIN:
			// EXPLAIN ANALYZE runs its statement, and neither the
			// prepared statement's type nor its columns tell EXPLAIN
			// ANALYZE CREATE ... from EXPLAIN ANALYZE SELECT: QueryArrow
			// runs it in a read-only transaction, where DuckDB refuses a
			// write to the catalog. TODO: EXPLAIN ANALYZE COPY ... TO
			// 'file' still writes its file.
			return nil
		case duckdb.STATEMENT_TYPE_PRAGMA:
			if slices.Equal(cols, tableInfoColumns) {
				return nil
			}
		}
		return fmt.Errorf("%w (SELECT, WITH, VALUES, SHOW, DESCRIBE, EXPLAIN, PRAGMA table_info); this statement is of type %s", ErrReadOnly, stmtTypeName(typ))
	})
}

// stmtTypeName names a statement type in an error.
func stmtTypeName(t duckdb.StmtType) string {
	names := map[duckdb.StmtType]string{
		duckdb.STATEMENT_TYPE_INSERT: "INSERT", duckdb.STATEMENT_TYPE_UPDATE: "UPDATE", duckdb.STATEMENT_TYPE_DELETE: "DELETE",
		duckdb.STATEMENT_TYPE_CREATE: "CREATE", duckdb.STATEMENT_TYPE_DROP: "DROP", duckdb.STATEMENT_TYPE_ALTER: "ALTER",
		duckdb.STATEMENT_TYPE_COPY: "COPY", duckdb.STATEMENT_TYPE_ATTACH: "ATTACH", duckdb.STATEMENT_TYPE_DETACH: "DETACH",
		duckdb.STATEMENT_TYPE_SET: "SET", duckdb.STATEMENT_TYPE_VARIABLE_SET: "SET VARIABLE", duckdb.STATEMENT_TYPE_PRAGMA: "PRAGMA",
		duckdb.STATEMENT_TYPE_LOAD: "LOAD", duckdb.STATEMENT_TYPE_EXPORT: "EXPORT", duckdb.STATEMENT_TYPE_TRANSACTION: "TRANSACTION",
		duckdb.STATEMENT_TYPE_CALL: "CALL", duckdb.STATEMENT_TYPE_CREATE_FUNC: "CREATE FUNCTION", duckdb.STATEMENT_TYPE_EXPLAIN: "EXPLAIN",
		duckdb.STATEMENT_TYPE_VACUUM: "VACUUM", duckdb.STATEMENT_TYPE_ANALYZE: "ANALYZE", duckdb.STATEMENT_TYPE_PREPARE: "PREPARE",
		duckdb.STATEMENT_TYPE_EXECUTE: "EXECUTE",
	}
	if s, ok := names[t]; ok {
		return s
	}
	return fmt.Sprintf("#%d", t)
}
