// walk lists every file below a directory, depth first: the parts of a
// Hive-style dataset that check_dataset.mjs and check_timeparts.mjs compare
// with the layout they expect.
import { readdirSync } from "node:fs";
import { join } from "node:path";

export function walk(d) {
  const out = [];
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const p = join(d, e.name);
    if (e.isDirectory()) out.push(...walk(p));
    else out.push(p);
  }
  return out;
}
