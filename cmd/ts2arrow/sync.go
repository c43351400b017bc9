package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/tsarrow/tsarrow/icesync"
	"github.com/tsarrow/tsarrow/tsfile"
)

const syncHelp = `Usage: ts2arrow sync INPUT... --table T --catalog URI --warehouse LOCATION
                     --to NAMESPACE.TABLE [--database DB] [--lenient] [--quiet]

Keeps an Apache Iceberg table in step with the table T of INPUT (TsFiles,
IoTDB data directories, globs of them), read as "ts2arrow convert" reads
it: deletions applied, overwritten points once. The first sync creates
the Iceberg table NAMESPACE.TABLE (and its namespace) from T's schema,
partitioned by day(time), and commits one snapshot holding every row.
A later sync writes only what changed: new source files append, and the
days that deletions, overwrites or vanished files touched are rewritten
whole; when the sources are those the table already reflects, it commits
nothing. Each sync is one atomic commit, whose snapshot summary records
the source files (name, size, mods version) it reflects; data files of a
sync that was killed before it committed are removed by the next one.

--catalog names the Iceberg catalog: sqlite:PATH is Iceberg's SQL catalog
in the SQLite database PATH (created when missing); postgres://USER@HOST/DB
(or postgresql://, a libpq URI; PGPASSWORD and ~/.pgpass apply) the same
catalog on PostgreSQL, its tables created when missing, for many writers
and for Spark, Trino and PyIceberg as a JDBC/SQL catalog; rest+https://HOST/PATH
an Iceberg REST catalog at https://HOST/PATH, its properties as query
parameters (warehouse=, credential=, token=, prefix=, ...) and
ICEBERG_REST_CREDENTIAL / ICEBERG_REST_TOKEN from the environment.
--warehouse is where the tables it creates live: a local directory, or
s3://BUCKET/PREFIX (endpoint, region and credentials as for S3 inputs:
AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID ...), gs://BUCKET/PREFIX,
abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PREFIX; optional with a
REST catalog, whose server then places the tables.

IoTDB data is read as in convert (see "ts2arrow convert --help", which
says more): a table name that several databases hold needs --database
NAME (or --table DATABASE.TABLE); --mods-v1 says how IoTDB 1.x .mods
deletions apply (offset, whole, or auto by the data directory's version);
a mods file larger than --max-mods-size stops the sync; --trust-resources
prunes by each .resource without checking it against its data file.

On success it prints one line: the snapshot, the data files it added and
replaced and the rows it wrote, or "nothing to sync" when the table was
already in step.

Examples:
  ts2arrow sync testdata/iotdb --table weather --catalog sqlite:cat.db \
      --warehouse lake --to iot.weather
  ts2arrow sync /iotdb/data/datanode/data --table weather --database db1 \
      --catalog sqlite:/srv/lake/catalog.db --warehouse /srv/lake --to iot.weather

Exit status: 0 on success (also when there was nothing to sync), 1 on a
data, format or catalog error, 2 on a usage error, 130 when Ctrl-C
stopped it (143 for SIGTERM): the table is left at its previous snapshot.

Options:
`

func runSync(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sync", syncHelp, stderr)
	table := fs.String("table", "", "the table of INPUT to sync (required)")
	catURI := fs.String("catalog", "", "the Iceberg catalog: sqlite:PATH, postgres://..., rest+https://... (required)")
	warehouse := fs.String("warehouse", "", "where the catalog's new tables live: a directory or s3://, gs://, abfss:// (required but with a REST catalog)")
	to := fs.String("to", "", "the Iceberg table, NAMESPACE.TABLE (required)")
	dsFlags := addDatasetFlags(fs)
	lenient := fs.Bool("lenient", false, "read files with known writer quirks, reporting warnings")
	quiet := fs.Bool("quiet", false, "print no warnings about the inputs on standard error")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("sync needs at least one INPUT (see ts2arrow sync --help)")
	}
	for _, f := range []struct{ name, v string }{{"table", *table}, {"catalog", *catURI}, {"warehouse", *warehouse}, {"to", *to}} {
		if f.v == "" && !(f.name == "warehouse" && icesync.IsRESTCatalog(*catURI)) {
			return usagef("sync needs --%s (see ts2arrow sync --help)", f.name)
		}
	}
	if err := icesync.CheckCatalogURI(*catURI); err != nil {
		return usagef("--catalog: %s", strings.TrimPrefix(err.Error(), "icesync: "))
	}
	if err := icesync.CheckWarehouse(*warehouse); err != nil {
		return usagef("--warehouse: %s", strings.TrimPrefix(err.Error(), "icesync: "))
	}
	if i := strings.LastIndexByte(*to, '.'); i <= 0 || i == len(*to)-1 {
		return usagef("--to %q: want NAMESPACE.TABLE", *to)
	}
	for _, a := range pos {
		if isURL(a) {
			return usagef("%s: sync reads local files and directories only, for now", a)
		}
	}
	if dsFlags.database != "" && !strings.Contains(*table, ".") {
		// The dataset names a table of one database "db.table".
		*table = dsFlags.database + "." + *table
	}
	roots, err := syncRoots(pos, dsFlags)
	if err != nil {
		return err
	}
	dso, err := dsFlags.options(&tsfile.ReadOptions{Lenient: *lenient})
	if err != nil {
		return err
	}
	// Ctrl-C cancels the sync, which then removes the data files it wrote
	// and commits nothing; a second one kills the process at once (the
	// next sync removes what that leaves).
	ctx, stop := notifyInterrupt()
	defer stop()
	res, err := icesync.Sync(ctx, roots, icesync.Options{
		Table: *table, To: *to, Catalog: *catURI, Warehouse: *warehouse, Dataset: dso,
	})
	if err != nil {
		if ctx.Err() != nil {
			return interruptedBy(ctx)
		}
		return err
	}
	if !*quiet {
		for _, w := range res.Warnings {
			fmt.Fprintf(stderr, "ts2arrow: warning: %s\n", oneLine(w))
		}
	}
	fmt.Fprintln(stdout, syncSummary(*to, res))
	return nil
}

// syncRoots turns the INPUT arguments into the roots icesync opens as one
// dataset: directories as given (so that an IoTDB data directory keeps
// its layout), globs expanded, and each argument checked to name a file.
func syncRoots(pos []string, f *datasetFlags) ([]string, error) {
	files, err := expandInputs(pos)
	if err != nil {
		return nil, err
	}
	d, err := detectDatasetWith(context.Background(), pos, files, nil)
	if err != nil {
		return nil, err
	}
	if err := checkDatasetFlags(f, d); err != nil {
		return nil, err
	}
	if d == nil {
		// Loose TsFiles without mods: the files themselves.
		return files, nil
	}
	defer d.close()
	return d.roots, nil
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
