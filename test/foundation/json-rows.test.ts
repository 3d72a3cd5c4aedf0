// Rows read as JSON (src/schema/core/json-rows.ts) must be what Prisma's findMany gives for the same
// query, value for value (Date, Decimal, BigInt, Json, lists, NULL lists, nested relations and their
// order), and the reader must decline what it cannot answer exactly, so that Prisma loads it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prisma, sqlRows } from "../../src/db.ts";
import { pageStatement, rowReader, type RowReader, rowsStatement } from "../../src/schema/core/json-rows.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
let refs: Record<string, number>;
beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

/** What the work order list asks for in REST (every field of the REST answer). */
const WORK_ORDER_QUERY = {
  include: {
    subscribers: { orderBy: { email: "asc" } },
    statusChanges: { orderBy: [{ at: "asc" }, { id: "asc" }] },
    serviceCalls: { orderBy: { id: "asc" } },
  },
};

async function readById(model: string, reader: RowReader, ids: number[] | bigint[]) {
  const table = Prisma.raw(`"${model}"`);
  const [{ rows }] = await sqlRows<{ rows: unknown[] }>(
    t.db,
    Prisma.sql`SELECT coalesce(json_agg(${reader.json("w")} ORDER BY w.id), '[]') AS rows FROM ${table} w WHERE w.id = ANY(${ids})`,
  );
  return reader.read<Record<string, unknown>>(rows);
}

/**
 * toEqual, with every Decimal compared by its value's text (json-rows gives Decimals parsed only when used,
 * core/values.ts decimalFromText, whose own properties are not yet a parsed Decimal's).
 */
function expectSame(actual: unknown, expected: unknown) {
  const decimalsAsText = (value: unknown): unknown =>
    Prisma.Decimal.isDecimal(value)
      ? { decimal: value.toString() }
      : Array.isArray(value)
        ? value.map(decimalsAsText)
        : value && typeof value === "object" && !(value instanceof Date)
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decimalsAsText(v)]))
          : value;
  expect(decimalsAsText(actual)).toEqual(decimalsAsText(expected));
}

describe("rows read as JSON", () => {
  it("equal Prisma's work orders with their status history, service calls and subscribers", async () => {
    const full = await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        locationId: refs["store-1"],
        problemTypeId: refs.hvac,
        title: "Every column set",
        description: 'with "quotes", a back\\slash and ünïcödé',
        status: "TechAssigned",
        createdBy: "alice@acme.example",
        supplierFacilityId: refs["coolco-pdx"],
        supplierPrimaryContactEmail: "tech@coolco.example",
        assetId: refs["rtu-1"],
        subAssetIds: [3, 1, 2],
        needsApproval: true,
        isPM: true,
        poNumber: "PO-1",
        nte: new Prisma.Decimal("1234567890.05"),
        glCode: "GL",
        costCenter: "CC",
        internalNotes: "private",
        approvedBy: "bob@acme.example",
        approvedAt: new Date("2026-01-02T03:04:05.678Z"),
        woPriority: 24,
        currencyId: "CAD",
        locationCurrencyId: "USD",
        currencyExchangeRate: new Prisma.Decimal("1.23456789"),
        currencyExchangeRateAt: new Date("2026-01-01T00:00:00.001Z"),
        statusChangedAt: new Date("2026-02-03T04:05:06.789Z"),
        assignedAt: new Date("2026-02-03T04:05:06Z"),
        statusChanges: {
          create: [
            // Out of id order in time, so the relation's orderBy (at, then id) is what decides.
            {
              from: "Unassigned",
              to: "TechAssigned",
              action: "assign",
              actor: "Alice",
              actorKind: "buyer",
              at: new Date("2026-02-03T04:05:06.789Z"),
            },
            {
              from: null,
              to: "Unassigned",
              action: "create",
              actor: "Alice",
              actorKind: "buyer",
              at: new Date("2026-02-01T00:00:00Z"),
            },
            {
              from: null,
              to: "Unassigned",
              action: "create",
              actor: "Alice",
              actorKind: "buyer",
              at: new Date("2026-02-01T00:00:00Z"),
            },
          ],
        },
        serviceCalls: {
          create: [
            {
              technicianEmail: "t@coolco.example",
              scheduledAt: new Date("2026-03-01T08:00:00Z"),
              checkInAt: new Date("2026-03-01T08:10:00.5Z"),
              checkInNote: "in",
            },
            { outcome: "completed", reason: null },
          ],
        },
        subscribers: { create: [{ email: "zed@acme.example" }, { email: "amy@acme.example" }] },
      },
    });
    const bare = await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        locationId: refs["store-2"],
        problemTypeId: refs.plumbing,
        title: "Nothing optional",
        status: "Unassigned",
        createdBy: "alice@acme.example",
        statusChangedAt: new Date(),
      },
    });
    // A NULL list (rows written by SQL, or before the column had a default) reads as [] in Prisma.
    await t.db.$executeRaw`UPDATE "WorkOrder" SET "subAssetIds" = NULL WHERE id = ${bare.id}`;

    const ids = [full.id, bare.id];
    for (const query of [WORK_ORDER_QUERY, {}, { include: { statusChanges: true } }]) {
      const reader = rowReader("WorkOrder", query);
      expect(reader, JSON.stringify(query)).toBeDefined();
      const expected = await t.db.workOrder.findMany({
        ...(query as object),
        where: { id: { in: ids } },
        orderBy: { id: "asc" },
      });
      expectSame(await readById("WorkOrder", reader!, ids), expected);
    }
    const [read] = await readById("WorkOrder", rowReader("WorkOrder", WORK_ORDER_QUERY)!, [full.id]);
    expect((read.statusChanges as { action: string }[]).map((c) => c.action)).toEqual(["create", "create", "assign"]);
    expect((read.subscribers as { email: string }[]).map((s) => s.email)).toEqual([
      "amy@acme.example",
      "zed@acme.example",
    ]);
    expect(read.nte).toBeInstanceOf(Prisma.Decimal);
  });

  it("equal Prisma's for BigInt, Json, calendar dates and text lists", async () => {
    const event = await t.db.outboxEvent.create({
      data: {
        eventType: "workorder.created",
        workOrderId: 1,
        buyerCompanyId: refs.acme,
        payload: { n: 1.5, big: "12345678901234567890", list: [null, true], nested: { s: "x" } },
      },
    });
    const events = rowReader("OutboxEvent", {})!;
    expectSame(
      await readById("OutboxEvent", events, [event.id]),
      await t.db.outboxEvent.findMany({ where: { id: event.id } }),
    );

    await t.db.asset.update({ where: { id: refs["rtu-1"] }, data: { installDate: new Date("2024-02-29T00:00:00Z") } });
    const assets = rowReader("Asset", {})!;
    const expected = await t.db.asset.findMany({
      where: { id: { in: [refs["rtu-1"], refs["g-asset"]] } },
      orderBy: { id: "asc" },
    });
    expectSame(await readById("Asset", assets, [refs["rtu-1"], refs["g-asset"]]), expected);

    const locations = rowReader("Location", {})!;
    const stores = [refs["store-1"], refs["store-2"]];
    expectSame(
      await readById("Location", locations, stores),
      await t.db.location.findMany({ where: { id: { in: stores } }, orderBy: { id: "asc" } }),
    );
  });

  it("equal Prisma's for windows taken from the end and for keyset bounds (a connection's last rows and next page)", async () => {
    const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, minutes));
    const created = await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.acme,
        buyerFacilityId: refs["acme-hq"],
        locationId: refs["store-1"],
        problemTypeId: refs.hvac,
        title: "A long history",
        status: "TechAssigned",
        createdBy: "alice@acme.example",
        statusChangedAt: at(0),
        // Two changes share a time, so the id decides between them.
        statusChanges: {
          create: [5, 1, 3, 3, 4, 2].map((m, i) => ({
            to: "TechAssigned" as const,
            action: `change ${i}`,
            actor: "Alice",
            actorKind: "buyer",
            at: at(m),
          })),
        },
      },
    });
    const order = [{ at: "asc" }, { id: "asc" }];
    for (const window of [{ take: -2 }, { take: -3, skip: 1 }, { take: -10 }, { take: 2, skip: 1 }]) {
      const query = { include: { statusChanges: { ...window, orderBy: order } } };
      const reader = rowReader("WorkOrder", query);
      expect(reader, JSON.stringify(window)).toBeDefined();
      const expected = await t.db.workOrder.findMany({ ...(query as object), where: { id: created.id } });
      expectSame(await readById("WorkOrder", reader!, [created.id]), expected);
    }

    const [third] = await t.db.workOrderStatusChange.findMany({
      where: { workOrderId: created.id },
      orderBy: [{ at: "desc" }, { id: "desc" }],
      skip: 2,
      take: 1,
    });
    // The rows after the third newest, newest first: what keyset.ts asks for a connection's next page.
    const where = {
      AND: [
        { workOrderId: created.id },
        { at: { lte: third.at } },
        { OR: [{ at: { lt: third.at } }, { AND: [{ at: third.at }, { id: { lt: third.id } }] }] },
      ],
    };
    const orderBy: Record<string, "asc" | "desc">[] = [{ at: "desc" }, { id: "desc" }];
    const statement = rowsStatement("WorkOrderStatusChange", where, orderBy, 2, {});
    expect(statement).toBeDefined();
    const [{ rows }] = await sqlRows<{ rows: unknown[] }>(t.db, statement!.sql);
    const expected = await t.db.workOrderStatusChange.findMany({ where, orderBy, take: 2 });
    expect(expected).toHaveLength(2);
    expectSame(statement!.reader.read(rows), expected);
  });

  it("declines what only Prisma can load", () => {
    const declined = [
      { select: {} },
      { include: { _count: true } },
      { include: { statusChanges: { where: { action: { contains: "c" } } } } }, // an operator it does not translate
      { include: { serviceCalls: { where: { outcome: { not: "done" } } } } }, // `not` on a nullable column
      { include: { statusChanges: { take: 1 } } }, // a window without an order
      { include: { statusChanges: { take: -1 } } }, // backwards without an order
      { include: { statusChanges: { cursor: { id: 1 }, orderBy: { id: "asc" } } } },
      { include: { location: { orderBy: { id: "asc" } } } }, // a to-one relation has no order
      { include: { statusChanges: { orderBy: { workOrder: { id: "asc" } } } } }, // ordered by a relation's field
      { include: { statusChanges: { orderBy: { at: "sideways" } } } },
      { include: { noSuchRelation: true } },
      { include: { statusChanges: true }, where: { id: 1 } },
    ];
    for (const query of declined) expect(rowReader("WorkOrder", query), JSON.stringify(query)).toBeUndefined();
    const window = { skip: 0, take: 10, orderBy: [{ id: "asc" as const }] };
    const where = [
      { title: { contains: "x" } },
      { nte: "1.00" }, // a Decimal column
      { locationId: "1" }, // text for an integer column: Prisma's to refuse
      { status: "NoSuchStatus" },
      { OR: [] },
      { NOT: { id: 1 } },
      { title: { gt: "m" } }, // an order comparison on text (collation): Prisma's

      { statusChanges: { every: { action: "create" } } },
    ];
    for (const w of where) expect(pageStatement("WorkOrder", w, window, {}), JSON.stringify(w)).toBeUndefined();
    expect(pageStatement("WorkOrder", {}, { ...window, orderBy: [{ location: "asc" } as never] }, {})).toBeUndefined();
  });
});

/**
 * The offset lists' one statement (list.ts findPage → pageStatement) against Prisma's findMany and count
 * for the same where, order, window and query: the scopes and filters the domains declare, and the
 * selections their REST and GraphQL answers make.
 */
describe("a page read in one statement", () => {
  async function expectPage(
    model: string,
    where: object,
    orderBy: Record<string, "asc" | "desc">[],
    query: object,
    window = { skip: 0, take: 25 },
  ) {
    const statement = pageStatement(model, where, { ...window, orderBy }, query);
    expect(statement, `${model} ${JSON.stringify({ where, query })}`).toBeDefined();
    const [{ count, rows }] = await sqlRows<{ count: number; rows: unknown[] }>(t.db, statement!.sql);
    const delegate = (t.db as unknown as Record<string, any>)[model[0].toLowerCase() + model.slice(1)];
    const expected = await delegate.findMany({ ...query, where, orderBy, ...window });
    expectSame(statement!.read(rows), expected);
    expect(count).toBe(await delegate.count({ where }));
    return expected as Record<string, unknown>[];
  }

  let workOrderId: number;
  beforeAll(async () => {
    const wo = await t.db.workOrder.findFirstOrThrow({ where: { buyerCompanyId: refs.acme }, select: { id: true } });
    workOrderId = wo.id;
    const billing = {
      workOrderId,
      supplierFacilityId: refs["coolco-pdx"],
      buyerCompanyId: refs.acme,
      buyerFacilityId: refs["acme-hq"],
      locationId: refs["store-1"],
      createdById: refs.bob,
    };
    const files = await Promise.all(
      [1, 2].map((n) =>
        t.db.storedFile.create({
          data: {
            supplierFacilityId: refs["coolco-pdx"],
            uploadedById: refs.bob,
            name: `quote-${n}.pdf`,
            contentType: "application/pdf",
            size: 1000 + n,
            storageKey: `json-rows-${n}-${Date.now()}`,
          },
        }),
      ),
    );
    for (const [i, status] of (["pending", "awarded", "declined"] as const).entries())
      await t.db.proposal.create({
        data: {
          ...billing,
          status,
          totalAfterTax: `${1200 + i}.05`,
          laborLineItems: [{ description: "Labor", amount: "100.10" }],
          laborTaxRate: "8.2500",
          decidedAt: status === "pending" ? null : new Date("2026-03-04T05:06:07.089Z"),
          // out of position order, so the attachments' order is the declared one
          attachments:
            i === 0
              ? {
                  create: [
                    { fileId: files[0].id, position: 2 },
                    { fileId: files[1].id, position: 1 },
                  ],
                }
              : undefined,
        },
      });
    for (const [i, status] of (["pending", "draft", "paid"] as const).entries())
      await t.db.invoice.create({
        data: {
          ...billing,
          status,
          invoiceNumber: `JR-${i}`,
          problemTypeId: refs.hvac,
          currency: "CAD",
          serviceCallIds: i === 0 ? [3, 1] : [],
          taxLineItems: [{ type: "GST", amount: "5.00" }],
          dateOfInvoice: new Date("2026-02-01T00:00:00.123Z"),
          statusChangedAt: new Date(),
          pdfFileId: i === 0 ? files[0].id : null,
        },
      });
    const team = refs["acme-inhouse"];
    const vendor = await t.db.vendor.create({ data: { supplierCompanyId: team, name: "Parts Depot" } });
    const order = await t.db.purchaseOrder.create({
      data: {
        supplierCompanyId: team,
        vendorId: vendor.id,
        createdBy: "ivy@acme.example",
        expectedAt: new Date("2026-12-24T00:00:00Z"),
        statusChangedAt: new Date(),
        lineItems: {
          create: [
            { description: "Brazing rods", quantity: "4.5", unitCost: "12.35" },
            { description: "Filter", quantity: "1", unitCost: "0.10" },
          ],
        },
      },
      include: { lineItems: true },
    });
    await t.db.purchaseRequest.create({
      data: {
        supplierCompanyId: team,
        requestedBy: "ivy@acme.example",
        statusChangedAt: new Date(),
        lineItems: {
          create: [
            { quantity: "4.5", purchaseOrderLineItemId: order.lineItems[0].id },
            { quantity: "1", purchaseOrderLineItemId: order.lineItems[0].id },
          ],
        },
      },
    });
    for (const n of [2, 1, 3])
      await t.db.workOrderNote.create({
        data: {
          workOrderId,
          text: `note ${n}`,
          noteAddedBy: "alice@acme.example",
          noteAddedAt: new Date(Date.UTC(2026, 0, n)),
          photo: n === 1 ? "https://files.example/p.jpg" : null,
          elements: [{ type: "text", text: `n${n}` }],
        },
      });
    await t.db.workOrderNote.create({
      data: { workOrderId, thread: "internal", text: "other thread", noteAddedBy: "x", noteAddedAt: new Date() },
    });
  });

  it("equals Prisma's for the asset list: scopes of both key kinds, filters, REST's and GraphQL's selections", async () => {
    const buyer = { buyerCompanyId: refs.acme };
    // buyerOwnedScope of a supplier key: the related companies, through a list relation's `some`
    const supplier = {
      buyerCompany: {
        OR: [{ supplierLinks: { some: { supplierFacilityId: refs["coolco-pdx"], deletedAt: null } } }, { id: -1 }],
      },
    };
    const rest = { include: { assetType: true } };
    const graphql = {
      include: {
        assetType: true,
        location: true,
        children: true,
        meters: { where: buyer, orderBy: { id: "asc" }, take: 11, skip: 0 },
        labels: { where: { label: buyer }, include: { label: true } },
      },
    };
    const ids = [{ id: "asc" as const }];
    for (const scope of [buyer, supplier]) {
      expect((await expectPage("Asset", { AND: [scope, {}] }, ids, rest)).length).toBeGreaterThan(0);
      await expectPage("Asset", { AND: [scope, {}] }, ids, graphql);
    }
    await expectPage(
      "Asset",
      { AND: [buyer, { isActive: true, parentId: null }] },
      [{ name: "desc" }, { id: "desc" }],
      {},
    );
    await expectPage("Asset", { AND: [buyer, { id: { in: [refs["rtu-1"], refs["g-asset"]] } }] }, ids, rest);
    await expectPage("Asset", { AND: [buyer, { id: { in: [] } }] }, ids, rest);
    await expectPage("Asset", { AND: [buyer, { createdAt: { in: [new Date(0)] } }] }, ids, rest);
    await expectPage(
      "Location",
      { AND: [buyer, {}] },
      ids,
      { include: { region: { where: buyer } } },
      { skip: 1, take: 2 },
    );
  });

  it("equals Prisma's for proposals, invoices (a scope with `not`), purchase orders (nested selects) and notes", async () => {
    const newest = [{ id: "desc" as const }];
    const proposals = await expectPage(
      "Proposal",
      { AND: [{ buyerCompanyId: refs.acme }, { status: { in: ["pending", "awarded"] } }] },
      newest,
      { include: { attachments: { orderBy: { position: "asc" }, include: { file: true } } } },
    );
    expect(proposals.some((p) => (p.attachments as unknown[]).length === 2)).toBe(true);
    const invoices = await expectPage(
      "Invoice",
      { AND: [{ buyerCompanyId: refs.acme, status: { not: "draft" } }, {}] },
      [{ dateOfInvoice: "asc" }, { id: "asc" }],
      { include: { pdfFile: true } },
    );
    expect(invoices.map((i) => i.status)).not.toContain("draft");
    expect(invoices.some((i) => i.pdfFile !== null)).toBe(true);
    await expectPage("Invoice", { AND: [{ supplierFacilityId: refs["coolco-pdx"] }, { currency: "CAD" }] }, newest, {});
    const team = { supplierCompanyId: refs["acme-inhouse"] };
    await expectPage("PurchaseOrder", { AND: [team, {}] }, newest, {
      include: { lineItems: { select: { quantity: true, unitCost: true } } },
    });
    await expectPage("PurchaseOrder", { AND: [team, {}] }, newest, {
      include: {
        lineItems: {
          orderBy: { id: "asc" },
          include: { purchaseRequestLineItems: { select: { id: true }, orderBy: { id: "asc" } } },
        },
        vendor: true,
      },
    });
    const notes = await expectPage(
      "WorkOrderNote",
      { AND: [{ workOrderId, thread: "root" }, {}] },
      [{ noteAddedAt: "asc" }, { id: "asc" }],
      {},
    );
    expect(notes.map((n) => n.text)).toEqual(["note 1", "note 2", "note 3"]);
  });
});

describe("the work order list", () => {
  it("answers the same rows through the JSON reader (REST) and through Prisma (a GraphQL selection with a nested object)", async () => {
    const fields =
      "id title status nte subAssetIds approvedAt currencyExchangeRate subscribers statusChanges { from to action at } serviceCalls { id checkInAt outcome }";
    const list = (extra: string) =>
      t.graphql(
        "acme-key",
        `{ workOrders(limit: 25, sort_by: "createdAt", order: "desc") { count data { ${fields} ${extra} } } }`,
      );
    const [viaJson, viaPrisma] = await Promise.all([list(""), list("asset { id }")]);
    expect(viaJson.body.errors).toBeUndefined();
    expect(viaJson.body.data.workOrders.count).toBeGreaterThan(1);
    const withoutAsset = viaPrisma.body.data.workOrders.data.map(
      ({ asset: _, ...rest }: Record<string, unknown>) => rest,
    );
    expect(viaJson.body.data.workOrders.data).toEqual(withoutAsset);
    expect(viaJson.body.data.workOrders.count).toBe(viaPrisma.body.data.workOrders.count);
  });
});
