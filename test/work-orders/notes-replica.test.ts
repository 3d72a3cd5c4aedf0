// With read replicas configured, REST lists read from one, but the notes list also writes (the read
// mark): it must be answered from the primary. The "replica" here is the test database itself over
// sessions that refuse writes (default_transaction_read_only), which the replica watcher takes for a
// primary without lag, so it is usable at once and refuses the INSERT a standby would refuse.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { waitFor } from "../support/wait.ts";

let t: TestApp;
let workOrderId = 0;

const readOnly = (url: string) => {
  const u = new URL(url);
  u.searchParams.set("options", "-c default_transaction_read_only=on");
  return u.toString();
};

beforeAll(async () => {
  t = await startTestApp({ configure: (c) => void (c.databaseReadUrls = [readOnly(c.databaseUrl)]) });
  const { refs } = t.fixture;
  const created = await t.call("acme-key", "POST", "/v1/buyer/work_order/work_orders", {
    title: "Cooler door",
    locationId: refs["store-1"],
    problemTypeId: refs.hvac,
    buyerFacilityId: refs["acme-hq"],
    buyerCompanyId: refs.acme,
    createdBy: "alice@acme.example",
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  workOrderId = created.body.data.id;
  const metric = async () => (await (await fetch(`${t.url}/metrics`)).text()).match(/^db_replica_usable\{[^}]*\} 1$/m);
  await waitFor(metric, 10_000, "the read-only replica to be usable");
});
afterAll(() => t?.close());

async function replicaReads(): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  return Number(text.match(/^db_read_requests_total\{target="replica"\} (\d+)/m)?.[1] ?? 0);
}

describe("a REST GET that writes, with read replicas", () => {
  it("reads other lists from the replica", async () => {
    const before = await replicaReads();
    const list = await t.call("acme-key", "GET", "/v1/buyer/work_order/work_orders");
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(await replicaReads()).toBe(before + 1);
  });

  it("answers the notes list from the primary, and marks the thread read", async () => {
    const before = await replicaReads();
    const notes = await t.call("acme-key", "GET", `/v1/buyer/work_order/work_order_notes/${workOrderId}`);
    expect(notes.status, JSON.stringify(notes.body)).toBe(200);
    expect(await replicaReads()).toBe(before);
    const marks = await t.db.workOrderThreadRead.count({ where: { workOrderId, thread: "root" } });
    expect(marks).toBe(1);
  });
});
