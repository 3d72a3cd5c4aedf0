// The due-work dispatcher's slots (core/due-work.ts), which the webhook deliveries run on: a slot is
// free once its attempt has sent (the record may still be landing, within a bound), rows claimed ahead
// wait for a slot, a row that waited past its lease's margin is not run, and close attempts what it
// holds. The rows here are numbers handed out by an in-memory claim; the database side is
// scheduler.test.ts's.
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

/** Attempts that end when the test says so (or at once, after `finishAll`). */
function gatedRuns() {
  const started: number[] = [];
  const open = new Map<number, () => void>();
  let finishing = false;
  return {
    started,
    run: (row: number) => {
      started.push(row);
      if (finishing) return Promise.resolve();
      const attempt = gate();
      open.set(row, attempt.open);
      return attempt.opened;
    },
    finish: (row: number) => open.get(row)!(),
    finishAll() {
      finishing = true;
      for (const end of open.values()) end();
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

  it("claims ahead of its slots; the rows claimed ahead run as slots free up", async () => {
    const rows = dueRows(10);
    const runs = gatedRuns();
    dispatcher = startDueWork({ ...common, concurrency: 2, ahead: 2, claim: rows.claim, run: runs.run });
    await waitFor(() => runs.started.length === 2, 2_000, "two attempts");
    expect(rows.limits[0]).toBe(4); // two slots and two ahead
    expect(rows.due[0]).toBe(5);
    runs.finish(1);
    // Row 3 (claimed ahead) takes the slot at once; a claim for the room that frees follows.
    await waitFor(() => runs.started.length === 3, 2_000, "the third attempt");
    expect(runs.started).toEqual([1, 2, 3]);
    await waitFor(() => rows.due[0] === 6, 2_000, "the next claim");
    runs.finishAll();
  });

  it("does not run a row that waited past its lease's margin, and attempts the rows it holds when closed", async () => {
    const rows = dueRows(4);
    const runs = gatedRuns();
    const work = startDueWork({
      ...common,
      concurrency: 1,
      ahead: 3,
      claim: rows.claim,
      run: runs.run,
      stale: (row) => row === 2,
    });
    await waitFor(() => runs.started.length === 1, 2_000, "the first attempt");
    expect(rows.due).toEqual([]); // 2, 3 and 4 claimed ahead
    const closed = work.close();
    runs.finish(1);
    await waitFor(() => runs.started.length === 2, 2_000, "the next held row");
    expect(runs.started).toEqual([1, 3]); // 2 is left to its lease
    runs.finish(3);
    await waitFor(() => runs.started.length === 3, 2_000, "the last held row");
    runs.finish(4);
    await closed;
    expect(runs.started).toEqual([1, 3, 4]);
  });
});
