// Reads a Parquet file written by ts2arrow with DuckDB (an independent
// Parquet reader) and checks it against a CSV of expected rows that follows
// the conventions of shared/interop/README.md (an unquoted empty cell is
// null, "" an empty string):
//
//   - the row count and the set of columns;
//   - per column, figures DuckDB's SQL computes from the file against the
//     same figures computed here from the CSV: the null count, min and max,
//     exact sums of integers, dates (as days) and timestamps (as integers),
//     the true count of booleans, for floats the NaN and infinity counts
//     and the sum of the finite values, and for strings and blobs a sum of
//     the MD5s of the values (so a change in any row shows);
//   - a sample of rows, every k-th row plus the first and last in the order
//     of the key columns, compared cell by cell with exact equality: floats
//     by value (-0.0 and NaN included), dates as days since the epoch,
//     timestamps as integers in the CSV's unit, blobs as hex.
//
//   - every column's DuckDB type against the TsFile type the upstream
//     manifest (--manifest) or --types gives it, not the file.
//
// usage: node check_duckdb.mjs OUT.parquet EXPECTED.csv[.gz] KEY_COLUMN...
//          (--manifest manifest.json | --types COL=TYPE,...)
//          [--sample N] [--csv-time-unit s|ms|us|ns]
//
// --sample is the number of rows to compare one by one (default 2000; all
// rows when the file has fewer). The CSV's timestamps are taken to be in
// the unit the Parquet file stores them in unless --csv-time-unit says
// otherwise (ts2arrow stores second timestamps as milliseconds).
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { DuckDBInstance } from "@duckdb/node-api";
import { daysFromCivil, expectedTypes, parseCSV, parseJavaFloat } from "./expected.mjs";

function usage(msg) {
  if (msg) console.error(msg);
  console.error("usage: node check_duckdb.mjs OUT.parquet EXPECTED.csv[.gz] KEY_COLUMN... (--manifest manifest.json | --types COL=TYPE,...) [--sample N] [--csv-time-unit s|ms|us|ns]");
  process.exit(2);
}

const args = process.argv.slice(2);
const positional = [];
let sampleTarget = 2000;
let csvUnitArg = null;
let manifest = null, typeSpec = null;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--manifest") {
    manifest = args[++i];
  } else if (args[i] === "--types") {
    typeSpec = args[++i];
  } else if (args[i] === "--sample") {
    sampleTarget = Number(args[++i]);
    if (!Number.isInteger(sampleTarget) || sampleTarget < 1) usage("--sample needs a positive integer");
  } else if (args[i] === "--csv-time-unit") {
    csvUnitArg = args[++i];
    if (!["s", "ms", "us", "ns"].includes(csvUnitArg)) usage("--csv-time-unit is s, ms, us or ns");
  } else {
    positional.push(args[i]);
  }
}
const [parquetPath, csvPath, ...keyCols] = positional;
if (!parquetPath || !csvPath || keyCols.length === 0 || (manifest === null) === (typeSpec === null)) usage();
const tsTypes = expectedTypes({ manifest, csvPath, spec: typeSpec });

// ---- the CSV ----

let csvBytes = readFileSync(csvPath);
if (csvPath.endsWith(".gz")) csvBytes = gunzipSync(csvBytes);
const csvRows = parseCSV(csvBytes.toString("utf8"));
if (csvRows.length === 0) throw new Error(`${csvPath}: no header`);
const header = csvRows[0];
const body = csvRows.slice(1);
for (const [i, r] of body.entries()) {
  if (r.length !== header.length) throw new Error(`${csvPath}: row ${i + 1} has ${r.length} cells, the header ${header.length}`);
}

// ---- DuckDB ----

const instance = await DuckDBInstance.create(":memory:");
const conn = await instance.connect();
const query = async (sql) => (await conn.runAndReadAll(sql)).getRowsJS();
const ident = (name) => '"' + name.replaceAll('"', '""') + '"';
const literal = (s) => "'" + s.replaceAll("'", "''") + "'";
const [[version]] = await query("SELECT version()");
await conn.run(`CREATE VIEW t AS SELECT * FROM read_parquet(${literal(parquetPath)})`);
const described = await query("SELECT column_name, column_type FROM (DESCRIBE t)");
const storedUnit = new Map();
for (const [name, logical, converted] of await query(
  `SELECT name, logical_type, converted_type FROM parquet_schema(${literal(parquetPath)})`,
)) {
  const s = `${logical ?? ""} ${converted ?? ""}`;
  if (/MILLIS=MilliSeconds\(\)|TIMESTAMP_MILLIS/.test(s)) storedUnit.set(name, "ms");
  else if (/MICROS=MicroSeconds\(\)|TIMESTAMP_MICROS/.test(s)) storedUnit.set(name, "us");
  else if (/NANOS=NanoSeconds\(\)/.test(s)) storedUnit.set(name, "ns");
}

let mismatches = 0;
function mismatch(msg) {
  if (mismatches++ < 20) console.error(msg);
}

const names = described.map(([n]) => n);
if ([...names].sort().join(",") !== [...header].sort().join(",")) {
  throw new Error(`columns differ:\n duckdb ${names}\n csv    ${header}`);
}
for (const k of keyCols) if (!header.includes(k)) usage(`no key column ${k}`);
// The DuckDB type of each TsFile type as ts2arrow writes it to Parquet.
const duckTypeOf = {
  BOOLEAN: /^BOOLEAN$/, INT32: /^INTEGER$/, INT64: /^BIGINT$/, FLOAT: /^FLOAT$/, DOUBLE: /^DOUBLE$/,
  TEXT: /^VARCHAR$/, STRING: /^VARCHAR$/, BLOB: /^BLOB$/, DATE: /^DATE$/, TIMESTAMP: /^TIMESTAMP/,
};
for (const [n, ty] of described) {
  const want = tsTypes.get(n);
  if (want === undefined) usage(`no type for column ${n} (--manifest or --types)`);
  if (!duckTypeOf[want].test(ty)) mismatch(`column ${n}: DuckDB type ${ty}, want the type of TsFile ${want}`);
}

// ---- typed values ----

const unitExp = { s: 0, ms: 3, us: 6, ns: 9 };
const pow10 = (n) => 10n ** BigInt(n);

const utf8 = (s) => Buffer.from(s, "utf8");
const compareBytes = (a, b) => Buffer.compare(typeof a === "string" ? utf8(a) : a, typeof b === "string" ? utf8(b) : b);

// A column plan: how DuckDB spells a value in SQL (expr), how a CSV cell
// becomes the same JS value (parse), how values order (cmp), and the
// aggregate figures of the kind.
function plan(name, duckType) {
  const c = ident(name);
  const t = duckType.toUpperCase();
  if (t === "BOOLEAN") {
    return {
      kind: "bool", expr: c,
      parse: (s) => {
        if (s !== "true" && s !== "false") throw new Error(`not a boolean: ${JSON.stringify(s)}`);
        return s === "true";
      },
      cmp: (a, b) => Number(a) - Number(b),
    };
  }
  if (/^(U?TINYINT|U?SMALLINT|U?INTEGER|U?BIGINT|U?HUGEINT)$/.test(t)) {
    return { kind: "int", expr: `${c}::HUGEINT`, parse: (s) => BigInt(s), cmp: (a, b) => (a < b ? -1 : a > b ? 1 : 0) };
  }
  if (t === "FLOAT" || t === "DOUBLE") {
    const single = t === "FLOAT";
    return {
      kind: "float", expr: `${c}::DOUBLE`,
      parse: (s) => (single ? Math.fround(parseJavaFloat(s)) : parseJavaFloat(s)),
      cmp: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
    };
  }
  if (t === "VARCHAR") return { kind: "string", expr: c, parse: (s) => s, cmp: compareBytes };
  if (t === "BLOB") {
    return {
      kind: "blob", expr: `'0x' || lower(hex(${c}))`,
      parse: (s) => {
        if (!/^0x([0-9a-fA-F]{2})*$/.test(s)) throw new Error(`not a 0x blob: ${JSON.stringify(s)}`);
        return s.toLowerCase();
      },
      cmp: (a, b) => Buffer.compare(Buffer.from(a.slice(2), "hex"), Buffer.from(b.slice(2), "hex")),
    };
  }
  if (t === "DATE") {
    return {
      kind: "date", expr: `(${c} - DATE '1970-01-01')`,
      parse: (s) => {
        const m = /^(-?\d{4,})-(\d{2})-(\d{2})$/.exec(s);
        if (!m) throw new Error(`not a date: ${JSON.stringify(s)}`);
        return BigInt(daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3])));
      },
      cmp: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
    };
  }
  if (t.startsWith("TIMESTAMP")) {
    // DuckDB holds TIMESTAMP_NS in nanoseconds and every other timestamp
    // type in microseconds.
    const base = t === "TIMESTAMP_NS" ? "ns" : "us";
    const stored = storedUnit.get(name);
    if (!stored) throw new Error(`${name}: no timestamp unit in the Parquet schema`);
    const unit = csvUnitArg ?? stored;
    let parse;
    const d = unitExp[base] - unitExp[unit];
    if (d >= 0) {
      parse = (s) => BigInt(s) * pow10(d);
    } else {
      console.warn(`${name}: DuckDB reads ${stored} timestamps as ${t}, in ${base}; comparing at ${base} precision`);
      parse = (s) => {
        const v = BigInt(s), q = pow10(-d);
        return v >= 0n ? v / q : -((-v + q - 1n) / q);
      };
    }
    return { kind: "ts", expr: `epoch_${base}(${c})`, duckType, parse, cmp: (a, b) => (a < b ? -1 : a > b ? 1 : 0) };
  }
  throw new Error(`${name}: unexpected DuckDB type ${duckType}`);
}

const plans = new Map(described.map(([n, ty]) => [n, { name: n, type: ty, ...plan(n, ty) }]));
if (plans.has("time") && !plans.get("time").type.toUpperCase().startsWith("TIMESTAMP")) {
  mismatch(`column time: DuckDB reads it as ${plans.get("time").type}, not a timestamp`);
}

// Typed expected rows, in header order.
const colIndex = new Map(header.map((h, i) => [h, i]));
const expected = body.map((r, i) =>
  header.map((h, j) => {
    if (r[j] === null) return null;
    try {
      return plans.get(h).parse(r[j]);
    } catch (e) {
      console.error(`${csvPath}: row ${i + 1} column ${h}: ${e.message}`);
      process.exit(1);
    }
  }),
);

// ---- exact float sums ----

// floatParts returns [m, e] with x = m * 2^e exactly, for finite x.
function floatParts(x) {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  const hi = dv.getUint32(0), lo = dv.getUint32(4);
  const ex = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e = -1074;
  if (ex !== 0) {
    m |= 1n << 52n;
    e = ex - 1075;
  }
  return [hi >>> 31 ? -m : m, e];
}
// scaledToNumber returns s * 2^e as the nearest double (within an ulp).
function scaledToNumber(s, e) {
  if (s === 0n) return 0;
  const neg = s < 0n;
  if (neg) s = -s;
  const shift = s.toString(2).length - 64;
  if (shift > 0) {
    s >>= BigInt(shift);
    e += shift;
  }
  let v = Number(s);
  while (e !== 0) {
    const step = Math.max(-1000, Math.min(1000, e));
    v *= 2 ** step;
    e -= step;
  }
  return neg ? -v : v;
}
// DuckDB sums floats scaled by 2^-64, so that sums of values near the
// largest double do not overflow; fsum is compensated, so it is compared
// within a relative 1e-9 and the rounding of each scaled subnormal.
const floatScale = 64;

// ---- per-column figures ----

const selects = ["count(*)"];
const figures = []; // [column, figure name, JS value, compare]
const eqExact = (a, b) => a === b;
const eqNumber = (a, b) => (Number.isNaN(a) && Number.isNaN(b)) || a === b;
for (const h of header) {
  const p = plans.get(h);
  const j = colIndex.get(h);
  const vals = expected.map((r) => r[j]).filter((v) => v !== null);
  const c = ident(h);
  const add = (fig, sql, want, eq = eqExact) => {
    selects.push(sql);
    figures.push([h, fig, want, eq]);
  };
  add("nulls", `count(*) - count(${c})`, BigInt(expected.length - vals.length));
  const minmax = (xs, sqlMin, sqlMax, eq = eqExact) => {
    let lo = null, hi = null;
    for (const v of xs) {
      if (lo === null || p.cmp(v, lo) < 0) lo = v;
      if (hi === null || p.cmp(v, hi) > 0) hi = v;
    }
    add("min", sqlMin, lo, eq);
    add("max", sqlMax, hi, eq);
  };
  switch (p.kind) {
    case "bool":
      add("trues", `count_if(${c})`, BigInt(vals.filter((v) => v).length));
      minmax(vals, `min(${c})`, `max(${c})`);
      break;
    case "int":
    case "date":
    case "ts":
      minmax(vals, `min(${p.expr})`, `max(${p.expr})`);
      add("sum", `sum(${p.expr}::HUGEINT)`, vals.length ? vals.reduce((a, b) => a + b, 0n) : null);
      break;
    case "float": {
      const finite = vals.filter((v) => Number.isFinite(v));
      add("NaNs", `count_if(isnan(${c}))`, BigInt(vals.filter((v) => Number.isNaN(v)).length));
      add("+inf", `count_if(${c} = 'inf'::DOUBLE)`, BigInt(vals.filter((v) => v === Infinity).length));
      add("-inf", `count_if(${c} = '-inf'::DOUBLE)`, BigInt(vals.filter((v) => v === -Infinity).length));
      // -0.0 and 0.0 are equal to min and max.
      minmax(vals.filter((v) => !Number.isNaN(v)), `min(${p.expr}) FILTER (WHERE NOT isnan(${c}))`, `max(${p.expr}) FILTER (WHERE NOT isnan(${c}))`, eqNumber);
      let s = 0n;
      for (const v of finite) {
        const [m, e] = floatParts(v);
        s += m << BigInt(e + 1074);
      }
      const want = finite.length ? scaledToNumber(s, -1074 - floatScale) : null;
      const tol = finite.length * 2 ** -1074;
      add("finite sum", `fsum(${p.expr} * pow(2::DOUBLE, -${floatScale})) FILTER (WHERE isfinite(${c}))`, want, (a, b) =>
        a === null || b === null ? a === b : Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b)) + tol,
      );
      break;
    }
    case "string":
    case "blob": {
      minmax(vals, p.kind === "blob" ? `'0x' || lower(hex(min(${c})))` : `min(${c})`, p.kind === "blob" ? `'0x' || lower(hex(max(${c})))` : `max(${c})`);
      // A checksum of every value: the sum of the first 60 bits of each
      // value's MD5.
      let sum = 0n;
      for (const v of vals) {
        const bytes = p.kind === "blob" ? Buffer.from(v.slice(2), "hex") : utf8(v);
        sum += BigInt("0x" + createHash("md5").update(bytes).digest("hex").slice(0, 15));
      }
      add("md5 sum", `sum(('0x' || substr(md5(${c}), 1, 15))::BIGINT::HUGEINT)`, vals.length ? sum : null);
      break;
    }
  }
}
const [agg] = await query(`SELECT ${selects.join(", ")} FROM t`);
const rows = Number(agg[0]);
if (rows !== expected.length) mismatch(`row count: duckdb ${rows}, csv ${expected.length}`);
const show = (v) => (typeof v === "bigint" ? `${v}` : Object.is(v, -0) ? "-0" : typeof v === "number" ? String(v) : JSON.stringify(v));
figures.forEach(([h, fig, want, eq], i) => {
  const got = agg[i + 1];
  if (!eq(got, want)) mismatch(`column ${h} ${fig}: duckdb ${show(got)}, csv ${show(want)}`);
});

// ---- a sample of rows in key order ----

const keyIdx = keyCols.map((k) => colIndex.get(k));
const keyCmp = (a, b) => {
  for (const j of keyIdx) {
    const x = a[j], y = b[j];
    if (x === null || y === null) {
      if (x !== y) return x === null ? 1 : -1; // NULLS LAST
      continue;
    }
    const d = plans.get(header[j]).cmp(x, y);
    if (d !== 0) return d;
  }
  return 0;
};
const sorted = [...expected].sort(keyCmp);
for (let i = 1; i < sorted.length; i++) {
  if (keyCmp(sorted[i - 1], sorted[i]) === 0) throw new Error(`duplicate expected key ${keyIdx.map((j) => show(sorted[i][j])).join(", ")}`);
}
const k = Math.max(1, Math.ceil(sorted.length / sampleTarget));
const orderBy = keyCols.map((c) => `${ident(c)} ASC NULLS LAST`).join(", ");
const sampleSQL = `SELECT rn, ${header.map((h) => plans.get(h).expr).join(", ")}
  FROM (SELECT row_number() OVER (ORDER BY ${orderBy}) - 1 AS rn, * FROM t)
  WHERE rn % ${k} = 0 OR rn = ${rows - 1} ORDER BY rn`;
let sampled = 0;
for (const got of await query(sampleSQL)) {
  const rn = Number(got[0]);
  const want = sorted[rn];
  sampled++;
  if (!want) {
    mismatch(`row ${rn}: not in the CSV`);
    continue;
  }
  const key = keyIdx.map((j) => show(want[j])).join(", ");
  header.forEach((h, j) => {
    const g = got[j + 1], w = want[j];
    const same = w === null || g === null ? w === g : plans.get(h).kind === "float" ? Object.is(g, w) : g === w;
    if (!same) mismatch(`row ${rn} (${key}) column ${h}: duckdb ${show(g)}, csv ${show(w)}`);
  });
}
const wantSampled = sorted.length === 0 ? 0 : Math.floor((sorted.length - 1) / k) + 1 + ((sorted.length - 1) % k === 0 ? 0 : 1);
if (sampled !== wantSampled) mismatch(`sampled ${sampled} rows, expected ${wantSampled}`);

conn.closeSync();
instance.closeSync();
console.log(
  `${parquetPath}: ${rows} rows, ${header.length} columns${plans.has("time") ? ` (time ${plans.get("time").type})` : ""}, ${figures.length} column figures, ${sampled} rows compared (every ${k}), ${mismatches} mismatches (DuckDB ${version})`,
);
process.exit(mismatches === 0 ? 0 : 1);
