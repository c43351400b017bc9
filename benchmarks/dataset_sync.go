package benchmarks

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tsarrow/tsarrow/dataset"
)

// The changes the Iceberg sync benchmark (benchmarks/cmd/syncbench) makes
// to a copy of a generated resolved directory between two syncs: new
// sequence files after every row (data that arrived since), and a
// deletion written into the .mods2 of every file it touches, as IoTDB
// writes them.

// AppendDatasetFiles writes files new sequence files of rows rows in all
// into the sequence partition of the resolved directory resolved of a
// dataset of dsN rows sampled every step ms (EnsureDatasetDays): each
// device's new rows follow its last one at the same interval, split
// across the files in time order, each file with its .resource. Their
// versions come after every existing file's. It returns the paths
// written.
func AppendDatasetFiles(resolved string, dsN int, step int64, files, rows int) ([]string, error) {
	if files < 1 || rows < files*DatasetDevices {
		return nil, fmt.Errorf("benchmarks: %d new rows in %d files: want at least %d rows a file", rows, files, DatasetDevices)
	}
	dir := filepath.Join(resolved, "sequence", DatasetDatabase, "1", "0")
	version, err := nextVersion(resolved)
	if err != nil {
		return nil, err
	}
	start := DatasetEnd(dsN, step)
	span := int64(deviceRows(DatasetDevices, 0, rows)) * step
	var pool []*dsRows
	out := make([]*dsFile, files)
	defer func() {
		for _, f := range out {
			if f != nil && f.f != nil {
				f.f.Close()
			}
		}
	}()
	for f := range out {
		if out[f], err = newDSFile(&pool, dir, start+span*int64(f+1)/int64(files)+60_000, version+int64(f)); err != nil {
			return nil, err
		}
	}
	var r dsRow
	for i := range DatasetDevices {
		n := deviceRows(DatasetDevices, i, rows)
		src := newDSSource(i, step)
		// Another seed than the generated rows', so that the values go on
		// from a fresh state; the times start after every existing row.
		src.rng = rand.New(rand.NewPCG(0x6d6f_7265, uint64(i)))
		src.t = start + int64(i)*37 - step
		f := 0
		for k := range n {
			src.next(&r)
			for k >= n*(f+1)/files {
				f++
			}
			if err := out[f].add(i, &r); err != nil {
				return nil, err
			}
		}
		for _, df := range out {
			if err := df.flush(); err != nil {
				return nil, err
			}
		}
	}
	var paths []string
	for _, df := range out {
		if _, err := df.close(nil); err != nil {
			return nil, err
		}
		df.f = nil
		paths = append(paths, df.path)
	}
	return paths, nil
}

// nextVersion is one more than the highest version in the names of the
// data files under resolved ({time}-{version}-{inner}-{cross}.tsfile).
func nextVersion(resolved string) (int64, error) {
	var top int64
	err := filepath.WalkDir(resolved, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, dataset.TsFileSuffix) {
			return err
		}
		var t, v, a, b int64
		if _, err := fmt.Sscanf(filepath.Base(p), "%d-%d-%d-%d", &t, &v, &a, &b); err == nil {
			top = max(top, v)
		}
		return nil
	})
	return top + 1, err
}

// DatasetDay is the start (ms, UTC midnight) of day d of a generated
// dataset, day 0 being the day its first row falls in.
func DatasetDay(d int) int64 {
	const day = 86_400_000
	return (dsStart/day + int64(d)) * day
}

// DatasetDayDeletion is a DELETE of every device's rows in one hour
// (06:00 to 07:00 UTC) of day d (see DatasetDay): a deletion that
// touches exactly one day partition.
func DatasetDayDeletion(d int) dataset.Deletion {
	start := DatasetDay(d) + 6*3_600_000
	return dataset.Deletion{Kind: dataset.TableDeletion, Table: DatasetTable, Start: start, End: start + 3_600_000 - 1}
}

// AppendDatasetDeletion appends del to the .mods2 file of every data file
// under resolved whose .resource shows a device del affects with rows in
// its range (creating the .mods2 when the file has none), as IoTDB does
// for a DELETE, and returns the data files it touched. A .mods2 must be
// the directory's own: one shared by a hard link with the cached dataset
// would change that too.
func AppendDatasetDeletion(resolved string, del dataset.Deletion) ([]string, error) {
	var touched []string
	err := filepath.WalkDir(resolved, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, dataset.TsFileSuffix) {
			return err
		}
		res, err := dataset.ReadResourceFS(nil, p+dataset.ResourceSuffix)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(res.Devices, func(dt dataset.DeviceTimes) bool {
			return del.AffectsDevice(dt.Device) && del.OverlapsRange(dt.Start, dt.End)
		}) {
			return nil
		}
		b, err := dataset.AppendModsV2(nil, del)
		if err != nil {
			return err
		}
		f, err := os.OpenFile(p+dataset.ModsV2Suffix, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		touched = append(touched, p)
		return nil
	})
	if err == nil && len(touched) == 0 {
		err = errors.New("benchmarks: the deletion touches no data file")
	}
	sort.Strings(touched)
	return touched, err
}
