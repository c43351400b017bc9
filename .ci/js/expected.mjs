// What the checkers compare with: the expected rows of a CSV that follows
// the conventions of shared/interop/README.md (an unquoted empty cell is
// null, "" an empty string; BOOLEAN true/false; integers and timestamps as
// decimal integers of epoch milliseconds; FLOAT/DOUBLE as Java spells them;
// BLOB as 0x + hex; DATE as YYYY-MM-DD), and the TsFile type of each column,
// from the upstream manifest (shared/interop/manifest.json) or given on the
// command line. The checkers take the types from here, never from the file
// they check, so a column of the wrong type is a difference.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { gunzipSync } from "node:zlib";

// parseCSV splits RFC 4180 text into rows of cells; a cell is null when it
// is empty and unquoted.
export function parseCSV(text) {
  const rows = [];
  let row = [], cell = "", quoted = false, inQuotes = false, any = false;
  const endCell = () => {
    row.push(cell === "" && !quoted ? null : cell);
    cell = "";
    quoted = false;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inQuotes) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          cell += '"';
          i++;
        } else inQuotes = false;
      } else cell += ch;
      continue;
    }
    any = true;
    if (ch === '"') {
      inQuotes = quoted = true;
    } else if (ch === ",") {
      endCell();
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      endCell();
      rows.push(row);
      row = [];
      any = false;
    } else cell += ch;
  }
  if (inQuotes) throw new Error("CSV ends inside a quoted cell");
  if (any) {
    endCell();
    rows.push(row);
  }
  return rows;
}

// readExpected reads the CSV at path (gzipped when it ends in .gz) and
// returns its header and rows, each row an object from column to cell
// (null for a null cell).
export function readExpected(path) {
  let bytes = readFileSync(path);
  if (path.endsWith(".gz")) bytes = gunzipSync(bytes);
  const all = parseCSV(bytes.toString("utf8"));
  if (all.length === 0) throw new Error(`${path}: no header`);
  const header = all[0];
  const rows = all.slice(1).map((r, i) => {
    if (r.length !== header.length) throw new Error(`${path}: row ${i + 1} has ${r.length} cells, the header ${header.length}`);
    return Object.fromEntries(header.map((h, j) => [h, r[j]]));
  });
  return { header, rows };
}

// TsFile types a column may have.
export const TSFILE_TYPES = ["BOOLEAN", "INT32", "INT64", "FLOAT", "DOUBLE", "TEXT", "STRING", "BLOB", "DATE", "TIMESTAMP"];

// expectedTypes returns a Map from column name to TsFile type: from the
// manifest entry whose expected CSV is csvPath's file (time TIMESTAMP, a
// tree file's device STRING), or from spec, "col=TYPE,col=TYPE...".
export function expectedTypes({ manifest, csvPath, spec }) {
  const types = new Map();
  if (spec) {
    for (const part of spec.split(",").filter((x) => x !== "")) {
      const [name, type] = part.split("=");
      if (!TSFILE_TYPES.includes(type)) throw new Error(`--types: ${JSON.stringify(part)} is not COLUMN=TSFILE_TYPE`);
      types.set(name, type);
    }
    return types;
  }
  const m = JSON.parse(readFileSync(manifest, "utf8"));
  const csv = basename(csvPath);
  types.set("time", "TIMESTAMP");
  for (const f of m.files) {
    if (f.expected_csv === csv) {
      types.set("device", "STRING");
      for (const d of f.devices) for (const c of d.measurements) types.set(c.name, c.type);
      return types;
    }
    for (const t of f.tables ?? []) {
      if (t.expected_csv === csv) {
        for (const c of t.columns) types.set(c.name, c.type);
        return types;
      }
    }
  }
  throw new Error(`${manifest}: no file or table whose expected_csv is ${csv}`);
}

// parseJavaFloat reads a FLOAT/DOUBLE cell as Java's toString spells it.
export function parseJavaFloat(s) {
  if (s === "NaN") return NaN;
  if (s === "Infinity") return Infinity;
  if (s === "-Infinity") return -Infinity;
  const v = Number(s);
  if (s.trim() === "" || Number.isNaN(v)) throw new Error(`not a number: ${JSON.stringify(s)}`);
  return v;
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d in the
// proleptic Gregorian calendar.
export function daysFromCivil(y, m, d) {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

// parseDate reads a DATE cell as days since the epoch.
export function parseDate(s) {
  const m = /^(-?\d{4,})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) throw new Error(`not a date: ${JSON.stringify(s)}`);
  return daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
}

// sameFloat compares two floats by value, -0.0 apart from 0.0 and NaN equal
// to NaN.
export function sameFloat(a, b) {
  return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));
}
