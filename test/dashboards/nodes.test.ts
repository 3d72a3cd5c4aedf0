// Relay refetch from outside: node(id:)/nodes(ids:) answer a row only inside the key's scope; a global id
// of another tenant's row, an unknown id and a malformed one answer null like a row that is not there.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { acmeWorkOrder } from "../support/work-order-events.ts";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const globalIdOf = (type: string, id: number | string) => Buffer.from(`${type}:${id}`).toString("base64");

describe("node(id:) on work orders", () => {
  it("refetches a work order by its globalId within the key's scope and nowhere else", async () => {
    const created = await acmeWorkOrder(t, { title: "Walk-in cooler" });
    const listed = await t.graphql("acme-key", `{ workOrder(id: ${created.id}) { id globalId title } }`);
    const row = listed.body.data.workOrder;
    expect(row.globalId).toBe(globalIdOf("WorkOrder", row.id));
    const query = `query($id: ID!) { node(id: $id) { globalId ... on WorkOrder { id title } } }`;
    const own = await t.graphql("acme-key", query, { id: row.globalId });
    expect(own.body.data.node).toEqual({ globalId: row.globalId, id: row.id, title: row.title });
    const foreign = await t.graphql("globex-key", query, { id: row.globalId });
    expect(foreign.body.data.node).toBeNull();
    for (const id of [globalIdOf("WorkOrder", 999_999_999), globalIdOf("WorkOrder", "1 OR 1=1")]) {
      const missing = await t.graphql("acme-key", query, { id });
      expect(missing.body.data.node).toBeNull();
    }
    const many = await t.graphql("globex-key", `query($ids: [ID!]!) { nodes(ids: $ids) { globalId } }`, {
      ids: [row.globalId],
    });
    expect(many.body.data.nodes).toEqual([null]);
  });
});
