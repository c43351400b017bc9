//go:build iceberg

package main

// The sync itself, in the program built with -tags iceberg
// (ts2arrow-iceberg; see icebergprog.go).

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/icesync"
	"github.com/tsarrow/tsarrow/internal/inputs"
	"github.com/tsarrow/tsarrow/objstore"
	"github.com/tsarrow/tsarrow/tsfile"
)

// syncIceberg checks sync's flags and runs the sync of INPUT pos.
func syncIceberg(f syncFlags, pos []string, stdout, stderr io.Writer) error {
	if len(pos) == 0 {
		return usagef("sync needs at least one INPUT (see ts2arrow sync --help)")
	}
	for _, req := range []struct{ name, v string }{{"table", f.table}, {"catalog", f.catalog}, {"warehouse", f.warehouse}, {"to", f.to}} {
		if req.v == "" && !(req.name == "warehouse" && icesync.IsRESTCatalog(f.catalog)) {
			return usagef("sync needs --%s (see ts2arrow sync --help)", req.name)
		}
	}
	if err := icesync.CheckCatalogURI(f.catalog); err != nil {
		return usagef("--catalog: %s", strings.TrimPrefix(err.Error(), "icesync: "))
	}
	if err := icesync.CheckWarehouse(f.warehouse); err != nil {
		return usagef("--warehouse: %s", strings.TrimPrefix(err.Error(), "icesync: "))
	}
	if i := strings.LastIndexByte(f.to, '.'); i <= 0 || i == len(f.to)-1 {
		return usagef("--to %q: want NAMESPACE.TABLE", f.to)
	}
	tu, err := timeUnitFlag(f.unit)
	if err != nil {
		return err
	}
	if _, err := icesync.ParsePartition(f.partition); err != nil {
		return usagef("--partition: %v", err)
	}
	for _, a := range pos {
		if isURL(a) && !inputs.IsObjectURL(a) {
			return usagef("%s: sync reads local paths and object-store URLs (s3://, gs://, az://, file://), not http(s)", a)
		}
	}
	if f.dataset.database != "" && !strings.Contains(f.table, ".") {
		// The dataset names a table of one database "db.table".
		f.table = f.dataset.database + "." + f.table
	}
	// Ctrl-C cancels the sync, which then removes the data files it wrote
	// and commits nothing; a second one kills the process at once (the
	// next sync removes what that leaves).
	ctx, stop := notifyInterrupt()
	defer stop()
	in, err := syncRoots(ctx, pos, f.dataset, f.objects.options())
	if err != nil {
		return err
	}
	defer in.close()
	dso, err := f.dataset.options(&tsfile.ReadOptions{Lenient: f.lenient})
	if err != nil {
		return err
	}
	dso.FS = in.fsys
	res, err := icesync.Sync(ctx, in.roots, icesync.Options{
		Table: f.table, To: f.to, Catalog: f.catalog, Warehouse: f.warehouse, Dataset: dso,
		Writer: f.writer, TakeOver: f.takeOver,
		Partition: f.partition, TimeUnit: arrowconv.TimeUnitOf(tu),
	})
	if err != nil {
		if ctx.Err() != nil {
			return interruptedBy(ctx)
		}
		return err
	}
	if !f.quiet {
		for _, w := range res.Warnings {
			fmt.Fprintf(stderr, "ts2arrow: warning: %s\n", oneLine(w))
		}
	}
	fmt.Fprintln(stdout, syncSummary(f.to, res))
	return nil
}

// syncRoots turns the INPUT arguments into the roots icesync opens as one
// dataset: directories as given (so that an IoTDB data directory keeps
// its layout), globs expanded, and each argument checked to name a file.
// Object URLs are read through the bucket's io/fs view (the returned
// input's fsys, the dataset's FS), IoTDB data or loose TsFiles alike: sync
// reads every input as one dataset. The caller closes the input.
func syncRoots(ctx context.Context, pos []string, f *datasetFlags, o *objstore.Options) (*datasetInput, error) {
	files, err := expandInputsWith(ctx, pos, o)
	if err != nil {
		return nil, err
	}
	d, err := detectDatasetWith(ctx, pos, files, o)
	if err != nil {
		return nil, err
	}
	if err := checkDatasetFlags(f, d); err != nil {
		d.close()
		return nil, err
	}
	if d != nil {
		return d, nil
	}
	// Loose TsFiles without mods: the files themselves, in a bucket read
	// by key (the expanded files, so no pattern is left in them).
	d = &datasetInput{}
	if slices.ContainsFunc(files, inputs.IsObjectURL) {
		if err := objectDataset(ctx, d, files, o); err != nil {
			return nil, err
		}
		return d, nil
	}
	d.roots = files
	return d, nil
}

// syncSummary is the line sync prints on success.
func syncSummary(to string, r *icesync.Result) string {
	if !r.Committed {
		return fmt.Sprintf("%s: nothing to sync (snapshot %d reflects the %d source files)", to, r.SnapshotID, r.Sources)
	}
	verb := "synced"
	if r.Created {
		verb = "created"
	}
	return fmt.Sprintf("%s: %s, snapshot %d: %d data files added, %d replaced, %d rows, from %d source files",
		to, verb, r.SnapshotID, r.DataFiles, r.Removed, r.Rows, r.Sources)
}
