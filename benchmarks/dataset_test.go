package benchmarks

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/tsarrow/tsarrow/arrowconv"
	"github.com/tsarrow/tsarrow/dataset"
	"github.com/tsarrow/tsarrow/tsfile"
)

// BenchmarkDataset reads the generated IoTDB data directory (issue 28:
// 20 files, unsequence files rewriting 10% of the rows, mods2 deleting
// 1%) with dataset.Open and NewReader(DatasetTable, nil) to the end, and
// between its iterations, timer stopped, the plain directory (the same
// resolved rows in 20 non-overlapping files without mods) the same way,
// and the plain files one by one with arrowconv.NewTableReader, the
// single-file path. Reports: rows/s of the resolved read (rows returned),
// plain-rows/s and x-plain (resolved over plain; target >= 0.7),
// files-rows/s and x-files, and what the resolved reader's Stats counted
// (overwritten, deleted, merged rows).
//
// Before timing, each directory is read once with a digest of every row,
// which must equal the generator's: a read that returns the wrong rows
// fails the benchmark rather than reporting a speed.
func BenchmarkDataset(b *testing.B) {
	rows, err := DatasetRows()
	if err != nil {
		b.Fatal(err)
	}
	in, err := EnsureDataset(rows)
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) { benchDataset(b, in) })
}

// datasetChecked remembers the datasets whose reads were checked in this
// process (-count runs the benchmark again).
var datasetChecked sync.Map

func benchDataset(b *testing.B, in *DatasetInfo) {
	want := in.ExpectedRows
	if _, done := datasetChecked.Load(in.Resolved); !done {
		b.Log(in.Summary())
		for _, root := range []string{in.Resolved, in.Plain} {
			var d DatasetDigest
			n, st, err := readDataset(root, &d)
			if err != nil {
				b.Fatal(err)
			}
			if n != want || d.Rows != want || d.Sum != in.Digest {
				b.Fatalf("%s: read %d rows, digest %x; want %d rows, digest %x", root, n, d.Sum, want, in.Digest)
			}
			b.Logf("%s: %d rows, digest matches; stats %+v", root, n, st)
		}
		var d DatasetDigest
		if n, err := readPlainFiles(in.Plain, &d); err != nil || n != want || d.Sum != in.Digest {
			b.Fatalf("plain files one by one: %d rows, digest %x, %v; want %d rows, digest %x", n, d.Sum, err, want, in.Digest)
		}
		datasetChecked.Store(in.Resolved, true)
	}
	var stats dataset.ReadStats
	var plainT, filesT time.Duration
	rounds := 0
	interleaved(b, int(want),
		func() (int64, int64, error) {
			n, st, err := readDataset(in.Resolved, nil)
			stats = st
			return n, 0, err
		},
		func(warmUp bool, _ int64) error {
			// Alternate the order of the two baselines so that neither
			// always runs right after the resolved read.
			reads := []func() error{
				func() error {
					start := time.Now()
					n, _, err := readDataset(in.Plain, nil)
					if err == nil && n != want {
						err = fmt.Errorf("plain read %d rows, want %d", n, want)
					}
					if !warmUp {
						plainT += time.Since(start)
					}
					return err
				},
				func() error {
					start := time.Now()
					n, err := readPlainFiles(in.Plain, nil)
					if err == nil && n != want {
						err = fmt.Errorf("plain files read %d rows, want %d", n, want)
					}
					if !warmUp {
						filesT += time.Since(start)
					}
					return err
				},
			}
			if rounds%2 == 1 {
				reads[0], reads[1] = reads[1], reads[0]
			}
			if !warmUp {
				rounds++
			}
			for _, r := range reads {
				if err := r(); err != nil {
					return err
				}
			}
			return nil
		})
	perOp := b.Elapsed().Seconds() / float64(b.N)
	rs := float64(want) / perOp
	plainRS := float64(want) / (plainT.Seconds() / float64(rounds))
	filesRS := float64(want) / (filesT.Seconds() / float64(rounds))
	b.ReportMetric(rs, "rows/s")
	b.ReportMetric(plainRS, "plain-rows/s")
	b.ReportMetric(rs/plainRS, "x-plain")
	b.ReportMetric(filesRS, "files-rows/s")
	b.ReportMetric(rs/filesRS, "x-files")
	b.ReportMetric(float64(stats.RowsOverwritten), "overwritten")
	b.ReportMetric(float64(stats.RowsDeleted), "deleted")
	b.ReportMetric(float64(stats.RowsMerged), "merged")
	b.ReportMetric(float64(in.ResolvedBytes)/1e6, "resolved-MB")
	b.ReportMetric(float64(in.PlainBytes)/1e6, "plain-MB")
}

// readDataset opens a data directory with dataset.Open and reads the
// generated table to the end with default options, adding every batch to
// d unless it is nil.
func readDataset(root string, d *DatasetDigest) (rows int64, st dataset.ReadStats, err error) {
	ds, err := dataset.Open([]string{root}, nil)
	if err != nil {
		return 0, st, err
	}
	defer ds.Close()
	rdr, err := ds.NewReader(DatasetTable, nil)
	if err != nil {
		return 0, st, err
	}
	defer rdr.Release()
	for rdr.Next() {
		rec := rdr.RecordBatch()
		rows += rec.NumRows()
		if d != nil {
			if err := d.Add(rec); err != nil {
				return rows, st, err
			}
		}
	}
	return rows, rdr.Stats(), rdr.Err()
}

// readPlainFiles reads the files of the plain directory one after the
// other with the single-file reader (tsfile.OpenFile,
// arrowconv.NewTableReader), as a user would without the dataset package:
// the floor the plain dataset read is measured against.
func readPlainFiles(root string, d *DatasetDigest) (int64, error) {
	l, err := dataset.Discover(root)
	if err != nil {
		return 0, err
	}
	var rows int64
	for _, f := range l.Files {
		tf, err := tsfile.OpenFile(f.Path, nil)
		if err != nil {
			return rows, err
		}
		n, err := drainTable(tf, d)
		tf.Close()
		rows += n
		if err != nil {
			return rows, fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	return rows, nil
}

// drainTable reads the generated table of one file to the end.
func drainTable(tf *tsfile.File, d *DatasetDigest) (rows int64, err error) {
	rdr, err := arrowconv.NewTableReader(tf, DatasetTable, nil)
	if err != nil {
		return 0, err
	}
	defer rdr.Release()
	for rdr.Next() {
		rec := rdr.RecordBatch()
		rows += rec.NumRows()
		if d != nil {
			if err := d.Add(rec); err != nil {
				return rows, err
			}
		}
	}
	return rows, rdr.Err()
}
