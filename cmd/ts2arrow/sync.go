package main

import "io"

const syncHelp = `Usage: ts2arrow sync INPUT... --table T --catalog URI --warehouse LOCATION
                     --to NAMESPACE.TABLE [--database DB|'*'] [--partition SPEC]
                     [--time-unit ms|us] [--writer NAME] [--take-over]
                     [--lenient] [--quiet]

Keeps an Apache Iceberg table in step with the table T of INPUT (TsFiles,
IoTDB data directories, globs of them), read as "ts2arrow convert" reads
it: deletions applied, overwritten points once. The first sync creates
the Iceberg table NAMESPACE.TABLE (and its namespace) from T's schema,
partitioned by day(time), and commits one snapshot holding every row.
A later sync writes only what changed: new source files append, and the
days that deletions, overwrites or vanished files touched are rewritten
whole; when the sources are those the table already reflects, it commits
nothing. Each sync is one atomic commit, whose snapshot summary records
the source files (name, size, mods version) it added, changed or removed,
and names the state file listing all it reflects; data files of a sync
that was killed before it committed are removed by the next one.

Several syncs may write one table at once, one per data directory (a
DataNode's) or set of data regions: each is a writer (--writer NAME;
by default the host name and a digest of the inputs), the table records
per writer the source files its rows reflect, the first writer to sync a
data region owns it (another is refused, unless --take-over), and a
commit that loses a race with another writer is planned again on the
new table and retried.

--catalog names the Iceberg catalog: sqlite:PATH is Iceberg's SQL catalog
in the SQLite database PATH (created when missing); postgres://USER@HOST/DB
(or postgresql://, a libpq URI; PGPASSWORD and ~/.pgpass apply) the same
catalog on PostgreSQL, its tables created when missing, for many writers
and for Spark, Trino and PyIceberg as a JDBC/SQL catalog; rest+https://HOST/PATH
an Iceberg REST catalog at https://HOST/PATH, its properties as query
parameters (warehouse=, credential=, token=, prefix=, ...) and
ICEBERG_REST_CREDENTIAL / ICEBERG_REST_TOKEN from the environment;
hive+thrift://HOST:PORT a Hive Metastore (port 9083 by default); glue://
AWS Glue's Data Catalog of the account (glue://CATALOG_ID another one's),
with region=, endpoint= and max-retries= as query parameters and the AWS
SDK's credentials.
--warehouse is where the tables it creates live: a local directory, or
s3://BUCKET/PREFIX (endpoint, region and credentials as for S3 inputs:
AWS_ENDPOINT_URL, AWS_REGION, AWS_ACCESS_KEY_ID ...), gs://BUCKET/PREFIX,
abfss://CONTAINER@ACCOUNT.dfs.core.windows.net/PREFIX; optional with a
REST catalog, whose server then places the tables.

--partition SPEC partitions a table the sync creates (default day(time)):
hour(time), day(time), month(time) or year(time); a TAG column's name
(identity), bucket(N, TAG) or truncate(W, TAG); a comma list of these,
as day(time),region; or none. Given for an existing table it must be
the table's spec. --database '*' (or --table '*.T') syncs the table T
of every database of INPUT into one Iceberg table, with a column
"database" after time, which --partition may name. A later sync whose
inputs gained FIELD columns adds them to the table (older rows read
null), and one where IoTDB changed a column from INT32 to INT64 or
FLOAT to DOUBLE promotes it; other type changes stop the sync. The
table's properties tsarrow.* record the source table, its time unit,
the partition spec, the databases and the tsarrow version. --time-unit
is IoTDB's timestamp_precision, as in convert: ms (default) and us become
Iceberg's microseconds; ns is refused, since a v2 table would cut it.

IoTDB data is read as in convert (see "ts2arrow convert --help", which
says more): a table name that several databases hold needs --database
NAME (or --table DATABASE.TABLE); --mods-v1 says how IoTDB 1.x .mods
deletions apply (offset, whole, or auto by the data directory's version);
a mods file larger than --max-mods-size stops the sync; --trust-resources
prunes by each .resource without checking it against its data file.

` + objectHelp + `
On success it prints one line: the snapshot, the data files it added and
replaced and the rows it wrote, or "nothing to sync" when the table was
already in step.

Examples:
  ts2arrow sync testdata/iotdb --table weather --catalog sqlite:cat.db \
      --warehouse lake --to iot.weather
  ts2arrow sync /iotdb/data/datanode/data --table weather --database db1 \
      --catalog sqlite:/srv/lake/catalog.db --warehouse /srv/lake --to iot.weather
  ts2arrow sync /iotdb/data/datanode/data --table weather --database '*' \
      --partition 'day(time),database' --catalog sqlite:cat.db --warehouse lake \
      --to iot.weather_all

Exit status: 0 on success (also when there was nothing to sync), 1 on a
data, format or catalog error, 2 on a usage error, 130 when Ctrl-C
stopped it (143 for SIGTERM): the table is left at its previous snapshot.

Options:
`

func runSync(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sync", syncHelp, stderr)
	table := fs.String("table", "", "the table of INPUT to sync (required)")
	catURI := fs.String("catalog", "", "the Iceberg catalog: sqlite:PATH, postgres://..., rest+https://..., hive+thrift://..., glue:// (required)")
	warehouse := fs.String("warehouse", "", "where the catalog's new tables live: a directory or s3://, gs://, abfss:// (required but with a REST catalog)")
	to := fs.String("to", "", "the Iceberg table, NAMESPACE.TABLE (required)")
	unit := fs.String("time-unit", "ms", "unit of the stored timestamps: ms or us (s and ns are refused: Iceberg v2 holds microseconds)")
	partition := fs.String("partition", "", "the partition spec of a table the sync creates (default day(time); see above)")
	dsFlags := addDatasetFlags(fs)
	obj := addObjectFlags(fs)
	lenient := fs.Bool("lenient", false, "read files with known writer quirks, reporting warnings")
	quiet := fs.Bool("quiet", false, "print no warnings about the inputs on standard error")
	writer := fs.String("writer", "", "the name this sync writes the table as (default: host name and a digest of the inputs)")
	takeOver := fs.Bool("take-over", false, "claim data regions of the inputs another writer owns")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	return syncIceberg(syncFlags{
		table: *table, catalog: *catURI, warehouse: *warehouse, to: *to, unit: *unit,
		partition: *partition, writer: *writer, takeOver: *takeOver, lenient: *lenient, quiet: *quiet,
		dataset: dsFlags, objects: obj,
	}, pos, stdout, stderr)
}

// syncFlags are sync's flags, as runSync parsed them for syncIceberg.
type syncFlags struct {
	table, catalog, warehouse, to, unit, partition, writer string
	takeOver, lenient, quiet                               bool
	dataset                                                *datasetFlags
	objects                                                *objectFlags
}
