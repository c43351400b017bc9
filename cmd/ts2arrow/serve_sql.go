//go:build cgo && duckdb_arrow

package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

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
	o := &query.Options{Dataset: dso, Raw: raw, TimeUnit: unit, MemoryLimit: memoryLimit, Confine: true,
		Warn: func(msg string) { log.Warn(msg) }}
	if ropts != nil {
		o.Read = *ropts
	}
	r := &reloadingDB{root: root, log: log, rescan: rescan, stop: make(chan struct{}), done: make(chan struct{}),
		open: func(ctx context.Context, inputs []string) (*query.DB, error) { return query.Open(ctx, inputs, o) }}
	return r, r, nil
}

// startSQLEngine resolves the tables of an engine openSQLEngine made,
// once the Flight server has scanned the root: when the root as a whole
// does not open (a file that cannot be read, which plain Flight leaves
// out with a warning), the files the server serves are tried instead;
// when neither opens (a root without tables yet), Flight SQL answers
// FAILED_PRECONDITION until a rescan finds tables.
func startSQLEngine(eng flight.SQLEngine, served func() []string) {
	r, ok := eng.(*reloadingDB)
	if !ok {
		return
	}
	r.served = served
	r.started = true
	r.sig = rootSignature(r.root)
	r.load()
	if r.rescan > 0 {
		go r.watch(r.rescan)
	} else {
		close(r.done)
	}
}

// load opens the root's tables and makes them current.
func (r *reloadingDB) load() {
	db, err := r.open(context.Background(), []string{r.root})
	if err != nil && r.served != nil {
		if files := r.served(); len(files) > 0 {
			var err2 error
			if db, err2 = r.open(context.Background(), files); err2 == nil {
				// Plain Flight has warned of each file it leaves out.
				r.log.Info("Flight SQL serves the readable files only: the root as a whole does not open", "error", err)
				err = nil
			}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		// A root without files (one DoPut fills) is no surprise.
		level := slog.LevelWarn
		if r.sig == emptySignature {
			level = slog.LevelInfo
		}
		r.log.Log(context.Background(), level, "Flight SQL has no tables to serve yet", "error", err)
		r.openErr = err
		return
	}
	old := r.cur
	r.cur, r.openErr = &dbRef{db: db}, nil
	if old != nil {
		old.retired = true
		if old.refs == 0 {
			old.db.Close()
		}
	}
}

// reloadingDB is a query.DB that is opened again when the root changes.
type reloadingDB struct {
	root   string
	log    *slog.Logger
	rescan time.Duration
	open   func(context.Context, []string) (*query.DB, error)
	served func() []string // the files plain Flight serves, as paths
	sig    [32]byte        // of the root when cur was opened

	mu      sync.Mutex
	cur     *dbRef // nil until tables open
	openErr error  // why they did not

	stop, done chan struct{}
	started    bool // startSQLEngine ran: done closes
	closeOnce  sync.Once
}

// dbRef counts the statements using one DB, which is closed once it is
// replaced and the last of them is done.
type dbRef struct {
	db      *query.DB
	refs    int
	retired bool
}

func (r *reloadingDB) acquire() (*dbRef, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		return nil, status.Errorf(codes.FailedPrecondition, "the server has no SQL tables (%v); add TsFiles under the root, which the next rescan picks up", r.openErr)
	}
	r.cur.refs++
	return r.cur, nil
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
	ref, err := r.acquire()
	if err != nil {
		return nil, err
	}
	rdr, err := ref.db.QueryArrow(ctx, q, args...)
	if err != nil {
		r.release(ref)
		return nil, err
	}
	return &refReader{RecordReader: rdr, done: func() { r.release(ref) }}, nil
}

// NumInput prepares q on the current tables to count its parameters
// (Flight SQL's CreatePreparedStatement).
func (r *reloadingDB) NumInput(ctx context.Context, q string) (int, error) {
	ref, err := r.acquire()
	if err != nil {
		return 0, err
	}
	defer r.release(ref)
	return ref.db.NumInput(ctx, q)
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
		r.sig = sig
		r.load()
		r.mu.Lock()
		if r.cur != nil && r.openErr == nil {
			r.log.Info("the root changed: SQL tables resolved again", "tables", len(r.cur.db.Tables()))
		}
		r.mu.Unlock()
	}
}

// Close stops the watch and closes the current DB.
func (r *reloadingDB) Close() error {
	r.closeOnce.Do(func() { close(r.stop) })
	if r.started {
		<-r.done
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		return nil
	}
	r.cur.retired = true
	if r.cur.refs == 0 {
		return r.cur.db.Close()
	}
	return nil
}

// emptySignature is rootSignature's of a root holding no file.
var emptySignature = sha256.Sum256(nil)

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
