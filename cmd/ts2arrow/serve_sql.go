//go:build cgo && duckdb_arrow

package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/flight"
	"github.com/tsarrow/tsarrow/query"
	"github.com/tsarrow/tsarrow/tsfile"
)

// openSQLEngine opens the engine serve's Flight SQL runs on: DuckDB with
// the root's tables, resolved as the sql command resolves its inputs.
// DuckDB's own memory (its memory_limit) is bounded by the server's
// budget, apart from the streams' reservations. Every rescan interval the
// root is walked, and when a file under it was added, removed or changed
// (size, modification time) the tables are resolved again: statements
// running go on with the tables they started with.
func openSQLEngine(ctx context.Context, root string, ropts *tsfile.ReadOptions, dso dataset.Options, raw bool, unit arrowconv.TimeUnit, memoryLimit int64, rescan time.Duration, log *slog.Logger) (flight.SQLEngine, io.Closer, error) {
	o := &query.Options{Dataset: dso, Raw: raw, TimeUnit: unit, MemoryLimit: memoryLimit,
		Warn: func(msg string) { log.Warn(msg) }}
	if ropts != nil {
		o.Read = *ropts
	}
	r := &reloadingDB{root: root, log: log, stop: make(chan struct{}), done: make(chan struct{}),
		open: func(ctx context.Context) (*query.DB, error) { return query.Open(ctx, []string{root}, o) }}
	r.sig = rootSignature(root)
	db, err := r.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	r.cur = &dbRef{db: db}
	if rescan > 0 {
		go r.watch(rescan)
	} else {
		close(r.done)
	}
	return r, r, nil
}

// reloadingDB is a query.DB that is opened again when the root changes.
type reloadingDB struct {
	root string
	log  *slog.Logger
	open func(context.Context) (*query.DB, error)
	sig  [32]byte // of the root when cur was opened

	mu  sync.Mutex
	cur *dbRef

	stop, done chan struct{}
	closeOnce  sync.Once
}

// dbRef counts the statements using one DB, which is closed once it is
// replaced and the last of them is done.
type dbRef struct {
	db      *query.DB
	refs    int
	retired bool
}

func (r *reloadingDB) acquire() *dbRef {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur.refs++
	return r.cur
}

func (r *reloadingDB) release(ref *dbRef) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ref.refs--; ref.refs == 0 && ref.retired {
		ref.db.Close()
	}
}

// QueryArrow runs q on the current tables (flight.SQLEngine).
func (r *reloadingDB) QueryArrow(ctx context.Context, q string, args ...any) (array.RecordReader, error) {
	ref := r.acquire()
	rdr, err := ref.db.QueryArrow(ctx, q, args...)
	if err != nil {
		r.release(ref)
		return nil, err
	}
	return &refReader{RecordReader: rdr, done: func() { r.release(ref) }}, nil
}

// SQL is the current DuckDB database, which Flight SQL only prepares
// statements on to count their parameters.
func (r *reloadingDB) SQL() *sql.DB {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur.db.SQL()
}

// refReader gives its DB back when released.
type refReader struct {
	array.RecordReader
	once sync.Once
	done func()
}

func (rr *refReader) Release() {
	rr.RecordReader.Release()
	rr.once.Do(rr.done)
}

func (r *reloadingDB) watch(every time.Duration) {
	defer close(r.done)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		sig := rootSignature(r.root)
		if sig == r.sig {
			continue
		}
		db, err := r.open(context.Background())
		if err != nil {
			r.log.Error("resolving the SQL tables again after the root changed", "error", err)
			continue
		}
		r.sig = sig
		r.mu.Lock()
		old := r.cur
		r.cur = &dbRef{db: db}
		old.retired = true
		if old.refs == 0 {
			old.db.Close()
		}
		r.mu.Unlock()
		r.log.Info("the root changed: SQL tables resolved again", "tables", len(db.Tables()))
	}
}

// Close stops the watch and closes the current DB.
func (r *reloadingDB) Close() error {
	r.closeOnce.Do(func() { close(r.stop) })
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur.retired = true
	if r.cur.refs == 0 {
		return r.cur.db.Close()
	}
	return nil
}

// rootSignature digests the path, size and modification time of every
// file under root (names starting with "." skipped, as serve skips them).
func rootSignature(root string) [32]byte {
	h := sha256.New()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(h, "error %s %v\n", p, err)
			return nil
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				fmt.Fprintf(h, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
			}
		}
		return nil
	})
	var s [32]byte
	h.Sum(s[:0])
	return s
}
