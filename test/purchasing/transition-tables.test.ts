// The state tables in docs/purchasing.md are the transition tables the code runs: a row changed on one
// side and not the other fails here. And the tables' `next` refuses what they do not list.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { REQUEST_STATES } from "../../src/schema/purchasing/rules/request-states.ts";
import { ORDER_STATES } from "../../src/schema/purchasing/rules/order-states.ts";

const doc = fs.readFileSync(new URL("../../docs/purchasing.md", import.meta.url), "utf8");
const section = (from: string, to: string) => doc.slice(doc.indexOf(from), doc.indexOf(to));

/** The state table rows of a doc section: action → [actor, from, to]. */
function documented(text: string): Map<string, string[]> {
  const rows = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 6 || cells[1] === "action" || cells[1].startsWith("-")) continue;
    rows.set(cells[1], [cells[2].split(" ")[0], cells[3], cells[4]]);
  }
  return rows;
}

describe("transition tables", () => {
  for (const [name, table, text] of [
    ["purchase request", REQUEST_STATES, section("## Purchase requests", "## Purchase orders")],
    ["purchase order", ORDER_STATES, section("## Purchase orders", "### Associating")],
  ] as const) {
    it(`${name}: docs/purchasing.md lists exactly the code's rows`, () => {
      const rows = documented(text);
      expect([...rows.keys()].sort()).toEqual(table.rows.map((r) => r.action).sort());
      for (const row of table.rows) {
        const [actor, from, to] = rows.get(row.action)!;
        expect(actor, row.action).toBe(row.actor);
        expect(from, row.action).toBe(row.from.length ? row.from.join(", ") : "—");
        expect(to.replace(/ or /g, ", "), row.action).toBe(row.to.join(", "));
      }
    });
  }

  it("refuse an action from a status the table does not list, naming the status", () => {
    expect(() => REQUEST_STATES.next("approve", "approver", "draft")).toThrow(
      /cannot approve a purchase request in status draft; allowed from submitted/,
    );
    expect(() => ORDER_STATES.next("receive", "team", "cancelled", { facts: { received: "all" } })).toThrow(
      /in status cancelled/,
    );
    expect(ORDER_STATES.next("receive", "team", "received", { facts: { received: "some" } })).toBe(
      "partially_received",
    );
    expect(ORDER_STATES.next("receive", "team", "partially_received", { facts: { received: "none" } })).toBe("ordered");
    expect(REQUEST_STATES.next("reopen", "system", "ordered")).toBe("approved");
  });
});
