// The audit log: every committed mutation (REST, GraphQL, operator CLI) leaves one entry in its own
// transaction, with who, what, when and the trace id; a buyer key reads its company's entries over
// GraphQL, the operator all of them from the CLI.
import { GraphQLObjectType, GraphQLSchema, GraphQLString, GraphQLInt } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applyAudit } from "../../src/schema/core/audit.ts";
import type { Context } from "../../src/schema/core/context.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { operatorCli } from "../support/operator-cli.ts";

let t: TestApp;
let refs: Record<string, number>;
beforeAll(async () => {
  t = await startTestApp();
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

const LOG = `query($op: String, $record: String, $since: DateTime, $limit: Int, $offset: Int) {
  auditLog(operation: $op, recordId: $record, since: $since, limit: $limit, offset: $offset) {
    count data { id at channel apiKeyId contactId actor operation recordType recordIds traceId }
  }
}`;

const cli = (args: string[]) => operatorCli(t.databaseUrl, args, { env: { OPERATOR_NAME: "ops-oliver" } });

describe("audit entries", () => {
  it("record a REST write: key, contact, operation, record ids, time and the trace id", async () => {
    const before = new Date();
    const reply = await t.call(
      "acme-key",
      "POST",
      "/v1/buyer/asset/asset_types",
      { name: "Audited type" },
      { "X-Request-Id": "trace-audit-rest-1" },
    );
    expect(reply.status).toBe(200);
    const key = await t.db.apiKey.findUniqueOrThrow({
      where: { apiKey: t.headers("acme-key")["X-API-KEY"] },
      include: { contact: true },
    });
    const entries = await t.db.auditEntry.findMany({ where: { traceId: "trace-audit-rest-1" } });
    expect(entries).toEqual([
      expect.objectContaining({
        channel: "buyer",
        apiKeyId: key.id,
        contactId: key.contactId,
        actor: key.contact.email,
        buyerCompanyId: refs.acme,
        supplierFacilityId: null,
        operation: "upsertAssetType",
        recordType: "AssetType",
        recordIds: [String(reply.body.data.id)],
      }),
    ]);
    expect(entries[0].at.getTime()).toBeGreaterThanOrEqual(before.getTime() - 1000);
  });

  it("record a GraphQL write, and a supplier key's write under its facility", async () => {
    const reply = await t.graphql(
      "acme-key",
      `mutation { upsertAssetType(input: { name: "Audited over GraphQL" }) { id } }`,
    );
    expect(reply.body.errors).toBeUndefined();
    const id = String(reply.body.data.upsertAssetType.id);
    const entry = await t.db.auditEntry.findFirstOrThrow({
      where: { recordIds: { has: id }, operation: "upsertAssetType" },
    });
    expect(entry).toMatchObject({ channel: "graphql", traceId: reply.headers.get("x-trace-id") });

    const wo = await t.call("acme-key", "POST", "/v1/buyer/work_order/work_orders", {
      title: "Audited work order",
      locationId: refs["store-1"],
      problemTypeId: refs.hvac,
      buyerFacilityId: refs["acme-hq"],
      buyerCompanyId: refs.acme,
      createdBy: "alice@acme.example",
      supplierFacilityId: refs["coolco-pdx"],
    });
    expect(wo.status).toBe(200);
    const confirm = await t.call("coolco-key", "PATCH", "/v1/supplier/work_order/work_orders/confirm", {
      id: wo.body.data.id,
    });
    expect(confirm.status).toBe(200);
    const supplierEntry = await t.db.auditEntry.findFirstOrThrow({
      where: { traceId: confirm.headers.get("x-trace-id")! },
    });
    expect(supplierEntry).toMatchObject({
      channel: "supplier",
      buyerCompanyId: null,
      supplierFacilityId: refs["coolco-pdx"],
      recordIds: [String(wo.body.data.id)],
    });
  });

  it("are not written for a refused or failed write, nor for an idempotent replay", async () => {
    const count = () => t.db.auditEntry.count();
    const before = await count();
    expect((await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", { name: " " })).status).toBe(400);
    expect(
      (
        await t.call("acme-key", "PATCH", `/v1/buyer/location/locations/${refs["globex-store"] ?? 999999}`, {
          locationTypeDetails: {},
        })
      ).status,
    ).toBe(400);
    expect(await count()).toBe(before);
    const key = { "Idempotency-Key": `audit-${Date.now()}` };
    await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", { name: "Once audited" }, key);
    await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", { name: "Once audited" }, key);
    expect(await count()).toBe(before + 1);
  });

  it("commit with the mutation: when the entry cannot be written, the mutation's writes roll back too", async () => {
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({ name: "Query", fields: { ok: { type: GraphQLString } } }),
      mutation: new GraphQLObjectType({
        name: "Mutation",
        fields: {
          makeType: {
            type: GraphQLInt,
            resolve: async (_p, _a, ctx: Context) =>
              (
                await ctx.db.assetType.create({
                  data: { buyerCompanyId: refs.acme, name: "Written without its entry" },
                })
              ).id,
          },
        },
      }),
    });
    applyAudit(schema);
    const viewer = {
      kind: "buyer",
      keyId: 1,
      contactId: 1,
      email: "x@y",
      buyerCompanyId: refs.acme,
      supplierFacilityId: null,
    };
    // traceId is required in the entry: null makes its INSERT fail after the mutation wrote its row.
    const ctx = { db: t.db, viewer, channel: "graphql", traceId: null, now: () => new Date() } as unknown as Context;
    const resolve = schema.getMutationType()!.getFields().makeType.resolve!;
    await expect(Promise.resolve(resolve(undefined, {}, ctx, {} as never))).rejects.toThrow();
    expect(await t.db.assetType.count({ where: { name: "Written without its entry" } })).toBe(0);
  });
});

describe("reading the audit log", () => {
  it("gives a buyer key its own company's entries over GraphQL, newest first, filtered and paged", async () => {
    await t.call("globex-key", "POST", "/v1/buyer/asset/asset_types", { name: "Globex's own" });
    const created = await t.call("acme-key", "POST", "/v1/buyer/asset/asset_types", { name: "Find me in the log" });
    const all = (await t.graphql("acme-key", LOG, { limit: 100 })).body.data.auditLog;
    expect(all.count).toBe(await t.db.auditEntry.count({ where: { buyerCompanyId: refs.acme } }));
    expect(all.data.every((e: { actor: string }) => e.actor === "alice@acme.example")).toBe(true);
    expect(all.data.map((e: { at: string }) => e.at)).toEqual(
      [...all.data.map((e: { at: string }) => e.at)].sort().reverse(),
    );
    const byRecord = (await t.graphql("acme-key", LOG, { record: String(created.body.data.id), op: "upsertAssetType" }))
      .body.data.auditLog;
    expect(byRecord).toMatchObject({
      count: 1,
      data: [{ recordIds: [String(created.body.data.id)], traceId: created.headers.get("x-trace-id") }],
    });
    const page = (await t.graphql("acme-key", LOG, { limit: 1, offset: 1 })).body.data.auditLog;
    expect(page.data).toEqual([all.data[1]]);
    expect(
      (await t.graphql("acme-key", LOG, { since: new Date(Date.now() + 60_000).toISOString() })).body.data.auditLog
        .count,
    ).toBe(0);
    const globex = (await t.graphql("globex-key", LOG, { limit: 100 })).body.data.auditLog;
    expect(globex.data.map((e: { actor: string }) => e.actor)).not.toContain("alice@acme.example");
    expect(globex.count).toBeGreaterThan(0);
  });

  it("is for buyer keys only, and GraphQL only", async () => {
    const supplier = await t.graphql("coolco-key", LOG, {});
    expect(supplier.body.errors[0].extensions.code).toBe("ForbiddenException");
    expect((await t.call("acme-key", "GET", "/v1/buyer/audit_log")).status).toBe(404);
  });
});

describe("the operator CLI", () => {
  it("audits its own changes in their transaction and lists the log", { timeout: 120_000 }, async () => {
    // A failed command writes nothing.
    const [issued, failed] = await Promise.all([
      cli(["keys", "issue", "--contact", "alice@acme.example", "--kind", "buyer"]),
      cli(["keys", "issue", "--contact", "nobody@nowhere.example", "--kind", "buyer"]),
    ]);
    expect(issued.code, issued.stderr).toBe(0);
    expect(failed.code).toBe(1);
    const keyId = JSON.parse(issued.stdout).id as number;
    const [listed, acme] = await Promise.all([
      cli(["audit", "--operation", "keys issue", "--limit", "5"]),
      cli(["audit", "--buyer-company", String(refs.acme), "--limit", "1"]),
    ]);
    expect(listed.code, listed.stderr).toBe(0);
    const log = JSON.parse(listed.stdout);
    expect(log.count).toBe(1);
    expect(log.data[0]).toMatchObject({
      channel: "operator",
      actor: "operator:ops-oliver",
      operation: "keys issue",
      recordIds: [String(keyId)],
      apiKeyId: null,
      traceId: expect.any(String),
    });
    expect(await t.db.auditEntry.count({ where: { channel: "operator" } })).toBe(1);
    // The API's entries are there too, for every company.
    const everything = JSON.parse(acme.stdout);
    expect(everything.count).toBe(await t.db.auditEntry.count({ where: { buyerCompanyId: refs.acme } }));
  });
});
