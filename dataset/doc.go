// Package dataset reads an IoTDB data directory as the server answers it.
//
// An IoTDB data directory holds many TsFiles that together make one
// dataset: data/{sequence,unsequence}/{database}/{region}/{partition}/
// {time}-{version}-{inner}-{cross}.tsfile, each beside a .resource file
// (per-device time ranges) and perhaps a .mods or .mods2 file of
// deletions. Reading each file alone, as package arrowconv does, brings
// back deleted points and shows overwritten points twice. This package
// will resolve that: prune files by their resources, drop what the mods
// files delete, and merge overlapping files so that the copy IoTDB would
// return wins.
//
// Today it holds the foundations, not yet the merge reader:
//
//   - ParseName reads a data file name; Discover finds the data files
//     under a data directory, a space, database, region or partition
//     folder, or a list of files, with their companions, and lists the
//     compaction temporaries and orphans it skipped;
//   - ParseResource and ReadResourceFile read a .resource file's device
//     time index (IoTDB 1.x and 2.x), and Resource.AppendBinary writes one;
//   - Priority and ComparePriority say which copy of a point wins;
//   - the mods parsers (v1 text and v2 binary) read deletions.
//
// Every parser checks sizes before it allocates and refuses what it
// cannot read with an error that wraps tsfile.ErrCorrupt or
// tsfile.ErrUnsupported, so that a reader can fall back (to a TsFile's own
// index, for a resource) or stop.
package dataset
