// Writes a damaged copy of a Parquet file with DuckDB, for the controls in
// .ci/independent: each checker must fail on it.
//
// usage: node mutate_parquet.mjs IN OUT text COLUMN    (every non-null value 'WRONG')
//        node mutate_parquet.mjs IN OUT invert COLUMN  (every boolean inverted)
//        node mutate_parquet.mjs IN OUT retype COLUMN  (the same values as DOUBLE)
//        node mutate_parquet.mjs IN OUT duplicate      (the first 5 rows again)
import { DuckDBInstance } from "@duckdb/node-api";

const [inPath, outPath, mode, column] = process.argv.slice(2);
if (!inPath || !outPath || !["text", "invert", "retype", "duplicate"].includes(mode) || (mode !== "duplicate" && !column)) {
  console.error("usage: node mutate_parquet.mjs IN OUT text|invert|retype COLUMN | duplicate");
  process.exit(2);
}
const ident = (name) => '"' + name.replaceAll('"', '""') + '"';
const literal = (s) => "'" + s.replaceAll("'", "''") + "'";
const src = `read_parquet(${literal(inPath)})`;
const replace = {
  text: (c) => `CASE WHEN ${c} IS NULL THEN NULL ELSE 'WRONG' END`,
  invert: (c) => `NOT ${c}`,
  retype: (c) => `${c}::DOUBLE`,
};
const sql =
  mode === "duplicate"
    ? `SELECT * FROM ${src} UNION ALL (SELECT * FROM ${src} LIMIT 5)`
    : `SELECT * REPLACE (${replace[mode](ident(column))} AS ${ident(column)}) FROM ${src}`;
const instance = await DuckDBInstance.create(":memory:");
const conn = await instance.connect();
await conn.run(`COPY (${sql}) TO ${literal(outPath)} (FORMAT parquet)`);
conn.closeSync();
instance.closeSync();
console.log(`${outPath}: ${mode}${column ? " " + column : ""}`);
