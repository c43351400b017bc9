package icesync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/iceberg-go/table"
)

// TestSQLCatalogConflictNotRetried records how iceberg-go v0.7.0's SQL
// catalog answers a commit based on a snapshot another writer has moved
// past: the requirement check fails inside CommitTable with an error that
// does not wrap table.ErrCommitFailed, so Table.doCommit does not retry it,
// whatever commit.retry.num-retries says. Sync retries such commits itself
// (TestSyncRetriesConflict). Should a later iceberg-go wrap the error, this
// test fails and the retry loop in Sync can go.
func TestSQLCatalogConflictNotRetried(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := weatherOptions(dir)
	if _, err := Sync(ctx, []string{"../testdata/iotdb"}, opts); err != nil {
		t.Fatal(err)
	}
	a := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	b := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	// iceberg-go's own retries stay off: they would replay a sync's
	// updates on a head another run of the same writer moved (doubled rows).
	if r := a.Properties()[table.CommitNumRetriesKey]; r != "" && r != "0" {
		t.Fatalf("table properties %v", a.Properties())
	}
	for i, tbl := range []*table.Table{a, b} {
		tx := tbl.NewTransaction()
		if err := tx.AppendTable(ctx, oneRow(t, tbl), 1, nil); err != nil {
			t.Fatal(err)
		}
		_, err := tx.Commit(ctx)
		switch {
		case i == 0 && err != nil:
			t.Fatal(err)
		case i == 1 && err == nil:
			t.Fatal("a commit based on a stale snapshot succeeded")
		case i == 1 && errors.Is(err, table.ErrCommitFailed):
			t.Fatalf("the stale commit's error now wraps ErrCommitFailed (iceberg-go retries it): %v", err)
		case i == 1:
			t.Logf("stale commit: %v", err)
		}
	}
}

// oneRow is a table of one row in tbl's schema: time 0, the rest null.
func oneRow(t *testing.T, tbl *table.Table) arrow.Table {
	t.Helper()
	sc, err := table.SchemaToArrowSchema(tbl.Schema(), nil, true, false)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.TimestampBuilder).Append(0)
	for i := 1; i < sc.NumFields(); i++ {
		b.Field(i).AppendNull()
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return array.NewTableFromRecords(sc, []arrow.RecordBatch{rec})
}

// TestSyncRetriesConflict lets another writer commit between a sync's
// writing and its commit: the sync's first commit fails, it reloads the
// table and commits again, and the table ends with the dataset reader's
// rows (and the other writer's row, in a day the sync did not rewrite)
// and exactly one snapshot of that sync.
func TestSyncRetriesConflict(t *testing.T) {
	ctx := context.Background()
	dir, root := sampleCopy(t)
	opts := weatherOptions(dir)
	if _, err := Sync(ctx, []string{root}, opts); err != nil {
		t.Fatal(err)
	}
	un := filepath.Join(root, "unsequence/weather/1/0/1767236400000-3-0-0.tsfile")
	for _, p := range []string{un, un + ".resource"} {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	var attempts []int
	testBeforeCommit = func(attempt int) {
		attempts = append(attempts, attempt)
		if attempt != 0 {
			return
		}
		other := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
		tx := other.NewTransaction()
		if err := tx.AppendTable(ctx, oneRow(t, other), 1, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { testBeforeCommit = nil }()
	res, err := Sync(ctx, []string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(attempts, []int{0, 1}) || !res.Committed {
		t.Fatalf("attempts %v, result %+v; want a second attempt that commits", attempts, res)
	}
	tbl := loadTable(t, opts.Catalog, opts.Warehouse, opts.To)
	want := append(wantRows(t, []string{root}, "weather"), "time=0|region=null|plant=null|temperature=null|humidity=null|status=null|")
	slices.Sort(want)
	if got := scanRows(t, tbl); !slices.Equal(got, want) {
		t.Fatalf("after the retried sync: %d rows, want %d", len(got), len(want))
	}
	n := 0
	for _, s := range tbl.Metadata().Snapshots() {
		if s.Summary != nil && s.Summary.Properties[SummarySyncID] != "" {
			n++
		}
	}
	if len(tbl.Metadata().Snapshots()) != 3 || n != 2 || tbl.CurrentSnapshot().SnapshotID != res.SnapshotID {
		t.Fatalf("%d snapshots, %d of syncs; want 3 (sync, other writer, retried sync)", len(tbl.Metadata().Snapshots()), n)
	}
}
