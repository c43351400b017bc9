// Reads an Arrow IPC file or stream written by ts2arrow with Apache Arrow JS
// (an independent implementation) and compares every cell with a CSV of
// expected rows that follows the conventions of shared/interop/README.md.
//
// usage: node check_arrow.mjs OUT.arrow|OUT.arrows EXPECTED.csv[.gz] KEY_COLUMN...
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { tableFromIPC, Type } from "apache-arrow";

const [arrowPath, csvPath, ...keyCols] = process.argv.slice(2);
if (!arrowPath || !csvPath || keyCols.length === 0) {
  console.error("usage: node check_arrow.mjs OUT.arrow EXPECTED.csv[.gz] KEY_COLUMN...");
  process.exit(2);
}
const table = tableFromIPC(readFileSync(arrowPath));
let csvBytes = readFileSync(csvPath);
if (csvPath.endsWith(".gz")) csvBytes = gunzipSync(csvBytes);
const lines = csvBytes.toString("utf8").split("\n").filter((l) => l.length > 0);
const header = lines[0].split(",");
const expected = new Map();
for (const line of lines.slice(1)) {
  const cells = line.split(",");
  const row = Object.fromEntries(header.map((h, i) => [h, cells[i]]));
  const key = keyCols.map((k) => row[k]).join("\u0000");
  if (expected.has(key)) throw new Error(`duplicate expected key ${key}`);
  expected.set(key, row);
}

const fields = table.schema.fields;
const names = fields.map((f) => f.name);
if (names.join(",") !== header.join(",")) {
  // Column order may differ (tree files); the sets must agree.
  const a = [...names].sort().join(","), b = [...header].sort().join(",");
  if (a !== b) throw new Error(`columns differ:\n arrow ${names}\n csv   ${header}`);
}

function hex(u8) {
  return "0x" + Array.from(u8, (b) => b.toString(16).padStart(2, "0")).join("");
}
function dateString(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}
// cellEqual compares one Arrow value with one CSV cell by the field's type.
function cellEqual(field, v, cell) {
  if (v === null || v === undefined) return cell === "" || cell === undefined;
  if (cell === "" || cell === undefined) {
    // An empty string or empty blob is not null.
    if (field.type.typeId === Type.Binary) return false;
    return false;
  }
  switch (field.type.typeId) {
    case Type.Bool:
      return String(v) === cell;
    case Type.Int:
      return BigInt(v) === BigInt(cell);
    case Type.Float: {
      const want = field.type.precision === 1 ? Math.fround(parseJavaFloat(cell)) : parseJavaFloat(cell);
      return Object.is(v, want) || (Number.isNaN(v) && Number.isNaN(want));
    }
    case Type.Utf8:
      return v === cell;
    case Type.Dictionary:
      // TAG and device columns: compare the decoded value by the
      // dictionary's value type.
      return cellEqual({ name: field.name, type: field.type.dictionary }, v, cell);
    case Type.Binary:
      return hex(v) === cell;
    case Type.Date:
      return dateString(Number(v)) === cell;
    case Type.Timestamp:
      return BigInt(v) === BigInt(cell) || Number(v) === Number(cell);
    default:
      throw new Error(`unexpected Arrow type ${field.type} for ${field.name}`);
  }
}
function parseJavaFloat(s) {
  if (s === "NaN") return NaN;
  if (s === "Infinity") return Infinity;
  if (s === "-Infinity") return -Infinity;
  return Number(s);
}
function keyCell(field, v) {
  if (v === null || v === undefined) return "";
  if (field.type.typeId === Type.Timestamp || field.type.typeId === Type.Int) return BigInt(v).toString();
  return String(v);
}

let rows = 0, mismatches = 0;
const seen = new Set();
for (let i = 0; i < table.numRows; i++) {
  const key = keyCols
    .map((k) => keyCell(fields[names.indexOf(k)], table.getChild(k).get(i)))
    .join("\u0000");
  const want = expected.get(key);
  rows++;
  if (!want) {
    if (mismatches++ < 10) console.error(`row ${i}: key ${key} not expected`);
    continue;
  }
  seen.add(key);
  for (const f of fields) {
    const v = table.getChild(f.name).get(i);
    if (!cellEqual(f, v, want[f.name])) {
      if (mismatches++ < 10) console.error(`row ${i} (${key}) column ${f.name}: arrow ${v} csv ${JSON.stringify(want[f.name])}`);
    }
  }
}
if (seen.size !== expected.size) {
  console.error(`${expected.size - seen.size} expected rows missing`);
  mismatches++;
}
console.log(`${arrowPath}: ${rows} rows, ${fields.length} columns, ${mismatches} mismatches (Apache Arrow JS)`);
process.exit(mismatches === 0 ? 0 : 1);
