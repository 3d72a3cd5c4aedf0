// The one lifecycle engine (src/schema/core/state-table.ts), over a small table of its own: the row
// taken, the status picked, and every refusal's wording and error, which the contract's 400s and an
// invoice save's 406 repeat byte for byte.
import { describe, expect, it } from "vitest";
import { ApiError, notAcceptable } from "../../src/schema/core/errors.ts";
import { stateTable, TransitionRefused } from "../../src/schema/core/state-table.ts";

type Door = "shut" | "open" | "locked";
const DOOR = stateTable<Door, "guest" | "keeper", { windy: boolean }>("door", [
  { action: "create", actor: "keeper", from: [], to: ["shut"] },
  {
    action: "push_open",
    actor: "guest",
    from: ["shut"],
    to: ["open", "shut"],
    pick: (f) => (f.windy ? "shut" : "open"),
  },
  { action: "lock", actor: "keeper", from: ["shut"], to: ["locked"] },
]);

describe("stateTable", () => {
  it("takes the row for (action, actor) and leads to its status, picked from the facts", () => {
    expect(DOOR.next("lock", "keeper", "shut")).toBe("locked");
    expect(DOOR.next("push_open", "guest", "shut", { facts: { windy: false } })).toBe("open");
    expect(DOOR.next("push_open", "guest", "shut", { facts: { windy: true } })).toBe("shut");
    expect(DOOR.allowed("lock", "keeper", "shut")).toBe(DOOR.rows[2]);
  });

  it("refuses an action from a status the row does not list, naming the status and the allowed ones", () => {
    const refusal = (() => {
      try {
        DOOR.next("lock", "keeper", "open");
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(TransitionRefused);
    expect(refusal).toBeInstanceOf(ApiError);
    expect(refusal).toMatchObject({
      status: 400,
      type: "invalidInputDataException",
      message: "cannot lock a door in status open; allowed from shut",
    });
  });

  it("refuses an action the actor has no row for, and never takes a create row", () => {
    expect(() => DOOR.next("lock", "guest", "shut")).toThrow(new TransitionRefused("guest cannot lock a door"));
    expect(() => DOOR.next("open_wide", "guest", "shut")).toThrow("guest cannot open_wide a door");
    expect(() => DOOR.next("create", "keeper", "shut")).toThrow("cannot create a door in status shut; allowed from ");
  });

  it("names the record when given its id, and words actions as the table says", () => {
    expect(() => DOOR.allowed("lock", "keeper", "locked", { id: 7 })).toThrow(
      "cannot lock door 7 in status locked; allowed from shut",
    );
    expect(() => DOOR.allowed("push_open", "guest", "open")).toThrow("cannot push_open a door in status open");
    const spaced = stateTable<Door, "guest">("door", DOOR.rows.filter((r) => r.actor === "guest") as never, {
      spacedActions: true,
    });
    expect(() => spaced.allowed("push_open", "guest", "open")).toThrow("cannot push open a door in status open");
  });

  it("refuses to build a table whose row leads to several statuses with nothing to pick one", () => {
    expect(() =>
      stateTable<Door, "guest">("door", [{ action: "push", actor: "guest", from: ["shut"], to: ["open", "shut"] }]),
    ).toThrow("door table: push leads to several statuses without a pick");
  });

  it("answers a refusal with the caller's error when it brings one", () => {
    let caught: unknown;
    try {
      DOOR.allowed("lock", "keeper", "open", { id: 3, refuse: notAcceptable });
    } catch (error) {
      caught = error;
    }
    expect(caught).not.toBeInstanceOf(TransitionRefused);
    expect(caught).toMatchObject({ status: 406, message: "cannot lock door 3 in status open; allowed from shut" });
  });
});
