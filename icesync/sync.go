package icesync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	mrand "math/rand/v2"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
	"github.com/google/uuid"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
)

// Snapshot summary and table property keys icesync writes.
const (
	// SummarySources holds, in the summary of each snapshot a sync
	// commits, the JSON list of the source files ([]Source) whose rows
	// the table holds after it.
	SummarySources = "tsarrow.sources"
	// SummaryTable is the dataset table a snapshot was synced from.
	SummaryTable = "tsarrow.table"
	// PropSourceTable is the table property naming the dataset table the
	// Iceberg table was created from.
	PropSourceTable = "tsarrow.source-table"
)

// commitRetries is the commit.retry.num-retries a created table gets:
// iceberg-go retries a commit that lost a race with another writer (the
// SQL catalog's metadata-location check failed) only when the table asks
// for retries, and its default is none.
const commitRetries = "8"

// ErrSchemaChanged is returned when the table's schema is not the one the
// inputs give; evolving it is not supported yet.
var ErrSchemaChanged = errors.New("icesync: the Iceberg table's schema differs from the inputs'")

// Options configure a Sync.
type Options struct {
	// Table is the dataset table to sync, as dataset.Dataset.NewReader
	// names it ("weather", or "db.weather" when ambiguous).
	Table string
	// To names the Iceberg table: NAMESPACE.TABLE (the last dot splits).
	To string
	// Catalog is the catalog URI (see OpenCatalog) and Warehouse the
	// directory the tables it creates live under.
	Catalog, Warehouse string
	// Dataset are the options the inputs are opened with.
	Dataset *dataset.Options
	// Allocator allocates the Arrow batches (default memory.DefaultAllocator).
	Allocator memory.Allocator
}

// Source is a source data file a snapshot reflects: the name IoTDB gives
// it (space/database/region/partition/file for a file of a data
// directory, the base name for a loose one), its size, and the version of
// the mods file whose deletions apply to it, if any. A sync whose sources
// equal those of the table's current snapshot has nothing to write.
type Source struct {
	Name string       `json:"name"`
	Size int64        `json:"size"`
	Mods *ModsVersion `json:"mods,omitempty"`
	// Start and End are the time range of the file's devices, from its
	// .resource, in the stored unit; nil without a resource. A later
	// sync rewrites the days of this range when the file changes or goes.
	Start *int64 `json:"start,omitempty"`
	End   *int64 `json:"end,omitempty"`
}

// ModsVersion identifies the content of a mods file: IoTDB appends to a
// .mods2 and rewrites it whole in a compaction, so size and modification
// time change with every deletion.
type ModsVersion struct {
	Name    string `json:"name"`
	Size    int64  `json:"size"`
	ModTime int64  `json:"mtime"` // Unix nanoseconds
}

// Result tells what a Sync did.
type Result struct {
	// Created is set when the sync created the table.
	Created bool
	// Committed is set when the sync committed a snapshot; unset when
	// the inputs were those the table already reflects.
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
	// Sources is the number of source data files the snapshot reflects.
	Sources int
	// Warnings are the dataset's warnings about the inputs.
	Warnings []string
}

// Sync brings the Iceberg table opts.To in step with the dataset table
// opts.Table of inputs (files, IoTDB data directories): it creates the
// table on the first sync, and commits one snapshot holding exactly the
// rows the dataset reader returns, unless the table's current snapshot
// already reflects the same source files.
//
// A later sync rewrites only the day partitions the changed sources
// touch (see planDays): their data files are replaced by the dataset
// reader's rows of those days, in one snapshot (operation "overwrite",
// or "append" when the days are new). Without the previous sources, or on
// a table not partitioned by day(time) alone, it rewrites the whole table.
//
// Data files a failed sync wrote are removed, except when the catalog's
// answer leaves unknown whether the commit took place.
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
	ro := &arrowconv.Options{PlainTags: true, Allocator: mem}
	sc, err := ds.Schema(opts.Table, ro)
	if err != nil {
		return nil, err
	}
	isc, err := icebergSchema(sc)
	if err != nil {
		return nil, err
	}
	srcs, err := sources(ds, opts.Table, opts.Dataset)
	if err != nil {
		return nil, err
	}
	res.Sources = len(srcs)
	srcJSON, err := json.Marshal(srcs)
	if err != nil {
		return nil, err
	}

	cat, err := OpenCatalog(ctx, opts.Catalog, opts.Warehouse)
	if err != nil {
		return nil, err
	}
	defer cat.Close()
	tbl, created, err := loadOrCreate(ctx, cat, ident, isc, opts.Table)
	if err != nil {
		return nil, err
	}
	res.Created = created
	if err := sameSchema(tbl.Schema(), isc); err != nil {
		return nil, err
	}
	fsys, err := tbl.FS(ctx)
	if err != nil {
		return nil, fmt.Errorf("icesync: table %s: %w", opts.To, err)
	}
	if res.Reaped, err = reapDead(fsys, tbl); err != nil {
		return nil, err
	}
	if snap := tbl.CurrentSnapshot(); snap != nil {
		res.SnapshotID = snap.SnapshotID
		if snap.Summary != nil && snap.Summary.Properties[SummarySources] == string(srcJSON) {
			return res, nil
		}
	}

	upd, err := unitsPerDay(sc)
	if err != nil {
		return nil, err
	}
	plan := dayPlan{full: true}
	dayField, byDay := dayPartition(tbl)
	if snap := tbl.CurrentSnapshot(); snap != nil && byDay && snap.Summary != nil {
		var prev []Source
		if json.Unmarshal([]byte(snap.Summary.Properties[SummarySources]), &prev) == nil {
			plan = planDays(prev, srcs, upd)
		}
	}
	// Read the rows day by day when the days are known (those of the
	// plan, or of every source for a full rewrite), so that the writer
	// gets them clustered by partition and keeps one Parquet writer open
	// at a time (table.WithClusteredWrite) instead of one per day. Only
	// for a table partitioned by day(time): under any other spec day-by-day
	// input is not clustered by partition.
	read := plan
	if plan.full {
		read = dayPlan{full: true}
		if byDay {
			read = planDays(nil, srcs, upd)
		}
	}
	var ranges []arrowconv.TimeRange
	var wopts []table.WriteRecordOption
	if !read.full {
		ranges = read.ranges(upd, false)
		wopts = append(wopts, table.WithClusteredWrite())
	}

	out, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		return nil, fmt.Errorf("icesync: table %s: %w", opts.To, err)
	}
	conf := &conformer{mem: mem, out: out}
	uid, err := uuid.NewRandom()
	if err != nil {
		return nil, fmt.Errorf("icesync: sync ID: %w", err)
	}
	id := uid.String()
	wopts = append(wopts, table.WithWriteUUID(uid))
	if err := announce(fsys, tbl, id); err != nil {
		return nil, err
	}
	// The marker goes on every way out but one: a commit whose outcome
	// is unknown leaves it, for the next sync to settle by the sync ID.
	keepMarker := false
	defer func() {
		if !keepMarker {
			retire(fsys, tbl, id)
		}
	}()
	var added []iceberg.DataFile
	for df, err := range table.WriteRecords(ctx, tbl, out, batches(ds, opts.Table, ro, read.full, ranges, conf), wopts...) {
		if err != nil {
			removeFiles(ctx, tbl, added)
			return nil, fmt.Errorf("icesync: writing %s: %w", opts.To, err)
		}
		added = append(added, df)
		res.Rows += df.Count()
	}
	res.DataFiles = len(added)

	props := iceberg.Properties{SummarySources: string(srcJSON), SummaryTable: opts.Table, SummarySyncID: id}
	for attempt := 0; ; attempt++ {
		if testBeforeCommit != nil {
			testBeforeCommit(attempt)
		}
		snap, removed, err := commitOnce(ctx, tbl, added, props, plan, dayField)
		if errors.Is(err, errNothing) {
			// No rows to add and none to take out: a snapshot would
			// record only the sources, and an empty one no engine needs.
			return res, nil
		}
		if err == nil {
			res.Committed, res.SnapshotID, res.Removed = true, snap, removed
			return res, nil
		}
		// Whatever the error, the catalog tells whether this sync's
		// snapshot is in the table: a commit whose answer was lost may
		// have taken place, and one that lost a race to another writer
		// did not. iceberg-go itself retries only errors wrapping
		// table.ErrCommitFailed, which the SQL catalog does not return
		// for a snapshot another writer moved past (TestSQLCatalogConflictNotRetried).
		fresh, lerr := cat.LoadTable(ctx, ident)
		if lerr != nil {
			// Unknown outcome: the data files stay (they may be live),
			// and so does the marker.
			keepMarker = true
			return nil, fmt.Errorf("icesync: committing %s: %w (and reloading it: %v)", opts.To, err, lerr)
		}
		if sid, ok := findSync(fresh, id); ok {
			res.Committed, res.SnapshotID = true, sid
			return res, nil
		}
		if attempt+1 >= commitAttempts || ctx.Err() != nil {
			removeFiles(ctx, tbl, added)
			return nil, fmt.Errorf("icesync: committing %s (attempt %d): %w", opts.To, attempt+1, err)
		}
		if cur := fresh.CurrentSnapshot(); cur != nil && cur.Summary != nil && cur.Summary.Properties[SummarySources] == string(srcJSON) {
			// Another sync of the same inputs got there first.
			removeFiles(ctx, tbl, added)
			res.SnapshotID, res.DataFiles, res.Rows = cur.SnapshotID, 0, 0
			return res, nil
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			removeFiles(ctx, tbl, added)
			return nil, err
		}
		tbl = fresh
	}
}

// errNothing is commitOnce's answer when there is nothing to commit.
var errNothing = errors.New("icesync: nothing to commit")

// testBeforeCommit, set by tests, runs before each commit attempt.
var testBeforeCommit func(attempt int)

// SummarySyncID is the snapshot summary key holding the random ID (a
// UUID, also in the names of the sync's data files) of the sync that
// committed the snapshot, by which a sync whose commit answer was lost,
// or the sync after one that died, finds out whether it took place.
const SummarySyncID = "tsarrow.sync-id"

// commitAttempts bounds the commits of one sync that lose a race to other
// writers; commitWaitMin and commitWaitMax bound the wait between two.
const (
	commitAttempts = 10
	commitWaitMin  = 100 * time.Millisecond
	commitWaitMax  = 10 * time.Second
)

// commitOnce commits the data files as one snapshot on tbl, replacing
// the data files of tbl the plan rewrites (an append when there are none).
// It returns the new snapshot's ID and the number of data files removed.
func commitOnce(ctx context.Context, tbl *table.Table, added []iceberg.DataFile, props iceberg.Properties, plan dayPlan, dayField int) (int64, int, error) {
	var old []iceberg.DataFile
	if tbl.CurrentSnapshot() != nil {
		tasks, err := tbl.Scan().PlanFiles(ctx)
		if err != nil {
			return 0, 0, fmt.Errorf("listing the data files: %w", err)
		}
		for _, t := range tasks {
			if plan.replaces(t.File, dayField) {
				old = append(old, t.File)
			}
		}
	}
	if len(old) == 0 && len(added) == 0 {
		return 0, 0, errNothing
	}
	tx := tbl.NewTransaction()
	var err error
	if len(old) == 0 {
		err = tx.AddDataFiles(ctx, added, props)
	} else {
		err = tx.ReplaceDataFilesWithDataFiles(ctx, old, added, props)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("staging the snapshot: %w", err)
	}
	ntbl, err := tx.Commit(ctx)
	if err != nil {
		return 0, 0, err
	}
	snap := ntbl.CurrentSnapshot()
	if snap == nil {
		return 0, 0, errors.New("no snapshot after the commit")
	}
	return snap.SnapshotID, len(old), nil
}

// findSync looks for the snapshot a sync committed among the table's.
func findSync(tbl *table.Table, id string) (int64, bool) {
	for _, s := range tbl.Metadata().Snapshots() {
		if s.Summary != nil && s.Summary.Properties[SummarySyncID] == id {
			return s.SnapshotID, true
		}
	}
	return 0, false
}

// backoff is the wait before commit attempt n+2: doubling from
// commitWaitMin up to commitWaitMax, with jitter so that writers that
// collided do not collide again.
func backoff(n int) time.Duration {
	d := commitWaitMin << min(n, 16)
	if d > commitWaitMax || d <= 0 {
		d = commitWaitMax
	}
	return d/2 + mrand.N(d/2+1)
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-tm.C:
		return nil
	}
}

// batches yields the rows of the table, all of them or those of the time
// ranges, conformed to the table's schema. table.WriteRecords releases
// each batch it is given.
func batches(ds *dataset.Dataset, name string, ro *arrowconv.Options, all bool, ranges []arrowconv.TimeRange, c *conformer) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		read := func(o *arrowconv.Options) bool {
			rd, err := ds.NewReader(name, o)
			if err != nil {
				yield(nil, err)
				return false
			}
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
		}
		if all {
			read(ro)
			return
		}
		for _, r := range ranges {
			o := *ro
			o.Time = &r
			if !read(&o) {
				return
			}
		}
	}
}

// unitsPerDay is the number of the table's stored time units in a day.
func unitsPerDay(sc *arrow.Schema) (int64, error) {
	switch sc.Field(0).Type.(*arrow.TimestampType).Unit {
	case arrow.Millisecond:
		return 86400 * 1000, nil
	case arrow.Microsecond:
		return 86400 * 1000 * 1000, nil
	}
	return 0, fmt.Errorf("%w: time unit %s", ErrUnsupported, sc.Field(0).Type)
}

// dayPartition returns the partition field ID of the table's spec when it
// is day(time) alone, the spec a sync creates.
func dayPartition(tbl *table.Table) (int, bool) {
	spec := tbl.Spec()
	if spec.NumFields() != 1 {
		return 0, false
	}
	f := spec.Field(0)
	if _, ok := f.Transform.(iceberg.DayTransform); !ok || len(f.SourceIDs) != 1 || f.SourceIDs[0] != tbl.Schema().Field(0).ID {
		return 0, false
	}
	return f.FieldID, true
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
// schema sc, partitioned by day(time). Another writer creating it at the
// same moment is not an error: its table is loaded.
func loadOrCreate(ctx context.Context, cat catalog.Catalog, ident table.Identifier, sc *iceberg.Schema, src string) (*table.Table, bool, error) {
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
	timeID := sc.Field(0).ID
	fieldID := iceberg.PartitionDataIDStart
	spec, err := iceberg.NewPartitionSpecOpts(
		iceberg.AddPartitionFieldBySourceID(timeID, sc.Field(0).Name+"_day", iceberg.DayTransform{}, sc, &fieldID))
	if err != nil {
		return nil, false, fmt.Errorf("icesync: partition spec: %w", err)
	}
	tbl, err = cat.CreateTable(ctx, ident, sc,
		catalog.WithPartitionSpec(&spec),
		catalog.WithProperties(withWriteProps(iceberg.Properties{
			table.PropertyFormatVersion: "2",
			table.CommitNumRetriesKey:   commitRetries,
			PropSourceTable:             src,
		}, sc)))
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

// sameSchema checks that the table has the inputs' columns, in order, of
// the same types.
func sameSchema(have, want *iceberg.Schema) error {
	hf, wf := have.Fields(), want.Fields()
	if len(hf) != len(wf) {
		return fmt.Errorf("%w: %d columns in the table, %d in the inputs", ErrSchemaChanged, len(hf), len(wf))
	}
	for i := range wf {
		if hf[i].Name != wf[i].Name || !hf[i].Type.Equals(wf[i].Type) {
			return fmt.Errorf("%w: column %d is %s %s in the table, %s %s in the inputs", ErrSchemaChanged, i+1, hf[i].Name, hf[i].Type, wf[i].Name, wf[i].Type)
		}
	}
	return nil
}

// sources lists the data files that may hold rows of the table: for a
// table-model table those of its database, for the rest every data file.
func sources(ds *dataset.Dataset, name string, opts *dataset.Options) ([]Source, error) {
	tables, err := ds.Tables()
	if err != nil {
		return nil, err
	}
	db := ""
	for _, t := range tables {
		if t.Ref == name || t.Name == name {
			db = t.Database
			break
		}
	}
	vers := map[string]dataset.FileVersion{}
	for _, v := range ds.Versions() {
		vers[v.Path] = v
	}
	var out []Source
	for _, f := range ds.Layout().Files {
		if db != "" && f.Database != db {
			continue
		}
		v, ok := vers[f.Path]
		if !ok {
			continue // left out by Open (incomplete file)
		}
		s := Source{Name: sourceName(f), Size: v.Size}
		if f.Resource != "" {
			var fsys fs.FS
			if opts != nil {
				fsys = opts.FS
			}
			r, err := dataset.ReadResourceFS(fsys, f.Resource)
			if err != nil {
				return nil, err
			}
			if len(r.Devices) > 0 {
				lo, hi := r.Devices[0].Start, r.Devices[0].End
				for _, d := range r.Devices[1:] {
					lo, hi = min(lo, d.Start), max(hi, d.End)
				}
				s.Start, s.End = &lo, &hi
			}
		}
		for _, m := range []string{f.ModsV2, f.ModsV1} {
			if mv, ok := vers[m]; ok && m != "" {
				s.Mods = &ModsVersion{Name: filepath.Base(m), Size: mv.Size, ModTime: mv.ModTime}
				break
			}
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// sourceName is the name of a data file independent of where the data
// directory is mounted: IoTDB's own path below the data directory.
func sourceName(f dataset.File) string {
	base := filepath.Base(f.Path)
	if f.Database == "" {
		return base
	}
	return path.Join(f.Space.String(), f.Database, f.Region, f.Partition, base)
}

// removeFiles deletes data files a sync wrote and will not commit.
// It runs also when ctx was cancelled (Ctrl-C): that is when the files
// most need removing.
func removeFiles(ctx context.Context, tbl *table.Table, files []iceberg.DataFile) {
	fsys, err := tbl.FS(context.WithoutCancel(ctx))
	if err != nil {
		return
	}
	r, ok := fsys.(interface{ Remove(string) error })
	if !ok {
		return
	}
	for _, df := range files {
		_ = r.Remove(df.FilePath())
	}
}
