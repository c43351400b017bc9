package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/spf13/pflag"
	"github.com/tsarrow/tsarrow/aead"
	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/export"
	"github.com/tsarrow/tsarrow/fromarrow"
	"github.com/tsarrow/tsarrow/internal/durable"
	"github.com/tsarrow/tsarrow/objstore"
	"github.com/tsarrow/tsarrow/tsfile"
)

const convertHelp = `Usage: ts2arrow convert INPUT... -o OUT [--format FORMAT] [--table T]
                        [--columns a,b] [--device D] [--where tag=value]
                        [--start T] [--end T] [--time-unit ms] [--batch-size N]
                        [--compression NAME] [--row-group-size N]
                        [--encoding COLUMN=ENCODING,...]
                        [--time-format iso|epoch]
                        [--partition-by table|device|day|month|hour|device,day]
                        [--force] [--quiet|--verbose]
                        [--lenient] [--no-verify] [--recover [--schema-from FILE]]
                        [--tags a,b] [--raw] [--schema SPEC]
                        [--time-column NAME [--write-time-column]]
                        [--cast-decimal double]
                        [--tree [--device-column NAME] [--aligned]]

Converts the rows of one table of TsFiles. INPUT is a file, a directory
(every *.tsfile under it), a glob pattern ("data/*.tsfile", quoted so the
tool expands it; "data/**/*.tsfile" matches at any depth, {a,b} either) or
an http:// or https:// URL or an object URL (s3://bucket/key, gs://,
az://; a prefix or pattern of keys as a directory or glob, see below),
which is read with range requests: the footer first, then only the chunks
the query needs.

FORMAT is parquet (Apache Parquet), arrow (Arrow IPC file), arrows (Arrow
IPC stream), csv (header row, then one line per row), jsonl (one JSON object
per line) or tsfile; it defaults from OUT's extension (.parquet/.pq,
.arrow/.feather/.ipc, .arrows, .csv, .jsonl/.ndjson, .tsfile). "-o -"
writes to standard output and needs --format.

Many inputs go to one output, which needs their schemas to agree (the
first difference is reported), unless --partition-by writes a Hive-style
directory that Spark and DuckDB read as one dataset:
  OUT/table=T/part-N.parquet                 (--partition-by table)
  OUT/table=T/device=D/part-N.parquet        (--partition-by device)
  OUT/table=T/date=2024-01-01/part-N.parquet (--partition-by day)
  OUT/table=T/date=2024-01-01/hour=13/...    (--partition-by hour)
  OUT/table=T/year=2024/month=1/...          (--partition-by month)
one part per input file (and device, and time partition); a tree model's
device column moves into the path, the time column stays in the parts.
A time partition follows table or device: --partition-by device,day
writes OUT/table=T/device=D/date=2024-01-01/part-N.parquet. Days, hours
and months are UTC, of the timestamps in --time-unit; DuckDB reads date
as a DATE, hour, year and month as integers. IoTDB data (below) gives one
part per table (and device, and time partition). --partition-by device
warns when it is about to write more than 1000 device partitions.

The query:
  --table T          the table (needed when a file holds several)
  --columns a,b      only these columns, in this order, after time (always
                     kept, always first; named after the table schema's
                     TIME column when it has one, as the C++ and Python
                     writers record it); only their chunks are read. The
                     rows kept are those of the time source of the
                     columns: every row of a table-model or aligned
                     device, also one whose kept columns are all null; for
                     a non-aligned tree device the times where a kept
                     series has a point (with none kept, as with --columns
                     device, the times of all its series)
  --device D         only device D (repeatable; as "inspect" prints it)
  --where tag=value  only devices whose TAG (or tree model device) column
                     has this value (repeatable; all must hold); tag=\N
                     keeps those whose TAG is null, tag=\\N the value \N
` + timeRangeHelp + `  --time-unit        the unit of the stored timestamps: s, ms (default),
                     us or ns; for the reverse path the unit written,
                     to which timestamp inputs are converted exactly
A query that matches no row writes an empty output, exits 0 and says so on
standard error (even with --quiet), naming a --device or --where value that
no input holds and some that they do.

CSV and JSONL write timestamps (the time column and TIMESTAMP columns) in
ISO 8601, UTC, with the digits of the time unit: 2023-11-14T22:13:20.123Z
for ms, 6 fraction digits for us, 9 for ns, none for s (a JSON string), so
that DuckDB's read_csv and read_json read them as timestamps;
--time-format epoch writes the stored integers instead (rfc3339 and raw
are accepted for iso and epoch). Parquet and Arrow keep their timestamp
types.

--compression is, for parquet, zstd (the default), snappy, gzip, lz4 or
none; for arrow and arrows the IPC body compression, none (the default),
zstd or lz4 (LZ4 frame); for tsfile the page compression, lz4 (the default,
IoTDB's), uncompressed (or none), snappy, gzip, zstd or lzma2, for every
column, and COLUMN=CODEC for one ("zstd,temperature=lz4,time=none").
--row-group-size sets the rows per Parquet row group (default 1048576).

--encoding COLUMN=ENCODING,... chooses the encodings of tsfile output; the
other columns get IoTDB 2.x's defaults: RLE for BOOLEAN, TS_2DIFF for
INT32, INT64, DATE and TIMESTAMP, GORILLA for FLOAT and DOUBLE, PLAIN for
TEXT, STRING and BLOB. A pair the format does not allow (gorilla for a
TEXT column) is refused with the choices. The time column is always
TS_2DIFF, the only one upstream readers decode there.

TsFile inputs (files, not an IoTDB data directory, whose files are merged)
converted to tsfile keep their footer properties, byte for byte (null and
empty values apart), but for the encryption properties the writer sets
itself and a key the inputs disagree on (a warning names it); a
tablePointCount.TABLE property is counted again for the rows written.
Parquet, Arrow and CSV carry no footer properties.

The reverse path: INPUT may be a Parquet, Arrow IPC (file or stream) or
CSV file, and "-o x.tsfile" writes a table-model TsFile whose TAG columns
are --tags (by default those a tsarrow conversion marked TAG), so that
Parquet, Arrow and CSV data can be loaded into IoTDB. Parquet and Arrow are
told by their first bytes, CSV by the .csv extension. The table is --table,
by default the one a tsarrow conversion recorded (tsfile.table), else the
input's base name. The time column is --time-column NAME, by default
"time": a timestamp, or integers in the --time-unit; its name is not stored,
and readers call it "time". --write-time-column records it in the table
schema as a column of category TIME named as the input column is (first,
TIMESTAMP), as TsFile 2.5's C++ and Python writers do, so that their readers
and ts2arrow name the time column after it; upstream Java TsFile and IoTDB
cannot read such a file (a warning says so). An input read from a TsFile
with a TIME column (its time column named after it, marked
tsfile.category=TIME) is written without one unless --write-time-column is
given; it also applies to TsFile inputs. Timestamps are written
in milliseconds, IoTDB's default precision (or the unit a tsarrow
conversion recorded), whatever the input's unit: us and ns inputs (DuckDB,
pandas, Spark) are converted, and a value with digits below the millisecond
fails unless --time-unit us or ns keeps them.

A CSV input has a header row of column names. An empty cell is null and a
quoted empty cell ("") the empty string, as convert writes CSV. Each
column's type is inferred from the first 10000 rows: INT64 if every value
is an integer (one with a leading zero, such as 007, stays text), else
DOUBLE if every value is a number (NaN, Infinity), else BOOLEAN
(true/false), DATE (YYYY-MM-DD), TIMESTAMP (ISO 8601:
2024-05-01T12:00:00.250Z, 2024-05-01 12:00:00, with or without a zone; a
time without a zone is UTC), else STRING. The time column is an integer
in the --time-unit or an ISO 8601 time (a bare date is its midnight UTC).
A later row that does not fit its column's type fails, naming its line.
--schema gives types instead, for some or all columns:
  --schema 'time:timestamp[ms],region:string,temperature:double'
with TsFile's type names (BOOLEAN, INT32, INT64, FLOAT, DOUBLE, STRING,
TEXT, BLOB as 0x and hex, DATE, TIMESTAMP in the --time-unit) or Arrow's
as "ts2arrow schema" prints them (int16, float32, utf8, timestamp[us]);
--schema FILE reads a schema "ts2arrow schema --json" printed, with its
TAG marks and table name.

TsFile has no DECIMAL type: a decimal column (Parquet DECIMAL) fails
unless --cast-decimal double stores it as DOUBLE, rounded to the nearest
double, which is exact to 15 significant digits and may round beyond.

--tree writes the tree model instead: each row's device is the path in
--device-column (default "device", as a tree-model conversion writes it;
such as root.sg.d1), and every other column but the time column is a
measurement of that device, non-aligned (a null is no point) unless
--aligned writes aligned devices.

Output is written to a temporary file (or directory) beside OUT, named
.OUT.tsarrow-tmp-PID-N, and renamed into place once complete, so a failure
or Ctrl-C leaves nothing behind; a later run into the same OUT removes the
temporaries of a process that was killed (and says so). An existing OUT is
refused unless --force. --force replaces a file only by a file, and a
directory only by a dataset, when all it holds is what --partition-by
writes (table=T/[device=D/][time keys/]part-N files); the old
dataset is removed only once the new one is in place. OUT is never an
input, the current directory, one of its parents, the home directory or a
directory holding an input, even with --force.

OUT may be an object URL (s3://bucket/key, gs://, az://, file://): one
object is uploaded (in parts when large) and appears at its key only once
whole; an error, Ctrl-C or SIGTERM aborts the upload. A dataset
(-o s3://bucket/lake/ --partition-by ...) is built in a local temporary
directory first, as on disk, then each part is uploaded to its key and an
empty _SUCCESS object is written last, as Spark and Hive do; a failure or
Ctrl-C during the upload removes what it wrote. A process killed outright
(kill -9) may leave parts without _SUCCESS, which a run with --force
removes, and pending multipart uploads, which a bucket lifecycle rule
(AbortIncompleteMultipartUpload) reclaims. Existing objects at OUT are
refused unless --force, which replaces an object only by an object, and
under a prefix only the objects of a dataset ts2arrow wrote (the layout
above and _SUCCESS).

On a terminal a progress bar on standard error shows rows and bytes done,
the rate and the time left; --quiet turns it off, --verbose adds a line per
input (with the bytes a remote input fetched).

--lenient reads files with known writer quirks (an absent Bloom filter
written as four zero bytes, a property count written unsigned) and
statistics that disagree with the data, with a warning on standard error
for each instead of failing. --recover converts what "ts2arrow recover"
would keep of a file whose writer never finished it, without writing a
fixed copy; --schema-from names an intact file to take table schemas from.

Every page read is checked against its statistics (count, time range, min,
max, first, last, sum): a page body has no checksum, and a damaged one would
otherwise give other values without an error. A page that contradicts them
fails the conversion; under --lenient it is a warning and its values are
kept. --no-verify skips the check (files whose writer wrote wrong
statistics, or a few percent of speed on trusted files).

A tree-model file converts all its devices as "time, device,
<measurements>" unless --table names one of its tree tables, whose devices
alone it converts. A tree table is how TsFile (and IoTDB 2.x) files a
device path: its first three nodes, or all but the last of a shorter path
(root.sg.d1 is in table root.sg, root.sg.x.y in table root.sg.x), so
--table root.sg does not read root.sg.x.y; standard error names the tree
tables below the one read.

` + rawHelp + `OUT is never inside the directories of IoTDB data. Under --quiet, standard
error says nothing of the rules, only warnings; --verbose adds what the
read did: files pruned and read, rows deleted, overwritten and merged.

Examples:
  ts2arrow convert testdata/sample.tsfile -o sample.parquet
  ts2arrow convert data/ -o all.parquet --table weather
  ts2arrow convert 'data/2024-*.tsfile' -o weather/ --partition-by device
  ts2arrow convert /iotdb/data/datanode/data -o by-day/ --partition-by device,day
  ts2arrow convert testdata/sample.tsfile -o hot.csv --columns temperature --where region=north --start 2023-11-14T22:20:00Z
  ts2arrow convert testdata/sample.tsfile -o day.jsonl --columns temperature,station --start '2023-11-14 22:15' --end 2023-11-14
  ts2arrow convert https://example.com/iotdb/1-1-0-0.tsfile -o x.arrow --columns s1
  ts2arrow convert testdata/sample.tsfile -o sample.arrows --compression zstd
  ts2arrow convert data.tsfile --table weather --format arrows -o - | \
      python3 -c 'import sys, pyarrow as pa; print(pa.ipc.open_stream(sys.stdin.buffer).read_all())'
  ts2arrow convert sample.parquet -o back.tsfile --tags region,station
  ts2arrow convert sample.parquet -o small.tsfile --compression zstd --encoding temperature=chimp
  ts2arrow convert readings.csv -o readings.tsfile --time-column ts --tags station
  ts2arrow convert broken.tsfile --recover --schema-from intact.tsfile -o rows.parquet
  ts2arrow convert /iotdb/data/datanode/data -o sg.parquet --table root.sg
  ts2arrow convert sg.parquet -o sg.tsfile --tree --device-column device
  ts2arrow convert iceberg:sqlite:cat.db#iot.weather -o day.csv --start 2026-01-02 --end 2026-01-02 --where region=north
` + icebergHelp + "\n" + keysHelp + "\n" + httpHelp + "\n" + objectHelp + "\n" + cellHelp + `
Exit status: 0 when OUT was written (also when no row matched); 1 on a
data or format error, with nothing written; 2 on a usage error; 130 when
Ctrl-C (SIGINT) stopped it, 143 for SIGTERM, once its temporary output
was removed (a second Ctrl-C stops at once, leaving a temporary that the
next run into OUT removes).

Options:
`

// listFlag is a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// Type names the value in --help (pflag.Value).
func (l *listFlag) Type() string { return "string" }

// convertJob is a parsed convert command line.
type convertJob struct {
	// treeNoted is set once the tree-table note (treeTableNote) was
	// considered: it is said once, not per input.
	treeNoted   bool
	inputs      []string
	out         string
	dst         *output // OUT as checkOutput accepted it; nil for "-"
	format      string
	table       string
	tags        []string
	partitionBy string
	part        partitionSpec // --partition-by parsed
	devWarn     devicePartitionWarner
	clashWarned bool      // warnKeyClash said it
	stderr      io.Writer // for warnings deep in the partitioned paths
	force       bool
	quiet       bool
	verbose     bool
	recover     bool
	schemaFrom  string
	recovered   *tsfile.Recovery // the --recover scan, done once for both opens
	ropts       *tsfile.ReadOptions
	query       arrowconv.Options
	devices     []string
	filters     []string // the query's filters as typed, for reportEmpty
	wopts       writeOptions
	tsWrite     *tsfile.WriteOptions // TsFile output: Page AEAD encryption
	http        *httpFlags           // URL inputs of servers without ranges
	objects     *objstore.Options    // object URLs: the inputs, and -o

	// The reverse path (reverse.go).
	csvSchema    *arrow.Schema     // --schema: a CSV input's column types
	timeColumn   string            // --time-column
	writeTime    bool              // --write-time-column
	carried      []tsfile.Property // TsFile inputs' footer properties (carryprops.go)
	countPoints  bool              // an input had tablePointCount.<table>
	castDecimal  bool              // --cast-decimal double
	tree         bool              // --tree
	deviceColumn string            // --device-column
	aligned      bool              // --aligned
}

func runConvert(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlagSet("convert", convertHelp, stderr)
	out := fs.StringP("output", "o", "", "output path, or - for standard output")
	format := fs.String("format", "", "output format: parquet, arrow, arrows, csv, jsonl or tsfile (default from the -o extension)")
	compression := fs.String("compression", "", "compression of the output (see above); for tsfile also COLUMN=CODEC,...")
	encodings := fs.String("encoding", "", "for tsfile output: column encodings, COLUMN=ENCODING,... (default IoTDB's for each type)")
	rowGroup := fs.Int64("row-group-size", export.DefaultRowGroupSize, "rows per Parquet row group (parquet only)")
	timeFormat := fs.String("time-format", "iso", "how csv and jsonl write timestamps: iso (2023-11-14T22:13:20.123Z) or epoch (the stored integers)")
	table := fs.String("table", "", "table to convert")
	dsFlags := addDatasetFlags(fs)
	columns := fs.String("columns", "", "comma-separated columns to keep (time is always kept)")
	var devices, where listFlag
	fs.Var(&devices, "device", "keep only this device (repeatable)")
	fs.Var(&where, "where", "keep only devices whose column equals the value: tag=value (repeatable)")
	start := fs.String("start", "", "first timestamp to keep: an integer in the stored unit, a date or a date and time (UTC unless a zone is given)")
	end := fs.String("end", "", "last timestamp to keep, inclusive (a date keeps its whole day)")
	batch := fs.Int("batch-size", 65536, "rows per record batch")
	unit := fs.String("time-unit", "ms", "unit of the stored timestamps: s, ms, us or ns")
	partition := fs.String("partition-by", "", "write a Hive-style directory partitioned by table, device, day, month or hour (or table or device then a time: device,day)")
	force := fs.Bool("force", false, "replace an existing output file, or a dataset --partition-by wrote")
	quiet := fs.Bool("quiet", false, "no progress bar")
	verbose := fs.Bool("verbose", false, "a line per input on standard error")
	recoverIn := fs.Bool("recover", false, "convert the complete chunk groups of a file without a valid footer (see ts2arrow recover)")
	schemaFrom := fs.String("schema-from", "", "with --recover: intact TsFile to take table schemas from")
	lenient := fs.Bool("lenient", false, "read files with known writer quirks and inconsistent statistics, reporting warnings")
	rawFiles := fs.Bool("raw", false, "read every *.tsfile as it is, also in an IoTDB data directory or beside mods files (see above)")
	noVerify := fs.Bool("no-verify", false, "do not check decoded pages against their statistics")
	tags := fs.String("tags", "", "for tsfile output: comma-separated TAG columns")
	csvSchema := fs.String("schema", "", "for a CSV input: column types, NAME:TYPE,... or a JSON schema file (see above)")
	timeColumn := fs.String("time-column", "", "for tsfile output: the input's time column (default time)")
	writeTime := fs.Bool("write-time-column", false, "for tsfile output: record the time column's name in the table schema as a TIME column (upstream Java TsFile and IoTDB cannot read such a file)")
	castDecimal := fs.String("cast-decimal", "", "for tsfile output: store DECIMAL columns as `double` (may round beyond 15 significant digits)")
	tree := fs.Bool("tree", false, "for tsfile output: write the tree model, each row's device from --device-column")
	deviceColumn := fs.String("device-column", "device", "with --tree: the column of device paths (root.sg.d1)")
	aligned := fs.Bool("aligned", false, "with --tree: write aligned devices (default non-aligned)")
	keys := addKeyFlags(fs)
	hf := addHTTPFlags(fs)
	cells := addCellFlags(fs)
	defer hf.release()
	obj := addObjectFlags(fs)
	encKey := fs.String("encrypt-key", "", "for tsfile output: write Page AEAD, wrapping the data key with key `ID` of --kek-file/--kek-env")
	encVersion := fs.String("encrypt-key-version", "1", "the key version of --encrypt-key")
	encProfile := fs.String("encrypt-profile", aead.ProfileAESGCM256, "the Page AEAD profile of --encrypt-key")
	encHeader := fs.Int("encrypt-header-version", 3, "the Page AEAD header `VERSION` of --encrypt-key: 3 (chunk proofs), or 1 or 2 for readers of the upstream draft")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	hf.objects = obj.options()
	ropts, err := keys.readOptions(*lenient)
	if err != nil {
		return err
	}
	ropts.NoVerify = *noVerify
	var tsWrite *tsfile.WriteOptions
	if *encKey != "" {
		if ropts.Keys == nil {
			return usagef("--encrypt-key needs --kek-file or --kek-env")
		}
		if *encHeader < 1 || *encHeader > 3 {
			return usagef("--encrypt-header-version %d: want 1, 2 or 3", *encHeader)
		}
		tsWrite = &tsfile.WriteOptions{Keys: ropts.Keys, Encryption: &aead.WriterConfig{
			ProviderID: *keys.provider, ProfileID: *encProfile, KeyID: *encKey, KeyVersion: *encVersion, HeaderVersion: byte(*encHeader)}}
	}
	if len(pos) == 0 {
		return usagef("convert needs at least one INPUT")
	}
	if *out == "" {
		return usagef("convert needs -o OUT")
	}
	j := &convertJob{out: *out, table: *table, partitionBy: *partition, force: *force, quiet: *quiet, verbose: *verbose,
		recover: *recoverIn, schemaFrom: *schemaFrom, ropts: ropts, devices: devices, tsWrite: tsWrite, http: hf, objects: hf.objects}
	j.format = *format
	if j.format == "" {
		if j.partitionBy != "" {
			j.format = "parquet"
		} else if j.format = formatFromExt(*out); j.format == "" {
			return usagef("cannot tell the format of %q; pass --format parquet, arrow, arrows, csv, jsonl or tsfile", *out)
		}
	}
	set := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { set[f.Name] = true })
	for _, name := range []string{"encrypt-header-version", "encrypt-profile", "encrypt-key-version"} {
		if set[name] && *encKey == "" {
			return usagef("--%s applies with --encrypt-key only", name)
		}
	}
	tf, err := timeFormatFlag(*timeFormat)
	if err != nil {
		return err
	}
	j.wopts = writeOptions{compression: *compression, encoding: *encodings, rowGroupSize: *rowGroup, timeFormat: tf}
	if err := checkFormatOptions(j.format, j.wopts, set); err != nil {
		return err
	}
	if *tags != "" {
		if j.format != "tsfile" {
			return usagef("--tags applies to tsfile output only")
		}
		j.tags = columnsFlag(*tags)
	}
	if j.tsWrite != nil && j.format != "tsfile" {
		return usagef("--encrypt-key applies to tsfile output only")
	}
	for _, name := range []string{"schema", "time-column", "write-time-column", "cast-decimal", "tree", "device-column", "aligned"} {
		if set[name] && j.format != "tsfile" {
			return usagef("--%s applies to tsfile output (the reverse path) only", name)
		}
	}
	switch *castDecimal {
	case "":
	case "double":
		j.castDecimal = true
	default:
		return usagef("--cast-decimal %q: the one cast is --cast-decimal double", *castDecimal)
	}
	if (set["device-column"] || *aligned) && !*tree {
		return usagef("--device-column and --aligned apply with --tree only")
	}
	if *tree && (*tags != "" || *table != "") {
		return usagef("--tree writes devices named by --device-column; --tags and --table describe a table-model table")
	}
	if set["time-column"] && *timeColumn == "" {
		return usagef("--time-column needs a column name")
	}
	if *writeTime && *tree {
		return usagef("--write-time-column records the time column in a table schema; --tree writes the tree model, which has none")
	}
	j.timeColumn, j.writeTime, j.tree, j.deviceColumn, j.aligned = *timeColumn, *writeTime, *tree, *deviceColumn, *aligned
	if j.writeTime {
		// Once, before anything is written: the output is meant for
		// readers that know the TIME category, and nothing else will say
		// that the usual ones refuse it.
		fmt.Fprintln(stderr, "ts2arrow: warning: --write-time-column records the time column in the table schema as a column of category TIME, which upstream Java TsFile and IoTDB (they know only TAG, FIELD and ATTRIBUTE) cannot read; the C++ and Python readers of TsFile 2.5 and ts2arrow can")
	}
	if j.partitionBy != "" {
		if j.part, err = parsePartitionBy(j.partitionBy); err != nil {
			return err
		}
	}
	if j.partitionBy != "" && (*out == "-" || j.format == "tsfile") {
		return usagef("--partition-by writes a directory of parquet, arrow, arrows, csv or jsonl files")
	}
	if *schemaFrom != "" && !*recoverIn {
		return usagef("--schema-from applies with --recover only")
	}
	if *quiet && *verbose {
		return usagef("--quiet and --verbose exclude each other")
	}
	if *batch <= 0 {
		return usagef("--batch-size must be positive")
	}
	tu, err := timeUnitFlag(*unit)
	if err != nil {
		return err
	}
	if *csvSchema != "" {
		if j.csvSchema, err = parseSchemaFlag(*csvSchema, tu); err != nil {
			return err
		}
	}
	j.query = arrowconv.Options{BatchSize: *batch}
	if err := cells.apply(&j.query); err != nil {
		return err
	}
	if set["time-unit"] {
		// Left zero, the unit is ms when reading a TsFile and the input's
		// own when writing one.
		j.query.TimeUnit = arrowconv.TimeUnitOf(tu)
	}
	if *columns != "" {
		j.query.Columns = columnsFlag(*columns)
	}
	if len(where) > 0 {
		j.query.Where = map[string]string{}
		for _, w := range where {
			k, v, ok := strings.Cut(w, "=")
			if !ok || k == "" {
				return usagef("--where %q: want column=value", w)
			}
			j.query.Where[k] = v
		}
	}
	if j.query.Time, err = timeRangeFlags(*start, *end, tu); err != nil {
		return err
	}
	for _, w := range where {
		j.filters = append(j.filters, "--where "+shellWord(w))
	}
	for _, d := range devices {
		j.filters = append(j.filters, "--device "+shellWord(d))
	}
	if *start != "" {
		j.filters = append(j.filters, "--start "+shellWord(*start))
	}
	if *end != "" {
		j.filters = append(j.filters, "--end "+shellWord(*end))
	}
	if icebergInput(pos) {
		return j.runIceberg(pos, *rawFiles, dsFlags, stdout, stderr)
	}
	if j.inputs, err = expandInputsWith(context.Background(), pos, j.objects); err != nil {
		return err
	}
	if j.recover && len(j.inputs) != 1 {
		return usagef("--recover takes one INPUT")
	}
	if j.recover && isURL(j.inputs[0]) {
		// The recovery scan reads the whole file from its start.
		return usagef("--recover reads a local file: download %s first", j.inputs[0])
	}
	if j.recover && j.partitionBy != "" {
		// The partitioned path opens its inputs as they are: it would
		// quietly read none of what --recover salvages.
		return usagef("--recover does not combine with --partition-by; convert to one output, or run \"ts2arrow recover\" first and partition the fixed file")
	}
	var dsIn *datasetInput
	if !*rawFiles {
		if dsIn, err = detectDatasetWith(context.Background(), pos, j.inputs, j.objects); err != nil {
			return err
		}
		defer dsIn.close()
	}
	if err := checkDatasetFlags(dsFlags, dsIn); err != nil {
		return err
	}
	if dsIn != nil && j.recover {
		return usagef("--recover reads one file as it is; pass --raw with it (the inputs are IoTDB data, read with their mods files)")
	}
	if *out != "-" {
		kind := outFile
		if j.partitionBy != "" {
			kind = outDataset
		}
		read := j.inputs
		if j.schemaFrom != "" {
			read = append(read[:len(read):len(read)], j.schemaFrom)
		}
		if j.dst, err = checkOutput(*out, kind, j.force, read, j.objects, stderr); err != nil {
			return err
		}
		defer j.dst.close()
		if dsIn != nil {
			if err := checkDatasetOutput(*out, dsIn); err != nil {
				return err
			}
		}
	}
	// Ctrl-C or SIGTERM stops the conversion at its next batch, which
	// removes the temporary output. Whatever fails after the signal (a
	// download cut off, a write) failed because of it.
	ctx, stop := notifyInterrupt()
	defer stop()
	defer func() {
		if err != nil && ctx.Err() != nil {
			err = interruptedBy(ctx)
		}
	}()
	if dsIn != nil {
		r, err := openDataset(dsIn, j.ropts, j.table, j.partitionBy != "", dsFlags)
		if err != nil {
			return err
		}
		defer r.close()
		r.note(stderr, j.quiet)
		return j.runDataset(ctx, r, stdout, stderr)
	}
	if arrowInput(j.inputs[0]) {
		return j.runReverse(ctx, stdout, stderr)
	}
	for _, in := range j.inputs {
		if arrowInput(in) {
			return usagef("%s is not a TsFile; Parquet, Arrow and CSV inputs convert one at a time to tsfile", in)
		}
	}
	if j.partitionBy != "" {
		return j.runPartitioned(ctx, stderr)
	}
	return j.runSingle(ctx, stdout, stderr)
}

const (
	minInt64 = -1 << 63
	maxInt64 = 1<<63 - 1
)

func checkFormatOptions(format string, o writeOptions, set map[string]bool) error {
	if format != "tsfile" && set["encoding"] {
		return usagef("--encoding applies to tsfile output only")
	}
	if format != "tsfile" && format != "csv" && format != "jsonl" && strings.Contains(o.compression, "=") {
		return usagef("--compression %s: a compression per column (COLUMN=CODEC) applies to tsfile output only", o.compression)
	}
	switch format {
	case "csv", "jsonl":
		if set["compression"] {
			return usagef("--compression does not apply to %s output", format)
		}
	case "arrow", "arrows":
		if !slices.Contains(export.IPCCompressions(), o.compression) && o.compression != "" {
			return usagef("unknown --compression %q for %s (want %s)", o.compression, format, strings.Join(export.IPCCompressions(), ", "))
		}
	case "parquet":
		if !slices.Contains(export.ParquetCompressions(), o.compression) && o.compression != "" {
			return usagef("unknown --compression %q for parquet (want %s)", o.compression, strings.Join(export.ParquetCompressions(), ", "))
		}
		if o.rowGroupSize <= 0 {
			return usagef("--row-group-size must be positive")
		}
	case "tsfile":
		if _, err := parseTsCodecs(o.encoding, o.compression); err != nil {
			return err
		}
	default:
		return usagef("unknown format %q (want parquet, arrow, arrows, csv, jsonl or tsfile)", format)
	}
	if set["row-group-size"] && format != "parquet" {
		return usagef("--row-group-size applies to parquet output only")
	}
	if set["time-format"] && format != "csv" && format != "jsonl" {
		// The binary formats keep their timestamp types.
		return usagef("--time-format applies to csv and jsonl output only")
	}
	return nil
}

func formatFromExt(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return "csv"
	case ".arrow", ".feather", ".ipc":
		return "arrow"
	case ".arrows":
		return "arrows"
	case ".parquet", ".pq":
		return "parquet"
	case ".jsonl", ".ndjson":
		return "jsonl"
	case ".tsfile":
		return "tsfile"
	}
	return ""
}

// errNoTables is the error of a file whose index lists no table.
var errNoTables = errors.New("the file has no tables")

// openReader picks the table to convert.
func openReader(f *tsfile.File, table string, opts *arrowconv.Options) (array.RecordReader, error) {
	tables := f.Tables()
	var model, tree []string
	for _, t := range tables {
		if _, ok := f.SchemaOf(t); ok {
			model = append(model, t)
		} else {
			tree = append(tree, t)
		}
	}
	if table != "" {
		if _, ok := f.SchemaOf(table); ok {
			return arrowconv.NewTableReader(f, table, opts)
		}
		for _, t := range tree {
			if t == table {
				return arrowconv.NewTreeReader(f, t, opts)
			}
		}
		return nil, usagef("no table %q in the file (tables: %s)", table, strings.Join(tables, ", "))
	}
	switch {
	case len(model) == 1 && len(tree) == 0:
		return arrowconv.NewTableReader(f, model[0], opts)
	case len(model) == 0 && len(tree) > 0:
		return arrowconv.NewTreeReader(f, "", opts)
	case len(tables) == 0:
		// A data condition, not a usage mistake: exit 1.
		return nil, errNoTables
	}
	return nil, usagef("the file has several tables; pick one with --table (tables: %s)", strings.Join(tables, ", "))
}

// treeTableNote says, when --table names a tree table under which other
// tree tables lie, that their devices are not read: in IoTDB a path
// prefix would select them (root.sg.**), but a tree table holds only the
// devices whose path up to its third node is the table's name (apache/tsfile
// StringArrayDeviceID: TSFileConfig.DEFAULT_SEGMENT_NUM_FOR_TABLE_NAME = 3,
// the split IoTDB 2.x writes tree devices with). tree tells a tree table
// from a table-model one.
func treeTableNote(table string, tables []string, tree func(string) bool) string {
	if table == "" || !slices.Contains(tables, table) || !tree(table) {
		return ""
	}
	var under []string
	for _, t := range tables {
		if strings.HasPrefix(t, table+".") && tree(t) {
			under = append(under, t)
		}
	}
	if len(under) == 0 {
		return ""
	}
	slices.Sort(under)
	return fmt.Sprintf("--table %s reads the devices of tree table %s only; devices deeper below %s are in tree tables %s: name each with --table, or leave --table out to read every device", table, table, table, strings.Join(under, ", "))
}

// writeOptions are the format-specific options of convert.
type writeOptions struct {
	compression  string            // "" for the format's default
	encoding     string            // tsfile only: --encoding
	rowGroupSize int64             // parquet only
	timeFormat   export.TimeFormat // csv and jsonl only
	tsfile       *fromarrow.Options
}

func writeFormat(w io.Writer, format string, rdr array.RecordReader, o writeOptions) error {
	var err error
	switch format {
	case "csv":
		_, err = export.WriteCSVWith(w, rdr, &export.TextOptions{Time: o.timeFormat})
	case "jsonl":
		_, err = export.WriteJSONLWith(w, rdr, &export.TextOptions{Time: o.timeFormat})
	case "arrow", "arrows":
		_, err = export.WriteIPC(w, rdr, &export.IPCOptions{Stream: format == "arrows", Compression: o.compression})
	case "parquet":
		_, err = export.WriteParquet(w, rdr, &export.ParquetOptions{Compression: o.compression, RowGroupSize: o.rowGroupSize})
	case "tsfile":
		topts := fromarrow.Options{}
		if o.tsfile != nil {
			topts = *o.tsfile
		}
		var c *tsCodecs
		if c, err = parseTsCodecs(o.encoding, o.compression); err == nil {
			err = c.apply(&topts, rdr.Schema())
		}
		if err == nil {
			_, err = fromarrow.WriteTsFile(w, rdr, &topts)
			err = flagHint(err, rdr.Schema(), topts.Tags)
		}
	default:
		err = fmt.Errorf("unknown format %q", format)
	}
	return err
}

// writeAtomic writes through fn to a temporary file beside path and
// renames it into place only when everything succeeded, syncing the file
// before the rename and its directory after it, so that an output reported
// as written survives a power loss. path must be clean (see checkOutput):
// the temporary goes to filepath.Dir(path).
func writeAtomic(path string, fn func(io.Writer) error) error {
	return writeSynced(path, durable.Rename, fn)
}

// writeSynced is writeAtomic with the rename given: a part file inside a
// dataset's temporary directory is renamed with os.Rename, since commitDir
// syncs every directory of the tree once before publishing it.
func writeSynced(path string, rename func(oldpath, newpath string) error, fn func(io.Writer) error) error {
	dir := filepath.Dir(path)
	// The mode os.Create gives (0o666 less the umask), set as the file is
	// created: the rename keeps it, and it is as durable as the bytes.
	tmp, err := durable.CreateTemp(dir, tempPrefix(path)+"*")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err := fn(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := durable.SyncFile(tmp); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := rename(tmp.Name(), path); err != nil {
		return err
	}
	ok = true
	return nil
}

// progressFor sets up the progress bar of a job: on when stderr is a
// terminal and --quiet is not given.
func (j *convertJob) progressFor(stderr io.Writer, totalRows int64) *progress {
	var bytes int64
	for _, in := range j.inputs {
		bytes += inputSize(in)
	}
	return newProgress(stderr, !j.quiet && j.out != "-" && isTerminal(stderr), totalRows, bytes)
}

// queryFor returns the query options for one file: --device names are
// resolved against its devices (a name it lacks matches nothing).
func (j *convertJob) queryFor(f *tsfile.File) (*arrowconv.Options, error) {
	q := j.query
	if len(j.devices) == 0 {
		return &q, nil
	}
	want := map[string]bool{}
	for _, d := range j.devices {
		want[d] = true
	}
	q.Devices = []tsfile.DeviceID{}
	for _, t := range f.Tables() {
		devs, err := f.Devices(t)
		if err != nil {
			return nil, err
		}
		for _, d := range devs {
			// A v3 device also answers to the path as the file spells it.
			if want[d.String()] || want[d.TreePath()] {
				q.Devices = append(q.Devices, d)
			}
		}
	}
	if len(q.Devices) == 0 {
		// Devices would then keep everything; a device none of the
		// inputs holds must give no rows, as a --where that matches
		// nothing does.
		q.Devices = []tsfile.DeviceID{tsfile.NewDeviceID("\x00no such device")}
	}
	return &q, nil
}

// estimateRows sums the row counts the index statistics give for the
// devices a query reads, for the progress bar. Time ranges and --where are
// ignored, so it is an upper bound; the bar is completed at the end.
func estimateRows(f *tsfile.File, rdr array.RecordReader) int64 {
	var n int64
	for _, t := range f.Tables() {
		devs, err := f.Devices(t)
		if err != nil {
			return 0
		}
		for _, d := range devs {
			ss, err := f.Series(d)
			if err != nil {
				return 0
			}
			var most int64
			for i := range ss {
				if ss[i].IsTimeColumn() {
					most = ss[i].Statistics.Count
					break
				}
				most = max(most, ss[i].Statistics.Count)
			}
			n += most
		}
	}
	return n
}

// openQuery opens one input and its reader for the job's query.
func (j *convertJob) openQuery(ctx context.Context, name string, prog *progress, stderr io.Writer) (*input, array.RecordReader, error) {
	in, err := j.openFile(ctx, name, prog, stderr)
	if err != nil {
		return nil, nil, err
	}
	q, err := j.queryFor(in.file)
	if err != nil {
		in.close()
		return nil, nil, &fileError{name, err}
	}
	if !j.treeNoted && !j.quiet && stderr != io.Discard { // not in a schema pre-pass
		j.treeNoted = true
		if n := treeTableNote(j.table, in.file.Tables(), func(t string) bool { _, ok := in.file.SchemaOf(t); return !ok }); n != "" {
			fmt.Fprintf(stderr, "ts2arrow: %s\n", n)
		}
	}
	rdr, err := openProjected(in.file, j.table, q)
	if errors.Is(err, errNoTables) && j.recover && j.schemaFrom == "" {
		err = fmt.Errorf("%w: the recovery scan found no table schema (a TsFile keeps them in its footer, which is lost); if the file holds chunks of a table, --schema-from INTACT takes the schemas from an intact file of the same writer and reads them as its tables", err)
	}
	if err != nil {
		in.close()
		return nil, nil, &fileError{name, err}
	}
	return in, rdr, nil
}

// openFile opens an input as the conversion reads it: with --recover,
// through the recovery scan (run for the first opening only, reported on
// stderr), else as openInputCounted does.
func (j *convertJob) openFile(ctx context.Context, name string, prog *progress, stderr io.Writer) (*input, error) {
	if j.recover {
		// The schema pre-pass and the conversion both open the input:
		// the scan, which decodes every page, runs for the first only.
		var fh *os.File
		var err error
		rec := j.recovered
		if rec == nil {
			if fh, rec, err = recoverFile(ctx, name, j.schemaFrom, j.ropts); err != nil {
				return nil, err
			}
			j.recovered = rec
		} else if fh, err = os.Open(name); err != nil {
			return nil, err
		}
		var ra io.ReaderAt = fh
		if prog != nil {
			ra = &countingReaderAt{r: fh, p: prog}
		}
		f, err := rec.Open(ra, nil)
		if err != nil {
			fh.Close()
			return nil, &fileError{name, err}
		}
		reportRecovery(stderr, name, rec)
		return &input{name: name, file: f, close: fh.Close}, nil
	}
	return openInputCounted(ctx, name, j.ropts, j.http, prog)
}

// finishInput reports an input's warnings and, with --verbose, what it
// cost, then closes it.
func (j *convertJob) finishInput(in *input, stderr io.Writer) {
	for _, w := range in.file.Warnings() {
		fmt.Fprintf(stderr, "ts2arrow: %s\n", oneLine(fmt.Sprintf("%s: warning: %s", in.name, w)))
	}
	if j.verbose {
		if s := in.fetched(); s != "" {
			fmt.Fprintf(stderr, "ts2arrow: %s\n", s)
		}
	}
	in.close()
}

// schemaMismatch names the first difference between the schema of the
// first input and that of another.
func schemaMismatch(first, other *arrow.Schema, firstName, otherName string) error {
	a, b := first.Fields(), other.Fields()
	for i := 0; i < max(len(a), len(b)); i++ {
		switch {
		case i >= len(a):
			return fmt.Errorf("%s has an extra column %q (%s) that %s lacks; convert them separately or use --columns or --partition-by", otherName, b[i].Name, b[i].Type, firstName)
		case i >= len(b):
			return fmt.Errorf("%s lacks column %q (%s) of %s; convert them separately or use --columns or --partition-by", otherName, a[i].Name, a[i].Type, firstName)
		case a[i].Name != b[i].Name || !arrow.TypeEqual(a[i].Type, b[i].Type) || a[i].Nullable != b[i].Nullable:
			return fmt.Errorf("column %d is %q %s in %s but %q %s in %s; the schemas of the inputs must agree (or use --partition-by)", i+1, a[i].Name, a[i].Type, firstName, b[i].Name, b[i].Type, otherName)
		}
	}
	return nil
}

// runSingle converts every input into one output.
func (j *convertJob) runSingle(ctx context.Context, stdout, stderr io.Writer) error {
	if err := j.keepTableInputs(ctx, stderr); err != nil {
		return err
	}
	// Check that the schemas agree before writing anything, and estimate
	// the rows for the progress bar.
	var schema *arrow.Schema
	var total int64
	var carried carriedProps // footer properties for a TsFile output
	for i, name := range j.inputs {
		if i > 0 && j.recover {
			break
		}
		in, rdr, err := j.openQuery(ctx, name, nil, io.Discard)
		if err != nil {
			return err
		}
		if i == 0 {
			schema = rdr.Schema()
		} else if err := schemaMismatch(schema, rdr.Schema(), j.inputs[0], name); err != nil {
			rdr.Release()
			in.close()
			return err
		}
		total += estimateRows(in.file, rdr)
		if in.file != nil && j.format == "tsfile" {
			carried.add(in.file.Metadata.Properties)
		}
		rdr.Release()
		in.close()
	}
	if j.format == "tsfile" {
		j.carried, j.countPoints = carried.result(stderr, j.out), carried.count
	}
	prog := j.progressFor(stderr, total)
	chain := &chainReader{ctx: ctx, schema: schema, prog: prog, next: func(k int) (*input, array.RecordReader, error) {
		if k >= len(j.inputs) {
			return nil, nil, nil
		}
		in, rdr, err := j.openQuery(ctx, j.inputs[k], prog, stderr)
		if err != nil {
			return nil, nil, err
		}
		if j.verbose {
			fmt.Fprintf(stderr, "ts2arrow: reading %s\n", j.inputs[k])
		}
		if err := schemaMismatch(schema, rdr.Schema(), j.inputs[0], j.inputs[k]); err != nil {
			rdr.Release()
			in.close()
			return nil, nil, err
		}
		return in, rdr, nil
	}, done: func(in *input) { j.finishInput(in, stderr) }}
	defer chain.Release()
	err := j.writeChain(chain, stdout)
	prog.finish(err == nil)
	if err != nil {
		return chain.wrap(err)
	}
	if chain.rows == 0 {
		j.reportEmpty(ctx, stderr)
	} else if j.verbose {
		fmt.Fprintf(stderr, "ts2arrow: wrote %d rows to %s\n", chain.rows, j.out)
	}
	return nil
}

// writeChain writes the chained batches in the job's format to OUT, through
// its temporary file (dst.writeFile), or to standard output for -o -.
func (j *convertJob) writeChain(chain *chainReader, stdout io.Writer) error {
	j.wopts.tsfile = &fromarrow.Options{Table: j.table, Tags: j.tags, Write: j.tsWrite, WriteTimeColumn: j.writeTime, TablePointCount: j.countPoints}
	if len(j.carried) > 0 {
		w := tsfile.WriteOptions{}
		if j.tsWrite != nil {
			w = *j.tsWrite
		}
		w.Properties = append(slices.Clone(w.Properties), j.carried...)
		j.wopts.tsfile.Write = &w
	}
	write := func(w io.Writer) error { return writeFormat(w, j.format, chain, j.wopts) }
	if j.out != "-" {
		return j.dst.writeFile(chain.ctx, write)
	}
	bw := bufio.NewWriterSize(stdout, 1<<16)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// chainReader reads the inputs one after another as one record stream,
// opening each only when the one before it is done. It stops at the first
// error and on ctx's cancellation (Ctrl-C).
type chainReader struct {
	ctx    context.Context
	schema *arrow.Schema
	prog   *progress
	next   func(k int) (*input, array.RecordReader, error)
	done   func(*input)

	k    int
	in   *input
	cur  array.RecordReader
	rec  arrow.RecordBatch
	err  error
	rows int64
}

func (c *chainReader) Schema() *arrow.Schema { return c.schema }
func (c *chainReader) Retain()               {}

func (c *chainReader) Release() {
	if c.cur != nil {
		c.cur.Release()
		c.cur = nil
	}
	if c.in != nil {
		c.done(c.in)
		c.in = nil
	}
}

func (c *chainReader) Next() bool {
	for c.err == nil {
		if err := c.ctx.Err(); err != nil {
			c.err = interruptedBy(c.ctx)
			return false
		}
		if c.cur == nil {
			in, rdr, err := c.next(c.k)
			if err != nil {
				c.err = err
				return false
			}
			if rdr == nil {
				return false
			}
			c.k++
			c.in, c.cur = in, rdr
		}
		if c.cur.Next() {
			c.rec = c.cur.RecordBatch()
			c.rows += c.rec.NumRows()
			c.prog.addRows(c.rec.NumRows())
			return true
		}
		if err := c.cur.Err(); err != nil {
			// A reader of no one input (a dataset's) names its files.
			c.err = err
			if c.in != nil {
				c.err = &fileError{c.in.name, err}
			}
			return false
		}
		c.Release()
	}
	return false
}

func (c *chainReader) RecordBatch() arrow.RecordBatch { return c.rec }
func (c *chainReader) Record() arrow.RecordBatch      { return c.rec }
func (c *chainReader) Err() error                     { return c.err }

// wrap attributes a writer's error: the reader's own error (which names
// its input) when the writer only passed it on.
func (c *chainReader) wrap(err error) error {
	if c.err != nil {
		return c.err
	}
	return err
}

// keepTableInputs drops, when --table names a table and several inputs are
// read (a directory, a glob), the inputs that do not hold it: a directory
// of several tables (an IoTDB data directory read with --raw) holds each
// table in some of its files only. Says so on stderr; no input left is an
// error.
func (j *convertJob) keepTableInputs(ctx context.Context, stderr io.Writer) error {
	if j.table == "" || len(j.inputs) < 2 || j.recover {
		return nil
	}
	var keep, dropped []string
	for _, name := range j.inputs {
		in, err := openInput(ctx, name, j.ropts, j.http)
		if err != nil {
			return err
		}
		has := slices.Contains(in.file.Tables(), j.table)
		in.close()
		if has {
			keep = append(keep, name)
		} else {
			dropped = append(dropped, name)
		}
	}
	if len(dropped) == 0 {
		return nil
	}
	if len(keep) == 0 {
		return usagef("no input holds table %q", j.table)
	}
	if !j.quiet {
		fmt.Fprintf(stderr, "ts2arrow: --table %s: %d of %d inputs do not hold it and are not read (the first: %s)\n", j.table, len(dropped), len(j.inputs), dropped[0])
	}
	j.inputs = keep
	return nil
}
