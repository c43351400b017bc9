// Reads a Hive-partitioned directory written by "ts2arrow convert
// --partition-by table|device" with DuckDB, as one dataset
// (read_parquet('DIR/**/*.parquet', hive_partitioning = true)), and checks
// it against the single-file Parquet conversion of one input (the
// reference), which DuckDB reads too. The dataset was converted from COPIES
// copies of that input (or, with --copies 1, from the input itself).
//
// It checks:
//   - the layout: every file is DIR/table=T/part-N.parquet (--partition-by
//     table) or DIR/table=T/device=D/part-N.parquet (device), nothing else
//     is there (no temporary files), and each partition has the parts
//     part-0 .. part-(COPIES-1), one per input file;
//   - every part has the reference's Parquet schema (for a tree-model
//     input partitioned by device, without the device column, which moved
//     into the path);
//   - the total row count against --rows, the sum of the inputs' rows
//     taken from somewhere else than these Parquet files, and against
//     COPIES times the reference's;
//   - the distinct values of the partition columns: table against
//     --tables, device (the partition column, or the device computed from
//     the rows when partitioned by table) against --devices and against the
//     reference's devices; every row's device lies under its table, and for
//     a table-model input every row's TAG values spell the device of its
//     partition;
//   - per device, and over the whole dataset: the row count, min and max of
//     the time, and for every numeric column the non-null count, the sum
//     (exact for integers; for floats the compensated sum of the finite
//     values, within 1e-9 relative, and the count of the others), the min
//     and the max, each equal to COPIES times (for counts and sums) or
//     equal to (min, max) the reference's. A --devices entry NAME=N also
//     requires N rows for that device;
//   - against the expected rows (--expected, a CSV of the conventions of
//     shared/interop/README.md, see expected.mjs), which come from
//     elsewhere than the reference: every column has the DuckDB type of its
//     TsFile type (from --manifest or --types), and every row of the
//     dataset, every column, equals the expected row of its key (--key),
//     each key found exactly COPIES times.
//
// usage: node check_dataset.mjs DIR --partition-by table|device
//          --reference ONE.parquet --rows N --tables T[,T...]
//          --expected EXPECTED.csv[.gz] --key COL[,COL...]
//          (--manifest manifest.json | --types COL=TYPE,...)
//          [--devices D[=N][,D[=N]...]] [--copies K] [--tags TAG[,TAG...]]
//
// --tags names the TAG columns of a table-model input, in schema order: the
// device of a row is then TABLE.TAG1.TAG2..., as ts2arrow spells it. A
// tree-model input has a device column instead. Exit status 0 when
// everything agrees, 1 on any difference, 2 on a usage error.
import { join, relative, sep } from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { walk } from "./walk.mjs";
import { readExpected, expectedTypes, parseJavaFloat, parseDate, sameFloat } from "./expected.mjs";

function usage(msg) {
  if (msg) console.error(msg);
  console.error(
    "usage: node check_dataset.mjs DIR --partition-by table|device --reference ONE.parquet --rows N --tables T[,T...] --expected EXPECTED.csv[.gz] --key COL,... (--manifest manifest.json | --types COL=TYPE,...) [--devices D[=N],...] [--copies K] [--tags TAG,...]",
  );
  process.exit(2);
}

const opts = { copies: 1, tags: [], devices: null };
const positional = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const val = () => {
    if (i + 1 >= argv.length) usage(`${a} needs a value`);
    return argv[++i];
  };
  const list = (s) => s.split(",").filter((x) => x !== "");
  switch (a) {
    case "--partition-by":
      opts.partitionBy = val();
      if (!["table", "device"].includes(opts.partitionBy)) usage("--partition-by is table or device");
      break;
    case "--reference":
      opts.reference = val();
      break;
    case "--rows": {
      const v = val();
      if (!/^\d+$/.test(v)) usage("--rows needs a row count");
      opts.rows = BigInt(v);
      break;
    }
    case "--copies":
      opts.copies = Number(val());
      if (!Number.isInteger(opts.copies) || opts.copies < 1) usage("--copies needs a positive integer");
      break;
    case "--tables":
      opts.tables = list(val());
      break;
    case "--devices":
      opts.devices = list(val()).map((d) => {
        const m = /^(.*?)(?:=(\d+))?$/.exec(d);
        return { name: m[1], rows: m[2] === undefined ? null : BigInt(m[2]) };
      });
      break;
    case "--tags":
      opts.tags = list(val());
      break;
    case "--expected":
      opts.expected = val();
      break;
    case "--key":
      opts.key = list(val());
      break;
    case "--manifest":
      opts.manifest = val();
      break;
    case "--types":
      opts.types = val();
      break;
    default:
      if (a.startsWith("--")) usage(`unknown option ${a}`);
      positional.push(a);
  }
}
if (positional.length !== 1) usage();
const dir = positional[0];
if (!opts.partitionBy || !opts.reference || opts.rows === undefined || !opts.tables) usage();
if (!opts.expected || !opts.key || (opts.manifest === undefined) === (opts.types === undefined)) usage("--expected, --key and one of --manifest and --types are required");
const copies = opts.copies;

let mismatches = 0;
function mismatch(msg) {
  if (mismatches++ < 30) console.error(msg);
}

// ---- the layout ----

const files = walk(dir).sort();
const partRe =
  opts.partitionBy === "table" ? /^table=([^/]+)\/part-(\d+)\.parquet$/ : /^table=([^/]+)\/device=([^/]+)\/part-(\d+)\.parquet$/;
const partsOf = new Map(); // partition directory -> part numbers
for (const f of files) {
  const rel = relative(dir, f).split(sep).join("/");
  const m = partRe.exec(rel);
  if (!m) {
    mismatch(`unexpected file ${rel} in the dataset`);
    continue;
  }
  const pdir = rel.slice(0, rel.lastIndexOf("/"));
  if (!partsOf.has(pdir)) partsOf.set(pdir, []);
  partsOf.get(pdir).push(Number(m[m.length - 1]));
}
if (files.length === 0) mismatch(`${dir}: no files`);
for (const [pdir, nums] of partsOf) {
  nums.sort((a, b) => a - b);
  const want = [...Array(copies).keys()];
  if (nums.join(",") !== want.join(",")) mismatch(`${pdir}: parts ${nums.join(",")}, want ${want.join(",")} (one per input)`);
}

// ---- DuckDB ----

const instance = await DuckDBInstance.create(":memory:");
const conn = await instance.connect();
const query = async (sql) => (await conn.runAndReadAll(sql)).getRowsJS();
const ident = (name) => '"' + name.replaceAll('"', '""') + '"';
const literal = (s) => "'" + s.replaceAll("'", "''") + "'";
const [[version]] = await query("SELECT version()");
const glob = join(dir, "**", "*.parquet");
await conn.run(`CREATE VIEW d AS SELECT * FROM read_parquet(${literal(glob)}, hive_partitioning = true)`);
await conn.run(`CREATE VIEW r AS SELECT * FROM read_parquet(${literal(opts.reference)})`);

// The reference's columns, and whether it is a tree-model conversion
// (with a device column).
const refCols = await query("SELECT column_name, column_type FROM (DESCRIBE r)");
const refNames = refCols.map(([n]) => n);
const tree = refNames.includes("device");
if (!tree && opts.tags.length === 0) usage("a table-model reference (no device column) needs --tags");
for (const t of opts.tags) if (!refNames.includes(t)) usage(`--tags: the reference has no column ${t}`);
if (refNames.includes("table")) usage("the reference has a column named table, which the partition column would hide");
const kv = new Map(
  await query(`SELECT decode(key), decode(value) FROM parquet_kv_metadata(${literal(opts.reference)}) WHERE decode(key) NOT LIKE 'ARROW:%'`),
);

// Every part's Parquet schema is the reference's (less the device column
// when it moved into the path).
const schemaRows = async (pattern) => {
  const by = new Map();
  for (const [file, name, type, rep, conv, logical] of await query(
    `SELECT file_name, name, type, repetition_type, converted_type, logical_type FROM parquet_schema(${literal(pattern)})`,
  )) {
    if (!by.has(file)) by.set(file, []);
    by.get(file).push([name, type, rep, conv, logical].map((x) => x ?? "").join(" "));
  }
  return by;
};
const [refSchema] = [...(await schemaRows(opts.reference)).values()];
const movedOut = tree && opts.partitionBy === "device" ? ["device"] : [];
const wantSchema = refSchema.filter((l, i) => i === 0 || !movedOut.includes(l.split(" ")[0]));
const partSchemas = await schemaRows(glob);
for (const [file, s] of partSchemas) {
  // Compare the columns, not the root element (its child count).
  const got = s.slice(1).join("\n"), want = wantSchema.slice(1).join("\n");
  if (got !== want) mismatch(`${file}: Parquet schema differs from the reference's:\n got  ${s.slice(1).join("\n      ")}\n want ${wantSchema.slice(1).join("\n      ")}`);
}
if (partSchemas.size !== files.length) mismatch(`DuckDB read ${partSchemas.size} Parquet files, the directory holds ${files.length}`);

// The dataset's columns: the reference's (as above) and the partition
// columns.
const dsNames = (await query("SELECT column_name FROM (DESCRIBE d)")).map(([n]) => n);
const wantNames = [...refNames.filter((n) => !movedOut.includes(n)), "table", ...(opts.partitionBy === "device" ? ["device"] : [])].sort();
if ([...dsNames].sort().join(",") !== wantNames.join(",")) mismatch(`dataset columns ${dsNames.join(",")}, want ${wantNames.join(",")}`);

// The device of a row: the device column of a tree model (or the
// partition column), else TABLE.TAG1.TAG2...
const tagsExpr = (table) => `${table} || '.' || concat_ws('.', ${opts.tags.map(ident).join(", ")})`;
let refTable = kv.get("tsfile.table");
if (!tree && refTable === undefined) {
  if (opts.tables.length !== 1) usage("the reference names no table (tsfile.table); give one table in --tables");
  refTable = opts.tables[0];
}
const refDevice = tree ? ident("device") : tagsExpr(literal(refTable));
const dsDevice = opts.partitionBy === "device" || tree ? ident("device") : tagsExpr(ident("table"));

// ---- figures ----

const numericKind = (t) => {
  t = t.toUpperCase();
  if (/^U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)$/.test(t)) return "int";
  if (t === "FLOAT" || t === "DOUBLE") return "float";
  return null;
};
const numeric = refCols.filter(([n, t]) => numericKind(t) && !movedOut.includes(n));
const timeCol = refNames.includes("time") ? "time" : null;
const floatScale = 64; // sums scaled by 2^-64 so huge values do not overflow
const figs = [["rows", "count(*)", "count"]];
if (timeCol) {
  figs.push(["time min", `min(epoch_us(${ident(timeCol)}))::HUGEINT`, "same"]);
  figs.push(["time max", `max(epoch_us(${ident(timeCol)}))::HUGEINT`, "same"]);
}
for (const [n, t] of numeric) {
  const c = ident(n);
  figs.push([`${n} count`, `count(${c})`, "count"]);
  if (numericKind(t) === "int") {
    figs.push([`${n} sum`, `sum(${c}::HUGEINT)`, "count"]);
    figs.push([`${n} min`, `min(${c})::HUGEINT`, "same"]);
    figs.push([`${n} max`, `max(${c})::HUGEINT`, "same"]);
  } else {
    figs.push([`${n} finite sum`, `fsum(${c}::DOUBLE * pow(2::DOUBLE, -${floatScale})) FILTER (WHERE isfinite(${c}))`, "fsum"]);
    figs.push([`${n} non-finite`, `count_if(NOT isfinite(${c}))`, "count"]);
    figs.push([`${n} min`, `min(${c}::DOUBLE)`, "same"]);
    figs.push([`${n} max`, `max(${c}::DOUBLE)`, "same"]);
  }
}
const selectFigs = figs.map(([, sql]) => sql).join(", ");
const times = (v, kind) => {
  if (v === null) return null;
  if (kind === "count") return typeof v === "bigint" ? v * BigInt(copies) : v * copies;
  if (kind === "fsum") return v * copies; // exact: copies is small
  return v;
};
const same = (a, b, kind) => {
  if (a === null || b === null) return a === b;
  if (kind === "fsum") return Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b)) + 1e-300;
  if (typeof a === "number" && typeof b === "number") return a === b || (Number.isNaN(a) && Number.isNaN(b));
  return a === b;
};
const show = (v, kind) => (typeof v === "bigint" ? `${v}` : kind === "fsum" && v !== null ? String(v * 2 ** floatScale) : JSON.stringify(v));
const compareFigs = (what, got, ref) => {
  figs.forEach(([name, , kind], i) => {
    const want = times(ref[i], kind);
    if (!same(got[i], want, kind)) {
      const how = kind === "same" ? "the single file's" : `${copies} x the single file's`;
      mismatch(`${what} ${name}: dataset ${show(got[i], kind)}, want ${show(want, kind)} (${how})`);
    }
  });
};

// Totals.
const [dsTotal] = await query(`SELECT ${selectFigs} FROM d`);
const [refTotal] = await query(`SELECT ${selectFigs} FROM r`);
const rows = dsTotal[0];
if (rows !== opts.rows) mismatch(`row count: dataset ${rows}, want ${opts.rows} (the inputs' rows)`);
compareFigs("all rows:", dsTotal, refTotal);

// The partition values.
const dsTables = (await query(`SELECT DISTINCT "table" FROM d ORDER BY 1`)).map(([t]) => t);
const wantTables = [...opts.tables].sort();
if (dsTables.join(",") !== wantTables.join(",")) mismatch(`table values: dataset ${dsTables.join(",")}, want ${wantTables.join(",")}`);
const [[outside]] = await query(`SELECT count_if(NOT starts_with(${dsDevice}, "table" || '.')) FROM d`);
if (outside !== 0n) mismatch(`${outside} rows whose device is not under their table partition`);
if (!tree && opts.partitionBy === "device") {
  const [[wrong]] = await query(`SELECT count_if(device IS DISTINCT FROM ${tagsExpr(ident("table"))}) FROM d`);
  if (wrong !== 0n) mismatch(`${wrong} rows whose TAG values are not those of their device partition`);
}

// Per device.
const perDevice = async (view, dev) => {
  const m = new Map();
  for (const [d, ...f] of await query(`SELECT ${dev} AS __dev, ${selectFigs} FROM ${view} GROUP BY __dev ORDER BY __dev`)) m.set(d, f);
  return m;
};
const dsDevs = await perDevice("d", dsDevice);
const refDevs = await perDevice("r", refDevice);
const dsNamesDev = [...dsDevs.keys()].sort();
const refNamesDev = [...refDevs.keys()].sort();
if (dsNamesDev.join(",") !== refNamesDev.join(",")) mismatch(`device values: dataset ${dsNamesDev.join(",")}, single file ${refNamesDev.join(",")}`);
if (opts.devices) {
  const want = opts.devices.map((d) => d.name).sort();
  if (dsNamesDev.join(",") !== want.join(",")) mismatch(`device values: dataset ${dsNamesDev.join(",")}, want ${want.join(",")}`);
  for (const d of opts.devices) {
    if (d.rows !== null && dsDevs.has(d.name) && dsDevs.get(d.name)[0] !== d.rows) {
      mismatch(`device ${d.name}: dataset ${dsDevs.get(d.name)[0]} rows, want ${d.rows}`);
    }
  }
}
for (const [dev, got] of dsDevs) {
  const ref = refDevs.get(dev);
  if (ref) compareFigs(`device ${dev}:`, got, ref);
}
if (opts.partitionBy === "device" && partsOf.size !== dsDevs.size) mismatch(`${partsOf.size} device partitions for ${dsDevs.size} devices`);
if (opts.partitionBy === "table" && partsOf.size !== dsTables.length) mismatch(`${partsOf.size} table partitions for ${dsTables.length} tables`);

// ---- every row and column against the expected rows ----

const { header: expHeader, rows: expRows } = readExpected(opts.expected);
const expTypes = expectedTypes({ manifest: opts.manifest, csvPath: opts.expected, spec: opts.types });
for (const h of expHeader) if (!expTypes.has(h)) usage(`no type for column ${h} (--manifest or --types)`);
for (const k of opts.key) if (!expHeader.includes(k)) usage(`--key: no column ${k} in ${opts.expected}`);
const dsTypes = new Map(await query("SELECT column_name, column_type FROM (DESCRIBE d)"));
// The DuckDB type of each TsFile type as ts2arrow writes it to Parquet, and
// how a value is read out for comparison with a CSV cell.
const duckOf = {
  BOOLEAN: [/^BOOLEAN$/, (c) => c],
  INT32: [/^INTEGER$/, (c) => `${c}::HUGEINT`],
  INT64: [/^BIGINT$/, (c) => `${c}::HUGEINT`],
  FLOAT: [/^FLOAT$/, (c) => `${c}::DOUBLE`],
  DOUBLE: [/^DOUBLE$/, (c) => c],
  TEXT: [/^VARCHAR$/, (c) => c],
  STRING: [/^VARCHAR$/, (c) => c],
  BLOB: [/^BLOB$/, (c) => `'0x' || lower(hex(${c}))`],
  DATE: [/^DATE$/, (c) => `(${c} - DATE '1970-01-01')::HUGEINT`],
  TIMESTAMP: [/^TIMESTAMP( WITH TIME ZONE)?$/, (c) => `epoch_ms(${c})::HUGEINT`],
};
const partitionCols = ["table", ...(opts.partitionBy === "device" && !tree ? ["device"] : [])];
for (const n of dsTypes.keys()) {
  if (!expHeader.includes(n) && !partitionCols.includes(n)) mismatch(`column ${n}: in the dataset, not in ${opts.expected}`);
}
const exprs = [];
const checked = []; // [column, TsFile type]
for (const h of expHeader) {
  const t = expTypes.get(h);
  const got = dsTypes.get(h);
  if (got === undefined) {
    mismatch(`column ${h}: in ${opts.expected}, not in the dataset`);
    continue;
  }
  const [re, expr] = duckOf[t];
  if (!re.test(got)) {
    mismatch(`column ${h}: DuckDB type ${got}, want the type of TsFile ${t}`);
    continue;
  }
  exprs.push(expr(ident(h)));
  checked.push([h, t]);
}
// The dataset's view takes its column types from one part; each part is
// checked on its own too.
for (const f of files) {
  for (const [n, got] of await query(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(${literal(f)}))`)) {
    const t = expTypes.get(n);
    if (t !== undefined && !duckOf[t][0].test(got)) mismatch(`${relative(dir, f)}: column ${n}: DuckDB type ${got}, want the type of TsFile ${t}`);
  }
}
const cellSame = (t, v, cell) => {
  if (v === null || cell === null) return v === null && cell === null;
  switch (t) {
    case "BOOLEAN":
      return v === (cell === "true") && (cell === "true" || cell === "false");
    case "INT32":
    case "INT64":
    case "TIMESTAMP":
      return v === BigInt(cell);
    case "FLOAT":
      return sameFloat(v, Math.fround(parseJavaFloat(cell)));
    case "DOUBLE":
      return sameFloat(v, parseJavaFloat(cell));
    case "TEXT":
    case "STRING":
      return v === cell;
    case "BLOB":
      return v === cell.toLowerCase();
    case "DATE":
      return v === BigInt(parseDate(cell));
  }
  return false;
};
const keyOf = (r) => opts.key.map((k) => r[k] ?? "").join("\u0000");
const expByKey = new Map();
for (const r of expRows) {
  const k = keyOf(r);
  if (expByKey.has(k)) throw new Error(`${opts.expected}: duplicate key ${k}`);
  expByKey.set(k, r);
}
const keyIdx = opts.key.map((k) => checked.findIndex(([h]) => h === k));
const found = new Map();
let compared = 0;
if (exprs.length > 0 && keyIdx.every((i) => i >= 0)) {
  for (const got of await query(`SELECT ${exprs.join(", ")} FROM d`)) {
    const key = keyIdx
      .map((i) => {
        const v = got[i];
        return v === null ? "" : String(v);
      })
      .join("\u0000");
    const want = expByKey.get(key);
    if (!want) {
      mismatch(`row with key ${JSON.stringify(key)}: not in ${opts.expected}`);
      continue;
    }
    found.set(key, (found.get(key) ?? 0) + 1);
    compared++;
    checked.forEach(([h, t], i) => {
      if (!cellSame(t, got[i], want[h])) mismatch(`row ${key.replaceAll("\u0000", ", ")} column ${h}: dataset ${typeof got[i] === "bigint" ? got[i] : JSON.stringify(got[i])}, expected ${JSON.stringify(want[h])}`);
    });
  }
}
let wrongCount = 0;
for (const k of expByKey.keys()) {
  const n = found.get(k) ?? 0;
  if (n !== copies && wrongCount++ < 5) mismatch(`key ${k.replaceAll("\u0000", ", ")}: ${n} rows in the dataset, want ${copies} (one per input)`);
}
if (compared !== copies * expRows.length) mismatch(`${compared} rows matched the expected rows, want ${copies} x ${expRows.length}`);

conn.closeSync();
instance.closeSync();
console.log(
  `${dir}: ${rows} rows in ${files.length} parts, ${dsTables.length} tables, ${dsDevs.size} devices, ${figs.length} figures per device over ${numeric.length} numeric columns, ${compared} rows x ${checked.length} columns against ${opts.expected}, ${mismatches} mismatches (DuckDB ${version})`,
);
process.exit(mismatches === 0 ? 0 : 1);
