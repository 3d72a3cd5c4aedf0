// Relay in the dashboard graph, from outside over HTTP: node(id:)/nodes(ids:) on several types within the
// key's scope, `<plural>Connection` keyset paging forwards and backwards while rows are inserted between
// pages, totalCount, the page size limit, typed filters and multi-key orderBy against the REST list's
// answer for the same filter, variables inside a filter, and the REST list's interfaces and scope.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPageSize, MAX_PAGE_SIZE } from "../../src/schema/core/connection.ts";
import { refreshSearchVector } from "../../src/schema/work-orders/search/vector.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const globalIdOf = (type: string, id: number) => Buffer.from(`${type}:${id}`).toString("base64");

interface Page {
  edges: { cursor: string; node: { id: number; name?: string } }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

const LOCATIONS_PAGE = `query($first: Int, $after: String, $last: Int, $before: String, $filter: LocationFilter, $orderBy: [LocationOrder!]) {
  locationsConnection(first: $first, after: $after, last: $last, before: $before, filter: $filter, orderBy: $orderBy) {
    edges { cursor node { id name } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    totalCount
  }
}`;

async function locationsPage(variables: Record<string, unknown>): Promise<Page> {
  const reply = await t.graphql("acme-key", LOCATIONS_PAGE, variables);
  expect(reply.body.errors).toBeUndefined();
  return reply.body.data.locationsConnection;
}

/** Locations of acme in a region of their own, all with one name so that only the id orders them. */
async function regionWithLocations(name: string, count: number) {
  const { refs } = t.fixture;
  const region = await t.db.region.create({ data: { buyerCompanyId: refs.acme, name } });
  const add = async (locationName: string) =>
    (
      await t.db.location.create({
        data: { buyerCompanyId: refs.acme, regionId: region.id, name: locationName, currency: "USD" },
      })
    ).id;
  const ids: number[] = [];
  for (let i = 0; i < count; i++) ids.push(await add("Same name"));
  return { regionId: region.id, ids, add };
}

describe("node(id:) and nodes(ids:)", () => {
  it("refetch several types within the key's scope; another tenant's globalId is null", async () => {
    const { refs } = t.fixture;
    const query = `query($ids: [ID!]!) { nodes(ids: $ids) { globalId __typename ... on Location { id name }
      ... on Region { id name } ... on AssetType { id name } ... on Asset { id name } ... on ProblemType { id name } } }`;
    const ids = [
      globalIdOf("Location", refs["store-1"]),
      globalIdOf("Region", refs.west),
      globalIdOf("AssetType", refs.rtu),
      globalIdOf("Asset", refs["rtu-1"]),
      globalIdOf("ProblemType", refs.hvac),
      globalIdOf("Location", refs["g-store"]),
    ];
    const acme = await t.graphql("acme-key", query, { ids });
    expect(acme.body.errors).toBeUndefined();
    expect(
      acme.body.data.nodes.map((n: { __typename: string; id: number } | null) => n && [n.__typename, n.id]),
    ).toEqual([
      ["Location", refs["store-1"]],
      ["Region", refs.west],
      ["AssetType", refs.rtu],
      ["Asset", refs["rtu-1"]],
      ["ProblemType", refs.hvac],
      null,
    ]);
    expect(acme.body.data.nodes[0]).toMatchObject({ globalId: ids[0], name: "Store 1 Portland" });
    // Globex reads its own location and none of acme's.
    const globex = await t.graphql("globex-key", query, { ids });
    expect(globex.body.data.nodes.map((n: { id: number } | null) => n?.id ?? null)).toEqual([
      null,
      null,
      null,
      null,
      null,
      refs["g-store"],
    ]);
  });

  it("refetches a buyer company for the suppliers related to it only", async () => {
    const { refs } = t.fixture;
    const query = `query($id: ID!) { node(id: $id) { ... on BuyerCompany { id name } } }`;
    const id = globalIdOf("BuyerCompany", refs.acme);
    expect((await t.graphql("coolco-key", query, { id })).body.data.node).toEqual({
      id: refs.acme,
      name: "Acme Foods",
    });
    expect((await t.graphql("unrelated-supplier-key", query, { id })).body.data.node).toBeNull();
    expect((await t.graphql("globex-key", query, { id })).body.data.node).toBeNull();
  });

  it("refetches what only the key's team reads (a vendor: partner key yes, buyer key null)", async () => {
    const team = t.fixture.refs["acme-inhouse"];
    const vendor = await t.db.vendor.create({ data: { supplierCompanyId: team, name: "Parts Depot" } });
    const query = `query($id: ID!) { node(id: $id) { ... on Vendor { id name } } }`;
    const id = globalIdOf("Vendor", vendor.id);
    expect((await t.graphql("inhouse-partner-key", query, { id })).body.data.node).toEqual({
      id: vendor.id,
      name: "Parts Depot",
    });
    expect((await t.graphql("acme-key", query, { id })).body.data.node).toBeNull();
  });
});

describe("cursor connections", () => {
  it("page forwards across inserts between pages: no row skipped or repeated", async () => {
    const { regionId, ids, add } = await regionWithLocations("Forward", 7);
    const filter = { regionIds: [regionId] };
    const seen: number[] = [];
    const insertedAfter: number[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page = await locationsPage({ first: 3, after, filter });
      seen.push(...page.edges.map((e) => e.node.id));
      if (!page.pageInfo.hasNextPage) break;
      expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor);
      after = page.pageInfo.endCursor;
      // Between pages: a row that sorts after everything (a higher id): it must come on a later page.
      insertedAfter.push(await add("Same name"));
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...ids, ...insertedAfter]);
  });

  it("page by a non-unique key with id as tiebreaker, and backwards, across inserts", async () => {
    const { regionId, ids, add } = await regionWithLocations("Backward", 6);
    const filter = { regionIds: [regionId] };
    const orderBy = [{ field: "name", direction: "asc" }];
    // Forwards by name: all share one name, so the id breaks ties (ascending with the last key).
    const first = await locationsPage({ first: 4, filter, orderBy });
    expect(first.edges.map((e) => e.node.id)).toEqual(ids.slice(0, 4));
    await add("AAA first by name"); // sorts before the cursor: must not appear on the next page
    const second = await locationsPage({ first: 4, after: first.pageInfo.endCursor, filter, orderBy });
    expect(second.edges.map((e) => e.node.id)).toEqual(ids.slice(4));
    expect(second.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });

    // Backwards from the end (id order): the last page first, then the pages before it.
    const existing = (await t.db.location.findMany({ where: { regionId }, orderBy: { id: "asc" } })).map((l) => l.id);
    const collected: number[] = [];
    let page = await locationsPage({ last: 3, filter });
    const total = page.totalCount;
    for (;;) {
      collected.unshift(...page.edges.map((e) => e.node.id));
      if (!page.pageInfo.hasPreviousPage) break;
      await add("Same name"); // lands after everything already read: must not appear
      page = await locationsPage({ last: 3, before: page.pageInfo.startCursor, filter });
    }
    expect(collected).toEqual(existing);
    expect(total).toBe(ids.length + 1);
  });

  it("pages by a decimal key with ties (meter readings by value) in both directions", async () => {
    const { refs } = t.fixture;
    const meter = await t.db.meter.create({
      data: {
        buyerCompanyId: refs.acme,
        assetId: refs["rtu-1"],
        meterTypeId: refs.runtime,
        locationId: refs["store-1"],
        name: "Runtime",
        readingMode: "direct_reading",
        valueType: "number",
      },
    });
    for (const value of ["10.5", "2.25", "10.5", "7", "10.5", "0.125"])
      await t.db.meterReading.create({
        data: { buyerCompanyId: refs.acme, meterId: meter.id, value, recordedAt: new Date() },
      });
    const query = `query($after: String, $before: String, $first: Int, $last: Int) {
      meterReadingsConnection(filter: { meterIds: [${meter.id}] }, orderBy: [{ field: value, direction: desc }],
        first: $first, after: $after, last: $last, before: $before) {
        edges { node { id value } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }`;
    const expected = (
      await t.db.meterReading.findMany({ where: { meterId: meter.id }, orderBy: [{ value: "desc" }, { id: "desc" }] })
    ).map((r) => r.id);
    const forward: number[] = [];
    let after: string | null = null;
    for (;;) {
      const page: Page = (await t.graphql("acme-key", query, { first: 2, after })).body.data.meterReadingsConnection;
      forward.push(...page.edges.map((e) => e.node.id));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(forward).toEqual(expected);
    const backward: number[] = [];
    let before: string | null = null;
    for (;;) {
      const page: Page = (await t.graphql("acme-key", query, { last: 4, before })).body.data.meterReadingsConnection;
      backward.unshift(...page.edges.map((e) => e.node.id));
      if (!page.pageInfo.hasPreviousPage) break;
      before = page.pageInfo.startCursor;
    }
    expect(backward).toEqual(expected);
  });

  it("counts every matching row in scope in totalCount, whatever the page", async () => {
    const { refs } = t.fixture;
    const page = await locationsPage({ first: 1 });
    const count = await t.db.location.count({ where: { buyerCompanyId: refs.acme } });
    expect(page.totalCount).toBe(count);
    expect(page.edges).toHaveLength(1);
    const globex = await t.graphql("globex-key", "{ locationsConnection { totalCount edges { node { id } } } }");
    expect(globex.body.data.locationsConnection).toEqual({
      totalCount: 1,
      edges: [{ node: { id: refs["g-store"] } }],
    });
  });

  it("answers first or last above the maximum with a 400 naming it, not a shorter page", async () => {
    expect(MAX_PAGE_SIZE).toBe(25);
    for (const args of [`first: ${MAX_PAGE_SIZE + 1}`, "last: 100"]) {
      const reply = await t.graphql("acme-key", `{ locationsConnection(${args}) { totalCount } }`);
      expect(reply.body.data?.locationsConnection ?? null).toBeNull();
      expect(reply.body.errors[0].extensions.code).toBe("invalidInputDataException");
      expect(reply.body.errors[0].message).toMatch(/must be at most 25 \(the maximum page size\), got (26|100)/);
    }
    const bad = await t.graphql("acme-key", `{ locationsConnection(after: "nonsense") { totalCount } }`);
    expect(bad.body.errors[0].extensions.code).toBe("invalidInputDataException");
    const max = await t.graphql("acme-key", `{ locationsConnection(first: ${MAX_PAGE_SIZE}) { edges { cursor } } }`);
    expect(max.body.errors).toBeUndefined();
  });

  it("checks page sizes in one place (checkPageSize, shared by every connection)", () => {
    expect(checkPageSize({})).toBe(10);
    expect(checkPageSize({ first: MAX_PAGE_SIZE })).toBe(MAX_PAGE_SIZE);
    expect(checkPageSize({ last: 0 })).toBe(0);
    expect(() => checkPageSize({ first: -1 })).toThrow(/first must not be negative/);
    expect(() => checkPageSize({ last: MAX_PAGE_SIZE + 1 })).toThrow(/last must be at most 25/);
    expect(() => checkPageSize({ first: 1, last: 1 })).toThrow(/first or last, not both/);
  });

  it("refuses a cursor made for another orderBy", async () => {
    const page = await locationsPage({ first: 1 });
    const reply = await t.graphql("acme-key", LOCATIONS_PAGE, {
      first: 1,
      after: page.pageInfo.endCursor,
      orderBy: [{ field: "name", direction: "desc" }],
    });
    expect(reply.body.errors[0].extensions.code).toBe("invalidInputDataException");
    expect(reply.body.errors[0].message).toMatch(/another orderBy/);
  });

  it("answers only the interfaces of the REST list beside it", async () => {
    const reply = await t.graphql("acme-key", "{ purchaseRequestsConnection { totalCount } }");
    expect(reply.body.errors[0].extensions.code).toBe("ForbiddenException");
    const partner = await t.graphql("inhouse-partner-key", "{ purchaseRequestsConnection { totalCount } }");
    expect(partner.body.errors).toBeUndefined();
  });
});

describe("typed filters and orderBy", () => {
  const workOrderIds: Record<string, number> = {};

  beforeAll(async () => {
    const { refs } = t.fixture;
    const base = {
      buyerCompanyId: refs.acme,
      buyerFacilityId: refs["acme-hq"],
      problemTypeId: refs.hvac,
      createdBy: "alice@acme.example",
      statusChangedAt: new Date(),
    };
    const rows = {
      cooler: { title: "Walk-in cooler leaking", status: "Unassigned", locationId: refs["store-1"] },
      freezer: { title: "Freezer cooler icing", status: "Unassigned", locationId: refs["store-2"] },
      door: {
        title: "Door hinge",
        status: "ConfirmedByServiceProvider",
        locationId: refs["store-1"],
        supplierFacilityId: refs["coolco-pdx"],
      },
      light: {
        title: "Light out",
        status: "ConfirmedByServiceProvider",
        locationId: refs["store-1"],
        supplierFacilityId: refs["coolco-pdx"],
      },
      roof: { title: "Roof cooler noise", status: "TechAssigned", locationId: refs["store-2"] },
    } as const;
    for (const [name, data] of Object.entries(rows)) {
      const row = await t.db.workOrder.create({ data: { ...base, ...data } });
      workOrderIds[name] = row.id;
      await refreshSearchVector(t.db, row.id);
    }
  });

  const WORK_ORDERS = `query($filter: WorkOrderFilter, $orderBy: [WorkOrderOrder!], $first: Int) {
    workOrdersConnection(filter: $filter, orderBy: $orderBy, first: $first) {
      totalCount edges { node { id title status locationId nte } }
    }
  }`;

  async function restWorkOrders(key: string, query: string) {
    const reply = await t.call(
      key,
      "GET",
      `/v1/${key === "acme-key" ? "buyer" : "supplier"}/work_order/work_orders?limit=25&${query}`,
    );
    expect(reply.status).toBe(200);
    return reply.body.data as { id: number; title: string; status: string; locationId: number }[];
  }

  it("enum status lists, id lists and several order keys match the REST list for the same filter", async () => {
    const { refs } = t.fixture;
    const status = ["Unassigned", "ConfirmedByServiceProvider"];
    const locations = [refs["store-1"], refs["store-2"]];
    const rest = await restWorkOrders("acme-key", `status=${status.join(",")}&locationId=${locations.join(",")}`);
    const reply = await t.graphql("acme-key", WORK_ORDERS, {
      filter: { status, locationIds: locations },
      orderBy: [
        { field: "locationId", direction: "desc" },
        { field: "title", direction: "asc" },
      ],
      first: 25,
    });
    expect(reply.body.errors).toBeUndefined();
    const ids = reply.body.data.workOrdersConnection.edges.map((e: { node: { id: number } }) => e.node.id);
    // The REST list's rows, ordered by location (descending), then title.
    const expected = [...rest].sort((a, b) => b.locationId - a.locationId || a.title.localeCompare(b.title));
    expect(ids).toEqual(expected.map((r) => r.id));
    expect(ids).toEqual(
      expect.arrayContaining([workOrderIds.cooler, workOrderIds.freezer, workOrderIds.door, workOrderIds.light]),
    );
    expect(ids).not.toContain(workOrderIds.roof);
    expect(reply.body.data.workOrdersConnection.totalCount).toBe(rest.length);
  });

  it("text search finds what the REST list's search finds", async () => {
    const rest = await restWorkOrders("acme-key", "search=cooler");
    const reply = await t.graphql("acme-key", WORK_ORDERS, { filter: { search: "cooler" }, first: 25 });
    const ids = reply.body.data.workOrdersConnection.edges.map((e: { node: { id: number } }) => e.node.id);
    expect(new Set(ids)).toEqual(new Set(rest.map((r) => r.id)));
    expect(ids).toEqual(expect.arrayContaining([workOrderIds.cooler, workOrderIds.freezer, workOrderIds.roof]));
    expect(ids).not.toContain(workOrderIds.door);
  });

  it("takes variables inside the filter, in the supplier's scope and masking", async () => {
    const { refs } = t.fixture;
    const query = `query($loc: Int!, $statuses: [WorkOrderStatus!]) {
      workOrdersConnection(filter: { locationIds: [$loc], status: $statuses }, first: 25) {
        totalCount edges { node { id nte } }
      }
    }`;
    const acme = await t.graphql("acme-key", query, { loc: refs["store-2"], statuses: ["Unassigned"] });
    expect(acme.body.errors).toBeUndefined();
    expect(acme.body.data.workOrdersConnection.edges.map((e: { node: { id: number } }) => e.node.id)).toEqual([
      workOrderIds.freezer,
    ]);
    // A third-party supplier reads what its REST list reads, masked the same way.
    const rest = await restWorkOrders("coolco-key", `locationId=${refs["store-1"]}`);
    const supplier = await t.graphql("coolco-key", query, { loc: refs["store-1"] });
    const nodes = supplier.body.data.workOrdersConnection.edges.map(
      (e: { node: { id: number; nte: unknown } }) => e.node,
    );
    expect(new Set(nodes.map((n: { id: number }) => n.id))).toEqual(new Set(rest.map((r) => r.id)));
    expect(nodes.map((n: { id: number }) => n.id)).toEqual(
      expect.arrayContaining([workOrderIds.door, workOrderIds.light]),
    );
    expect(nodes.every((n: { nte: unknown }) => n.nte === null)).toBe(true);
  });

  it("filters and orders locations like the REST list with the same filter", async () => {
    const { refs } = t.fixture;
    const rest = await t.call(
      "acme-key",
      "GET",
      `/v1/buyer/location/locations?regionId=${refs.west}&sort_by=name&order=desc`,
    );
    const reply = await locationsPage({
      first: 10,
      filter: { regionIds: [refs.west] },
      orderBy: [{ field: "name", direction: "desc" }],
    });
    expect(reply.edges.map((e) => e.node.id)).toEqual(rest.body.data.map((l: { id: number }) => l.id));
    expect(reply.totalCount).toBe(rest.body.count);
  });
});
