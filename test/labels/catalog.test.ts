// Label catalogs (asset and work order labels): paging, no_pagination, search/label and field filters,
// deleted labels, tenant scope, and the supplier view (internal team: its buyer's catalog; third party: none).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
let refs: Record<string, number>;
const ids: Record<string, number> = {};
const ASSET = "/v1/buyer/asset/asset_labels";
const WO = "/v1/buyer/work_order/work_order_labels";
const names = (reply: { body: { data: { name: string }[] } }) => reply.body.data.map((l) => l.name);

beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
  const acme = refs.acme;
  // 12 more live asset labels (13 with the fixture's "Critical"), more than a default page.
  await t.db.label.createMany({
    data: Array.from({ length: 12 }, (_, i) => ({
      buyerCompanyId: acme,
      kind: "asset" as const,
      name: `Label ${String(i + 1).padStart(2, "0")}`,
      color: i % 2 ? "#222222" : "#111111",
    })),
  });
  const seed = async (
    ref: string,
    data: { buyerCompanyId: number; kind: "asset" | "work_order"; name: string; deletedAt?: Date },
  ) => (ids[ref] = (await t.db.label.create({ data })).id);
  await seed("retired", { buyerCompanyId: acme, kind: "asset", name: "Retired asset label", deletedAt: new Date() });
  await seed("oldWo", { buyerCompanyId: acme, kind: "work_order", name: "Retired WO label", deletedAt: new Date() });
  await seed("gAsset", { buyerCompanyId: refs.globex, kind: "asset", name: "Globex asset label" });
  await seed("gWo", { buyerCompanyId: refs.globex, kind: "work_order", name: "Globex WO label" });
});
afterAll(() => t?.close());

describe("buyer asset label catalog", () => {
  it("pages 10 by default, sorted by id, with count = every live label of the company", async () => {
    const reply = await t.call("acme-key", "GET", ASSET);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ type: "Label", status: "ok", count: 13 });
    expect(reply.body.data).toHaveLength(10);
    expect(reply.body.data[0]).toEqual({
      id: refs.critical,
      name: "Critical",
      color: "#d32f2f",
      buyerCompanyId: refs.acme,
    });
    const pageIds = reply.body.data.map((l: { id: number }) => l.id);
    expect(pageIds).toEqual([...pageIds].sort((a, b) => a - b));
    const rest = await t.call("acme-key", "GET", `${ASSET}?offset=10`);
    expect(rest.body.count).toBe(13);
    expect(names(rest)).toEqual(["Label 10", "Label 11", "Label 12"]);
  });

  it("clamps limit to 25 and rejects a bad one", async () => {
    expect((await t.call("acme-key", "GET", `${ASSET}?limit=100`)).body.data).toHaveLength(13);
    expect((await t.call("acme-key", "GET", `${ASSET}?limit=3`)).body.data).toHaveLength(3);
    expect((await t.call("acme-key", "GET", `${ASSET}?limit=0`)).status).toBe(400);
  });

  it("no_pagination=true returns the whole catalog, sorted as asked, count = total", async () => {
    const reply = await t.call(
      "acme-key",
      "GET",
      `${ASSET}?no_pagination=true&sort_by=name&order=desc&limit=2&offset=5`,
    );
    expect(reply.status).toBe(200);
    expect(reply.body.count).toBe(13);
    expect(reply.body.data).toHaveLength(13);
    expect(names(reply)[0]).toBe("Label 12");
    expect(names(reply).at(-1)).toBe("Critical");
    // With a filter the count is the filtered total.
    const filtered = await t.call("acme-key", "GET", `${ASSET}?no_pagination=true&color=%23111111`);
    expect(filtered.body).toMatchObject({ count: 6 });
    expect(filtered.body.data).toHaveLength(6);
    // Anything but "true" pages as usual.
    expect((await t.call("acme-key", "GET", `${ASSET}?no_pagination=false`)).body.data).toHaveLength(10);
  });

  it("search and label match a case-insensitive substring of the name, and combine", async () => {
    const search = await t.call("acme-key", "GET", `${ASSET}?search=LABEL%200&limit=25`);
    expect(search.body.count).toBe(9);
    expect(names(search)).toEqual([
      "Label 01",
      "Label 02",
      "Label 03",
      "Label 04",
      "Label 05",
      "Label 06",
      "Label 07",
      "Label 08",
      "Label 09",
    ]);
    const label = await t.call("acme-key", "GET", `${ASSET}?label=crit`);
    expect(label.body).toMatchObject({ count: 1, data: [{ id: refs.critical }] });
    const both = await t.call("acme-key", "GET", `${ASSET}?search=label&label=1`);
    expect(names(both)).toEqual(["Label 01", "Label 10", "Label 11", "Label 12"]);
    expect((await t.call("acme-key", "GET", `${ASSET}?search=nothing-like-this`)).body).toMatchObject({
      count: 0,
      data: [],
    });
    // LIKE wildcards in the text are literal characters.
    for (const text of ["%25", "_", "Label%2501", "%5C"]) {
      expect((await t.call("acme-key", "GET", `${ASSET}?search=${text}`)).body.count, text).toBe(0);
    }
    const promo = await t.db.label.create({ data: { buyerCompanyId: refs.acme, kind: "asset", name: "50% off_sale" } });
    expect((await t.call("acme-key", "GET", `${ASSET}?search=50%25%20OFF_`)).body).toMatchObject({
      count: 1,
      data: [{ id: promo.id }],
    });
    await t.db.label.update({ where: { id: promo.id }, data: { deletedAt: new Date() } });
  });

  it("applies field filters and rejects unknown ones", async () => {
    const byColor = await t.call("acme-key", "GET", `${ASSET}?color=%23222222`);
    expect(byColor.body.count).toBe(6);
    expect(byColor.body.data.every((l: { color: string }) => l.color === "#222222")).toBe(true);
    const byId = await t.call("acme-key", "GET", `${ASSET}?id=${refs.critical},${ids.gAsset}`);
    expect(byId.body).toMatchObject({ count: 1, data: [{ id: refs.critical }] });
    expect((await t.call("acme-key", "GET", `${ASSET}?kind=work_order`)).status).toBe(400);
    expect((await t.call("acme-key", "GET", `${ASSET}?sort_by=deletedAt`)).status).toBe(400);
  });

  it("never shows deleted labels, work order labels or another company's labels", async () => {
    const all = await t.call("acme-key", "GET", `${ASSET}?no_pagination=true`);
    const listed = all.body.data.map((l: { id: number }) => l.id);
    for (const id of [ids.retired, ids.gAsset, refs.urgent]) expect(listed).not.toContain(id);
    expect((await t.call("acme-key", "GET", `${ASSET}?search=retired`)).body.count).toBe(0);
    expect((await t.call("acme-key", "GET", `${ASSET}?id=${ids.retired}`)).body.count).toBe(0);
  });

  it("reads one; deleted and other-kind labels are absent (404), another company's are out of scope (400)", async () => {
    const one = await t.call("acme-key", "GET", `${ASSET}/${refs.critical}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      type: "Label",
      status: "ok",
      data: { id: refs.critical, name: "Critical", color: "#d32f2f", buyerCompanyId: refs.acme },
    });
    for (const id of [ids.retired, refs.urgent, 987654]) {
      const reply = await t.call("acme-key", "GET", `${ASSET}/${id}`);
      expect(reply.status, String(id)).toBe(404);
      expect(reply.body.type).toBe("NotFoundException");
    }
    const foreign = await t.call("acme-key", "GET", `${ASSET}/${ids.gAsset}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.data).toBeUndefined();
    expect((await t.call("acme-key", "GET", `${ASSET}/abc`)).status).toBe(400);
  });

  it("gives another buyer only its own catalog", async () => {
    const reply = await t.call("globex-key", "GET", ASSET);
    expect(reply.body).toMatchObject({ count: 1, data: [{ id: ids.gAsset, name: "Globex asset label" }] });
    expect((await t.call("globex-key", "GET", `${ASSET}/${refs.critical}`)).status).toBe(400);
  });
});

describe("buyer work order label catalog (same mechanism)", () => {
  it("lists only live work order labels of the company", async () => {
    const reply = await t.call("acme-key", "GET", WO);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      type: "Label",
      status: "ok",
      count: 1,
      data: [{ id: refs.urgent, name: "Urgent", color: "#f57c00", buyerCompanyId: refs.acme }],
    });
    expect((await t.call("acme-key", "GET", `${WO}?no_pagination=true&search=URG`)).body).toMatchObject({
      count: 1,
      data: [{ id: refs.urgent }],
    });
    expect((await t.call("globex-key", "GET", WO)).body).toMatchObject({ count: 1, data: [{ id: ids.gWo }] });
  });

  it("reads one with the same 404/400 rules", async () => {
    expect((await t.call("acme-key", "GET", `${WO}/${refs.urgent}`)).body.data.name).toBe("Urgent");
    expect((await t.call("acme-key", "GET", `${WO}/${refs.critical}`)).status).toBe(404);
    expect((await t.call("acme-key", "GET", `${WO}/${ids.oldWo}`)).status).toBe(404);
    expect((await t.call("acme-key", "GET", `${WO}/${ids.gWo}`)).status).toBe(400);
  });

  it("pages the same way once the catalog is larger than a page", async () => {
    await t.db.label.createMany({
      data: Array.from({ length: 11 }, (_, i) => ({
        buyerCompanyId: refs.acme,
        kind: "work_order" as const,
        name: `WO ${i}`,
      })),
    });
    expect((await t.call("acme-key", "GET", WO)).body).toMatchObject({ count: 12 });
    expect((await t.call("acme-key", "GET", WO)).body.data).toHaveLength(10);
    expect((await t.call("acme-key", "GET", `${WO}?no_pagination=true`)).body.data).toHaveLength(12);
  });

  it("is not on the supplier interface", async () => {
    expect((await t.call("inhouse-key", "GET", "/v1/supplier/work_order/work_order_labels")).status).toBe(404);
  });
});

describe("supplier asset label catalog", () => {
  const SUPPLIER = "/v1/supplier/asset/asset_labels";

  it("shows an internal team its buyer's catalog with the same paging and filters", async () => {
    const reply = await t.call("inhouse-key", "GET", SUPPLIER);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ type: "Label", count: 13 });
    expect(reply.body.data).toHaveLength(10);
    expect((await t.call("inhouse-key", "GET", `${SUPPLIER}?no_pagination=true`)).body.data).toHaveLength(13);
    expect((await t.call("inhouse-key", "GET", `${SUPPLIER}?label=CRIT`)).body).toMatchObject({
      count: 1,
      data: [{ id: refs.critical }],
    });
    expect((await t.call("inhouse-key", "GET", `${SUPPLIER}/${refs.critical}`)).body.data).toMatchObject({
      id: refs.critical,
      name: "Critical",
    });
    expect((await t.call("inhouse-key", "GET", `${SUPPLIER}/${ids.gAsset}`)).status).toBe(400);
  });

  it("gives a third-party supplier an empty list and 400 on a single read", async () => {
    for (const key of ["coolco-key", "unrelated-supplier-key"]) {
      expect((await t.call(key, "GET", SUPPLIER)).body, key).toEqual({
        type: "Label",
        status: "ok",
        count: 0,
        data: [],
      });
      expect((await t.call(key, "GET", `${SUPPLIER}?no_pagination=true`)).body, key).toMatchObject({
        count: 0,
        data: [],
      });
      expect((await t.call(key, "GET", `${SUPPLIER}/${refs.critical}`)).status, key).toBe(400);
    }
  });
});
