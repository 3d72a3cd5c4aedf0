// Work order list, search and count_by from outside: search semantics (prefix, stem, phrase, reference
// numbers, notes, service call notes, location and problem type names), hostile search text, the
// filters, sorting, the 10,000-row window, counts agreeing with lists, and tenant and supplier scopes.
// Work orders are seeded directly (the create endpoint is another engineer's) and indexed with the
// service's own refreshSearchVector.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Prisma } from "../../src/generated/prisma/client.ts";
import { refreshSearchVector } from "../../src/schema/work-orders/search/vector.ts";
import { startTestApp, type TestApp, type Reply } from "../support/app.ts";

let t: TestApp;
let refs: Record<string, number>;
const wo: Record<string, number> = {};
const LIST = "/v1/buyer/work_order/work_orders";
const COUNT = "/v1/buyer/work_order/work_orders/count_by";
const SUPPLIER_LIST = "/v1/supplier/work_order/work_orders";

const ids = (reply: Reply): number[] => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.data.map((w: { id: number }) => w.id);
};
const list = async (key: string, query: string, base = LIST) => ids(await t.call(key, "GET", `${base}?${query}`));
const search = (text: string, key = "acme-key") => list(key, `search=${encodeURIComponent(text)}&limit=25`);
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const day = (d: number) => new Date(Date.UTC(2026, 0, d, 12));

beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
  const acme = { buyerCompanyId: refs.acme, buyerFacilityId: refs["acme-hq"], createdBy: "alice@acme.example" };
  const rows: Record<
    string,
    Omit<Prisma.WorkOrderUncheckedCreateInput, "buyerCompanyId" | "buyerFacilityId" | "createdBy">
  > = {
    cooler: {
      title: "Walk-in cooler leaking water",
      description: "Water pooling under the evaporator",
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      status: "Unassigned",
      poNumber: "PO-77123",
      assetId: refs["rtu-1"],
      woPriority: 24,
      createdAt: day(1),
      statusChangedAt: day(1),
      nte: "500.00",
    },
    door: {
      title: "Broken door handle",
      description: "Front entrance handle is loose",
      locationId: refs["store-2"],
      problemTypeId: refs.plumbing,
      status: "PendingConfirmationByServiceProvider",
      supplierFacilityId: refs["coolco-pdx"],
      subAssetIds: [refs["rtu-1"]],
      woPriority: 4,
      createdAt: day(2),
      statusChangedAt: day(10),
      assignedAt: day(10),
      nte: "250.00",
    },
    faucet: {
      title: "Dripping faucet in restroom",
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      status: "TechScheduled",
      supplierFacilityId: refs["inhouse-west"],
      createdAt: day(3),
      statusChangedAt: day(20),
      assignedAt: day(15),
    },
    freezer: {
      title: "Freezer alarm sounding",
      locationId: refs["store-2"],
      problemTypeId: refs.hvac,
      status: "PendingApproval",
      supplierFacilityId: refs["coolco-pdx"],
      woPriority: 48,
      createdAt: day(4),
      statusChangedAt: day(4),
      assignedAt: day(4),
    },
    lights: {
      title: "Lights flickering",
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      status: "WorkReviewedAndCompleted",
      supplierFacilityId: refs["inhouse-west"],
      isPM: true,
      plannedMaintenanceScheduleId: refs["pm-1"],
      createdAt: day(5),
      statusChangedAt: day(30),
      assignedAt: day(25),
    },
  };
  for (const [ref, data] of Object.entries(rows))
    wo[ref] = (await t.db.workOrder.create({ data: { ...acme, ...data } })).id;
  wo.globex = (
    await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.globex,
        buyerFacilityId: refs["globex-hq"],
        createdBy: "gina@globex.example",
        title: "Walk-in cooler leaking",
        locationId: refs["g-store"],
        problemTypeId: (
          await t.db.problemType.create({ data: { buyerCompanyId: refs.globex, name: "Refrigeration" } })
        ).id,
        status: "Unassigned",
        statusChangedAt: day(6),
        createdAt: day(6),
      },
    })
  ).id;
  // The lights are on CoolCo's visibility list (not assigned to it).
  await t.db.workOrderVisibility.create({ data: { workOrderId: wo.lights, supplierFacilityId: refs["coolco-pdx"] } });
  const note = (workOrderId: number, thread: "root" | "contractor" | "internal", text: string) =>
    t.db.workOrderNote.create({
      data: { workOrderId, thread, text, noteAddedBy: "alice@acme.example", noteAddedAt: day(7) },
    });
  await note(wo.faucet, "root", "Technician found a corroded valve");
  await note(wo.faucet, "contractor", "contractorsecret wording");
  await note(wo.faucet, "internal", "internalsecret wording");
  await t.db.serviceCall.createMany({
    data: [
      {
        workOrderId: wo.faucet,
        scheduledAt: day(21),
        checkInNote: "Replaced the cartridge",
        checkOutNote: "Gizmotron recalibrated",
      },
      { workOrderId: wo.lights, scheduledAt: day(26) },
      { workOrderId: wo.lights, scheduledAt: day(22) },
      { workOrderId: wo.door, scheduledAt: day(23) },
    ],
  });
  for (const id of Object.values(wo)) await refreshSearchVector(t.db, id);
});
afterAll(() => t?.close());

describe("search", () => {
  it("matches words by prefix, across title, description and problem type", async () => {
    // cooler: "leaking" in the title; door: problem type "Plumbing - Leak".
    expect(sorted(await search("leak"))).toEqual(sorted([wo.cooler, wo.door]));
    expect(await search("evapor")).toEqual([wo.cooler]);
    expect(await search("entrance")).toEqual([wo.door]);
  });

  it("matches by stem: a word finds other forms of it", async () => {
    // "leaking" → leak: the door's "Leak" matches although "leaking" is not a prefix of it.
    expect(sorted(await search("leaking"))).toEqual(sorted([wo.cooler, wo.door]));
    expect(await search("drips")).toEqual([wo.faucet]);
    expect(await search("flicker")).toEqual([wo.lights]);
  });

  it("matches the stem exactly and only the word as typed as a prefix", async () => {
    // "leakage" shares the letters of leak's stem but is not a form of "leaking".
    const leakage = await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        createdBy: "alice@acme.example",
        title: "Slow leakage behind the ice bin",
        locationId: refs["store-2"],
        problemTypeId: refs.hvac,
        status: "Unassigned",
        createdAt: day(8),
        statusChangedAt: day(8),
      },
    });
    try {
      await refreshSearchVector(t.db, leakage.id);
      expect(sorted(await search("leak"))).toEqual(sorted([wo.cooler, wo.door, leakage.id]));
      expect(sorted(await search("leaking"))).toEqual(sorted([wo.cooler, wo.door]));
      expect(await search("leakag")).toEqual([leakage.id]);
    } finally {
      await t.db.workOrder.delete({ where: { id: leakage.id } });
    }
  });

  it("finds a word by every prefix, also one typed past its stem", async () => {
    // "escalation" is indexed as the stem escal; escalat and escala are prefixes of the word, not of the stem.
    const escalation = await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        createdBy: "alice@acme.example",
        title: "Escalation requested by the district manager",
        description: "Which store, nobody knows",
        locationId: refs["store-2"],
        problemTypeId: refs.hvac,
        status: "Unassigned",
        createdAt: day(8),
        statusChangedAt: day(8),
      },
    });
    try {
      await refreshSearchVector(t.db, escalation.id);
      // escalator and escalating share the stem escal; nobod is a prefix of nobody's stem nobodi.
      for (const text of [
        "esc",
        "escal",
        "escala",
        "escalat",
        "escalati",
        "ESCALATION",
        "escalations",
        "escalating",
        "escalator",
        "escalat district",
        "nobod",
        '"escalation requested"',
      ]) {
        expect(await search(text), text).toEqual([escalation.id]);
      }
      // Phrases are whole words, a prefix must be one, two letters match exactly, stop words are not indexed.
      for (const text of ["escalatx", "escalat zebra", '"escalat"', '"escalation district"', "es", "whic"]) {
        expect(await search(text), text).toEqual([]);
      }
      const counted = await t.call("acme-key", "GET", `${COUNT}?search=escalat`);
      expect(counted.body.data.count).toBe(1);
    } finally {
      await t.db.workOrder.delete({ where: { id: escalation.id } });
    }
  });

  it("matches words of one or two characters exactly, not as prefixes", async () => {
    expect(await search("fl")).toEqual([]);
    expect(await search("fli")).toEqual([wo.lights]);
    expect(await search("po-7")).toEqual([]);
    expect(await search("po-77")).toEqual([wo.cooler]);
    expect(await search("po-771")).toEqual([wo.cooler]);
  });

  it("matches a hyphenated word as one word, by prefix", async () => {
    expect(await search("walk-in")).toEqual([wo.cooler]);
    expect(await search("Walk-I")).toEqual([wo.cooler]);
    expect(await search("walk-out")).toEqual([]);
  });

  it("drops English stop words from the words, as they are not indexed", async () => {
    expect(await search("cooler not leaking")).toEqual([wo.cooler]);
    expect(await search("walk in")).toEqual([wo.cooler]);
    // Nothing but stop words: nothing to match (not every work order).
    expect(await search("not")).toEqual([]);
  });

  it("requires every word", async () => {
    expect(await search("leak water")).toEqual([wo.cooler]);
    expect(await search("leak zebra")).toEqual([]);
  });

  it("requires a quoted value as an exact phrase, combined with the other words", async () => {
    expect(await search('"cooler leaking"')).toEqual([wo.cooler]);
    expect(await search('"leaking cooler"')).toEqual([]);
    expect(await search("leaking cooler")).toEqual([wo.cooler]);
    expect(await search('"door handle" broken')).toEqual([wo.door]);
    expect(await search('"door handle" water')).toEqual([]);
  });

  it("finds reference numbers: work order id, PO number, asset serial", async () => {
    expect(await search(String(wo.freezer))).toContain(wo.freezer);
    expect(await search("PO-77123")).toEqual([wo.cooler]);
    expect(await search("po-77123")).toEqual([wo.cooler]);
    expect(await search("RTU-9001")).toEqual([wo.cooler]);
  });

  it("finds root thread notes and service call check-in and check-out notes, not other threads", async () => {
    expect(await search("corroded")).toEqual([wo.faucet]);
    expect(await search("cartridge")).toEqual([wo.faucet]);
    expect(await search("gizmotron")).toEqual([wo.faucet]);
    expect(await search("contractorsecret")).toEqual([]);
    expect(await search("internalsecret")).toEqual([]);
  });

  it("finds location and problem type names", async () => {
    expect(sorted(await search("vancouver"))).toEqual(sorted([wo.door, wo.freezer]));
    expect(await search("plumbing")).toEqual([wo.door]);
  });

  it("never widens the tenant scope", async () => {
    expect(await search("cooler", "globex-key")).toEqual([wo.globex]);
    expect(await search("cooler")).toEqual([wo.cooler]);
    expect(await search("refrigeration")).toEqual([]);
  });

  it("answers any search text without an error (nothing to search for does not narrow)", async () => {
    const all = (await t.call("acme-key", "GET", `${LIST}?limit=25`)).body.count;
    const weird = [
      "'",
      '"',
      "\\",
      "&|!():*<>",
      "a & b",
      "foo:*",
      "!!!",
      "(",
      '\'; DROP TABLE "WorkOrder"; --',
      "🙂",
      "...",
      " ",
      '"unterminated',
      '""',
      '"" leak',
      "ÄÖÜ straße",
      "a:*b",
      "-",
      "--",
      "@",
      "1e5",
      "NaN",
      "null",
      "<->",
      "leak <-> water",
      "!leak",
      "leak | zebra",
      "x".repeat(400),
      "%",
      "%25",
      "_",
      "leak\twater\n",
      "*:",
      "'leak':*",
      "leak:A",
      "a:*B & c",
      ")))(((",
      "leak & !water",
    ];
    // Also bytes that are not UTF-8 (a lone surrogate, 0xFF) and a bare "%".
    for (const query of [...weird.map(encodeURIComponent), "%ED%A0%80", "%FF", "%", "%E2%80%AEleak"]) {
      const reply = await t.call("acme-key", "GET", `${LIST}?search=${query}`);
      expect(reply.status, query).toBe(200);
      const counted = await t.call("acme-key", "GET", `${COUNT}?search=${query}`);
      expect(counted.body.data.count, query).toBe(reply.body.count);
    }
    expect((await t.call("acme-key", "GET", `${LIST}?search=${encodeURIComponent("!!! ...")}`)).body.count).toBe(all);
    // A NUL character cannot be stored or searched: 400 naming the parameter, like in any other input.
    for (const query of ["%00", "%00leak"]) {
      const refused = await t.call("acme-key", "GET", `${LIST}?search=${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.message).toContain("search");
    }
    // Operators are not operators: "leak | zebra" still requires zebra.
    expect(await search("leak | zebra")).toEqual([]);
    expect(await search("leak & !water")).toEqual([wo.cooler]);
  });

  it("refuses search text over 500 characters", async () => {
    const reply = await t.call("acme-key", "GET", `${LIST}?search=${"leak ".repeat(101)}`);
    expect(reply.status).toBe(400);
    expect(reply.body.type).toBe("invalidInputDataException");
  });

  it("works over GraphQL", async () => {
    const reply = await t.graphql(
      "acme-key",
      `{ workOrders(search: "vancouver", sort_by: "createdAt") { count data { id title } } }`,
    );
    expect(reply.body.data.workOrders).toEqual({
      count: 2,
      data: [
        { id: wo.door, title: "Broken door handle" },
        { id: wo.freezer, title: "Freezer alarm sounding" },
      ],
    });
  });
});

describe("filters", () => {
  it("narrow by status (comma = any of) and reject an unknown status", async () => {
    expect(sorted(await list("acme-key", "status=Unassigned,TechScheduled"))).toEqual(sorted([wo.cooler, wo.faucet]));
    expect(sorted(await list("acme-key", "status=Unassigned&status=PendingApproval"))).toEqual(
      sorted([wo.cooler, wo.freezer]),
    );
    const bad = await t.call("acme-key", "GET", `${LIST}?status=Done`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("Done");
  });

  it("match the main asset or any sub-asset by assetId and assetIds", async () => {
    const both = sorted([wo.cooler, wo.door]);
    expect(sorted(await list("acme-key", `assetId=${refs["rtu-1"]}`))).toEqual(both);
    expect(sorted(await list("acme-key", `assetIds=${refs["rtu-1"]},999999`))).toEqual(both);
    expect(await list("acme-key", "assetIds=999999")).toEqual([]);
  });

  it("narrow by the indexed columns", async () => {
    expect(sorted(await list("acme-key", `locationId=${refs["store-2"]}`))).toEqual(sorted([wo.door, wo.freezer]));
    expect(await list("acme-key", `problemTypeId=${refs.plumbing}`)).toEqual([wo.door]);
    expect(sorted(await list("acme-key", `supplierFacilityId=${refs["inhouse-west"]}`))).toEqual(
      sorted([wo.faucet, wo.lights]),
    );
    expect(await list("acme-key", `plannedMaintenanceScheduleId=${refs["pm-1"]}`)).toEqual([wo.lights]);
    expect(await list("acme-key", "isPM=true")).toEqual([wo.lights]);
    expect(await list("acme-key", "isPM=false&locationId=" + refs["store-1"] + "&sort_by=createdAt")).toEqual([
      wo.cooler,
      wo.faucet,
    ]);
    expect(sorted(await list("acme-key", `id=${wo.cooler},${wo.door},${wo.globex}`))).toEqual(
      sorted([wo.cooler, wo.door]),
    );
  });

  it("narrow by statusChangedAt windows, as Start/End or as <from>,<to>", async () => {
    const iso = (d: number) => day(d).toISOString();
    expect(sorted(await list("acme-key", `statusChangedAtStart=${iso(10)}&statusChangedAtEnd=${iso(20)}`))).toEqual(
      sorted([wo.door, wo.faucet]),
    );
    expect(sorted(await list("acme-key", `statusChangedAt=${iso(10)},${iso(20)}`))).toEqual(
      sorted([wo.door, wo.faucet]),
    );
    expect(sorted(await list("acme-key", `statusChangedAt=${iso(11)},`))).toEqual(sorted([wo.faucet, wo.lights]));
    expect(sorted(await list("acme-key", `statusChangedAt=,${iso(4)}`))).toEqual(sorted([wo.cooler, wo.freezer]));
    expect(await list("acme-key", `assignedAtStart=2026-01-20`)).toEqual([wo.lights]);
    for (const bad of [
      "statusChangedAtStart=yesterday",
      "statusChangedAt=a,b",
      `statusChangedAt=${iso(1)},${iso(2)},${iso(3)}`,
    ]) {
      expect((await t.call("acme-key", "GET", `${LIST}?${bad}`)).status, bad).toBe(400);
    }
  });

  it("accept updatedAtStartDate, updatedAtEndDate, buyerFacilityId and walkthroughId without narrowing", async () => {
    const all = await list("acme-key", "limit=25");
    expect(all).toHaveLength(5);
    expect(
      await list(
        "acme-key",
        "limit=25&updatedAtStartDate=2999-01-01&updatedAtEndDate=1999-01-01&buyerFacilityId=424242&walkthroughId=7",
      ),
    ).toEqual(all);
  });

  it("reject unknown filters and bad values, listing the filterable fields", async () => {
    const unknown = await t.call("acme-key", "GET", `${LIST}?colour=red`);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ type: "invalidInputDataException", status: "error" });
    expect(unknown.body.message).toContain("statusChangedAtStart");
    expect((await t.call("acme-key", "GET", `${LIST}?locationId=abc`)).status).toBe(400);
    expect((await t.call("acme-key", "GET", `${LIST}?isPM=yes`)).status).toBe(400);
    expect((await t.call("acme-key", "GET", `${COUNT}?colour=red`)).status).toBe(400);
  });

  it("cannot widen the tenant scope", async () => {
    expect(await list("globex-key", `id=${wo.cooler}`)).toEqual([]);
    expect(await list("globex-key", `buyerFacilityId=${refs["acme-hq"]}&limit=25`)).toEqual([wo.globex]);
    expect((await t.call("globex-key", "GET", `${COUNT}?locationId=${refs["store-1"]}`)).body.data).toEqual({
      count: 0,
    });
  });
});

describe("sorting", () => {
  it("defaults to createdAt descending, also for an unknown sort_by", async () => {
    const newestFirst = [wo.lights, wo.freezer, wo.faucet, wo.door, wo.cooler];
    expect(await list("acme-key", "")).toEqual(newestFirst);
    expect(await list("acme-key", "sort_by=colour")).toEqual(newestFirst);
    expect(await list("acme-key", "sort_by=title&order=asc")).toEqual(newestFirst);
    expect(await list("acme-key", "sort_by=createdAt")).toEqual([...newestFirst].reverse());
    expect(await list("acme-key", "sort_by=createdAt&order=desc")).toEqual(newestFirst);
    expect((await t.call("acme-key", "GET", `${LIST}?order=sideways`)).status).toBe(400);
  });

  it("sorts by location name", async () => {
    // Store 1 Portland: cooler, faucet, lights; Store 2 Vancouver: door, freezer (ties by id).
    expect(await list("acme-key", "sort_by=locationName")).toEqual([
      wo.cooler,
      wo.faucet,
      wo.lights,
      wo.door,
      wo.freezer,
    ]);
    expect(await list("acme-key", "sort_by=locationName&order=desc")).toEqual([
      wo.freezer,
      wo.door,
      wo.lights,
      wo.faucet,
      wo.cooler,
    ]);
  });

  it("sorts by woPriority (expected resolution hours), nulls last either way", async () => {
    expect(await list("acme-key", "sort_by=woPriority")).toEqual([
      wo.door,
      wo.cooler,
      wo.freezer,
      wo.faucet,
      wo.lights,
    ]);
    expect(await list("acme-key", "sort_by=woPriority&order=desc")).toEqual([
      wo.freezer,
      wo.cooler,
      wo.door,
      wo.lights,
      wo.faucet,
    ]);
  });

  it("sorts by the latest service call's scheduledAt, nulls last", async () => {
    // faucet 21, door 23, lights max(22, 26) = 26; cooler and freezer have none.
    expect(await list("acme-key", "sort_by=lastServiceCallServiceScheduledAt")).toEqual([
      wo.faucet,
      wo.door,
      wo.lights,
      wo.cooler,
      wo.freezer,
    ]);
    expect(await list("acme-key", "sort_by=lastServiceCallServiceScheduledAt&order=desc")).toEqual([
      wo.lights,
      wo.door,
      wo.faucet,
      wo.freezer,
      wo.cooler,
    ]);
  });
});

describe("paging, the window and counts", () => {
  it("pages with offset and limit, count being the total", async () => {
    const page = await t.call("acme-key", "GET", `${LIST}?limit=2&offset=1&sort_by=createdAt`);
    expect(page.body).toMatchObject({ type: "WorkOrder", status: "ok", count: 5 });
    expect(ids(page)).toEqual([wo.door, wo.faucet]);
    const past = await t.call("acme-key", "GET", `${LIST}?offset=20`);
    expect(past.body).toMatchObject({ data: [], count: 5 });
    expect((await t.call("acme-key", "GET", `${LIST}?limit=100`)).body.data).toHaveLength(5);
    expect((await t.call("acme-key", "GET", `${LIST}?limit=0`)).status).toBe(400);
    expect((await t.call("acme-key", "GET", `${LIST}?offset=-1`)).status).toBe(400);
  });

  it("refuses offset + limit over 10,000, on the list and on count_by", async () => {
    expect((await t.call("acme-key", "GET", `${LIST}?offset=9990&limit=10`)).status).toBe(200);
    expect((await t.call("acme-key", "GET", `${LIST}?offset=9975`)).status).toBe(200);
    for (const query of ["offset=9991&limit=10", "offset=9991", "offset=9980&limit=100", "offset=10000&limit=1"]) {
      const reply = await t.call("acme-key", "GET", `${LIST}?${query}`);
      expect(reply.status, query).toBe(400);
      expect(reply.body.message).toContain("10000");
    }
    expect((await t.call("acme-key", "GET", `${COUNT}?offset=9999&limit=2`)).status).toBe(400);
  });

  it("count_by answers {count} and agrees with the list for the same filters and search", async () => {
    for (const query of [
      "",
      "search=leak",
      "search=store",
      "status=Unassigned,PendingApproval",
      `assetId=${refs["rtu-1"]}`,
      "search=vancouver&isPM=false",
      "search=zebra",
    ]) {
      const listed = await t.call("acme-key", "GET", `${LIST}?${query}&limit=1`);
      const counted = await t.call("acme-key", "GET", `${COUNT}?${query}`);
      expect(counted.body, query).toEqual({ type: "count", data: { count: listed.body.count }, status: "ok" });
      const all = await t.call("acme-key", "GET", `${LIST}?${query}&limit=25`);
      expect(all.body.data.length, query).toBe(listed.body.count);
    }
  });

  it("count_by groups by a field, ordered by value", async () => {
    const reply = await t.call("acme-key", "GET", `${COUNT}?group_by=locationId&search=store`);
    expect(reply.body).toEqual({
      type: "count",
      status: "ok",
      data: [
        { value: refs["store-1"], count: 3 },
        { value: refs["store-2"], count: 2 },
      ],
    });
    const statuses = await t.call("acme-key", "GET", `${COUNT}?group_by=status&status=Unassigned,PendingApproval`);
    expect(statuses.body.data).toEqual([
      { value: "Unassigned", count: 1 },
      { value: "PendingApproval", count: 1 },
    ]);
    expect((await t.call("acme-key", "GET", `${COUNT}?group_by=title`)).status).toBe(400);
  });
});

describe("supplier list", () => {
  it("third-party supplier: assigned work orders (not while pending approval) and its visibility list, masked", async () => {
    const reply = await t.call("coolco-key", "GET", `${SUPPLIER_LIST}?limit=25`);
    expect(sorted(ids(reply))).toEqual(sorted([wo.door, wo.lights]));
    expect(reply.body.count).toBe(2);
    const door = reply.body.data.find((w: { id: number }) => w.id === wo.door);
    expect(door).toMatchObject({ title: "Broken door handle", nte: null });
    expect(await list("coolco-key", `id=${wo.freezer}`, SUPPLIER_LIST)).toEqual([]);
    expect(await list("coolco-key", "search=cooler", SUPPLIER_LIST)).toEqual([]);
    expect(await list("coolco-key", "search=handle", SUPPLIER_LIST)).toEqual([wo.door]);
  });

  it("internal team: full records of work orders assigned to its facility", async () => {
    const reply = await t.call("inhouse-key", "GET", `${SUPPLIER_LIST}?sort_by=createdAt`);
    expect(ids(reply)).toEqual([wo.faucet, wo.lights]);
    expect(await list("inhouse-key", "search=corroded", SUPPLIER_LIST)).toEqual([wo.faucet]);
  });

  it("filters by statusChangedAt and assignedAt windows", async () => {
    expect(await list("inhouse-key", "statusChangedAtStart=2026-01-25T00:00:00Z", SUPPLIER_LIST)).toEqual([wo.lights]);
    expect(await list("inhouse-key", "assignedAt=2026-01-01T00:00:00Z,2026-01-20T00:00:00Z", SUPPLIER_LIST)).toEqual([
      wo.faucet,
    ]);
    expect(await list("coolco-key", "assignedAtEnd=2026-01-12T00:00:00Z", SUPPLIER_LIST)).toEqual([wo.door]);
  });

  it("an unrelated supplier sees nothing; there is no supplier count_by", async () => {
    expect((await t.call("unrelated-supplier-key", "GET", `${SUPPLIER_LIST}?search=leak`)).body).toMatchObject({
      data: [],
      count: 0,
    });
    const counted = await t.call("coolco-key", "GET", "/v1/supplier/work_order/work_orders/count_by");
    expect(counted.status).not.toBe(200);
    expect(counted.body.type).not.toBe("count");
  });
});
