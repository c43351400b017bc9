package icesync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
)

// Snapshot summary and table property keys icesync writes.
const (
	// SummaryTable is the dataset table a snapshot was synced from.
	SummaryTable = "tsarrow.table"
	// PropSourceTable is the table property naming the dataset table the
	// Iceberg table was created from.
	PropSourceTable = "tsarrow.source-table"
	// SummarySyncID is the snapshot summary key holding the random ID (a
	// UUID, also in the names of the sync's data files) of the sync that
	// committed the snapshot, by which a sync whose commit answer was
	// lost, or the sync after one that died, finds out whether it took
	// place.
	SummarySyncID = "tsarrow.sync-id"
)

// ErrSchemaChanged is returned when the table's schema is not the one the
// inputs give in a way Iceberg cannot evolve to (see evolve).
var ErrSchemaChanged = errors.New("icesync: the Iceberg table's schema differs from the inputs'")

// Options configure a Sync.
type Options struct {
	// Table is the dataset table to sync, as dataset.Dataset.NewReader
	// names it ("weather", or "db.weather" when ambiguous), or
	// "*.weather" for the table of every database holding one, with a
	// column DatabaseColumn (see AllDatabases).
	Table string
	// To names the Iceberg table: NAMESPACE.TABLE (the last dot splits).
	To string
	// Catalog is the catalog URI (see OpenCatalog) and Warehouse the
	// directory the tables it creates live under.
	Catalog, Warehouse string
	// Dataset are the options the inputs are opened with.
	Dataset *dataset.Options
	// Partition is the partition spec of a table the sync creates (see
	// ParsePartition; "" is DefaultPartition). Given for an existing
	// table, it must be the table's.
	Partition string
	// TimeUnit is the unit of the inputs' stored timestamps (IoTDB's
	// timestamp_precision; default milliseconds). Milliseconds and
	// microseconds become the table's microseconds; nanoseconds are
	// refused (see icebergType). An existing table keeps its unit.
	TimeUnit arrowconv.TimeUnit
	// Allocator allocates the Arrow batches (default memory.DefaultAllocator).
	Allocator memory.Allocator
	// Writer names the writer this sync is: the table records, per
	// writer, the source files its rows reflect, and which data regions
	// it owns. Default DefaultWriter(inputs). Each DataNode syncing its
	// own data directory into one table is one writer.
	Writer string
	// TakeOver lets the sync claim data regions another writer owns (a
	// region that moved to this writer's directory), once that writer's
	// state holds no file of them (it synced without them, which took
	// their rows out); before that it is refused, as rows would double.
	TakeOver bool
	// Retry bounds the commit attempts against other writers (zero: the
	// defaults of RetryPolicy).
	Retry RetryPolicy
}

// Result tells what a Sync did.
type Result struct {
	// Created is set when the sync created the table.
	Created bool
	// Committed is set when the sync committed; unset when the table
	// already reflected the inputs.
	Committed bool
	// SnapshotID is the table's current snapshot after the sync (0 for
	// a table without one).
	SnapshotID int64
	// Rows and DataFiles are what the sync wrote; Removed the data files
	// its snapshot took out of the table.
	Rows      int64
	DataFiles int
	Removed   int
	// Reaped is the number of data files of syncs that died (killed
	// between writing and committing) this sync removed.
	Reaped int
	// Sources is the number of source data files the inputs hold.
	Sources int
	// Writer and SyncID name the sync (SummarySyncID); Attempts is the
	// number of commit attempts it made.
	Writer, SyncID string
	Attempts       int
	// Appended and Rewritten are the time buckets (days of a day(time)
	// table) the sync appended to and rewrote whole.
	Appended, Rewritten []Run
	// Warnings are the dataset's warnings about the inputs.
	Warnings []string
}

// testBeforeCommit, set by tests, runs before each commit attempt.
var testBeforeCommit func(attempt int)

// Sync brings this writer's part of the Iceberg table opts.To in step with
// the dataset table opts.Table of inputs (files, IoTDB data directories):
// it creates the table on the first sync, and then commits one snapshot
// per sync that changes the table so that it holds the rows the dataset
// reader returns (docs/dev-notes-iceberg-icedesign.md):
//
//   - source files whose rows overlap nothing synced are appended;
//   - the time buckets (days of day(time)) touched by deletions, overwrites
//     (files overlapping synced devices), changed or vanished files are
//     rewritten whole, replacing the writer's own data files of them;
//   - a sync with nothing new commits nothing.
//
// The writer's state (every source file its rows reflect) is a file the
// table property PropWriterStatePrefix+writer+PropWriterStateSuffix names,
// set in the same commit; data regions are claimed by the first writer
// syncing them. A commit that loses a race with another writer is planned
// again on the table as it then is (CommitWithRetry). Data files a failed
// sync wrote are removed, except when the catalog's answer leaves unknown
// whether the commit took place; then the next sync of the writer settles
// it by the sync ID.
func Sync(ctx context.Context, inputs []string, opts Options) (*Result, error) {
	ident, err := identifier(opts.To)
	if err != nil {
		return nil, err
	}
	mem := opts.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	ds, err := dataset.Open(inputs, opts.Dataset)
	if err != nil {
		return nil, err
	}
	defer ds.Close()
	res := &Result{Warnings: ds.Warnings()}
	// The reader gets opts.Allocator as it is: left nil, it takes the
	// scan's pooling allocator, whose buffers come back when WriteRecords
	// releases a batch; arrow-go's Go allocator made every batch afresh
	// (page faults, zeroing and collections in the profile).
	ro := &arrowconv.Options{PlainTags: true, Allocator: opts.Allocator, TimeUnit: opts.TimeUnit}
	sc, err := tableSchema(ds, opts.Table, ro)
	if err != nil {
		return nil, err
	}
	isc, err := icebergSchema(sc)
	if err != nil {
		return nil, err
	}
	perSecond, err := unitsPerSecond(sc)
	if err != nil {
		return nil, err
	}
	layout, err := tableLayout(ds, opts.Table)
	if err != nil {
		return nil, err
	}
	var dso dataset.Options
	if opts.Dataset != nil {
		dso = *opts.Dataset
	}
	facts, err := GatherFacts(layout, &FactsOptions{
		FS: dso.FS, Mods: dso.Mods,
		V1Whole: func(f dataset.File) bool { w, _ := ds.ModsV1Whole(f); return w },
		Devices: indexDevices(dso.FS, dso.Read),
	})
	if err != nil {
		return nil, err
	}
	digestKeys(facts)
	res.Sources = len(facts)
	res.Writer = opts.Writer
	if res.Writer == "" {
		res.Writer = DefaultWriter(inputs)
	}

	cat, err := OpenCatalog(ctx, opts.Catalog, opts.Warehouse)
	if err != nil {
		return nil, err
	}
	defer cat.Close()
	// Writers starting together may find the SQLite catalog busy while
	// another creates the table or its namespace: try again a few times.
	var tbl *table.Table
	var created bool
	for n, p := 0, (RetryPolicy{}).withDefaults(); ; n++ {
		tbl, created, err = loadOrCreate(ctx, cat, ident, isc, sc, opts)
		if err == nil {
			break
		}
		if !transient(err) || n+1 >= p.MaxAttempts {
			return nil, err
		}
		if err := p.Sleep(ctx, p.wait(n)); err != nil {
			return nil, err
		}
	}
	res.Created = created
	if tbl, err = evolve(ctx, cat, ident, tbl, isc, sc, opts); err != nil {
		return nil, err
	}
	fsys, err := tbl.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("icesync: table %s: %w", opts.To, err)
	}
	if res.Reaped, err = reapDead(ctx, fsys, tbl, res.Writer); err != nil {
		return nil, err
	}
	out, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		return nil, fmt.Errorf("icesync: table %s: %w", opts.To, err)
	}
	uid, err := uuid.NewRandom()
	if err != nil {
		return nil, fmt.Errorf("icesync: sync ID: %w", err)
	}
	s := &syncer{
		opts: opts, writer: res.Writer, id: uid.String(), uid: uid,
		ds: ds, dso: dso, layout: layout, facts: facts, regions: regionsOf(facts),
		ro: ro, conf: &conformer{mem: mem, out: out}, out: out, fsys: fsys,
		bk: bucketingOf(tbl, perSecond), memo: map[string]*written{}, subs: map[string]*dataset.Dataset{},
	}
	defer s.closeSubs()
	res.SyncID = s.id
	if err := announce(fsys, tbl, s.id, s.writer, nil); err != nil {
		return nil, err
	}
	// The marker goes on every way out but one: a commit whose outcome
	// is unknown leaves it, for the next sync to settle by the sync ID.
	keepMarker := false
	defer func() {
		if !keepMarker {
			retire(fsys, tbl, s.id)
		}
	}()

	cur := tbl
	unknown := false
	var lastErr error
	check := func(ctx context.Context) (CommitState, error) {
		fresh, err := cat.LoadTable(ctx, ident)
		if err != nil {
			unknown = true
			return CommitState{}, err
		}
		cur = fresh
		// A busy catalog counts as a lost race: the head may not have
		// moved yet, but another writer held the database.
		moved := fresh.MetadataLocation() != s.base || transient(lastErr)
		return CommitState{Committed: s.committedIn(fresh), Moved: moved}, nil
	}
	n, err := CommitWithRetry(ctx, opts.Retry, func(ctx context.Context, n int) error {
		lastErr = s.attempt(ctx, cur, n)
		return lastErr
	}, check)
	res.Attempts = n
	if err != nil && ctx.Err() != nil && !unknown {
		// Cancelled (Ctrl-C), perhaps while the commit was on its way:
		// the catalog tells whether it landed.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		st, cerr := check(cctx)
		cancel()
		if cerr == nil && st.Committed {
			err = nil
		}
	}
	if err != nil {
		if unknown {
			// The data files stay (they may be live), and so does the marker.
			keepMarker = true
			return nil, fmt.Errorf("icesync: committing %s: %w", opts.To, err)
		}
		s.cleanup(ctx, false)
		return nil, fmt.Errorf("icesync: syncing %s: %w", opts.To, err)
	}
	s.cleanup(ctx, !s.nothing)
	if snap := cur.CurrentSnapshot(); snap != nil {
		res.SnapshotID = snap.SnapshotID
	}
	if s.nothing {
		return res, nil
	}
	if s.after != nil {
		if snap := s.after.CurrentSnapshot(); snap != nil {
			res.SnapshotID = snap.SnapshotID
		}
	} else if sid, ok := findSync(cur, s.id); ok {
		res.SnapshotID = sid // a lost reply: the snapshot is there
	}
	res.Committed = true
	res.DataFiles, res.Removed = len(s.added), s.removed
	for _, df := range s.added {
		res.Rows += df.Count()
	}
	for _, t := range s.plan.Tasks {
		if t.Rewrite {
			res.Rewritten = append(res.Rewritten, t.Run)
		} else {
			res.Appended = append(res.Appended, t.Run)
		}
	}
	return res, nil
}

// syncer is one Sync's work across its commit attempts.
type syncer struct {
	opts       Options
	writer, id string
	uid        uuid.UUID
	ds         *dataset.Dataset
	dso        dataset.Options
	layout     *dataset.Layout
	facts      []SourceFile
	regions    [][2]string
	ro         *arrowconv.Options
	conf       *conformer
	out        *arrow.Schema
	fsys       iceio.IO
	bk         bucketing
	memo       map[string]*written         // by taskKey: data files written by any attempt
	subs       map[string]*dataset.Dataset // datasets over a few files, by file list
	writes     []string                    // write IDs of the attempts after the first
	states     []string                    // state files written
	base       string                      // metadata location the last attempt planned on
	prevState  string                      // the state file the last attempt planned from
	nothing    bool                        // the last attempt found nothing to do
	plan       *SyncPlan                   // the last attempt's plan
	added      []iceberg.DataFile          // the last attempt's new data files
	removed    int                         // and the number it replaced
	after      *table.Table                // the table its commit returned
	stateLoc   string                      // and the state it recorded
}

// written is what one task wrote.
type written struct {
	files    []iceberg.DataFile
	byBucket map[int64][]string
}

func taskKey(t Task) string {
	return fmt.Sprintf("%d %d %t %s", t.From, t.To, t.Rewrite, strings.Join(t.Files, "\x00"))
}

// committedIn reports whether tbl holds this sync's commit: a snapshot
// carrying its ID, or (for a commit that changed only the state) the
// writer's state property naming its state file.
func (s *syncer) committedIn(tbl *table.Table) bool {
	if _, ok := findSync(tbl, s.id); ok {
		return true
	}
	return slices.Contains(s.states, tbl.Properties()[stateProp(s.writer)])
}

// attempt plans on tbl, writes what the plan needs (reusing what earlier
// attempts wrote for the same tasks) and commits, asserting tbl's head.
func (s *syncer) attempt(ctx context.Context, tbl *table.Table, n int) error {
	s.base = tbl.MetadataLocation()
	s.nothing, s.plan, s.added, s.removed, s.after, s.stateLoc = false, nil, nil, 0, nil, ""
	state, stateLoc, err := loadState(s.fsys, tbl, s.writer)
	if err != nil {
		return err
	}
	s.prevState = stateLoc
	props, err := claims(s.fsys, tbl, s.writer, s.regions, s.opts.TakeOver)
	if err != nil {
		return err
	}
	popts := PlanOptions{Bucket: s.bk.bucket}
	plan, err := Plan(state, s.facts, popts)
	if err != nil {
		return err
	}
	s.plan = plan
	if plan.Empty() {
		s.nothing = true
		return nil
	}
	wid := s.uid
	if n > 0 {
		// A new write ID for each attempt: its tasks may write the
		// partitions an earlier attempt wrote, and iceberg-go's file
		// names count from 1 in each write.
		if wid, err = uuid.NewRandom(); err != nil {
			return err
		}
	}
	byTask := make([]map[int64][]string, len(plan.Tasks))
	var added []iceberg.DataFile
	// A rewrite reads every current file over its buckets, which is what
	// the whole dataset gives for those times; so does an append when
	// every file is new (a first sync). Only an append beside synced
	// files needs a dataset of the new files alone.
	allNew := len(plan.New) == len(s.facts)
	for i, t := range plan.Tasks {
		w, err := s.write(ctx, tbl, t, wid, t.Rewrite || allNew)
		if err != nil {
			return err
		}
		byTask[i] = w.byBucket
		added = append(added, w.files...)
	}
	old, err := s.owned(ctx, tbl, state, plan)
	if err != nil {
		return err
	}
	next, err := NextState(state, s.facts, plan, byTask, popts)
	if err != nil {
		return err
	}
	loc := stateLocation(tbl, s.writer, fmt.Sprintf("%s-%d", s.id, n))
	s.states = append(s.states, loc)
	if err := saveState(s.fsys, loc, next); err != nil {
		return err
	}
	props[stateProp(s.writer)] = loc
	summary := iceberg.Properties{
		SummarySyncID: s.id, SummaryTable: s.opts.Table, SummaryWriter: s.writer,
		SummaryState: loc, SummaryFiles: fmt.Sprint(len(next.Files)),
	}
	if d, err := json.Marshal(delta(plan, s.facts, state)); err == nil && len(d) <= maxDelta {
		summary[SummaryDelta] = string(d)
	} else if err == nil {
		summary[SummaryDeltaTruncated] = fmt.Sprint(len(d))
	}
	tx := tbl.NewTransaction()
	if err := tx.SetProperties(props); err != nil {
		return fmt.Errorf("staging the properties: %w", err)
	}
	switch {
	case len(old) > 0:
		err = tx.ReplaceDataFilesWithDataFiles(ctx, old, added, summary)
	case len(added) > 0:
		err = tx.AddDataFiles(ctx, added, summary)
	}
	if err != nil {
		return fmt.Errorf("staging the snapshot: %w", err)
	}
	if testBeforeCommit != nil {
		testBeforeCommit(n)
	}
	after, err := tx.Commit(ctx)
	if err != nil {
		return err
	}
	s.added, s.removed, s.after, s.stateLoc = added, len(old), after, loc
	return nil
}

// write writes the rows of a task, or returns what an earlier attempt
// wrote for the same task.
func (s *syncer) write(ctx context.Context, tbl *table.Table, t Task, wid uuid.UUID, whole bool) (*written, error) {
	key := fmt.Sprintf("%s %t", taskKey(t), whole)
	if w := s.memo[key]; w != nil {
		return w, nil
	}
	w := &written{byBucket: map[int64][]string{}}
	if len(t.Files) == 0 {
		s.memo[key] = w
		return w, nil
	}
	if wid != s.uid && !slices.Contains(s.writes, wid.String()) {
		// The marker names every write ID before its files exist, so
		// that a kill leaves nothing the next sync cannot find.
		s.writes = append(s.writes, wid.String())
		if err := announce(s.fsys, tbl, s.id, s.writer, s.writes); err != nil {
			return nil, err
		}
	}
	sub := s.ds
	if !whole {
		var err error
		if sub, err = s.datasetFor(t.Files); err != nil {
			return nil, err
		}
	}
	// Read bucket by bucket so that the writer gets the rows clustered by
	// partition and keeps one Parquet file open at a time; a long run (or
	// a spec with more fields than time) goes in one read, fanned out.
	var ranges []*arrowconv.TimeRange
	wopts := []table.WriteRecordOption{table.WithWriteUUID(wid)}
	switch {
	case s.bk.field < 0:
		ranges = []*arrowconv.TimeRange{nil}
	case t.To-t.From < maxClusteredBuckets && specFields(tbl) == 1:
		for b := t.From; b <= t.To; b++ {
			lo, hi := s.bk.span(b)
			ranges = append(ranges, &arrowconv.TimeRange{Start: lo, End: hi})
		}
		wopts = append(wopts, table.WithClusteredWrite())
	default:
		lo, _ := s.bk.span(t.From)
		_, hi := s.bk.span(t.To)
		ranges = []*arrowconv.TimeRange{{Start: lo, End: hi}}
	}
	for df, err := range table.WriteRecords(ctx, tbl, s.out, batches(sub, s.opts.Table, s.ro, ranges, s.conf), wopts...) {
		if err != nil {
			removeFiles(ctx, s.fsys, w.files)
			return nil, fmt.Errorf("icesync: writing %s: %w", s.opts.To, err)
		}
		w.files = append(w.files, df)
		b, err := s.bk.fileBucket(df)
		if err != nil {
			removeFiles(ctx, s.fsys, w.files)
			return nil, err
		}
		w.byBucket[b] = append(w.byBucket[b], df.FilePath())
	}
	s.memo[key] = w
	return w, nil
}

// maxClusteredBuckets bounds the buckets of a task read one by one.
const maxClusteredBuckets = 64

// datasetFor returns a dataset over the named source files: the sync's
// own when they are all of them, else one opened over those files alone,
// with the v1 mods rule the whole inputs give them.
func (s *syncer) datasetFor(names []string) (*dataset.Dataset, error) {
	if len(names) == len(s.facts) {
		return s.ds, nil
	}
	key := strings.Join(names, "\x00")
	if d := s.subs[key]; d != nil {
		return d, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	sub := &dataset.Layout{}
	rule := map[bool]bool{}
	for _, f := range s.layout.Files {
		if !want[factName(f)] {
			continue
		}
		sub.Files = append(sub.Files, f)
		if f.ModsV1 != "" && f.ModsV2 == "" {
			w, err := s.ds.ModsV1Whole(f)
			if err != nil {
				return nil, err
			}
			rule[w] = true
		}
	}
	o := s.dso
	if len(rule) == 1 && o.ModsV1 == dataset.ModsV1Auto {
		// Auto looks at the other files of the data directory, which
		// the smaller layout lacks: pin the rule the whole inputs give.
		o.ModsV1 = dataset.ModsV1Offset
		if rule[true] {
			o.ModsV1 = dataset.ModsV1Whole
		}
	}
	d, err := dataset.OpenLayout(sub, &o)
	if err != nil {
		return nil, err
	}
	s.subs[key] = d
	return d, nil
}

func (s *syncer) closeSubs() {
	for _, d := range s.subs {
		d.Close()
	}
}

// owned returns the data files of tbl's current snapshot that the writer's
// state owns in the buckets the plan rewrites.
func (s *syncer) owned(ctx context.Context, tbl *table.Table, state *SyncState, plan *SyncPlan) ([]iceberg.DataFile, error) {
	if state == nil {
		return nil, nil
	}
	want := map[string]bool{}
	for _, r := range plan.Rewritten() {
		for b, files := range state.DataFiles {
			if b >= r.From && b <= r.To {
				for _, f := range files {
					want[plainPath(f)] = true
				}
			}
		}
	}
	if len(want) == 0 || tbl.CurrentSnapshot() == nil {
		if len(want) > 0 {
			return nil, fmt.Errorf("%w: the table has no snapshot", ErrForeignRewrite)
		}
		return nil, nil
	}
	tasks, err := tbl.Scan().PlanFiles(ctx)
	if err != nil {
		return nil, fmt.Errorf("listing the data files: %w", err)
	}
	var old []iceberg.DataFile
	for _, t := range tasks {
		if p := plainPath(t.File.FilePath()); want[p] {
			old = append(old, t.File)
			delete(want, p)
		}
	}
	for p := range want {
		return nil, fmt.Errorf("%w: %s (rewritten or expired by another engine?); sync into a new table, or remove the writer's state property to start it over", ErrForeignRewrite, p)
	}
	return old, nil
}

// cleanup removes what the sync wrote and does not leave in the table: with
// committed, the data files and state files of attempts other than the
// last, and the state the last one replaced; else all of them.
func (s *syncer) cleanup(ctx context.Context, committed bool) {
	keep := map[string]bool{}
	if committed {
		for _, df := range s.added {
			keep[df.FilePath()] = true
		}
	}
	var drop []iceberg.DataFile
	for _, w := range s.memo {
		for _, df := range w.files {
			if !keep[df.FilePath()] && !slices.ContainsFunc(drop, func(d iceberg.DataFile) bool { return d.FilePath() == df.FilePath() }) {
				drop = append(drop, df)
			}
		}
	}
	removeFiles(ctx, s.fsys, drop)
	for _, loc := range s.states {
		if !committed || loc != s.committedState() {
			_ = s.fsys.Remove(loc)
		}
	}
	if committed && s.prevState != "" && s.prevState != s.committedState() {
		_ = s.fsys.Remove(s.prevState)
	}
}

// committedState is the state file of the committed attempt.
func (s *syncer) committedState() string {
	if s.stateLoc != "" {
		return s.stateLoc
	}
	if len(s.states) > 0 {
		return s.states[len(s.states)-1] // a lost reply: the last attempt's
	}
	return ""
}

// findSync looks for the snapshot a sync committed among the table's.
func findSync(tbl *table.Table, id string) (int64, bool) {
	for _, snap := range tbl.Metadata().Snapshots() {
		if snap.Summary != nil && snap.Summary.Properties[SummarySyncID] == id {
			return snap.SnapshotID, true
		}
	}
	return 0, false
}

// batches yields the rows of the table over each time range (nil: all
// times), conformed to the table's schema. table.WriteRecords releases
// each batch it is given. A dataset over a few files that lack the table
// yields nothing.
func batches(ds *dataset.Dataset, name string, ro *arrowconv.Options, ranges []*arrowconv.TimeRange, c *conformer) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for _, r := range ranges {
			o := *ro
			o.Time = r
			rd, err := newReader(ds, name, &o)
			if errors.Is(err, dataset.ErrNoTable) {
				return
			}
			if err != nil {
				yield(nil, err)
				return
			}
			ok := func() bool {
				defer rd.Release()
				for rd.Next() {
					rec, err := c.conform(rd.RecordBatch())
					if err != nil {
						yield(nil, err)
						return false
					}
					if !yield(rec, nil) {
						return false
					}
				}
				if err := rd.Err(); err != nil {
					yield(nil, err)
					return false
				}
				return true
			}()
			if !ok {
				return
			}
		}
	}
}

// unitsPerSecond is the number of the dataset's time units in a second.
func unitsPerSecond(sc *arrow.Schema) (int64, error) {
	switch sc.Field(0).Type.(*arrow.TimestampType).Unit {
	case arrow.Millisecond:
		return 1000, nil
	case arrow.Microsecond:
		return 1000 * 1000, nil
	}
	return 0, fmt.Errorf("%w: time unit %s", ErrUnsupported, sc.Field(0).Type)
}

// tableLayout is the part of the dataset's layout that may hold rows of
// the table: for a table-model table the files of its database, for the
// rest every data file; files Open left out (incomplete) are not in it.
func tableLayout(ds *dataset.Dataset, name string) (*dataset.Layout, error) {
	tables, err := ds.Tables()
	if err != nil {
		return nil, err
	}
	// The databases the table's rows come from: one, or for a "*.name"
	// table every database holding it ("" for a tree-model table or loose
	// files: every data file).
	dbs := map[string]bool{}
	if tname, all := allDatabases(name); all {
		dt, err := dbTables(ds, tname)
		if err != nil {
			return nil, err
		}
		for _, t := range dt {
			dbs[t.Database] = true
		}
	} else {
		for _, t := range tables {
			if t.Ref == name || t.Name == name {
				if t.Database != "" {
					dbs[t.Database] = true
				}
				break
			}
		}
	}
	vers := map[string]bool{}
	for _, v := range ds.Versions() {
		vers[v.Path] = true
	}
	out := &dataset.Layout{}
	for _, f := range ds.Layout().Files {
		if (len(dbs) > 0 && !dbs[f.Database]) || !vers[f.Path] {
			continue
		}
		out.Files = append(out.Files, f)
	}
	return out, nil
}

// identifier splits NAMESPACE.TABLE at its last dot.
func identifier(to string) (table.Identifier, error) {
	i := strings.LastIndexByte(to, '.')
	if i <= 0 || i == len(to)-1 {
		return nil, fmt.Errorf("icesync: table %q: want NAMESPACE.TABLE", to)
	}
	return catalog.ToIdentifier(append(strings.Split(to[:i], "."), to[i+1:])...), nil
}

// loadOrCreate loads the table, or creates it (and its namespace) with the
// schema sc (from the Arrow schema asc), partitioned by opts.Partition
// (see newShape). Another writer creating it at the
// same moment is not an error: its table is loaded.
func loadOrCreate(ctx context.Context, cat catalog.Catalog, ident table.Identifier, sc *iceberg.Schema, asc *arrow.Schema, opts Options) (*table.Table, bool, error) {
	tbl, err := cat.LoadTable(ctx, ident)
	if err == nil {
		return tbl, false, nil
	}
	if !errors.Is(err, catalog.ErrNoSuchTable) {
		return nil, false, fmt.Errorf("icesync: loading %s: %w", strings.Join(ident, "."), err)
	}
	if err := ensureNamespace(ctx, cat, catalog.NamespaceFromIdent(ident)); err != nil {
		return nil, false, err
	}
	spec, props, err := newShape(sc, asc, opts)
	if err != nil {
		return nil, false, err
	}
	tbl, err = cat.CreateTable(ctx, ident, sc, catalog.WithPartitionSpec(&spec), catalog.WithProperties(withWriteProps(props, sc)))
	if errors.Is(err, catalog.ErrTableAlreadyExists) {
		tbl, err = cat.LoadTable(ctx, ident)
		if err != nil {
			return nil, false, fmt.Errorf("icesync: loading %s: %w", strings.Join(ident, "."), err)
		}
		return tbl, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("icesync: creating %s: %w", strings.Join(ident, "."), err)
	}
	return tbl, true, nil
}

// removeFiles deletes data files a sync wrote and will not commit.
// It runs also when ctx was cancelled (Ctrl-C): that is when the files
// most need removing.
func removeFiles(_ context.Context, fsys iceio.IO, files []iceberg.DataFile) {
	for _, df := range files {
		_ = fsys.Remove(df.FilePath())
	}
}

// specFields is the number of fields of the table's partition spec.
func specFields(tbl *table.Table) int {
	spec := tbl.Spec()
	return spec.NumFields()
}
