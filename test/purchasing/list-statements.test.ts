// A purchase order list and its lines in one SQL statement, over REST as over GraphQL, whatever the page
// size. The REST GET path runs each route's document compiled by graphql-jit unless a field of it is
// planned by plugin-prisma's selection mapping (http/graphql-jit.ts `compilable`): compiled, the
// mapping was not found and every page's lines were loaded again by a second statement.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

const KEY = "inhouse-partner-key";
const LIST = "/v1/partners/purchasing/purchase_orders";
const FIELDS = "id total lineItems { id quantity unitCost lineTotal quantityReceived purchaseRequestLineItemIds }";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ countStatements: true });
  const vendor = await t.call(KEY, "POST", "/v1/partners/purchasing/vendors", { name: "Parts Co" });
  expect(vendor.status, JSON.stringify(vendor.body)).toBe(200);
  for (let i = 0; i < 3; i++) {
    const order = await t.call(KEY, "POST", LIST, {
      vendorId: vendor.body.data.id,
      lineItems: [
        { description: "Filter", quantity: "2", unitCost: "4.50" },
        { description: "Belt", quantity: "1", unitCost: String(10 + i) },
      ],
    });
    expect(order.status, JSON.stringify(order.body)).toBe(200);
  }
});
afterAll(() => t?.close());

/** The statements one request sends (asked once before, so one-off work is not counted). */
async function statementsOf(send: () => Promise<{ status: number; body: any }>) {
  await send();
  const before = t.statements!.statements;
  const reply = await send();
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return { body: reply.body, statements: t.statements!.statements - before };
}

describe("purchase order list with its lines", () => {
  it("is one statement over REST for 1 and 3 orders, lines and their totals included", async () => {
    for (const limit of [1, 10]) {
      const { body, statements } = await statementsOf(() => t.call(KEY, "GET", `${LIST}?limit=${limit}`));
      expect(body.data).toHaveLength(Math.min(limit, 3));
      expect(body.data[0].lineItems.map((l: { lineTotal: string }) => l.lineTotal)).toEqual(["9.00", "12.00"]);
      expect(body.data[0].total).toBe("21.00");
      expect({ limit, statements }).toEqual({ limit, statements: 1 });
    }
    // Answered by the direct path (not SOFA's router), which is where the documents are compiled.
    const logged = t.logs.filter(
      (l) => l.msg === "request" && l.method === "GET" && String(l.url ?? l.path).includes(LIST),
    );
    expect(logged.length).toBeGreaterThanOrEqual(4);
    expect(logged.map((l) => l.restDirect)).toEqual(logged.map(() => true));
  });

  it("is one statement over GraphQL too", async () => {
    const query = `{ purchaseOrders(limit: 10) { data { ${FIELDS} } } }`;
    const { body, statements } = await statementsOf(() => t.call(KEY, "POST", "/graphql", { query }));
    expect(body.data.purchaseOrders.data).toHaveLength(3);
    expect(statements).toBe(1);
  });
});
