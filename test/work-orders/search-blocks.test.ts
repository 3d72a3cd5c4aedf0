// Pages that start at a block of ordinals (search/bitmaps.ts blockStartCtes, migrations 20261216090000 and
// 20261217090000): deep pages by createdAt start at a block's createdAt bound (createdAtPageSql), pages by
// woPriority deep in a run at a block's first id in the run (priorityPageSql); the matches ahead are counted
// by the blocks' bits and by walking the few blocks that straddle the start. Each page is compared with a
// plain SQL reference over the live rows, with the blocks forced ("only": null where they cannot start the
// page), off, and as the service chooses: after indexing, with work orders pending (status, createdAt and
// priority changed, deleted, created), after indexing those, and after a rebuild. Acme's work orders are
// numbered in creation order but for a few created out of it and ties across block boundaries, and one
// committed after 1,100 later ones were indexed (its block's id bounds straddle the block before); Globex's
// are created in random order, so every block's createdAt bounds span nearly all the others' and deep pages
// by createdAt fall back to the walk from the first doc, where their ids stay in order. The rebuild is
// also held to writing the dictionary in key order (migration 20261217090002).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Context } from "../../src/schema/core/context.ts";
import type { Viewer } from "../../src/schema/core/viewer.ts";
import { indexSearchBatch } from "../../src/schema/work-orders/jobs.ts";
import { bitmapQueryOf } from "../../src/schema/work-orders/rules/list.ts";
import { bitmapSearch } from "../../src/schema/work-orders/search/bitmaps.ts";
import { ORDINAL_BLOCK } from "../../src/schema/work-orders/search/terms.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

const STATUSES = ["Unassigned", "TechScheduled", "PendingApproval"] as const;
const ROWS = 6 * ORDINAL_BLOCK;
/** Most work orders in one priority's run (deep pages land in it), some in another, a tenth without one. */
const priorityOf = (i: number) => (i % 10 < 7 ? 24 : i % 10 < 9 ? 4 : null);
const START = Date.parse("2026-01-01T00:00:00Z");
const MINUTE = 60_000;

let t: TestApp;
const companies: Record<"acme" | "globex", number> = { acme: 0, globex: 0 };

/** `n` work orders of `company` with the createdAt `createdAt(i)`, statuses in turn and priorityOf(i), in id order. */
async function createMany(company: "acme" | "globex", n: number, createdAt: (i: number) => number, db = t.db) {
  const refs = t.fixture.refs;
  const buyerCompanyId = refs[company];
  const problemType =
    (await t.db.problemType.findFirst({ where: { buyerCompanyId } })) ??
    (await t.db.problemType.create({ data: { buyerCompanyId, name: "Blocks" } }));
  const base = {
    buyerCompanyId,
    buyerFacilityId: refs[company === "acme" ? "acme-hq" : "globex-hq"],
    createdBy: "alice@acme.example",
    title: "blocks",
    locationId: refs[company === "acme" ? "store-1" : "g-store"],
    problemTypeId: problemType.id,
    statusChangedAt: new Date(START),
  };
  return db.workOrder.createManyAndReturn({
    data: Array.from({ length: n }, (_, i) => ({
      ...base,
      status: STATUSES[i % STATUSES.length],
      woPriority: priorityOf(i),
      createdAt: new Date(createdAt(i)),
    })),
    select: { id: true },
  });
}

async function indexAll(): Promise<void> {
  while ((await indexSearchBatch(t.db, 2)) > 0);
}

type SortBy = "createdAt" | "woPriority";

/** The reference: the company's work orders in `statuses`, by `sortBy` (nulls last) then id, from the live rows. */
async function reference(
  companyId: number,
  statuses: string[],
  order: "asc" | "desc",
  sortBy: SortBy = "createdAt",
): Promise<number[]> {
  const rows = await t.db.$queryRawUnsafe<{ id: number }[]>(
    `SELECT id FROM "WorkOrder" WHERE "buyerCompanyId" = $1 AND status::text = ANY($2::text[])
      ORDER BY "${sortBy}" ${order} NULLS LAST, id ${order}`,
    companyId,
    statuses,
  );
  return rows.map((r) => r.id);
}

/**
 * Every page by `sortBy` at offsets around the blocks' boundaries, the last page and past it, each way the
 * option asks; how many pages past the first block there were, and how many of them the blocks answered
 * ("only" gave a page, checked too; by woPriority, pages starting in the run without a priority have none).
 */
async function checkPages(
  company: "acme" | "globex",
  sortBy: SortBy = "createdAt",
): Promise<{ deep: number; byBlocks: number }> {
  const companyId = companies[company];
  const viewer = { kind: "buyer", buyerCompanyId: companyId } as Viewer;
  const ctx = { db: t.db, viewer } as Context;
  const pages = { deep: 0, byBlocks: 0 };
  for (const statuses of [[STATUSES[0]], [STATUSES[1], STATUSES[2]]])
    for (const order of ["desc", "asc"] as const) {
      const expected = await reference(companyId, statuses, order, sortBy);
      const offsets = [
        0,
        1,
        300,
        341,
        682,
        1023,
        1024,
        1500,
        2047,
        2400,
        3000,
        expected.length - 25,
        expected.length - 1,
      ];
      for (const offset of offsets.filter((o) => o >= 0 && o <= 9_975)) {
        const query = bitmapQueryOf(viewer, {
          filter: { status: statuses.join(",") },
          sort_by: sortBy,
          order,
          offset,
          limit: 25,
        })!;
        const answer = {
          sortBy,
          offset,
          order,
          statuses,
          ids: expected.slice(offset, offset + 25),
          count: expected.length,
        };
        for (const blocks of [undefined, true, false]) {
          const found = await bitmapSearch(ctx, query, { fewMatches: 0, blocks });
          expect({ sortBy, offset, order, statuses, blocks, ...found }).toEqual({ ...answer, blocks });
        }
        if (offset < ORDINAL_BLOCK || offset >= expected.length) continue;
        pages.deep++;
        const only = await bitmapSearch(ctx, query, { fewMatches: 0, blocks: "only" });
        if (only?.ids === null) continue;
        expect({ sortBy, offset, order, statuses, ...only }).toEqual(answer);
        pages.byBlocks++;
      }
    }
  return pages;
}

beforeAll(async () => {
  t = await startTestApp();
  companies.acme = t.fixture.refs.acme;
  companies.globex = t.fixture.refs.globex;
  // Acme: a minute apart in id order, in fives with one createdAt (ties across block boundaries), and
  // every 700th created 40 hours earlier (its block's bounds reach back over two blocks of others).
  await createMany("acme", ROWS, (i) => START + (i % 700 === 350 ? i - 2_400 : i - (i % 5)) * MINUTE);
  await indexAll();
  // One committed after 1,100 later ones were indexed: its ordinal is past theirs, its id before them.
  await t.db.$transaction(
    async (tx) => {
      await createMany("acme", 1, () => START + (ROWS + 1_100) * MINUTE, tx as typeof t.db);
      await createMany("acme", 1_100, (i) => START + (ROWS + i) * MINUTE);
      await indexAll();
    },
    { timeout: 60_000 },
  );
  // Globex: shuffled, so every block's bounds span nearly all of them (more than STRADDLING_BLOCKS).
  const shuffled = 10 * ORDINAL_BLOCK;
  await createMany("globex", shuffled, (i) => START + ((i * 7_919) % shuffled) * MINUTE);
  await indexAll();
}, 120_000);
afterAll(() => t?.close());

describe("pages that start at a block", () => {
  it("are exact, and answered by the blocks when the docs are numbered about in creation order", async () => {
    const pages = await checkPages("acme");
    expect(pages.deep).toBeGreaterThan(20);
    expect(pages.byBlocks).toBe(pages.deep);
    // The late work order's block straddles the starts after its id, and is walked.
    const [late] = await t.db.$queryRaw<{ straddles: boolean }[]>`
      SELECT b."minWorkOrderId" < p."maxWorkOrderId" AS straddles FROM "WorkOrderSearchBlock" b
        JOIN "WorkOrderSearchBlock" p ON p."buyerCompanyId" = b."buyerCompanyId" AND p.block = b.block - 1
       WHERE b."buyerCompanyId" = ${companies.acme} ORDER BY b.block DESC LIMIT 1`;
    expect(late.straddles).toBe(true);
  }, 120_000);

  it("by woPriority deep in a run are exact and start at a block of the run", async () => {
    const pages = await checkPages("acme", "woPriority");
    expect(pages.deep).toBeGreaterThan(20);
    expect(pages.byBlocks).toBeGreaterThan(pages.deep / 2);
    // Globex's ids follow its ordinals whatever its createdAt: its runs start at blocks too.
    const shuffled = await checkPages("globex", "woPriority");
    expect(shuffled.byBlocks).toBeGreaterThan(shuffled.deep / 2);
  }, 120_000);

  it("stay exact with work orders pending (status, createdAt, priority, deleted, new), then indexed again", async () => {
    const ids = (await reference(companies.acme, [...STATUSES], "asc")).filter((_, i) => i % 97 === 5);
    for (const [i, id] of ids.entries()) {
      if (i % 3 === 0)
        await t.db.workOrder.update({
          where: { id },
          data: { status: STATUSES[(i + 1) % 3], ...(i % 2 ? { woPriority: priorityOf(i + 3) } : {}) },
        });
      // Moved by a day either way: out of its block's bounds, which the indexer widens.
      else if (i % 3 === 1)
        await t.db
          .$executeRaw`UPDATE "WorkOrder" SET "createdAt" = "createdAt" + ${i % 2 ? "1 day" : "-1 day"}::interval WHERE id = ${id}`;
      else await t.db.workOrder.delete({ where: { id } });
    }
    await createMany("acme", 40, (i) => START + (3_000 + i) * MINUTE);
    const [{ n }] = await t.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM "WorkOrderSearchPending"`;
    expect(n).toBeGreaterThan(100);
    for (const pending of [true, false]) {
      const pages = await checkPages("acme");
      expect({ pending, ...pages }).toEqual({ pending, deep: pages.deep, byBlocks: pages.deep });
      const runs = await checkPages("acme", "woPriority");
      expect(runs.byBlocks).toBeGreaterThan(runs.deep / 2);
      if (pending) await indexAll();
    }
  }, 180_000);

  it("are answered by the blocks again after a rebuild, which recomputes their bounds", async () => {
    await t.db.$executeRaw`SELECT work_order_search_rebuild(2)`;
    // The rebuild writes the dictionary in key order (count_by and the status facets read ranges of it).
    const [dictionary] = await t.db.$queryRaw<{ rows: number; misplaced: number }[]>`
      SELECT count(*)::int AS rows, count(*) FILTER (WHERE before > ctid)::int AS misplaced
        FROM (SELECT ctid, lag(ctid) OVER (ORDER BY "buyerCompanyId", term) AS before FROM "WorkOrderSearchTerm") x`;
    expect(dictionary.rows).toBeGreaterThan(40);
    expect(dictionary.misplaced).toBe(0);
    await indexAll();
    const [{ blocks }] = await t.db.$queryRaw<{ blocks: number }[]>`
      SELECT count(*)::int AS blocks FROM "WorkOrderSearchBlock" WHERE "buyerCompanyId" = ${companies.acme}`;
    expect(blocks).toBeGreaterThanOrEqual(7);
    const pages = await checkPages("acme");
    expect(pages.byBlocks).toBe(pages.deep);
    const runs = await checkPages("acme", "woPriority");
    expect(runs.byBlocks).toBeGreaterThan(runs.deep / 2);
  }, 120_000);

  it("fall back to the walk from the first doc where too many blocks straddle the start", async () => {
    // Near the top few blocks are ahead of the start, and the blocks answer; deeper, more than
    // STRADDLING_BLOCKS straddle it and the walk from the first doc answers.
    const pages = await checkPages("globex");
    expect(pages.byBlocks).toBeGreaterThan(0);
    expect(pages.byBlocks).toBeLessThan(pages.deep);
  }, 120_000);
});
