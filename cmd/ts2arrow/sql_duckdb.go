//go:build cgo && duckdb_arrow

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2/mapping"
)

// sqlEngineBuilt: this build runs ts2arrow sql.
const sqlEngineBuilt = true

// sqlEngine is what ts2arrow sql needs of package query's *DB.
type sqlEngine interface {
	QueryArrow(ctx context.Context, query string, args ...any) (array.RecordReader, error)
	Close() error
}

// runSQLJob runs the statements of j.query in order, writing the result
// of each.
func runSQLJob(ctx context.Context, j *sqlJob) error {
	sp, err := newStatementSplitter()
	if err != nil {
		return err
	}
	defer sp.close()
	stmts, err := sp.split(j.query)
	if err != nil {
		return err
	}
	if len(stmts) > 1 && j.out != "" {
		return usagef("-o writes the result of one statement; the query has %d (run them one at a time)", len(stmts))
	}
	eng, err := openSQLInputs(ctx, j)
	if err != nil {
		return err
	}
	defer eng.Close()
	for k, st := range stmts {
		prefix := ""
		if len(stmts) > 1 {
			prefix = fmt.Sprintf("statement %d of %d: ", k+1, len(stmts))
		}
		if err := j.runStatement(ctx, eng, st, prefix); err != nil {
			return err
		}
	}
	return nil
}

// runStatement runs one statement and writes its result. An error of
// DuckDB (of the statement, or of reading its result) is a
// *sqlQueryError.
func (j *sqlJob) runStatement(ctx context.Context, eng sqlEngine, st sqlStatement, prefix string) error {
	started := time.Now()
	rdr, err := eng.QueryArrow(ctx, st.text)
	if err != nil {
		if ctx.Err() != nil {
			return interruptedBy(ctx)
		}
		return &sqlQueryError{prefix, st.line, err}
	}
	defer rdr.Release()
	cr := &ctxReader{RecordReader: rdr, ctx: ctx}
	_, err = j.writeResult(ctx, cr, started)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return interruptedBy(ctx)
		case cr.Err() != nil:
			// The writer passed the result's own error on.
			return &sqlQueryError{prefix, st.line, cr.Err()}
		}
	}
	return err
}

// statementSplitter cuts a query into its statements with DuckDB's own
// parser, on a connection of a database of its own (parsing needs no
// tables).
type statementSplitter struct {
	db   mapping.Database
	conn mapping.Connection
}

func newStatementSplitter() (*statementSplitter, error) {
	s := &statementSplitter{}
	if mapping.Open("", &s.db) == mapping.StateError {
		return nil, errors.New("cannot open a DuckDB database to parse the query")
	}
	if mapping.Connect(s.db, &s.conn) == mapping.StateError {
		mapping.Close(&s.db)
		return nil, errors.New("cannot connect to a DuckDB database to parse the query")
	}
	return s, nil
}

func (s *statementSplitter) close() {
	mapping.Disconnect(&s.conn)
	mapping.Close(&s.db)
}

// count returns how many statements DuckDB's parser finds in q, or false
// when q does not parse.
func (s *statementSplitter) count(q string) (int, bool) {
	var ex mapping.ExtractedStatements
	n := mapping.ExtractStatements(s.conn, q, &ex)
	defer mapping.DestroyExtracted(&ex)
	if n == 0 && mapping.ExtractStatementsError(ex) != "" {
		return 0, false
	}
	return int(n), true
}

// sqlStatement is one statement of a query: its text, from its first
// character that is not a blank, and the line of the query it starts on.
type sqlStatement struct {
	text string
	line int // 0 for the query's first line
}

// statementAt returns q[start:end] as a statement: DuckDB places the caret
// of an error of binding (an unknown table or column) as if the text began
// at its first token, so the blanks before it are left out, and the lines
// they held are counted in line instead.
func statementAt(q string, start, end int) sqlStatement {
	s := q[start:end]
	t := strings.TrimLeft(s, " \t\r\n")
	return sqlStatement{t, strings.Count(q[:start+len(s)-len(t)], "\n")}
}

// split returns the statements of q.
//
// DuckDB's C API counts the statements of a text but does not say where
// each one ends, so split asks it: a ; of q ends a statement when the
// text from the previous end up to it parses as exactly one statement and
// the rest of q as the statements left. A ; inside a string, a quoted
// name or a comment fails one of the two (an unclosed quote, a statement
// too many), so no SQL is parsed here by hand. A query that does not
// parse at all is returned whole, for DuckDB to report its error with
// its position.
func (s *statementSplitter) split(q string) ([]sqlStatement, error) {
	if strings.ContainsRune(q, 0) {
		return nil, usagef("the query holds a NUL byte")
	}
	n, ok := s.count(q)
	switch {
	case !ok || n == 1:
		return []sqlStatement{statementAt(q, 0, len(q))}, nil
	case n == 0:
		return nil, usagef("the query holds no statement, only blanks or comments")
	}
	var out []sqlStatement
	start := 0
	for i := 0; i < len(q) && len(out) < n-1; i++ {
		if q[i] != ';' {
			continue
		}
		if c, ok := s.count(q[start : i+1]); !ok || c != 1 {
			continue
		}
		if c, ok := s.count(q[i+1:]); !ok || c != n-len(out)-1 {
			continue
		}
		out = append(out, statementAt(q, start, i+1))
		start = i + 1
	}
	if len(out) != n-1 {
		return nil, fmt.Errorf("cannot tell where the %d statements of the query end; run them one at a time", n)
	}
	return append(out, statementAt(q, start, len(q))), nil
}

// runSQLPrompt reads statements at a prompt until .quit or the end of
// standard input, printing each result as a table. An error is printed
// and the prompt goes on; Ctrl-C stops the statement running, and at the
// prompt ends the session (exit status 130).
func runSQLPrompt(j *sqlJob) error {
	sp, err := newStatementSplitter()
	if err != nil {
		return err
	}
	defer sp.close()
	eng, err := openSQLInputs(context.Background(), j)
	if err != nil {
		return err
	}
	defer eng.Close()

	var mu sync.Mutex
	var cancel context.CancelCauseFunc
	sigs := make(chan os.Signal, 1)
	notifyStop(sigs)
	defer signal.Stop(sigs)
	go func() {
		for s := range sigs {
			mu.Lock()
			c := cancel
			mu.Unlock()
			if c == nil {
				fmt.Fprintln(j.stderr)
				os.Exit((&interruptError{s}).exitCode())
			}
			c(&interruptError{s})
		}
	}()
	run := func(text string) {
		stmts, err := sp.split(text)
		if err != nil {
			report(err, j.stderr)
			return
		}
		for k, st := range stmts {
			ctx, c := context.WithCancelCause(context.Background())
			mu.Lock()
			cancel = c
			mu.Unlock()
			prefix := ""
			if len(stmts) > 1 {
				prefix = fmt.Sprintf("statement %d of %d: ", k+1, len(stmts))
			}
			err := j.runStatement(ctx, eng, st, prefix)
			mu.Lock()
			cancel = nil
			mu.Unlock()
			c(nil)
			if err != nil {
				report(err, j.stderr)
				return
			}
		}
	}
	in := bufio.NewReader(sqlStdin)
	fmt.Fprintln(j.stdout, "Enter SQL statements ending with ;  .tables lists the tables, .schema T describes one, .quit ends.")
	var buf strings.Builder
	for {
		if buf.Len() == 0 {
			io.WriteString(j.stdout, "ts2arrow> ")
		} else {
			io.WriteString(j.stdout, "      ...> ")
		}
		line, rerr := in.ReadString('\n')
		if rerr != nil && line == "" {
			fmt.Fprintln(j.stdout)
			return nil
		}
		if buf.Len() == 0 {
			cmd := strings.Fields(line)
			if len(cmd) > 0 && strings.HasPrefix(cmd[0], ".") {
				switch {
				case cmd[0] == ".quit" || cmd[0] == ".exit":
					return nil
				case cmd[0] == ".tables":
					run("SHOW ALL TABLES")
				case cmd[0] == ".schema" && len(cmd) == 2:
					run("DESCRIBE " + cmd[1])
				default:
					fmt.Fprintln(j.stderr, "ts2arrow: the commands are .tables, .schema TABLE and .quit; SQL statements end with ;")
				}
				continue
			}
		}
		buf.WriteString(line)
		text := buf.String()
		if t := strings.TrimSpace(text); t == "" {
			buf.Reset()
			continue
		} else if !strings.HasSuffix(t, ";") {
			continue
		}
		if _, ok := sp.count(text); !ok && unfinished(sp, text) {
			continue // a ; inside a string or comment: read on
		}
		buf.Reset()
		run(text)
	}
}

// unfinished reports whether text fails to parse only because more is to
// come: the same text closed with a quote or comment end parses. It asks
// DuckDB, as split does.
func unfinished(sp *statementSplitter, text string) bool {
	for _, end := range []string{"'", "\"", "*/", "$$"} {
		if _, ok := sp.count(text + end); ok {
			return true
		}
	}
	return false
}
