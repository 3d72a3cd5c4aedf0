// Phrases of three words on the bitmap path (migration 20261207090000_search_phrases_and_pages): a search whose phrase needs its
// pairs confirmed asks for the phrase's triple, the indexer builds it, and from then on the triple
// answers exactly and is kept up to date like any bitmapped term. Each step is checked against what the
// texts say and against the GIN path (the list over HTTP with bitmaps off gives the same answer).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import type { Context } from "../../src/schema/core/context.ts";
import type { Viewer } from "../../src/schema/core/viewer.ts";
import { bitmapQueryOf } from "../../src/schema/work-orders/rules/list.ts";
import { bitmapSearch } from "../../src/schema/work-orders/search/bitmaps.ts";
import { indexSearchBatch } from "../../src/schema/work-orders/jobs.ts";
import { refreshSearchVector } from "../../src/schema/work-orders/search/vector.ts";

const LIST = "/v1/buyer/work_order/work_orders";
/** Terms in this many work orders get bitmaps (the service's default is 1,000). */
const MIN_DOCS = 2;

let t: TestApp;
let viewer: Viewer;
const titles = new Map<number, string>();

async function create(title: string): Promise<number> {
  const refs = t.fixture.refs;
  const problemType = await t.db.problemType.findFirstOrThrow({ where: { buyerCompanyId: refs.acme } });
  const { id } = await t.db.workOrder.create({
    data: {
      buyerCompanyId: refs.acme,
      buyerFacilityId: refs["acme-hq"],
      createdBy: "alice@acme.example",
      title,
      locationId: refs["store-1"],
      problemTypeId: problemType.id,
      status: "Unassigned",
      statusChangedAt: new Date(),
    },
  });
  await refreshSearchVector(t.db, id);
  titles.set(id, title);
  return id;
}

async function indexAll(): Promise<void> {
  while ((await indexSearchBatch(t.db, MIN_DOCS)) > 0);
}

/** The bitmap path asked directly (tripleCandidates 0: any phrase that needs confirming asks for its triple). */
async function bitmaps(search: string, options: Parameters<typeof bitmapSearch>[2] = { tripleCandidates: 0 }) {
  const found = await bitmapSearch(
    { db: t.db, viewer } as Context,
    bitmapQueryOf(viewer, { search, limit: 25 })!,
    options,
  );
  return { ids: [...found!.ids].sort((a, b) => a - b), count: found!.count };
}

/** What the titles say: the work orders whose title holds `words` in a row (case aside). */
function expected(words: string) {
  const ids = [...titles]
    .filter(([, title]) => title.toLowerCase().includes(words))
    .map(([id]) => id)
    .sort((a, b) => a - b);
  return { ids, count: ids.length };
}

/** The list over HTTP on the GIN path, for the same search. */
async function ginList(search: string) {
  const reply = await t.call(
    "acme-key",
    "GET",
    `${LIST}?${new URLSearchParams({ search: `"${search}"`, limit: "25" })}`,
  );
  expect(reply.status).toBe(200);
  return {
    ids: reply.body.data.map((w: { id: number }) => w.id).sort((a: number, b: number) => a - b),
    count: reply.body.count,
  };
}

const triples = () =>
  t.db.$queryRaw<
    { term: string; docs: number }[]
  >`SELECT term, docs FROM "WorkOrderSearchTerm" WHERE term LIKE 't%' ORDER BY term`;
const requests = () => t.db.$queryRaw<{ term: string }[]>`SELECT term FROM "WorkOrderSearchPhrase" ORDER BY term`;

beforeAll(async () => {
  t = await startTestApp({ configure: (c) => (c.searchBitmaps = false) });
  viewer = { kind: "buyer", buyerCompanyId: t.fixture.refs.acme } as Viewer;
  for (let i = 0; i < 3; i++) {
    await create("the door gasket torn at the back");
    await create("door gasket torn again");
    // Both pairs of "door gasket torn", but not the phrase: a candidate the pairs cannot rule out.
    await create("door gasket and a gasket torn");
    await create("walk-in freezer door gasket torn");
  }
  await indexAll();
}, 60_000);
afterAll(() => t?.close());

describe("phrases of three words", () => {
  it("are confirmed from their pairs and ask for their triple, then are answered by it", async () => {
    expect(await triples()).toEqual([]);
    expect(await bitmaps('"door gasket torn"')).toEqual(expected("door gasket torn"));
    expect(await bitmaps('"walk-in freezer"')).toEqual(expected("walk-in freezer"));
    expect(await requests()).toEqual([{ term: "t11door gasket torn" }, { term: "t12walk-in walk freezer" }]);

    await indexAll();
    expect(await requests()).toEqual([]);
    expect(await triples()).toEqual([
      { term: "t11door gasket torn", docs: 9 },
      { term: "t12walk-in walk freezer", docs: 3 },
    ]);
    for (const phrase of ["door gasket torn", "walk-in freezer"]) {
      expect(await bitmaps(`"${phrase}"`)).toEqual(expected(phrase));
      expect(await ginList(phrase)).toEqual(expected(phrase));
    }
    // Answered by the triple now: nothing more is asked for.
    expect(await requests()).toEqual([]);
  });

  it("keep their triples exact through changes, before and after the indexer sees them", async () => {
    const [first] = [...titles].find(([, title]) => title === "door gasket torn again")!;
    const [candidate] = [...titles].find(([, title]) => title === "door gasket and a gasket torn")!;
    const fresh = await create("torn door gasket torn");
    for (const [id, title] of [
      [first, "door gasket replaced"],
      [candidate, "door gasket torn after all"],
    ] as const) {
      await t.db.workOrder.update({ where: { id }, data: { title } });
      await refreshSearchVector(t.db, id);
      titles.set(id, title);
    }
    const [gone] = [...titles].find(([, title]) => title === "walk-in freezer door gasket torn")!;
    await t.db.workOrder.delete({ where: { id: gone } });
    titles.delete(gone);

    // Pending: read from the live rows.
    for (const phrase of ["door gasket torn", "walk-in freezer"])
      expect(await bitmaps(`"${phrase}"`)).toEqual(expected(phrase));
    expect(expected("door gasket torn").ids).toContain(fresh);

    await indexAll();
    expect(await triples()).toEqual([
      { term: "t11door gasket torn", docs: expected("door gasket torn").count },
      { term: "t12walk-in walk freezer", docs: expected("walk-in freezer").count },
    ]);
    for (const phrase of ["door gasket torn", "walk-in freezer"]) {
      expect(await bitmaps(`"${phrase}"`)).toEqual(expected(phrase));
      expect(await ginList(phrase)).toEqual(expected(phrase));
    }
  });

  it("are asked for again by a rebuild", async () => {
    await t.db.$executeRaw`SELECT work_order_search_rebuild(${MIN_DOCS})`;
    expect(await requests()).toEqual([{ term: "t11door gasket torn" }, { term: "t12walk-in walk freezer" }]);
    await indexAll();
    expect((await triples()).map((r) => r.docs)).toEqual([
      expected("door gasket torn").count,
      expected("walk-in freezer").count,
    ]);
    expect(await bitmaps('"door gasket torn"')).toEqual(expected("door gasket torn"));
  });

  it("are asked for by default once their pairs give more than 1,500 candidates, whatever the decode limit", async () => {
    // 1,600 work orders with "ice machine leaking": the pairs' candidates, to be confirmed row by row
    // on every request until the triple is built.
    const data = (await t.db.workOrder.findFirstOrThrow({ where: { id: [...titles.keys()][0] } })) as Record<
      string,
      unknown
    >;
    const { id: _id, searchVector: _vector, createdAt: _created, updatedAt: _updated, ...columns } = data;
    const title = "ice machine leaking at the bar";
    const rows = await t.db.workOrder.createManyAndReturn({
      data: Array.from({ length: 1_600 }, () => ({ ...columns, title })) as never,
      select: { id: true },
    });
    for (let i = 0; i < rows.length; i += 10)
      await Promise.all(rows.slice(i, i + 10).map(({ id }) => refreshSearchVector(t.db, id)));
    for (const { id } of rows) titles.set(id, title);
    await indexAll();
    const found = await bitmaps('"ice machine leaking"', {});
    expect(found.count).toBe(1_600);
    expect(await requests()).toEqual([{ term: "t11ice machin leak" }]);
    await indexAll();
    expect(await triples()).toContainEqual({ term: "t11ice machin leak", docs: 1_600 });
    expect((await bitmaps('"ice machine leaking"', {})).count).toBe(1_600);
    expect(await requests()).toEqual([]);
  }, 60_000);
});
