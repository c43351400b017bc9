// Reads an Arrow IPC file or stream written by ts2arrow with Apache Arrow JS
// (an independent implementation) and compares it with a CSV of expected
// rows that follows the conventions of shared/interop/README.md (see
// expected.mjs):
//
//   - the columns: the same names, and each of the Arrow type ts2arrow
//     documents for the column's TsFile type, the types taken from the
//     upstream manifest (--manifest) or given (--types), never from the
//     file;
//   - the rows: exactly as many as the CSV holds, each key (KEY_COLUMN...)
//     once, and every cell of every column equal to the CSV's (floats
//     bit-exactly by value, -0.0 and NaN included; null apart from "").
//
// usage: node check_arrow.mjs OUT.arrow|OUT.arrows EXPECTED.csv[.gz] KEY_COLUMN...
//          (--manifest manifest.json | --types COL=TYPE,...)
import { readFileSync } from "node:fs";
import { tableFromIPC, Type, DateUnit, TimeUnit, Precision } from "apache-arrow";
import { readExpected, expectedTypes, parseJavaFloat, parseDate, sameFloat } from "./expected.mjs";

function usage(msg) {
  if (msg) console.error(msg);
  console.error("usage: node check_arrow.mjs OUT.arrow EXPECTED.csv[.gz] KEY_COLUMN... (--manifest manifest.json | --types COL=TYPE,...)");
  process.exit(2);
}
const positional = [];
let manifest = null, typeSpec = null;
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--manifest") manifest = argv[++i];
  else if (argv[i] === "--types") typeSpec = argv[++i];
  else if (argv[i].startsWith("--")) usage(`unknown option ${argv[i]}`);
  else positional.push(argv[i]);
}
const [arrowPath, csvPath, ...keyCols] = positional;
if (!arrowPath || !csvPath || keyCols.length === 0 || (manifest === null) === (typeSpec === null)) usage();

let mismatches = 0;
function mismatch(msg) {
  if (mismatches++ < 20) console.error(msg);
}

const table = tableFromIPC(readFileSync(arrowPath));
const { header, rows: expectedRows } = readExpected(csvPath);
const types = expectedTypes({ manifest, csvPath, spec: typeSpec });
for (const k of keyCols) if (!header.includes(k)) usage(`no key column ${k} in ${csvPath}`);
for (const h of header) if (!types.has(h)) usage(`no type for column ${h} (--manifest or --types)`);

const fields = table.schema.fields;
const names = fields.map((f) => f.name);
if ([...names].sort().join(",") !== [...header].sort().join(",")) {
  // Column order may differ (tree files); the sets must agree.
  mismatch(`columns differ:\n arrow ${names}\n csv   ${header}`);
}

// arrowTypeOK tells whether t is the Arrow type ts2arrow gives a column of
// TsFile type tsType (README, "Types"): STRING and TEXT are utf8, or a
// dictionary of utf8 for TAG and device columns.
function arrowTypeOK(t, tsType) {
  switch (tsType) {
    case "BOOLEAN":
      return t.typeId === Type.Bool;
    case "INT32":
      return t.typeId === Type.Int && t.bitWidth === 32 && t.isSigned;
    case "INT64":
      return t.typeId === Type.Int && t.bitWidth === 64 && t.isSigned;
    case "FLOAT":
      return t.typeId === Type.Float && t.precision === Precision.SINGLE;
    case "DOUBLE":
      return t.typeId === Type.Float && t.precision === Precision.DOUBLE;
    case "TEXT":
    case "STRING":
      return t.typeId === Type.Utf8 || (t.typeId === Type.Dictionary && t.dictionary.typeId === Type.Utf8);
    case "BLOB":
      return t.typeId === Type.Binary;
    case "DATE":
      return t.typeId === Type.Date && t.unit === DateUnit.DAY;
    case "TIMESTAMP":
      return t.typeId === Type.Timestamp && t.unit === TimeUnit.MILLISECOND;
  }
  return false;
}
const typeOK = new Map();
for (const f of fields) {
  const want = types.get(f.name);
  const ok = want !== undefined && arrowTypeOK(f.type, want);
  typeOK.set(f.name, ok);
  if (!ok) mismatch(`column ${f.name}: Arrow type ${f.type}, want the type of TsFile ${want}`);
}

function hex(u8) {
  return "0x" + Array.from(u8, (b) => b.toString(16).padStart(2, "0")).join("");
}
// cellEqual compares one Arrow value with one CSV cell (null when null) of
// TsFile type tsType.
function cellEqual(tsType, single, v, cell) {
  if (v === null || v === undefined || cell === null) return (v === null || v === undefined) && cell === null;
  switch (tsType) {
    case "BOOLEAN":
      return typeof v === "boolean" && String(v) === cell;
    case "INT32":
    case "INT64":
      return BigInt(v) === BigInt(cell);
    case "FLOAT":
    case "DOUBLE": {
      const want = single ? Math.fround(parseJavaFloat(cell)) : parseJavaFloat(cell);
      return sameFloat(v, want);
    }
    case "TEXT":
    case "STRING":
      return v === cell;
    case "BLOB":
      return v instanceof Uint8Array && hex(v) === cell.toLowerCase();
    case "DATE":
      return Number(v) === parseDate(cell) * 86400000;
    case "TIMESTAMP":
      return BigInt(Number(v)) === BigInt(cell) && Number.isSafeInteger(Number(v));
  }
  return false;
}
function keyCell(v) {
  if (v === null || v === undefined) return "";
  if (typeof v === "bigint" || typeof v === "number") return BigInt(v).toString();
  return String(v);
}

const expected = new Map();
for (const row of expectedRows) {
  const key = keyCols.map((k) => row[k] ?? "").join("\u0000");
  if (expected.has(key)) throw new Error(`${csvPath}: duplicate expected key ${key}`);
  expected.set(key, row);
}
if (table.numRows !== expected.size) mismatch(`row count: arrow ${table.numRows}, csv ${expected.size}`);

const seen = new Set();
const cols = fields.map((f) => [f, table.getChild(f.name), types.get(f.name), f.type.typeId === Type.Float && f.type.precision === Precision.SINGLE]);
for (let i = 0; i < table.numRows; i++) {
  const key = keyCols.map((k) => keyCell(table.getChild(k)?.get(i))).join("\u0000");
  const want = expected.get(key);
  if (!want) {
    mismatch(`row ${i}: key ${JSON.stringify(key)} not expected`);
    continue;
  }
  if (seen.has(key)) {
    mismatch(`row ${i}: key ${JSON.stringify(key)} again (a duplicated row)`);
    continue;
  }
  seen.add(key);
  for (const [f, col, tsType, single] of cols) {
    if (!typeOK.get(f.name)) continue; // reported once above
    const v = col.get(i);
    if (!cellEqual(tsType, single, v, want[f.name])) {
      mismatch(`row ${i} (${key.replaceAll("\u0000", ", ")}) column ${f.name}: arrow ${v} csv ${JSON.stringify(want[f.name])}`);
    }
  }
}
if (seen.size !== expected.size) mismatch(`${expected.size - seen.size} expected rows missing`);
console.log(`${arrowPath}: ${table.numRows} rows, ${fields.length} columns, ${mismatches} mismatches (Apache Arrow JS)`);
process.exit(mismatches === 0 ? 0 : 1);
