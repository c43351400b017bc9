#!/usr/bin/env python3
"""Read an Apache Iceberg table's current snapshot without iceberg-go.

An independent check of what `ts2arrow sync` commits (issue 41): the
table's metadata JSON is read with the json module, its manifest list and
manifests with Apache Avro for Python (Debian's python3-avro), and the live
data files are listed: those of the data manifests of the current snapshot
whose entries are not DELETED. Their rows are left to an independent
Parquet reader (DuckDB's read_parquet over the listed paths); Debian 12 has
no Python Parquet reader (no pyarrow), so this script reads none.

It fails (exit 1, one line on stderr) where the table contradicts itself:
a manifest or data file missing or of another size than recorded, a data
file live twice, delete files (the sync writes none: every engine must
read the table without applying deletes), or a snapshot summary whose
totals disagree with the manifests.

Usage:
  readback.py METADATA.json            # a metadata file
  readback.py --sqlite CAT.db --table NS.NAME [--catalog NAME]
                                       # its location from an Iceberg SQL
                                       # catalog on SQLite (table iceberg_tables)
  --rebase FROM=TO  read locations starting with FROM under TO instead
                    (a table copied elsewhere, e.g. a test fixture)

Output: one JSON object on stdout (see describe() below). Exit status: 0
read, 1 the table is inconsistent or unreadable (one line on stderr), 2
usage, 4 a fault of this script (a traceback).
"""

import argparse
import datetime
import json
import os
import sqlite3
import sys
import traceback
import warnings
from urllib.parse import unquote, urlparse

# Iceberg marks its Avro maps (column sizes, bounds) with logicalType
# "map", which Avro for Python does not know and reads as the array of
# key-value records it is; say nothing about it.
warnings.filterwarnings("ignore", message="Unknown map")

try:
    from avro.datafile import DataFileReader
    from avro.errors import AvroException
    from avro.io import DatumReader
except ImportError:  # reported as a usage error
    DataFileReader = None
    AvroException = Exception


class Inconsistent(Exception):
    """The table contradicts itself or its files."""


def local_path(location, rebase):
    """The local file for a location: file:// URIs and absolute paths,
    after the --rebase mappings; other schemes are refused."""
    for src, dst in rebase:
        if location.startswith(src):
            location = dst + location[len(src):]
            break
    u = urlparse(location)
    if u.scheme == "file":
        return unquote(u.path)
    if u.scheme == "" and os.path.isabs(location):
        return location
    raise Inconsistent("%s: not a local file (scheme %r); copy the table and use --rebase" % (location, u.scheme))


def read_avro(path):
    """The records of an Avro object container file and its metadata."""
    with open(path, "rb") as f:
        reader = DataFileReader(f, DatumReader())
        try:
            meta = {k: v.decode("utf-8", "replace") for k, v in reader.meta.items() if not k.startswith("avro.")}
            return list(reader), meta
        finally:
            reader.close()


def check_size(path, want, what):
    try:
        got = os.path.getsize(path)
    except OSError as e:
        raise Inconsistent("%s %s: %s" % (what, path, e.strerror))
    if want is not None and got != want:
        raise Inconsistent("%s %s: %d bytes, the table records %d" % (what, path, got, want))


def jsonable(v):
    """Avro values as JSON: bytes (bounds, binary partition values) as hex,
    dates and times (partition values of day, hour... transforms) in ISO
    8601."""
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, (datetime.date, datetime.time)):  # datetime is a date
        return v.isoformat()
    if isinstance(v, dict):
        return {k: jsonable(x) for k, x in v.items()}
    if isinstance(v, list):
        return [jsonable(x) for x in v]
    return v


def describe(metadata_path, rebase):
    with open(metadata_path, "rb") as f:
        md = json.load(f)
    out = {
        "metadata": metadata_path,
        "format_version": md.get("format-version"),
        "table_uuid": md.get("table-uuid"),
        "location": md.get("location"),
        "properties": md.get("properties", {}),
        "schema": next((s for s in md.get("schemas", []) if s.get("schema-id") == md.get("current-schema-id")), md.get("schema")),
        "partition_spec": next((s for s in md.get("partition-specs", []) if s.get("spec-id") == md.get("default-spec-id")), None),
        "snapshot": None,
        "snapshots": len(md.get("snapshots", [])),
        "manifests": [],
        "data_files": [],
        "record_count": 0,
    }
    sid = md.get("current-snapshot-id")
    if sid is None or sid == -1:
        return out  # a table with no snapshot yet: no files
    snap = next((s for s in md.get("snapshots", []) if s.get("snapshot-id") == sid), None)
    if snap is None:
        raise Inconsistent("%s: current-snapshot-id %d is not among its snapshots" % (metadata_path, sid))
    out["snapshot"] = {k: snap.get(k) for k in ("snapshot-id", "parent-snapshot-id", "sequence-number", "timestamp-ms", "summary", "manifest-list")}
    if "manifest-list" not in snap:
        raise Inconsistent("snapshot %d: no manifest-list (a v1 table with inline manifests is not read here)" % sid)
    mlist = local_path(snap["manifest-list"], rebase)
    check_size(mlist, None, "manifest list")
    manifests, _ = read_avro(mlist)
    seen = {}
    for m in manifests:
        mpath = local_path(m["manifest_path"], rebase)
        check_size(mpath, m.get("manifest_length"), "manifest")
        content = m.get("content", 0)  # v1 lists have no content: data
        entries, mmeta = read_avro(mpath)
        live = [e for e in entries if e["status"] != 2]  # 0 EXISTING, 1 ADDED, 2 DELETED
        out["manifests"].append({
            "path": m["manifest_path"], "content": content, "added_snapshot_id": m.get("added_snapshot_id"),
            "partition_spec_id": m.get("partition_spec_id"), "entries": len(entries), "live": len(live),
        })
        for e in live:
            df = e["data_file"]
            if content != 0 or df.get("content", 0) != 0:
                raise Inconsistent("manifest %s: delete file %s (content %s) live; the table must read without deletes" % (m["manifest_path"], df["file_path"], df.get("content")))
            if df["file_path"] in seen:
                raise Inconsistent("data file %s live twice (manifests %s and %s)" % (df["file_path"], seen[df["file_path"]], m["manifest_path"]))
            seen[df["file_path"]] = m["manifest_path"]
            lp = local_path(df["file_path"], rebase)
            check_size(lp, df["file_size_in_bytes"], "data file")
            out["data_files"].append({
                "path": df["file_path"], "local_path": lp, "format": df["file_format"],
                "record_count": df["record_count"], "file_size_in_bytes": df["file_size_in_bytes"],
                "partition": jsonable(df.get("partition")), "status": e["status"],
                "snapshot_id": e.get("snapshot_id"),
            })
            out["record_count"] += df["record_count"]
    summary = snap.get("summary", {})
    for key, got in (("total-records", out["record_count"]), ("total-data-files", len(out["data_files"]))):
        if key in summary and int(summary[key]) != got:
            raise Inconsistent("snapshot %d: summary %s = %s, the manifests hold %d" % (sid, key, summary[key], got))
    for key in ("total-delete-files", "total-position-deletes", "total-equality-deletes"):
        if int(summary.get(key, 0)) != 0:
            raise Inconsistent("snapshot %d: summary %s = %s; the table must read without deletes" % (sid, key, summary[key]))
    out["data_files"].sort(key=lambda d: d["path"])
    return out


def from_sqlite(db, ident, catalog):
    """The metadata location an Iceberg SQL catalog on SQLite records for
    NS.NAME (the catalog's own table iceberg_tables)."""
    ns, _, name = ident.rpartition(".")
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        q = "SELECT metadata_location FROM iceberg_tables WHERE table_namespace = ? AND table_name = ?"
        args = [ns, name]
        if catalog:
            q += " AND catalog_name = ?"
            args.append(catalog)
        rows = con.execute(q, args).fetchall()
    finally:
        con.close()
    if len(rows) != 1:
        raise Inconsistent("%s: %d rows for table %s in iceberg_tables, want 1" % (db, len(rows), ident))
    return rows[0][0]


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("metadata", nargs="?", help="the table's metadata JSON file")
    p.add_argument("--sqlite", help="an Iceberg SQL catalog on SQLite to look the table up in")
    p.add_argument("--table", help="NAMESPACE.NAME, with --sqlite")
    p.add_argument("--catalog", help="the catalog_name, with --sqlite (default: any)")
    p.add_argument("--rebase", action="append", default=[], metavar="FROM=TO")
    a = p.parse_args(argv)
    if DataFileReader is None:
        print("readback.py: no Apache Avro for Python (apt-get install python3-avro; Debian's is /usr/bin/python3's)", file=sys.stderr)
        return 2
    if (a.metadata is None) == (a.sqlite is None) or (a.sqlite is not None) != (a.table is not None):
        p.print_usage(sys.stderr)
        return 2
    rebase = []
    for r in a.rebase:
        src, eq, dst = r.partition("=")
        if not eq:
            p.error("--rebase %s: want FROM=TO" % r)
        rebase.append((src, dst))
    try:
        meta = a.metadata or from_sqlite(a.sqlite, a.table, a.catalog)
        if "://" in meta:
            meta = local_path(meta, rebase)
        # Whole before written: a failure prints no half of it.
        out = json.dumps(describe(meta, rebase), indent=1, sort_keys=True)
        sys.stdout.write(out + "\n")
    except (Inconsistent, OSError, ValueError, KeyError, AvroException) as e:
        # What the table's files say or lack: a corrupt Avro or JSON file,
        # a missing field, a missing file.
        what = str(e) if isinstance(e, Inconsistent) else "%s: %s" % (type(e).__name__, e)
        print("readback.py: " + what, file=sys.stderr)
        return 1
    except Exception:
        # A fault of this script, not of the table: not exit 1.
        traceback.print_exc()
        return 4
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
