// Reads a CSV or JSONL file written by ts2arrow with DuckDB and checks its
// timestamp columns: DuckDB's read_csv or read_json must infer a timestamp
// type for each (TIMESTAMP, or TIMESTAMP WITH TIME ZONE, which read_csv
// gives ISO 8601 times with a Z), and every value must be the instant of
// the stored integer that the same conversion with --time-format epoch
// wrote (REFERENCE.csv, read by DuckDB as BIGINT), row by row in file
// order: to the microsecond through the inferred type (DuckDB's TIMESTAMP
// holds microseconds), and to the nanosecond through DuckDB's own cast of
// the text to TIMESTAMP_NS.
//
// DuckDB's read_json infers no type from times with nine fraction digits
// (any spelling; DuckDB 1.5), so for --unit ns a JSONL column that it
// infers as VARCHAR is only reported, and its values are checked through
// the cast alone; read_csv infers them, cut to microseconds.
//
// usage: node check_text_time.mjs OUT.csv|OUT.jsonl REFERENCE.csv --unit s|ms|us|ns COLUMN...
import { DuckDBInstance } from "@duckdb/node-api";

function usage(msg) {
  if (msg) console.error(msg);
  console.error("usage: node check_text_time.mjs OUT.csv|OUT.jsonl REFERENCE.csv --unit s|ms|us|ns COLUMN...");
  process.exit(2);
}

const args = process.argv.slice(2);
const positional = [];
let unit = null;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--unit") {
    unit = args[++i];
    if (!["s", "ms", "us", "ns"].includes(unit)) usage("--unit is s, ms, us or ns");
  } else {
    positional.push(args[i]);
  }
}
const [textPath, refPath, ...cols] = positional;
if (!textPath || !refPath || cols.length === 0 || unit === null) usage();
let reader;
if (textPath.endsWith(".csv")) reader = "read_csv";
else if (textPath.endsWith(".jsonl")) reader = "read_json";
else usage(`${textPath}: want a .csv or .jsonl file`);

const instance = await DuckDBInstance.create(":memory:");
const conn = await instance.connect();
const query = async (sql) => (await conn.runAndReadAll(sql)).getRowsJS();
const ident = (name) => '"' + name.replaceAll('"', '""') + '"';
const literal = (s) => "'" + s.replaceAll("'", "''") + "'";
const [[version]] = await query("SELECT version()");

// The file as DuckDB infers it, and as text (every column VARCHAR).
await conn.run(`CREATE VIEW inferred AS SELECT * FROM ${reader}(${literal(textPath)})`);
const asText =
  reader === "read_csv"
    ? `read_csv(${literal(textPath)}, all_varchar = true)`
    : `read_json(${literal(textPath)}, columns = {${cols.map((c) => `${literal(c)}: 'VARCHAR'`).join(", ")}})`;
await conn.run(`CREATE VIEW text AS SELECT * FROM ${asText}`);
await conn.run(`CREATE VIEW ref AS SELECT * FROM read_csv(${literal(refPath)})`);

let mismatches = 0;
function mismatch(msg) {
  if (mismatches++ < 20) console.error(msg);
}

const types = new Map(await query("SELECT column_name, column_type FROM (DESCRIBE inferred)"));
const refTypes = new Map(await query("SELECT column_name, column_type FROM (DESCRIBE ref)"));
const inferred = new Set(); // the columns read as timestamps
for (const c of cols) {
  const t = types.get(c);
  if (t === undefined) throw new Error(`${textPath}: no column ${c} (columns: ${[...types.keys()]})`);
  if (refTypes.get(c) !== "BIGINT") throw new Error(`${refPath}: column ${c} is ${refTypes.get(c)}, want the BIGINT of --time-format epoch`);
  if (t === "TIMESTAMP" || t === "TIMESTAMP WITH TIME ZONE") {
    inferred.add(c);
  } else if (unit === "ns" && reader === "read_json" && t === "VARCHAR") {
    console.log(`${textPath}: column ${c}: read_json infers VARCHAR from nine fraction digits (a DuckDB limit); checking the TIMESTAMP_NS cast alone`);
  } else {
    mismatch(`column ${c}: DuckDB ${reader} infers ${t}, want a timestamp`);
  }
}
if (mismatches > 0) {
  console.error(`${textPath}: ${mismatches} mismatches (DuckDB ${version})`);
  process.exit(1);
}

const big = (v) => (v === null ? null : BigInt(v));
const floorDiv = (a, b) => (a >= 0n ? a / b : -((-a + b - 1n) / b));
let rows = 0;
for (const c of cols) {
  const col = ident(c);
  const exact = await query(`SELECT epoch_ns(${col}::TIMESTAMP_NS)::VARCHAR FROM text`);
  const got = inferred.has(c) ? await query(`SELECT epoch_us(${col})::VARCHAR FROM inferred`) : exact;
  const perNs = 10n ** BigInt({ s: 9, ms: 6, us: 3, ns: 0 }[unit]);
  const ref = (await query(`SELECT ${col}::VARCHAR FROM ref`)).map(([v]) => (v === null ? null : BigInt(v) * perNs));
  if (got.length !== ref.length || exact.length !== ref.length) {
    mismatch(`row count: ${reader} ${got.length}, reference ${ref.length}`);
    break;
  }
  rows = got.length;
  for (let i = 0; i < got.length; i++) {
    const g = big(got[i][0]);
    const x = big(exact[i][0]);
    const r = ref[i];
    if ((g === null) !== (r === null) || (x === null) !== (r === null)) {
      mismatch(`column ${c} row ${i + 1}: ${reader} ${g ?? "NULL"}, reference ${r ?? "NULL"}`);
      continue;
    }
    if (r === null) continue;
    if (inferred.has(c) && g !== floorDiv(r, 1000n)) mismatch(`column ${c} row ${i + 1}: ${reader} ${g} us, reference ${r} ns`);
    if (x !== r) mismatch(`column ${c} row ${i + 1}: ${reader} as TIMESTAMP_NS ${x} ns, reference ${r} ns`);
  }
}
if (mismatches > 0) {
  console.error(`${textPath}: ${mismatches} mismatches (DuckDB ${version})`);
  process.exit(1);
}
console.log(`${textPath}: ${cols.join(", ")} read by DuckDB ${version} ${reader} as ${cols.map((c) => types.get(c)).join(", ")}, ${rows} rows equal to the stored integers`);
