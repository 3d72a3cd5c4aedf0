// The due-work dispatcher's slots (core/due-work.ts), which the webhook deliveries run on: a slot is
// free once its attempt has sent (the record may still be landing, within a bound). The rows here are
// numbers handed out by an in-memory claim; the database side is scheduler.test.ts's.
import { afterEach, describe, expect, it } from "vitest";
import { startDueWork, type DueWork } from "../../src/schema/core/due-work.ts";
import { silentLogger } from "../support/app.ts";
import { sleep, waitFor } from "../support/wait.ts";

/** A deferred promise: the test decides when an attempt's step ends. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

let dispatcher: DueWork | undefined;
afterEach(async () => {
  await dispatcher?.close();
  dispatcher = undefined;
});

/** Rows 1..n due; every claim takes up to its limit of them, oldest first. */
function dueRows(n: number) {
  const due = Array.from({ length: n }, (_, i) => i + 1);
  const limits: number[] = [];
  return {
    due,
    limits,
    claim: async (limit: number) => {
      limits.push(limit);
      return due.splice(0, limit);
    },
  };
}

const common = { name: "test", logger: silentLogger(), intervalMs: 60_000 };

describe("the due-work dispatcher", () => {
  it("frees a slot once its attempt has sent, and holds at most as many records waiting as slots", async () => {
    const rows = dueRows(6);
    const started: number[] = [];
    const records = gate();
    dispatcher = startDueWork({
      ...common,
      concurrency: 2,
      claim: rows.claim,
      run: async (row, sent) => {
        started.push(row);
        await Promise.resolve(); // the POST
        sent();
        await records.opened; // the record, still landing
      },
    });
    // Two slots, yet four rows attempted: the first two sent and gave their slots up.
    await waitFor(() => started.length === 4, 2_000, "four attempts");
    await sleep(50);
    expect(started).toEqual([1, 2, 3, 4]);
    expect(rows.due).toEqual([5, 6]); // four records waiting: no more claims until one lands
    records.open();
    await waitFor(() => started.length === 6, 2_000, "the last two attempts");
  });
});

describe("rows handed over by their writer (reserve)", () => {
  it("holds free slots for them, runs what is handed over without a claim, and gives the rest back", async () => {
    const rows = dueRows(0);
    const started: number[] = [];
    const finish = gate();
    dispatcher = startDueWork<number>({
      ...common,
      concurrency: 4,
      claim: rows.claim,
      run: async (row, sent) => {
        started.push(row);
        await finish.opened;
        sent();
      },
    });
    await waitFor(() => rows.limits.length === 1, 2_000, "the first claim");
    const first = dispatcher.reserve(3);
    expect(first.count).toBe(3);
    // Only the one slot left is offered to another writer, and to the claims.
    expect(dispatcher.reserve(5).count).toBe(1);
    first.handOver([101, 102]);
    expect(started).toEqual([101, 102]);
    expect(rows.limits).toHaveLength(1); // no claim ran for them
    expect(() => first.handOver([])).toThrow(/once/);
    // The third reserved slot came back: with the second reservation still held, one is free.
    expect(dispatcher.reserve(5).count).toBe(1);
    finish.open();
  });

  it("refuses more rows than it reserved for", async () => {
    dispatcher = startDueWork<number>({ ...common, concurrency: 2, claim: async () => [], run: async () => {} });
    const reservation = dispatcher.reserve(1);
    expect(() => reservation.handOver([1, 2])).toThrow(/2 rows handed over for 1 slots/);
  });
});
