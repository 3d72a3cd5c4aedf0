import { createDb } from "../src/db.ts";
import { bitmapQueryOf } from "../src/schema/work-orders/rules/list.ts";
import { bitmapSearch } from "../src/schema/work-orders/rules/search-bitmaps.ts";
const db = createDb(process.env.DATABASE_URL!, { max: 2 });
const [{ id }] = await db.$queryRaw<{ id: number }[]>`SELECT "buyerCompanyId" AS id FROM "WorkOrder" LIMIT 1`;
const viewer = { kind: "buyer", buyerCompanyId: id } as never;
for (const search of (process.argv[2] ?? "compres").split("|")) {
  const args = JSON.parse(process.argv[3] ?? "{}");
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const r = await bitmapSearch({ db, viewer } as never, bitmapQueryOf(viewer, { search, ...args })!);
    console.log(search, (performance.now() - t0).toFixed(1), "ms", r ? r.count : "fallback");
  }
}
await db.$disconnect();
