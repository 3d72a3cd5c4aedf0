// Makes src/rest/openapi-examples.json from the exchanges the REST tests recorded (OPENAPI_EXAMPLES,
// test/support/app.ts): per operation, the request and answer of its first 200 and the answer of its
// first 400, lists cut to two items. Run by scripts/openapi-examples.sh; the documents show them
// (src/rest/openapi.ts) and test/foundation/openapi-examples.test.ts checks them against the schemas.
import fs from "node:fs";

const dir = process.argv[2];
if (!dir) throw new Error("usage: node scripts/openapi-examples.mjs <dir of recorded .jsonl>");
const examples = {};
const short = (body) => (body && Array.isArray(body.data) ? { ...body, data: body.data.slice(0, 2) } : body);
for (const file of fs.readdirSync(dir).sort()) {
  for (const line of fs.readFileSync(`${dir}/${file}`, "utf8").split("\n")) {
    if (!line) continue;
    const r = JSON.parse(line);
    const e = (examples[r.operation] ??= {});
    if (r.status === 200 && e.ok === undefined) {
      e.ok = short(r.body);
      if (r.request !== undefined && typeof r.request === "object") e.request = r.request;
    }
    if (r.status === 400 && e.bad === undefined) e.bad = r.body;
  }
}
const sorted = Object.fromEntries(Object.entries(examples).sort(([a], [b]) => (a < b ? -1 : 1)));
fs.writeFileSync(new URL("../src/rest/openapi-examples.json", import.meta.url), `${JSON.stringify(sorted, null, 1)}\n`);
console.log(`${Object.keys(sorted).length} operations with examples`);
