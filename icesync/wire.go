package icesync

// The pieces Sync wires together (docs/dev-notes-iceberg-icedesign.md):
// the writer's name, its state, region claims, the time buckets of the
// table's partition spec, and the data files a dead sync left.

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go"
	iceio "github.com/apache/iceberg-go/io"
	"github.com/apache/iceberg-go/table"

	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// Table property keys of the many-writer protocol.
const (
	// PropWriterStatePrefix + writer + PropWriterStateSuffix is the table
	// property naming the writer's current state file (its SyncState),
	// set in the same transaction as the data it describes.
	PropWriterStatePrefix = "tsarrow.sync.writer."
	PropWriterStateSuffix = ".state"
	// PropRegionPrefix + db + "." + region is the table property naming
	// the writer that owns a data region's rows.
	PropRegionPrefix = "tsarrow.sync.region."
)

// Snapshot summary keys besides SummarySyncID and SummaryTable.
const (
	// SummaryWriter is the writer that committed the snapshot.
	SummaryWriter = "tsarrow.sync.writer"
	// SummaryState is the state file the snapshot's writer recorded: the
	// full list of source files its rows reflect.
	SummaryState = "tsarrow.sync.state"
	// SummaryDelta is the JSON list ([]Source) of the source files the
	// snapshot added, changed or removed; left out when longer than
	// maxDelta bytes, and SummaryDeltaTruncated then holds its length.
	SummaryDelta          = "tsarrow.sources.delta"
	SummaryDeltaTruncated = "tsarrow.sources.delta-truncated"
	// SummaryFiles is the number of source files the writer's state holds.
	SummaryFiles = "tsarrow.sync.files.total"
)

// maxDelta bounds SummaryDelta: every commit rewrites every snapshot's
// summary into the new metadata.json, so the summary must stay small.
const maxDelta = 64 << 10

// ErrRegionClaimed is returned when a data region of the inputs belongs
// to another writer of the table.
var ErrRegionClaimed = errors.New("icesync: data region claimed by another writer")

// ErrStateMissing is returned when the state file a table property names
// for the writer cannot be read: planning without it would append rows
// the table already holds.
var ErrStateMissing = errors.New("icesync: the writer's sync state is missing")

// ErrForeignRewrite is returned when a data file the writer's state owns
// is not in the table any more: something else rewrote or removed it.
var ErrForeignRewrite = errors.New("icesync: a data file this writer wrote is no longer in the table")

// Source is a source data file in a snapshot's delta: its name below the
// data directory, its size, the version of its mods file (name, size,
// mtime and the rule it applies by; empty without one) and what happened
// to it: "new", "changed", "mods" or "gone".
type Source struct {
	Name   string `json:"name"`
	Size   int64  `json:"size,omitempty"`
	Mods   string `json:"mods,omitempty"`
	Change string `json:"change"`
}

// DefaultWriter is the writer name a sync of inputs takes without
// Options.Writer: the host name and a short digest of the absolute inputs,
// so that the same command on the same host is the same writer.
func DefaultWriter(inputs []string) string {
	host, _ := os.Hostname()
	if host == "" {
		host = "host"
	}
	abs := make([]string, 0, len(inputs))
	for _, in := range inputs {
		a, err := filepath.Abs(in)
		if err != nil {
			a = in
		}
		abs = append(abs, filepath.Clean(a))
	}
	slices.Sort(abs)
	sum := sha256.Sum256([]byte(strings.Join(abs, "\x00")))
	return host + "-" + hex.EncodeToString(sum[:4])
}

// stateProp is the table property naming writer's state file.
func stateProp(writer string) string {
	return PropWriterStatePrefix + writer + PropWriterStateSuffix
}

// stateLocation is where sync id of writer records its state: beside the
// table's location, not below it, because engines' orphan-file removal
// (Spark's remove_orphan_files) deletes every file below the table
// location no metadata references, and a property is no reference to
// them. A state lost anyway is refused (ErrStateMissing), never guessed.
func stateLocation(tbl *table.Table, writer, id string) string {
	return strings.TrimSuffix(tbl.Location(), "/") + ".tsarrow-sync/" + url.PathEscape(writer) + "/" + id + ".json.gz"
}

// loadState reads the state the table names for writer: nil, "" when the
// writer has not synced into it yet.
func loadState(fsys iceio.IO, tbl *table.Table, writer string) (*SyncState, string, error) {
	loc := tbl.Properties()[stateProp(writer)]
	if loc == "" {
		return nil, "", nil
	}
	b, err := readAll(fsys, loc, 0)
	if err != nil {
		return nil, loc, fmt.Errorf("%w: %s (property %s): %w; sync into a new table, or remove the property and the writer's data files", ErrStateMissing, loc, stateProp(writer), err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, loc, fmt.Errorf("%w: %s: %w", ErrStateMissing, loc, err)
	}
	var st SyncState
	if err := json.NewDecoder(zr).Decode(&st); err != nil {
		return nil, loc, fmt.Errorf("%w: %s: %w", ErrStateMissing, loc, err)
	}
	return &st, loc, nil
}

// saveState writes a state file.
func saveState(fsys iceio.IO, loc string, st *SyncState) error {
	w, ok := fsys.(iceio.WriteFileIO)
	if !ok {
		return table.ErrWriteIORequired
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if err := json.NewEncoder(zw).Encode(st); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := w.WriteFile(loc, buf.Bytes()); err != nil {
		return fmt.Errorf("icesync: state %s: %w", loc, err)
	}
	return nil
}

// regionsOf lists the data regions (database/region) of the facts, from
// their names space/database/region/partition/file; loose files have none.
func regionsOf(facts []SourceFile) [][2]string {
	seen := map[[2]string]bool{}
	var out [][2]string
	for _, f := range facts {
		parts := strings.Split(f.Name, "/")
		if len(parts) != 5 {
			continue
		}
		k := [2]string{parts[1], parts[2]}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// claims checks the region claims of the table against writer and returns
// the properties that claim its unclaimed regions (and, with takeOver,
// those of other writers).
//
// A take-over is refused while the owner's state still lists files of the
// region: its rows are in the table, and this writer's would double them.
// The owner drops them by syncing once without the region's files (the
// files gone, it rewrites their days), then the new writer takes over.
func claims(fsys iceio.IO, tbl *table.Table, writer string, regions [][2]string, takeOver bool) (iceberg.Properties, error) {
	props := iceberg.Properties{}
	have := tbl.Properties()
	for _, r := range regions {
		key := PropRegionPrefix + r[0] + "." + r[1]
		switch owner := have[key]; {
		case owner == writer:
		case owner == "":
			props[key] = writer
		case takeOver:
			st, _, err := loadState(fsys, tbl, owner)
			if err != nil {
				return nil, err
			}
			if st != nil {
				for _, f := range st.Files {
					if parts := strings.Split(f.Name, "/"); len(parts) == 5 && parts[1] == r[0] && parts[2] == r[1] {
						return nil, fmt.Errorf("%w: region %s/%s: writer %q still holds its rows (%s); sync %q once without the region's files, then take it over as %q", ErrRegionClaimed, r[0], r[1], owner, f.Name, owner, writer)
					}
				}
			}
			props[key] = writer
		default:
			return nil, fmt.Errorf("%w: region %s/%s of the inputs is synced by writer %q, this sync is writer %q; sync it from that writer, or pass --take-over (Options.TakeOver) if the region moved here", ErrRegionClaimed, r[0], r[1], owner, writer)
		}
	}
	return props, nil
}

// digestKeys replaces the deletion keys of the facts by short digests:
// the state compares them for equality only, and the canonical text of a
// deletion can be long.
func digestKeys(facts []SourceFile) {
	for i := range facts {
		for j := range facts[i].Deletions {
			sum := sha256.Sum256([]byte(facts[i].Deletions[j].Key))
			facts[i].Deletions[j].Key = hex.EncodeToString(sum[:12])
		}
	}
}

// delta lists the source files a plan found changed.
func delta(plan *SyncPlan, facts []SourceFile, prev *SyncState) []Source {
	cur := map[string]*SourceFile{}
	for i := range facts {
		cur[facts[i].Name] = &facts[i]
	}
	var out []Source
	add := func(names []string, change string) {
		for _, n := range names {
			s := Source{Name: n, Change: change}
			if f := cur[n]; f != nil {
				s.Size, s.Mods = f.Size, f.Mods
			}
			out = append(out, s)
		}
	}
	add(plan.New, "new")
	add(plan.Changed, "changed")
	add(plan.ModsChanged, "mods")
	add(plan.Gone, "gone")
	if prev != nil {
		// A gone file's last size and mods, from the record.
		rec := map[string]*RecordedFile{}
		for i := range prev.Files {
			rec[prev.Files[i].Name] = &prev.Files[i]
		}
		for i := range out {
			if r := rec[out[i].Name]; out[i].Change == "gone" && r != nil {
				out[i].Size, out[i].Mods = r.Size, r.Mods
			}
		}
	}
	slices.SortFunc(out, func(a, b Source) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// bucketing is how the table's partition spec groups times: the bucket
// of a time (in the dataset's unit), the times of a bucket, and the bucket
// of a data file. Without a time transform every time is in bucket 0 and
// a rewrite replaces every data file the writer owns.
type bucketing struct {
	field  int // partition field ID of the time transform; -1 without
	bucket func(t int64) int64
	span   func(b int64) (lo, hi int64)
}

// bucketingOf returns the bucketing of tbl's spec for times counted in
// units of which perSecond make a second: day, hour, month or year of the
// table's time column (the first), else one bucket.
func bucketingOf(tbl *table.Table, perSecond int64) bucketing {
	return bucketingOfSpec(tbl.Spec(), tbl.Schema().Field(0).ID, perSecond)
}

// bucketingOfSpec is bucketingOf for a spec whose time column is timeID.
func bucketingOfSpec(spec iceberg.PartitionSpec, timeID int, perSecond int64) bucketing {
	for i := 0; i < spec.NumFields(); i++ {
		f := spec.Field(i)
		if len(f.SourceIDs) != 1 || f.SourceIDs[0] != timeID {
			continue
		}
		fixed := func(width int64) bucketing {
			return bucketing{field: f.FieldID,
				bucket: func(t int64) int64 { return floorDiv(t, width) },
				span: func(b int64) (int64, int64) {
					return satMul(b, width), satAdd(satMul(b+1, width), -1)
				}}
		}
		toTime := func(t int64) time.Time {
			return time.Unix(floorDiv(t, perSecond), 0).UTC()
		}
		fromTime := func(tm time.Time) int64 { return satMul(tm.Unix(), perSecond) }
		switch f.Transform.(type) {
		case iceberg.DayTransform:
			return fixed(86400 * perSecond)
		case iceberg.HourTransform:
			return fixed(3600 * perSecond)
		case iceberg.MonthTransform:
			return bucketing{field: f.FieldID,
				bucket: func(t int64) int64 {
					tm := toTime(t)
					return int64(tm.Year()-1970)*12 + int64(tm.Month()) - 1
				},
				span: func(b int64) (int64, int64) {
					start := time.Date(1970, time.Month(b+1), 1, 0, 0, 0, 0, time.UTC)
					return fromTime(start), fromTime(start.AddDate(0, 1, 0)) - 1
				}}
		case iceberg.YearTransform:
			return bucketing{field: f.FieldID,
				bucket: func(t int64) int64 { return int64(toTime(t).Year() - 1970) },
				span: func(b int64) (int64, int64) {
					start := time.Date(1970+int(b), 1, 1, 0, 0, 0, 0, time.UTC)
					return fromTime(start), fromTime(start.AddDate(1, 0, 0)) - 1
				}}
		}
	}
	return bucketing{field: -1,
		bucket: func(int64) int64 { return 0 },
		span:   func(int64) (int64, int64) { return math.MinInt64, math.MaxInt64 }}
}

// fileBucket is the bucket of a data file the sync wrote: its time
// partition value (day, hour, month or year number), or 0 without one.
func (bk bucketing) fileBucket(df iceberg.DataFile) (int64, error) {
	if bk.field < 0 {
		return 0, nil
	}
	if b, ok := partitionDay(df, bk.field); ok {
		return b, nil
	}
	return 0, fmt.Errorf("icesync: data file %s has no time partition value", df.FilePath())
}

func satMul(a, b int64) int64 {
	if a != 0 && (a*b/a != b) {
		if (a < 0) != (b < 0) {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	return a * b
}

func satAdd(a, b int64) int64 {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		if b > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return s
}

// partitionDay returns a data file's partition value of a time transform.
func partitionDay(df iceberg.DataFile, fieldID int) (int64, bool) {
	switch v := df.Partition()[fieldID].(type) {
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case int:
		return int64(v), true
	case iceberg.Date:
		return int64(v), true
	}
	return 0, false
}

// floorDiv divides rounding toward negative infinity, as days before 1970
// are counted.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// indexDevices returns the device ranges of a data file from its index,
// for a file without .resource (a loose TsFile), as dataset reads it.
func indexDevices(fsys fs.FS, ro *tsfile.ReadOptions) func(f dataset.File) ([]dataset.DeviceTimes, error) {
	return func(f dataset.File) ([]dataset.DeviceTimes, error) {
		var tf *tsfile.File
		if fsys == nil {
			var err error
			if tf, err = tsfile.OpenFile(f.Path, ro); err != nil {
				return nil, err
			}
		} else {
			fl, err := fsys.Open(f.Path)
			if err != nil {
				return nil, err
			}
			defer fl.Close()
			st, err := fl.Stat()
			if err != nil {
				return nil, err
			}
			ra, ok := fl.(io.ReaderAt)
			if !ok {
				return nil, dataset.ErrNoReaderAt
			}
			if tf, err = tsfile.Open(ra, st.Size(), ro); err != nil {
				return nil, err
			}
		}
		defer tf.Close()
		var out []dataset.DeviceTimes
		for _, name := range tf.Tables() {
			devs, err := tf.Devices(name)
			if err != nil {
				return nil, err
			}
			for _, dev := range devs {
				series, err := tf.Series(dev)
				if err != nil {
					return nil, err
				}
				lo, hi, ok := int64(math.MaxInt64), int64(math.MinInt64), false
				for i := range series {
					if series[i].IsValueColumn() {
						continue
					}
					for _, c := range series[i].Chunks {
						lo, hi, ok = min(lo, c.Statistics.StartTime), max(hi, c.Statistics.EndTime), true
					}
				}
				if ok {
					out = append(out, dataset.DeviceTimes{Device: dev, Start: lo, End: hi})
				}
			}
		}
		return out, nil
	}
}

// reapDead removes what syncs of writer that died (killed between writing
// and committing) left: the data files named by their write IDs that no
// snapshot references (Orphans), then their markers. A marker counts as
// dead when it names a process of this host that is gone, or is older than
// staleAfter. It returns the number of data files removed.
func reapDead(ctx context.Context, fsys iceio.IO, tbl *table.Table, writer string) (int, error) {
	lio, ok := fsys.(iceio.ListableIO)
	if !ok {
		return 0, nil // cannot list: orphans stay for DeleteOrphanFiles
	}
	root := strings.TrimSuffix(tbl.Location(), "/")
	host, _ := os.Hostname()
	var pending []PendingSync
	var markers []string
	err := lio.WalkDir(root+"/"+inflightDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".json") {
			return nil
		}
		var m marker
		if b, err := readAll(fsys, p, 1<<16); err != nil || json.Unmarshal(b, &m) != nil {
			return nil // being written, or not ours: leave it
		}
		if m.Writer != "" && m.Writer != writer {
			return nil // another writer's: it clears its own
		}
		age := time.Since(time.UnixMilli(m.Start))
		if (m.Host == host && !processAlive(m.PID)) || age > staleAfter {
			id := strings.TrimSuffix(path.Base(p), ".json")
			for _, w := range append([]string{id}, m.Writes...) {
				pending = append(pending, PendingSync{Writer: writer, SyncID: w})
			}
			markers = append(markers, p)
		}
		return nil
	})
	if err != nil || len(markers) == 0 {
		return 0, err
	}
	var files []string
	err = lio.WalkDir(root+"/data", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return fs.SkipDir
			}
			return err
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("icesync: listing the data files: %w", err)
	}
	referenced, err := referencedFiles(ctx, tbl)
	if err != nil {
		return 0, err
	}
	remove, _ := Orphans(writer, "", pending, files, func(p string) bool { return referenced[plainPath(p)] })
	for _, p := range remove {
		if err := fsys.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, fmt.Errorf("icesync: removing the data files of a sync that died: %w", err)
		}
	}
	// The state files the dead syncs wrote, unless one of them committed.
	current := tbl.Properties()[stateProp(writer)]
	stateDir := path.Dir(stateLocation(tbl, writer, "x"))
	_ = lio.WalkDir(stateDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == current || plainPath(p) == plainPath(current) {
			return nil
		}
		for _, m := range markers {
			if strings.HasPrefix(path.Base(p), strings.TrimSuffix(path.Base(m), ".json")+"-") {
				_ = fsys.Remove(p)
			}
		}
		return nil
	})
	for _, p := range markers {
		_ = fsys.Remove(p)
	}
	return len(remove), nil
}

// referencedFiles lists the data files every snapshot of tbl holds.
func referencedFiles(ctx context.Context, tbl *table.Table) (map[string]bool, error) {
	out := map[string]bool{}
	for _, s := range tbl.Metadata().Snapshots() {
		tasks, err := tbl.Scan(table.WithSnapshotID(s.SnapshotID)).PlanFiles(ctx)
		if err != nil {
			return nil, fmt.Errorf("icesync: listing the data files of snapshot %d: %w", s.SnapshotID, err)
		}
		for _, t := range tasks {
			out[plainPath(t.File.FilePath())] = true
		}
	}
	return out, nil
}

// plainPath drops a file: scheme, so that listed and recorded paths compare.
func plainPath(p string) string {
	if s, ok := strings.CutPrefix(p, "file://"); ok {
		return s
	}
	return p
}

// transient reports whether err is the SQLite catalog's answer that
// another connection held the database (SQLITE_BUSY, SQLITE_LOCKED and
// their extended codes): worth trying again, whatever the table's head.
func transient(err error) bool {
	var c interface{ Code() int }
	if errors.As(err, &c) {
		switch c.Code() & 0xff {
		case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
			return true
		}
	}
	return err != nil && (strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked"))
}
