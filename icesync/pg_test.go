package icesync

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/tsarrow/tsarrow/internal/pgtest"
)

// TestOpenCatalogPostgres: eight openers at once on an empty PostgreSQL
// database all get the catalog (its tables created by whichever wins the
// CREATE TABLE race), and a sync through it reads back as convert's rows.
func TestOpenCatalogPostgres(t *testing.T) {
	pg := pgtest.Start(t)
	ctx := context.Background()
	wh := filepath.Join(t.TempDir(), "lake")
	const openers = 8
	errs := make([]error, openers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range openers {
		wg.Go(func() {
			<-start
			cat, err := OpenCatalog(ctx, pg.DSN, wh)
			if err == nil {
				err = cat.Close()
			}
			errs[i] = err
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("opener %d: %v", i, err)
		}
	}

	roots := []string{"../testdata/iotdb"}
	opts := Options{Table: "weather", To: "iot.weather", Catalog: pg.DSN, Warehouse: wh}
	res, err := Sync(ctx, roots, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := wantRows(t, roots, "weather")
	if !res.Created || !res.Committed || res.Rows != int64(len(want)) {
		t.Fatalf("sync: %+v, want created, committed, %d rows", res, len(want))
	}
	if got := scanRows(t, loadTable(t, opts.Catalog, "", opts.To)); !slices.Equal(got, want) {
		t.Fatalf("scan gives %d rows, convert %d", len(got), len(want))
	}
}
