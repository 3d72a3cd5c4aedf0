// The cost roll-up as a plain function (no server): exact sums, one half-up rounding of the tax, lump
// sums, what an update keeps, and what a mismatch reports.
import { describe, expect, it } from "vitest";
import { Prisma } from "../../src/db.ts";
import { rollUpCosts } from "../../src/schema/proposals/rules/costs.ts";
import { PROPOSAL_TOTALS } from "../../src/schema/proposals/rules/proposals.ts";

const text = (data: Record<string, unknown>, field: string) => (data[field] as Prisma.Decimal).toFixed(2);

describe("rollUpCosts", () => {
  it("adds exactly where floats would not (0.1 + 0.2)", () => {
    const { data, mismatches } = rollUpCosts(
      {
        laborLineItems: [
          { description: "a", amount: "0.1" },
          { description: "b", amount: "0.2" },
        ],
        totalAfterTax: "0.30",
      },
      null,
      PROPOSAL_TOTALS,
    );
    expect(mismatches).toEqual([]);
    expect(text(data, "laborTotalBeforeTax")).toBe("0.30");
    expect(data.laborLineItems).toEqual([
      { description: "a", amount: "0.10" },
      { description: "b", amount: "0.20" },
    ]);
  });

  it("rounds the tax once, half up, over every rate", () => {
    // 0.05 × 10% = 0.005 and 0.05 × 10% = 0.005: rounded per section that would be 0.01 + 0.01; once, 0.01.
    const input = {
      laborTotalBeforeTax: "0.05",
      laborTaxRate: "10",
      materialTotalBeforeTax: "0.05",
      materialTaxRate: "10",
      totalAfterTax: "0.11",
    };
    const { data, mismatches } = rollUpCosts(input, null, PROPOSAL_TOTALS);
    expect(text(data, "tax")).toBe("0.01");
    expect(mismatches).toEqual([]);
    expect(rollUpCosts({ ...input, totalAfterTax: "0.12" }, null, PROPOSAL_TOTALS).mismatches).toEqual([
      "totalAfterTax is 0.12 but totalBeforeTax 0.10 + tax 0.01 = 0.11",
    ]);
    // Exactly half a cent rounds up.
    expect(text(rollUpCosts({ miscTotalBeforeTax: "0.50", taxRate: "1" }, null, PROPOSAL_TOTALS).data, "tax")).toBe(
      "0.01",
    );
  });

  it("adds tax lines after the rounding", () => {
    const { data } = rollUpCosts(
      { freightTotalBeforeTax: "10.00", taxRate: "5" },
      null,
      PROPOSAL_TOTALS,
      new Prisma.Decimal("1.30"),
    );
    expect(text(data, "tax")).toBe("1.80");
    expect(text(data, "totalAfterTax")).toBe("11.80");
  });

  it("keeps stored lines, rates and lump sums on an update, and recomputes the totals", () => {
    const first = rollUpCosts(
      {
        travelTotalBeforeTax: "40.00",
        materialLineItems: [{ description: "m", amount: "10.00" }],
        materialTaxRate: "10",
      },
      null,
      PROPOSAL_TOTALS,
    ).data;
    const next = rollUpCosts({ laborLineItems: [{ description: "l", amount: "5.00" }] }, first, PROPOSAL_TOTALS);
    expect(next.mismatches).toEqual([]);
    expect(text(next.data, "travelTotalBeforeTax")).toBe("40.00");
    expect(text(next.data, "totalBeforeTax")).toBe("55.00");
    expect(text(next.data, "tax")).toBe("1.00");
    // Clearing a section's lines (null) empties it.
    expect(text(rollUpCosts({ materialLineItems: null }, first, PROPOSAL_TOTALS).data, "materialTotalBeforeTax")).toBe(
      "0.00",
    );
  });

  it("derives the totals not sent from a sent after-tax total when nothing is under it", () => {
    const only = rollUpCosts({ totalAfterTax: "100.00" }, null, PROPOSAL_TOTALS);
    expect(only.mismatches).toEqual([]);
    expect([text(only.data, "totalBeforeTax"), text(only.data, "tax")]).toEqual(["100.00", "0.00"]);
    // With a document rate: the before-tax total whose rounded tax reaches the after-tax total.
    const taxed = rollUpCosts({ totalAfterTax: "113.00", taxRate: "13" }, null, PROPOSAL_TOTALS);
    expect(taxed.mismatches).toEqual([]);
    expect([text(taxed.data, "totalBeforeTax"), text(taxed.data, "tax")]).toEqual(["100.00", "13.00"]);
    const odd = rollUpCosts({ totalAfterTax: "10.01", taxRate: "8.875" }, null, PROPOSAL_TOTALS);
    expect(odd.mismatches).toEqual([]);
    expect(text(odd.data, "totalBeforeTax")).toBe("9.19");
    // A sent tax with no rate under it still contradicts the rates' zero.
    expect(rollUpCosts({ totalAfterTax: "110.00", tax: "10.00" }, null, PROPOSAL_TOTALS).mismatches).toEqual([
      "tax is 10.00 but the tax rates give 0.00",
      "totalAfterTax is 110.00 but totalBeforeTax 100.00 + tax 0.00 = 100.00",
    ]);
    // A before-tax lump sum is kept by an update that sends no totals, and is the base of a new rate.
    const kept = rollUpCosts({ taxRate: "10" }, only.data, PROPOSAL_TOTALS);
    expect([text(kept.data, "totalBeforeTax"), text(kept.data, "totalAfterTax")]).toEqual(["100.00", "110.00"]);
    expect(rollUpCosts({ totalBeforeTax: "40.00" }, null, PROPOSAL_TOTALS).mismatches).toEqual([]);
  });

  it("reports every mismatch at once", () => {
    const { mismatches } = rollUpCosts(
      {
        laborLineItems: [{ description: "l", amount: "5.00" }],
        laborTotalBeforeTax: "6.00",
        totalBeforeTax: "7.00",
        tax: "1.00",
        totalAfterTax: "9.00",
      },
      null,
      PROPOSAL_TOTALS,
    );
    expect(mismatches).toEqual([
      "laborTotalBeforeTax is 6.00 but its line items add up to 5.00",
      "totalBeforeTax is 7.00 but the section totals add up to 6.00",
      "tax is 1.00 but the tax rates give 0.00",
      "totalAfterTax is 9.00 but totalBeforeTax 6.00 + tax 0.00 = 6.00",
    ]);
  });
});
