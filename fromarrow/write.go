package fromarrow

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/tsfile"
)

// defaultMaxBufferedRows is the number of rows WriteTsFile buffers, over all
// devices, when Options.MaxBufferedRows is not positive.
const defaultMaxBufferedRows = 1 << 20

// Options configure WriteTsFile. A nil *Options selects the
// defaults noted on each field.
type Options struct {
	// Table is the name of the table to write (default: the schema
	// metadata arrowconv.MetaTable; without either WriteTsFile fails).
	Table string
	// Tags names the TAG columns in the order of the DeviceID segments
	// after the table name. Nil selects the fields whose arrowconv.MetaCategory
	// metadata is "TAG", in schema order; an empty non-nil slice means the
	// table has no TAG columns. A TAG column may be utf8, large_utf8,
	// string_view, a dictionary of those, or an integer type (written in
	// decimal); a null is a null DeviceID segment.
	Tags []string
	// Attributes names ATTRIBUTE columns. Nil selects the fields whose
	// arrowconv.MetaCategory metadata is "ATTRIBUTE". TsFile v4 lists ATTRIBUTE
	// columns in the table schema, where they are declared as STRING, but
	// stores no attribute values: chunk groups hold the FIELD columns only
	// (the database keeps attributes elsewhere). Their values are therefore
	// dropped, and arrowconv.NewTableReader reads them back as nulls.
	Attributes []string
	// TimeColumn names the time column, which must be a timestamp or int64
	// column without nulls (default: the field whose arrowconv.MetaCategory is
	// "TIME", else "time").
	TimeColumn string
	// WriteTimeColumn records the time column in the table schema as a
	// column of category TIME (tsfile.TimeCol), named as the input column
	// is (in lower case), so that readers that know the category name the
	// time column after it: the C++ and Python readers of TsFile 2.5, and
	// this module's. The column stands first in the schema, TIMESTAMP,
	// with the time chunks' encoding and compression, as the C++ writer
	// records the TIME column it is given (apache/tsfile cpp/src/common
	// schema.h, TableSchema::serialize_to; the Python
	// tsfile.utils.dataframe_to_tsfile puts it first as TIMESTAMP).
	//
	// Upstream Java TsFile and IoTDB know only the categories TAG, FIELD
	// and ATTRIBUTE, and cannot read such a file at all; without it the
	// time column's name is not stored and every reader calls it "time".
	// An input whose time column a reader named after a TIME column (its
	// arrowconv.MetaCategory is "TIME") is written without one unless this
	// is set. The table model only: with Tree it is an error.
	WriteTimeColumn bool
	// TimeUnit is the unit of the timestamps stored in the file, which
	// TsFile does not record: read the file back with the same
	// arrowconv.Options.TimeUnit, and load it into an IoTDB whose
	// timestamp_precision is this unit. The default is the schema metadata
	// arrowconv.MetaTimeUnit (the unit of the TsFile a tsarrow conversion
	// read), else milliseconds, IoTDB's default precision, whatever the
	// input's unit: Parquet from DuckDB, pandas or Spark holds timestamp[us]
	// or [ns], and storing those numbers as they are would put the rows
	// 1,000 or 1,000,000 times too far from 1970 for a millisecond server.
	// Select another with arrowconv.TimeUnitOf.
	//
	// Every timestamp column (the time column and timestamp FIELD columns)
	// is converted to this unit, exactly: seconds scale up, and a value with
	// digits below the unit is an *OptionError for Option "TimeUnit" (choose
	// the input's unit to keep them), never rounded; a value that overflows
	// the unit is an error. An int64 time column is taken to be in this unit
	// already.
	TimeUnit arrowconv.TimeUnit
	// Encodings chooses the encoding of FIELD columns by name. A column it
	// does not name gets DefaultEncoding of its type, IoTDB 2.x's default
	// (RLE for BOOLEAN, TS_2DIFF for the integer types, GORILLA for FLOAT
	// and DOUBLE, PLAIN for strings and bytes); name PLAIN to write a column
	// plain. A pair the format does not allow, such as CAMEL for INT32 or
	// GORILLA for TEXT, is an *OptionError for Option "Encodings" (see
	// WritableEncodings), reported before anything is written.
	Encodings map[string]tsfile.Encoding
	// Compression compresses the pages of every FIELD column not named in
	// Compressions, and the time column unless TimeCompression or
	// Write.TimeCompression says otherwise (default DefaultCompression, LZ4,
	// IoTDB's compressor). CompressionOf(encoding.Uncompressed) writes them
	// uncompressed.
	Compression PageCompression
	// Compressions chooses the compression of FIELD columns by name.
	Compressions map[string]tsfile.Compression
	// TimeEncoding encodes the time column (default Write.TimeEncoding,
	// whose default is TS_2DIFF). Upstream readers decode time columns in
	// TS_2DIFF whatever the file says, so the writer refuses any other
	// encoding unless Write.ConfiguredTimeEncoding is set.
	TimeEncoding tsfile.TimeEncoding
	// TimeCompression compresses the time column (default
	// Write.TimeCompression where that is not UNCOMPRESSED, else
	// Compression, as IoTDB compresses the time column of aligned series
	// with its compressor).
	TimeCompression PageCompression
	// Write configures the TsFile writer: page sizes, the index fanout,
	// the Bloom filter, encryption. Nil selects the writer's defaults; its
	// time encoding and compression are overridden as TimeEncoding and
	// TimeCompression say.
	Write *tsfile.WriteOptions
	// TablePointCount writes the footer property tablePointCount.<table>,
	// the number of non-null FIELD values written, as TsFile 2.5's Java
	// writer can (tsfile.WriteOptions.TablePointCount). It is also written
	// when Write.Properties holds one for any table, as properties carried
	// over from a TsFile do: that count described the file read, not the
	// rows written (a time range or column projection changes it), so it
	// is counted again rather than copied.
	TablePointCount bool
	// MaxBufferedRows bounds the rows held in memory over all devices
	// (default defaultMaxBufferedRows). When the bound is reached, the
	// devices holding the most rows are written, each as one chunk group,
	// until at most half the bound remains buffered.
	MaxBufferedRows int
	// KeepLast makes the last of several input rows of one device with the
	// same timestamp replace the others (the whole row, nulls included)
	// instead of failing. Only rows still buffered together can be
	// replaced; a timestamp already written for the device is an error
	// either way.
	KeepLast bool
	// DecimalAsDouble stores decimal columns (Arrow decimal32, decimal64,
	// decimal128 and decimal256, as Parquet DECIMAL reads) as DOUBLE, each
	// value rounded to the nearest double: exact to 15 significant digits,
	// rounded beyond. TsFile has no decimal type, so without it a decimal
	// column is an *OptionError for Option "DecimalAsDouble".
	DecimalAsDouble bool
	// Tree writes the tree model instead of a table: each row's device is
	// the path in DeviceColumn (such as "root.sg.d1", split into the
	// segments of a DeviceID as tsfile.ParseTreePath splits it), and every
	// other column but the time column is a measurement of that device,
	// named as the column is (the tree model keeps the case of names).
	// Table, Tags and Attributes do not apply. Measurements are
	// non-aligned unless Aligned is set: a row's null values are simply
	// absent from their series.
	Tree bool
	// DeviceColumn names the column of device paths under Tree (default
	// "device", the column a tree-model conversion writes). Its values
	// must be non-null, non-empty strings.
	DeviceColumn string
	// Aligned writes each tree-model device as an aligned device: one
	// time column shared by its measurements, nulls kept as nulls.
	Aligned bool
}

// An OptionError is an error of WriteTsFile that one of the Options
// settles. Its message names the Options field; Option lets a program
// that fills the options from its own flags or settings name those instead,
// since its users never see the Go names.
type OptionError struct {
	// Problem says what is wrong, without a remedy.
	Problem string
	// Option is the Options field that settles the problem, such as
	// "KeepLast".
	Option string
	// Remedy says what setting Option does, following "set
	// Options.<Option> ".
	Remedy string
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("fromarrow: %s (set Options.%s %s)", e.Problem, e.Option, e.Remedy)
}

// WriteTsFile writes the record batches of rr to w as a TsFile v4 holding
// one table-model table, and returns the number of rows written (rows
// replaced under Options.KeepLast are not counted). It reads
// rr to the end but does not release it, and it does not close w.
//
// Each distinct tuple of TAG values is a device, whose DeviceID is the
// table name followed by the TAG values. Every column other than the time,
// TAG and ATTRIBUTE columns becomes a FIELD column of the table schema,
// in input order after the TAGs and ATTRIBUTEs (with Options.WriteTimeColumn
// the time column comes first, as a TIME column). FIELD types follow the
// Arrow type, and the field metadata arrowconv.MetaType where it names another type
// the column's values fit:
//
//	bool                                  BOOLEAN
//	int8, int16, int32, uint8, uint16     INT32 (or INT64)
//	int64, uint32                         INT64 (or TIMESTAMP)
//	float32                               FLOAT (or DOUBLE)
//	float64                               DOUBLE
//	utf8, large_utf8, string_view         STRING (or TEXT)
//	binary, large_binary, binary_view,
//	fixed_size_binary                     BLOB (or OBJECT)
//	date32, date64                        DATE, stored as YYYYMMDD
//	timestamp                             TIMESTAMP (or INT64), in TimeUnit
//	dictionary<integer, T>                as T
//	decimal32/64/128/256                  DOUBLE, with DecimalAsDouble only
//
// With Options.Tree the file holds tree-model devices instead of a table:
// the device column names each row's device, and the other columns are
// its measurements, typed as above (see Options.Tree).
//
// Any other type, including uint64, is an error wrapping
// tsfile.ErrUnsupported that names the column.
//
// Rows may arrive in any order and devices may interleave. They are
// buffered per device (see Options.MaxBufferedRows) and each
// device's buffered rows are written, sorted by time, as one aligned chunk
// group. Because a device's timestamps must increase through the file, a
// row whose time is not after the last one already written for its device
// is an error, and so, unless KeepLast is set, are two buffered rows of a
// device with the same time. A null time is an error.
//
// Errors name the column, the device and the row, counting the input's rows
// from 0 across all batches; an error that one of the options settles is an
// *OptionError. After an error the output is incomplete and
// has no footer, and the returned count is of the rows written before it.
func WriteTsFile(w io.Writer, rr array.RecordReader, opts *Options) (rows int64, err error) {
	p, err := planTsFile(rr.Schema(), opts)
	if err != nil {
		return 0, err
	}
	if err := p.resolveCodecs(opts); err != nil {
		return 0, err
	}
	if err := p.probe(); err != nil {
		return 0, err
	}
	tw, err := tsfile.NewWriter(w, p.write)
	if err != nil {
		return 0, fmt.Errorf("fromarrow: %w", err)
	}
	if !p.tree {
		if err := tw.RegisterTable(p.schema); err != nil {
			return 0, fmt.Errorf("fromarrow: %w", err)
		}
	}
	s := &tsSink{plan: p, w: tw, devices: map[string]*devBuf{}}
	for rr.Next() {
		if err := s.add(rr.RecordBatch()); err != nil {
			return s.rows, err
		}
	}
	if err := rr.Err(); err != nil {
		return s.rows, fmt.Errorf("fromarrow: reading the input after %d rows: %w", s.next, err)
	}
	for _, d := range s.order {
		if err := s.flush(d); err != nil {
			return s.rows, err
		}
	}
	if err := tw.Close(); err != nil {
		return s.rows, fmt.Errorf("fromarrow: finishing the TsFile: %w", err)
	}
	return s.rows, nil
}
