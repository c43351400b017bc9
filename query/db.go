//go:build cgo && duckdb_arrow

package query

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"
)

// DB is a DuckDB database with the tables of some inputs registered as
// views. It is safe for concurrent use.
type DB struct {
	db   *sql.DB   // Open's own database; nil after Register
	user *sql.Conn // Register's connection; nil after Open
	mu   sync.Mutex

	opts   Options
	tables []Table
	metas  []tableMeta
	ids    []string
	views  []string // the views register created, qualified and quoted
	stats  *counters
	res    *resolver

	adhocMu sync.Mutex
	adhocs  map[string]*scanTable // tsfile(path, table) resolved, by path and table
	closed  bool

	plan planCache
}

// planCache keeps the catalog snapshot pushdown planning reads (see
// pdCatalog): reading duckdb_functions() alone costs tens of ms a
// statement, more than a time window's whole scan.
type planCache struct {
	mu       sync.Mutex
	handed   bool       // SQL or Conn was called: the user may change the catalog
	explains int        // EXPLAIN statements running: EXPLAIN ANALYZE runs what it explains
	cat      *pdCatalog // nil until read
	// plans are the pushdowns planned with cat, by statement text: with
	// the catalog and the settings fixed (a pool connection's TimeZone is
	// UTC, and SET is refused) and only CONSISTENT functions evaluated, a
	// statement's pushdown depends on its text alone (parameters are
	// never pushed). Dropped with cat.
	plans map[string]map[string]pushdown
	gen   uint64 // bumped whenever cat is dropped, so that a plan made with an older one is not kept
}

// maxPlans bounds planCache.plans; when full it starts again.
const maxPlans = 256

// drop forgets the snapshot and the plans made with it; c.mu is held.
func (c *planCache) drop() {
	c.cat, c.plans = nil, nil
	c.gen++
}

// Open resolves inputs as `ts2arrow convert` does (files, directories,
// globs, http(s) URLs, IoTDB data directories) and opens an in-memory
// DuckDB with every table registered as a view: a table-model table of an
// IoTDB database as "database"."table" (and as "table" in main when no
// other database holds that name), every other table in main. The session
// time zone is UTC. `SELECT * FROM 'x.tsfile'` and `tsfile(path, "table"
// := 'name')` read inputs named in the query (table is a reserved word of
// DuckDB's grammar: quote it).
func Open(ctx context.Context, inputs []string, opts *Options) (*DB, error) {
	db, err := newDB(ctx, inputs, opts)
	if err != nil {
		return nil, err
	}
	cfg := url.Values{}
	cfg.Set("threads", strconv.Itoa(cmpOr(db.opts.Threads, runtime.GOMAXPROCS(0))))
	if db.opts.MemoryLimit > 0 {
		cfg.Set("memory_limit", strconv.FormatInt(db.opts.MemoryLimit, 10)+"B")
	}
	if db.opts.Confine {
		// Set at startup, so no connection ever runs without them; a
		// statement cannot lift them, since checkReadOnly refuses SET and
		// PRAGMA (and lock_configuration would also refuse the per-connection
		// SET TimeZone below).
		cfg.Set("enable_external_access", "false")
		cfg.Set("autoinstall_known_extensions", "false")
		cfg.Set("autoload_known_extensions", "false")
	}
	// Every connection's session time zone is UTC, so that DuckDB's Arrow
	// result labels TIMESTAMPTZ columns timestamp[us, tz=UTC] whatever the
	// machine's zone, and a literal such as '2024-01-01 00:00' is UTC as
	// in convert --start. (TimeZone in the DSN is applied before the ICU
	// extension loads, and refused.)
	c, err := duckdb.NewConnector("?"+cfg.Encode(), func(ex driver.ExecerContext) error {
		_, err := ex.ExecContext(context.Background(), "SET TimeZone = 'UTC'", nil)
		return err
	})
	if err != nil {
		db.res.close()
		return nil, fmt.Errorf("query: %w", err)
	}
	if !db.opts.Confine {
		duckdb.RegisterReplacementScan(c, db.replacementScan)
	}
	db.db = sql.OpenDB(c)
	conn, err := db.db.Conn(ctx)
	if err == nil {
		err = db.register(ctx, conn)
		conn.Close()
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// Register resolves inputs as Open does and registers their tables (and
// the tsfile() table function) on the user's DuckDB connection conn, for
// its whole database. The replacement scan for `FROM 'x.tsfile'` needs the
// connector and is not registered. QueryArrow then runs on conn, one
// statement at a time: a second QueryArrow waits until the first one's
// reader is released. SQL returns nil and Conn an error. Close drops the
// views, not conn.
func Register(ctx context.Context, conn *sql.Conn, inputs []string, opts *Options) (*DB, error) {
	db, err := newDB(ctx, inputs, opts)
	if err != nil {
		return nil, err
	}
	db.user = conn
	if err := db.register(ctx, conn); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func cmpOr(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

// newDB resolves the inputs into tables.
func newDB(ctx context.Context, inputs []string, opts *Options) (*DB, error) {
	db := &DB{stats: &counters{}, adhocs: map[string]*scanTable{}}
	if opts != nil {
		db.opts = *opts
	}
	ropts := db.opts.Read
	db.res = &resolver{opts: &db.opts, ropts: &ropts, stats: db.stats}
	rts, err := db.res.resolve(ctx, inputs)
	if err != nil {
		db.res.close()
		return nil, err
	}
	for _, rt := range rts {
		registerTable(rt.scan)
		db.ids = append(db.ids, rt.scan.ID)
		db.tables = append(db.tables, rt.Table)
		db.metas = append(db.metas, tableMeta{ID: rt.scan.ID, Schema: rt.Schema, Name: rt.Name, Time: rt.Time, Unit: rt.Unit, Tags: rt.Tags})
	}
	return db, nil
}

// quoteIdent quotes a DuckDB identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteString quotes a DuckDB string literal.
func quoteString(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// register creates the table functions, schemas and views on conn's
// database.
func (db *DB) register(ctx context.Context, conn *sql.Conn) error {
	if err := registerScan(conn, &db.stats.rows); err != nil {
		return fmt.Errorf("query: registering tsfile_scan: %w", err)
	}
	if err := registerTsfileFunc(ctx, conn, db); err != nil {
		return fmt.Errorf("query: registering tsfile: %w", err)
	}
	// A name is shown unqualified in main too when one database alone
	// holds it and main has no table of that name.
	count := map[string]int{}
	for _, t := range db.tables {
		count[t.Name]++
		if t.Schema == "main" {
			count[t.Name] += 2
		}
	}
	for i, t := range db.tables {
		view := fmt.Sprintf("SELECT * FROM tsfile_scan(%s)", quoteString(db.ids[i]))
		if t.Schema != "main" {
			if _, err := conn.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+quoteIdent(t.Schema)); err != nil {
				return fmt.Errorf("query: schema %s: %w", t.Schema, err)
			}
			if count[t.Name] == 1 {
				name := "main." + quoteIdent(t.Name)
				if _, err := conn.ExecContext(ctx, "CREATE VIEW "+name+" AS "+view); err != nil {
					return fmt.Errorf("query: view main.%s: %w", t.Name, err)
				}
				db.views = append(db.views, name)
				// The planner sees the alias as a view of the same scan.
				m := db.metas[i]
				m.Schema = "main"
				db.metas = append(db.metas, m)
			}
		}
		name := quoteIdent(t.Schema) + "." + quoteIdent(t.Name)
		if _, err := conn.ExecContext(ctx, "CREATE VIEW "+name+" AS "+view); err != nil {
			return fmt.Errorf("query: view %s.%s: %w", t.Schema, t.Name, err)
		}
		db.views = append(db.views, name)
	}
	return nil
}

// replacementScan makes `FROM 'x.tsfile'` (or a glob or URL ending in
// .tsfile) read the path's only table through tsfile_scan, as
// tsfile(path) does. duckdb-go hands the callback no context: resolving
// runs under the resolver's own timeouts.
func (db *DB) replacementScan(name string) (string, []any, error) {
	if !strings.HasSuffix(strings.ToLower(name), ".tsfile") {
		return "", nil, nil
	}
	t, err := db.adhoc(context.Background(), name, "")
	if err != nil {
		return "", nil, err
	}
	return scanFunction, []any{t.ID}, nil
}

// errConfined is tsfile()'s answer on a confined DB (Options.Confine).
var errConfined = errors.New(`tsfile: reading files named in a query is off here (the engine is confined to its tables); query the tables instead (SELECT table_schema, table_name FROM information_schema.tables)`)

// adhoc resolves tsfile(path, table := table): the table named, or the
// only one the path holds. Resolved paths stay open until Close.
func (db *DB) adhoc(ctx context.Context, path, table string) (*scanTable, error) {
	db.adhocMu.Lock()
	defer db.adhocMu.Unlock()
	if db.closed {
		return nil, errors.New("tsfile: the query.DB is closed")
	}
	if db.opts.Confine {
		return nil, errConfined
	}
	key := path + "\x00" + table
	if t := db.adhocs[key]; t != nil {
		return t, nil
	}
	rts, err := db.res.resolve(ctx, []string{path})
	if err != nil {
		return nil, fmt.Errorf("tsfile(%s): %w", quoteString(path), err)
	}
	var pick *resolved
	var names []string
	for _, rt := range rts {
		ref := rt.Name
		if rt.Schema != "main" {
			ref = rt.Schema + "." + rt.Name
		}
		names = append(names, ref)
		if table == "" || table == rt.Name || table == ref {
			if pick != nil && table != "" {
				return nil, fmt.Errorf("tsfile(%s): table %q is in several databases; name it as DATABASE.%s (tables: %s)", quoteString(path), table, table, strings.Join(names, ", "))
			}
			pick = rt
		}
	}
	switch {
	case table == "" && len(rts) > 1:
		return nil, fmt.Errorf("tsfile(%s): the input has several tables; pick one with \"table\" := 'NAME' (tables: %s)", quoteString(path), strings.Join(names, ", "))
	case pick == nil:
		return nil, fmt.Errorf("tsfile(%s): no table %q (tables: %s)", quoteString(path), table, strings.Join(names, ", "))
	}
	registerTable(pick.scan)
	db.adhocs[key] = pick.scan
	return pick.scan, nil
}

// Tables returns the tables registered, in the order of the inputs (a
// dataset's sorted by name, then database).
func (db *DB) Tables() []Table { return append([]Table(nil), db.tables...) }

// SQL returns the DuckDB database of Open (nil for Register's DB): the
// tables are registered as views on it, for database/sql queries.
// From then on QueryArrow reads DuckDB's catalog for every statement it
// plans, since the caller may change it.
func (db *DB) SQL() *sql.DB {
	db.handOut()
	return db.db
}

// Conn returns a connection of Open's database; the caller closes it.
// From then on QueryArrow reads DuckDB's catalog for every statement it
// plans, since the caller may change it.
func (db *DB) Conn(ctx context.Context) (*sql.Conn, error) {
	if db.db == nil {
		return nil, errors.New("query: a DB of Register has no connections of its own; use the connection registered on")
	}
	db.handOut()
	return db.db.Conn(ctx)
}

// handOut stops the use of the catalog snapshot for good.
func (db *DB) handOut() {
	db.plan.mu.Lock()
	db.plan.handed = true
	db.plan.drop()
	db.plan.mu.Unlock()
}

// catalog answers the catalog snapshot planning may use, reading it on
// conn the first time, or nil when the catalog must be read per statement:
// a DB of Register (the user's connection), a DB whose SQL or Conn was
// handed out, or while an EXPLAIN runs.
func (db *DB) catalog(ctx context.Context, conn *sql.Conn) (*pdCatalog, error) {
	c := &db.plan
	c.mu.Lock()
	defer c.mu.Unlock()
	if db.user != nil || c.handed || c.explains > 0 {
		return nil, nil
	}
	if c.cat == nil {
		cat, err := loadCatalog(ctx, conn, db.metas)
		if err != nil {
			return nil, err
		}
		c.cat = cat
	}
	return c.cat, nil
}

// dropCatalog forgets the snapshot (it is read again when next needed).
func (db *DB) dropCatalog() {
	db.plan.mu.Lock()
	db.plan.drop()
	db.plan.mu.Unlock()
}

// planFor plans query's pushdown on conn, with the catalog snapshot when
// it may be used. typ is the statement's type as checkReadOnly answers it:
// an EXPLAIN (whose ANALYZE form runs the statement it explains, CREATE
// MACRO included: checked) stops the snapshot's use until it is done and
// then drops it; the returned func says it is done. SELECT (SHOW,
// DESCRIBE ...) and PRAGMA table_info change nothing.
func (db *DB) planFor(ctx context.Context, conn *sql.Conn, query string, typ duckdb.StmtType) (map[string]pushdown, func(), error) {
	end := func() {}
	if typ != duckdb.STATEMENT_TYPE_SELECT && typ != duckdb.STATEMENT_TYPE_PRAGMA {
		db.plan.mu.Lock()
		db.plan.explains++
		db.plan.drop()
		db.plan.mu.Unlock()
		var once sync.Once
		end = func() {
			once.Do(func() {
				db.plan.mu.Lock()
				db.plan.explains--
				db.plan.drop()
				db.plan.mu.Unlock()
			})
		}
	}
	c := &db.plan
	c.mu.Lock()
	usable := db.user == nil && !c.handed && c.explains == 0
	gen := c.gen
	prev, hit := c.plans[query]
	c.mu.Unlock()
	if usable && hit {
		return copyPlan(prev), end, nil
	}
	var used *pdCatalog
	pd, miss, err := planPushdownWith(ctx, conn, query, db.metas, func() (*pdCatalog, error) {
		cat, err := db.catalog(ctx, conn)
		used = cat
		return cat, err
	})
	if err != nil {
		if miss {
			db.dropCatalog()
		}
		end()
		return nil, nil, err
	}
	c.mu.Lock()
	switch {
	case miss:
		c.drop()
	case usable && c.gen == gen && (used == nil || used == c.cat) && db.user == nil && !c.handed && c.explains == 0:
		// A statement that needed no catalog (nothing to push) is kept too.
		if c.plans == nil || len(c.plans) >= maxPlans {
			c.plans = map[string]map[string]pushdown{}
		}
		c.plans[query] = copyPlan(pd)
	}
	c.mu.Unlock()
	return pd, end, nil
}

// keptPlan answers the plan kept for query, if the snapshot may be used.
func (db *DB) keptPlan(query string) (map[string]pushdown, func(), bool) {
	c := &db.plan
	c.mu.Lock()
	defer c.mu.Unlock()
	if db.user != nil || c.handed || c.explains > 0 {
		return nil, nil, false
	}
	pd, ok := c.plans[query]
	if !ok {
		return nil, nil, false
	}
	return copyPlan(pd), func() {}, true
}

// copyPlan copies a statement's pushdowns (the scans get their own).
func copyPlan(m map[string]pushdown) map[string]pushdown {
	out := make(map[string]pushdown, len(m))
	for id, pd := range m {
		if pd.Tags != nil {
			tags := make(map[string][]string, len(pd.Tags))
			for k, v := range pd.Tags {
				tags[k] = append([]string{}, v...)
			}
			pd.Tags = tags
		}
		out[id] = pd
	}
	return out
}

// Stats returns what the scans have read since Open.
func (db *DB) Stats() ScanStats { return db.stats.snapshot() }

// NumInput returns how many parameters query takes ($1, ?), preparing
// it without running it: the statement must be one that QueryArrow runs
// (ErrReadOnly otherwise), and only one, since preparing several runs all
// but the last. Unlike SQL and Conn it hands out no handle, so the DB keeps
// planning from its catalog snapshot (Flight SQL asks it for every
// prepared statement).
func (db *DB) NumInput(ctx context.Context, query string) (int, error) {
	conn, done, err := db.conn(ctx)
	if err != nil {
		return 0, err
	}
	defer done()
	if _, err := checkReadOnly(ctx, conn, query); err != nil {
		return 0, err
	}
	n := -1
	err = conn.Raw(func(dc any) error {
		st, err := dc.(driver.ConnPrepareContext).PrepareContext(ctx, query)
		if err != nil {
			return err
		}
		n = st.NumInput()
		return st.Close()
	})
	return n, err
}

// QueryArrow runs one read-only statement (SELECT, WITH, VALUES, SHOW,
// DESCRIBE, EXPLAIN, PRAGMA table_info; anything else fails with
// ErrReadOnly) with the pushdown planned, and returns DuckDB's result as
// a stream of Arrow record batches. The result streams (see stream.go):
// DuckDB runs the statement only as far as the batches read so far need,
// handed out in batches of up to 64K rows. Release the reader (it holds
// a connection until then; releasing it unread stops the statement).
// Cancelling ctx interrupts DuckDB and the scans, also between batches.
func (db *DB) QueryArrow(ctx context.Context, query string, args ...any) (array.RecordReader, error) {
	conn, done, err := db.conn(ctx)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			done()
		}
	}()
	// A statement planned before with the same catalog was read-only then
	// and still is (the verdict depends on the parser and the catalog):
	// its checks and plan are skipped.
	pd, end, kept := db.keptPlan(query)
	if !kept {
		typ, err := checkReadOnly(ctx, conn, query)
		if err != nil {
			return nil, err
		}
		if pd, end, err = db.planFor(ctx, conn, query, typ); err != nil {
			return nil, err
		}
	}
	release := done
	done = func() {
		release()
		end()
	}
	if db.user == nil {
		// A read-only transaction, rolled back when the reader is
		// released: DuckDB itself then refuses any write to the catalog,
		// also one inside EXPLAIN ANALYZE, which checkReadOnly cannot
		// tell from a plain EXPLAIN. (A user's connection of Register may
		// be in a transaction of its own: left alone.)
		if _, err := conn.ExecContext(ctx, "BEGIN TRANSACTION READ ONLY"); err != nil {
			return nil, err
		}
		closeConn := done
		done = func() {
			if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
				// Never hand the pool a connection left in a transaction.
				conn.Raw(func(any) error { return driver.ErrBadConn })
			}
			closeConn()
		}
	}
	var rr array.RecordReader
	err = conn.Raw(func(dc any) error {
		sr, err := streamQuery(ctx, dc, query, args, pd)
		if sr != nil {
			rr = sr
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	ok = true
	return &connReader{RecordReader: rr, done: done}, nil
}

// conn returns the connection a statement runs on and what to call when
// it is done: one of Open's pool, or Register's connection, held alone.
func (db *DB) conn(ctx context.Context) (*sql.Conn, func(), error) {
	if db.user != nil {
		db.mu.Lock()
		return db.user, db.mu.Unlock, nil
	}
	c, err := db.db.Conn(ctx)
	if err != nil {
		return nil, nil, err
	}
	return c, func() { c.Close() }, nil
}

// connReader is DuckDB's Arrow result holding its connection until its
// last reference is released.
type connReader struct {
	array.RecordReader
	refs atomic.Int64 // references beyond the first
	once sync.Once
	done func()
}

func (c *connReader) Retain() {
	c.refs.Add(1)
	c.RecordReader.Retain()
}

func (c *connReader) Release() {
	last := c.refs.Add(-1) < 0
	c.RecordReader.Release()
	if last {
		c.once.Do(c.done)
	}
}

func (c *connReader) Schema() *arrow.Schema { return c.RecordReader.Schema() }

// Close drops the tables from the registry and closes Open's database and
// every file.
func (db *DB) Close() error {
	db.adhocMu.Lock()
	if db.closed {
		db.adhocMu.Unlock()
		return nil
	}
	db.closed = true
	var ids []string
	ids = append(ids, db.ids...)
	for _, t := range db.adhocs {
		ids = append(ids, t.ID)
	}
	db.adhocMu.Unlock()
	unregisterTables(ids)
	var errs []error
	if db.user != nil {
		db.mu.Lock()
		for _, v := range db.views {
			_, err := db.user.ExecContext(context.Background(), "DROP VIEW IF EXISTS "+v)
			errs = append(errs, err)
		}
		db.mu.Unlock()
	}
	if db.db != nil {
		errs = append(errs, db.db.Close())
	}
	errs = append(errs, db.res.close())
	return errors.Join(errs...)
}
