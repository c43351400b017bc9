package icesync

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/tsarrow/tsarrow/dataset"
)

// ErrNoResource is returned by GatherFacts for a data file without its
// .resource: its device ranges would have to come from its index (as
// dataset.OpenLayout reads such a file), which GatherFacts does not read yet.
var ErrNoResource = errors.New("icesync: data file without .resource")

// FactsOptions configure GatherFacts.
type FactsOptions struct {
	// FS is the file system of the layout's paths, as dataset.Options.FS
	// (nil: the operating system's).
	FS fs.FS
	// Mods limits the mods files read.
	Mods *dataset.ModsOptions
	// V1Whole reports whether the deletions of f's .mods file apply to the
	// whole data file (IoTDB 2.x) rather than to the chunks below their
	// offsets (1.x), as the Dataset reading f decides (dataset.ModsV1Rule).
	// The rule is part of each deletion's key, so a directory that turns
	// 2.x between two syncs rewrites the days of its v1 deletions. Nil
	// takes the offset rule.
	V1Whole func(f dataset.File) bool
	// Devices, when set, gives the device ranges of a data file without
	// a .resource (from its index, as dataset reads such a file); nil
	// makes such a file an ErrNoResource error.
	Devices func(f dataset.File) ([]dataset.DeviceTimes, error)
}

// GatherFacts returns what Plan needs of the data files of a layout (as
// dataset.Discover returns it): each file's name below its data directory,
// size and modification time, the identity of the mods file that applies
// (the .mods2 when both exist, as dataset does), the device ranges of its
// .resource, and each mods entry with the parts of those ranges it may
// delete from. It reads the resources and mods files, never a data file.
func GatherFacts(l *dataset.Layout, opts *FactsOptions) ([]SourceFile, error) {
	var o FactsOptions
	if opts != nil {
		o = *opts
	}
	out := make([]SourceFile, 0, len(l.Files))
	for _, f := range l.Files {
		st, err := stat(o.FS, f.Path)
		if err != nil {
			return nil, fmt.Errorf("icesync: %w", err)
		}
		sf := SourceFile{Name: factName(f), Size: st.Size(), ModTime: st.ModTime().UnixNano()}
		var devs []dataset.DeviceTimes
		switch {
		case f.Resource != "":
			res, err := dataset.ReadResourceFS(o.FS, f.Resource)
			if err != nil {
				return nil, fmt.Errorf("icesync: %w", err)
			}
			devs = res.Devices
		case o.Devices != nil:
			if devs, err = o.Devices(f); err != nil {
				return nil, fmt.Errorf("icesync: %s: %w", f.Path, err)
			}
		default:
			return nil, fmt.Errorf("%w: %s; sync it once the server has closed it (or move it aside)", ErrNoResource, f.Path)
		}
		for _, d := range devs {
			sf.Devices = append(sf.Devices, DeviceRange{Device: d.Device.Key(), Start: d.Start, End: d.End})
		}
		mods := f.ModsV2
		rule := "v2"
		if mods == "" && f.ModsV1 != "" {
			mods, rule = f.ModsV1, "offset"
			if o.V1Whole != nil && o.V1Whole(f) {
				rule = "whole"
			}
		}
		if mods != "" {
			mst, err := stat(o.FS, mods)
			if err != nil {
				return nil, fmt.Errorf("icesync: %w", err)
			}
			sf.Mods = fmt.Sprintf("%s size %d mtime %d rule %s", path.Base(filepath.ToSlash(mods)), mst.Size(), mst.ModTime().UnixNano(), rule)
			_, err = dataset.ScanModsFS(o.FS, mods, o.Mods, func(d *dataset.Deletion) error {
				sf.Deletions = append(sf.Deletions, deletionFacts(d, devs, rule))
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("icesync: %w", err)
			}
		}
		out = append(out, sf)
	}
	return out, nil
}

// deletionFacts keys a deletion by what it deletes and the rule it applies
// by, and clips it to the ranges of the devices it may delete from. A
// deletion of some measurements only counts for the whole device, and an
// open bound as a closed one: both can only add days, never miss one.
func deletionFacts(d *dataset.Deletion, devs []dataset.DeviceTimes, rule string) DeletionFacts {
	df := DeletionFacts{Key: d.String() + " rule " + rule}
	for _, dev := range devs {
		if !d.AffectsDevice(dev.Device) {
			continue
		}
		lo, hi := max(d.Start, dev.Start), min(d.End, dev.End)
		if lo <= hi {
			df.Covers = append(df.Covers, Interval{lo, hi})
		}
	}
	return df
}

// factName is the name of a data file independent of where its data
// directory is mounted: IoTDB's path below the data directory, or the base
// name of a loose file.
func factName(f dataset.File) string {
	base := path.Base(filepath.ToSlash(f.Path))
	if f.Space == dataset.Unknown {
		return base
	}
	return path.Join(f.Space.String(), f.Database, f.Region, f.Partition, base)
}

func stat(fsys fs.FS, name string) (fs.FileInfo, error) {
	if fsys == nil {
		return os.Stat(name)
	}
	return fs.Stat(fsys, name)
}
