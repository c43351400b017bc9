// Writes a damaged copy of an Arrow IPC file or stream, for the controls in
// .ci/independent: each checker must fail on it.
//
// usage: node mutate_arrow.mjs IN OUT duplicate      (the first 5 rows again at the end)
//        node mutate_arrow.mjs IN OUT text COLUMN    (every non-null value "WRONG")
//        node mutate_arrow.mjs IN OUT invert COLUMN  (every boolean inverted)
//        node mutate_arrow.mjs IN OUT retype COLUMN  (the same values as float64)
// OUT is an IPC stream when it ends in .arrows, else an IPC file.
import { readFileSync, writeFileSync } from "node:fs";
import { tableFromIPC, tableToIPC, Table, vectorFromArray, Float64, Utf8 } from "apache-arrow";

const [inPath, outPath, mode, column] = process.argv.slice(2);
if (!inPath || !outPath || !["duplicate", "text", "invert", "retype"].includes(mode) || (mode !== "duplicate" && !column)) {
  console.error("usage: node mutate_arrow.mjs IN OUT duplicate|text COLUMN|invert COLUMN|retype COLUMN");
  process.exit(2);
}
const table = tableFromIPC(readFileSync(inPath));
if (column && !table.getChild(column)) throw new Error(`${inPath}: no column ${column}`);
let rows = [...Array(table.numRows).keys()];
if (mode === "duplicate") rows = rows.concat(rows.slice(0, 5));
const cols = {};
for (const f of table.schema.fields) {
  const col = table.getChild(f.name);
  let vals = rows.map((i) => col.get(i));
  let type = f.type;
  if (f.name === column) {
    if (mode === "text") {
      vals = vals.map((v) => (v === null ? null : "WRONG"));
      type = new Utf8();
    } else if (mode === "invert") {
      vals = vals.map((v) => (v === null ? null : !v));
    } else if (mode === "retype") {
      vals = vals.map((v) => (v === null ? null : Number(v)));
      type = new Float64();
    }
  }
  cols[f.name] = vectorFromArray(vals, type);
}
const out = new Table(cols);
out.schema.metadata = table.schema.metadata;
writeFileSync(outPath, tableToIPC(out, outPath.endsWith(".arrows") ? "stream" : "file"));
console.log(`${outPath}: ${out.numRows} rows (${mode}${column ? " " + column : ""})`);
