package query

import (
	"errors"
	"net/http"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/objstore"
	"github.com/tsarrow/tsarrow/tsfile"
)

// ErrNoSQL is returned by every function of a build without the SQL engine.
var ErrNoSQL = errors.New("this build has no SQL engine: build with CGO_ENABLED=1 and -tags duckdb_arrow")

// ErrReadOnly is matched by the error of a statement QueryArrow refuses
// because it could change the database or run something else than a read.
var ErrReadOnly = errors.New("query: only read statements are allowed")

// Options configure Open and Register. The zero value selects the defaults.
type Options struct {
	// Read is passed to tsfile.Open for every file (keys, verification,
	// leniency), as convert passes its flags.
	Read tsfile.ReadOptions
	// Dataset holds the rules of IoTDB data directories (mods v1, trust in
	// resources); its Read field is ignored in favour of Read above.
	Dataset dataset.Options
	// Raw reads every file as it is, also in an IoTDB data directory or
	// beside mods files, as convert --raw does.
	Raw bool
	// TimeUnit is the unit of the stored timestamps, which TsFile does not
	// record (convert --time-unit); the zero value is milliseconds. A
	// nanosecond table's time columns are TIMESTAMP_NS in DuckDB, the
	// others TIMESTAMPTZ.
	TimeUnit arrowconv.TimeUnit
	// HTTP sends the requests of http(s) inputs; nil means
	// http.DefaultClient.
	HTTP *http.Client
	// Objects configure the stores of object URL inputs (s3://, gs://,
	// az://, azblob://, file://: package objstore), which are read with
	// range requests as local files are read, a prefix as a directory
	// and a pattern over the keys as a glob; nil means the defaults
	// (endpoints, regions and credentials from the environment).
	Objects *objstore.Options
	// Threads is DuckDB's thread count; 0 means GOMAXPROCS.
	Threads int
	// MemoryLimit is DuckDB's memory_limit in bytes; 0 keeps DuckDB's
	// default.
	MemoryLimit int64
	// Warn receives warnings (tables skipped, files left out); nil drops
	// them.
	Warn func(msg string)
	// Confine keeps statements to the tables of the inputs, for a server
	// whose clients must not read the host's other files: DuckDB itself may
	// not touch files or the network (enable_external_access = false, no
	// extension installed or loaded on demand), so read_csv('/etc/passwd'),
	// glob() and COPY are refused, and tsfile() and FROM 'x.tsfile', which
	// read what the query names, are refused too. serve sets it for Flight
	// SQL; the CLI, whose user owns the machine, does not.
	Confine bool
}

// Table is one table of the inputs as DuckDB sees it.
type Table struct {
	// Schema is the DuckDB schema: the IoTDB database, or "main".
	Schema string
	// Name is the table name as DuckDB sees it (a tree-model table keeps
	// its dots: "root.sg", to be quoted in SQL).
	Name string
	// Arrow is the table's schema as `ts2arrow schema --arrow` gives it.
	Arrow *arrow.Schema
	// Time is the name of the time column: "time", or the name of the
	// table schema's column of category TIME (arrowconv.TimeFieldName),
	// on which pushdown of a time filter works as on "time".
	Time string
	// Unit is the unit of the stored timestamps.
	Unit arrow.TimeUnit
	// Tags are the TAG columns (the device column of a tree-model table),
	// in schema order.
	Tags []string
	// Inputs are the files or directories the table was resolved from.
	Inputs []string
	// Epoch are the TIMESTAMP fields (never the time column) that DuckDB
	// sees as BIGINT, the epoch count in Unit, because their files'
	// statistics hold values beyond DuckDB's timestamps (µs since 1970 in
	// an int64, about ±292,000 years): upstream's test writers fill
	// TIMESTAMP fields with random longs. Empty for most tables.
	Epoch []string
}

// ScanStats counts what the scans of a DB have read, cumulatively.
type ScanStats struct {
	// BytesRead are the bytes read from the inputs' files (local reads
	// and HTTP range requests).
	BytesRead int64
	// PagesDecoded are the pages the scans decoded (time and value
	// pages; those skipped by their statistics are not).
	PagesDecoded int64
	// RowsScanned are the rows the scans handed to DuckDB.
	RowsScanned int64
	// Units are the scan units (files, device groups) opened.
	Units int64
	// FilesPruned are IoTDB data files skipped by their resources.
	FilesPruned int64
}
