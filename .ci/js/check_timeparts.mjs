// Reads a directory written by "ts2arrow convert --partition-by P" with a
// time period in P (day, hour, month; alone or after table or device) with
// DuckDB, as one Hive-partitioned dataset
// (read_parquet('DIR/**/*.parquet', hive_partitioning = true)), and checks
// it against the unpartitioned Parquet conversion of the same input (the
// reference), which DuckDB reads too.
//
// It checks:
//   - the layout: every file is DIR/table=T/[device=D/]KEYS/part-N.parquet
//     with KEYS date=YYYY-MM-DD (day), date=YYYY-MM-DD/hour=H (hour) or
//     year=Y/month=M (month), numbers not zero-padded, and nothing else
//     is there;
//   - the types DuckDB gives the keys: date a DATE, hour, year and month
//     BIGINT;
//   - every row's keys are the UTC date, hour, year and month of its time
//     column, and a device partition lies under its table;
//   - the rows: the dataset's, over the reference's columns (a tree
//     model's device column taken from the partition when it moved into the
//     path), equal the reference's as multisets (EXCEPT ALL both ways) and
//     in count.
//
// usage: node check_timeparts.mjs DIR --partition-by P --reference ONE.parquet
//   or:  node check_timeparts.mjs --write-months OUT.parquet
// (the second writes a Parquet file of two sites' rows over several months
// and years, a leap day and times before 1970, for a month partitioning to
// cut; ts2arrow converts it to a TsFile first).
// Exit status 0 when everything agrees, 1 on any difference, 2 on a usage
// error.
import { join, relative, sep } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { walk } from "./walk.mjs";

function usage(msg) {
  if (msg) console.error(msg);
  console.error("usage: node check_timeparts.mjs DIR --partition-by P --reference ONE.parquet | --write-months OUT.parquet");
  process.exit(2);
}

const literal = (s) => "'" + s.replaceAll("'", "''") + "'";
const ident = (name) => '"' + name.replaceAll('"', '""') + '"';
const instance = await DuckDBInstance.create(":memory:");
const conn = await instance.connect();
const query = async (sql) => (await conn.runAndReadAll(sql)).getRowsJS();
await conn.run("SET TimeZone = 'UTC'");

const argv = process.argv.slice(2);
if (argv[0] === "--write-months") {
  if (argv.length !== 2) usage();
  // Every 7 hours and 13 minutes from 1969-11-30 to 2024-03-02, two
  // sites: months of 28 to 31 days, 2024-02-29, and times before 1970.
  await conn.run(`COPY (
    SELECT t::TIMESTAMP AS time, site, (epoch(t) * 10 + length(site))::BIGINT AS v
    FROM range(TIMESTAMP '1969-11-30 20:00:00', TIMESTAMP '1970-02-02 00:00:00', INTERVAL 433 MINUTE) r(t),
         (VALUES ('north'), ('south')) s(site)
    UNION ALL
    SELECT t::TIMESTAMP, site, (epoch(t) * 10 + length(site))::BIGINT
    FROM range(TIMESTAMP '2023-12-30 00:00:00', TIMESTAMP '2024-03-02 00:00:00', INTERVAL 433 MINUTE) r(t),
         (VALUES ('north'), ('south')) s(site)
    ORDER BY site, time
  ) TO ${literal(argv[1])} (FORMAT parquet)`);
  conn.closeSync();
  instance.closeSync();
  process.exit(0);
}

const opts = {};
const positional = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const val = () => {
    if (i + 1 >= argv.length) usage(`${a} needs a value`);
    return argv[++i];
  };
  switch (a) {
    case "--partition-by":
      opts.partitionBy = val();
      break;
    case "--reference":
      opts.reference = val();
      break;
    default:
      if (a.startsWith("--")) usage(`unknown option ${a}`);
      positional.push(a);
  }
}
if (positional.length !== 1 || !opts.partitionBy || !opts.reference) usage();
const dir = positional[0];
const levels = opts.partitionBy.split(",");
const period = levels[levels.length - 1];
const byDevice = levels[0] === "device";
const keyRe = { day: "date=\\d{4}-\\d{2}-\\d{2}", hour: "date=\\d{4}-\\d{2}-\\d{2}/hour=(?:1?\\d|2[0-3])", month: "year=(?:0|[1-9]\\d*)/month=(?:[1-9]|1[0-2])" }[period];
if (!keyRe) usage(`--partition-by ${opts.partitionBy}: no day, hour or month`);
const keys = { day: ["date"], hour: ["date", "hour"], month: ["year", "month"] }[period];

let mismatches = 0;
function mismatch(msg) {
  if (mismatches++ < 30) console.error(msg);
}

// ---- the layout ----
const files = walk(dir).sort();
const partRe = new RegExp(`^table=[^/]+/${byDevice ? "device=[^/]+/" : ""}${keyRe}/part-\\d+\\.parquet$`);
for (const f of files) {
  const rel = relative(dir, f).split(sep).join("/");
  if (!partRe.test(rel)) mismatch(`unexpected file ${rel} in the dataset`);
}
if (files.length === 0) mismatch(`${dir}: no files`);

// ---- DuckDB ----
const [[version]] = await query("SELECT version()");
const glob = join(dir, "**", "*.parquet");
await conn.run(`CREATE VIEW d AS SELECT * FROM read_parquet(${literal(glob)}, hive_partitioning = true)`);
await conn.run(`CREATE VIEW r AS SELECT * FROM read_parquet(${literal(opts.reference)})`);
const dsTypes = new Map(await query("SELECT column_name, column_type FROM (DESCRIBE d)"));
const refNames = (await query("SELECT column_name FROM (DESCRIBE r)")).map(([n]) => n);
const wantType = { date: "DATE", hour: "BIGINT", year: "BIGINT", month: "BIGINT" };
for (const k of keys) {
  if (refNames.includes(k)) usage(`the reference has a column named ${k}, which the partition key would hide`);
  if (dsTypes.get(k) !== wantType[k]) mismatch(`partition key ${k}: DuckDB type ${dsTypes.get(k)}, want ${wantType[k]}`);
}
if (!refNames.includes("time")) usage("the reference has no time column");

// Every row's keys are those of its UTC time.
const keyExpr = { date: "time::TIMESTAMPTZ::DATE", hour: "hour(time::TIMESTAMPTZ)", year: "year(time::TIMESTAMPTZ)", month: "month(time::TIMESTAMPTZ)" };
for (const k of keys) {
  const [[bad, sample]] = await query(`SELECT count(*), any_value(time::VARCHAR || ' in ' || ${ident(k)}::VARCHAR) FROM d WHERE ${ident(k)} IS DISTINCT FROM ${keyExpr[k]}`);
  if (bad !== 0n) mismatch(`${bad} rows whose partition key ${k} is not that of their time (such as ${sample})`);
}
// A device partition lies under its table.
if (byDevice) {
  const [[bad]] = await query(`SELECT count(*) FROM d WHERE NOT starts_with(device, "table" || '.')`);
  if (bad !== 0n) mismatch(`${bad} rows whose device partition is not under their table`);
}

// The rows, as multisets.
const cols = refNames.map(ident).join(", ");
const [[refRows]] = await query("SELECT count(*) FROM r");
const [[dsRows]] = await query("SELECT count(*) FROM d");
if (refRows !== dsRows) mismatch(`row count: dataset ${dsRows}, unpartitioned conversion ${refRows}`);
const [[extra]] = await query(`SELECT count(*) FROM (SELECT ${cols} FROM d EXCEPT ALL SELECT ${cols} FROM r)`);
const [[missing]] = await query(`SELECT count(*) FROM (SELECT ${cols} FROM r EXCEPT ALL SELECT ${cols} FROM d)`);
if (extra !== 0n) mismatch(`${extra} rows of the dataset are not in the unpartitioned conversion`);
if (missing !== 0n) mismatch(`${missing} rows of the unpartitioned conversion are not in the dataset`);
const [[nparts]] = await query(`SELECT count(DISTINCT (${keys.map(ident).join(", ")})) FROM d`);

conn.closeSync();
instance.closeSync();
console.log(
  `${dir}: ${dsRows} rows in ${files.length} parts, ${nparts} ${period} partitions (${keys.map((k) => `${k} ${wantType[k]}`).join(", ")}), ${mismatches} mismatches against ${refRows} rows of ${opts.reference} (DuckDB ${version})`,
);
process.exit(mismatches === 0 ? 0 : 1);
