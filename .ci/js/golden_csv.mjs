// Prints one table of testdata/golden/iotdb-sample.txt (the hand-checked
// rows the dataset package's tests hold the IoTDB sample directory to) as a
// CSV of the conventions of shared/interop/README.md: times as epoch
// milliseconds, "(null)" as an empty cell.
//
// usage: node golden_csv.mjs GOLDEN.txt SECTION HEADER > OUT.csv
//   SECTION is the name after "# " that starts the table's rows; HEADER is
//   the comma-separated column names, time first.
import { readFileSync } from "node:fs";

const [golden, section, header] = process.argv.slice(2);
if (!golden || !section || !header) {
  console.error("usage: node golden_csv.mjs GOLDEN.txt SECTION HEADER");
  process.exit(2);
}
const width = header.split(",").length;
const out = [header];
let on = false;
for (const line of readFileSync(golden, "utf8").split("\n")) {
  if (line.startsWith("#")) {
    on = line === `# ${section}`;
    continue;
  }
  if (!on || line === "") continue;
  const cells = line.split(",");
  if (cells.length !== width) throw new Error(`${golden}: ${JSON.stringify(line)} has ${cells.length} cells, the header ${width}`);
  const ms = Date.parse(cells[0]);
  if (Number.isNaN(ms)) throw new Error(`${golden}: not a time: ${cells[0]}`);
  cells[0] = String(ms);
  out.push(cells.map((c) => (c === "(null)" ? "" : c)).join(","));
}
if (out.length === 1) throw new Error(`${golden}: no rows under "# ${section}"`);
process.stdout.write(out.join("\n") + "\n");
