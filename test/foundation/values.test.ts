// The values every feature reads and writes alike (src/schema/core/values.ts): decimal strings for money
// and quantities, their text in answers, and trimmed text with a limit. Each refusal is a 400 naming
// the field.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Prisma } from "../../src/db.ts";
import {
  decimalFromText,
  decimalOf,
  MONEY,
  moneyText,
  QUANTITY,
  quantityOf,
  quantityText,
  RETURNABLE_QUANTITY,
  textOf,
} from "../../src/schema/core/values.ts";

const refusal = (read: () => unknown) => {
  try {
    read();
  } catch (error) {
    return { status: (error as { status: number }).status, message: (error as Error).message };
  }
  throw new Error("not refused");
};

describe("decimal strings", () => {
  it("reads exact decimals within the rule", () => {
    expect(decimalOf(" 12.5 ", "amount", MONEY).equals("12.50")).toBe(true);
    expect(decimalOf("0009999999999.99", "amount", MONEY).toFixed()).toBe("9999999999.99");
    expect(decimalOf("-2.5", "quantity", RETURNABLE_QUANTITY).toFixed()).toBe("-2.5");
  });

  it("refuses numbers, other notations, too many digits and negatives, naming the field", () => {
    expect(refusal(() => decimalOf(12.5, "amount", MONEY))).toEqual({
      status: 400,
      message: 'amount must be a decimal string such as "12.50", got 12.5',
    });
    expect(refusal(() => decimalOf("1e3", "amount", MONEY)).message).toMatch(/^amount must be a decimal string/);
    expect(refusal(() => decimalOf("1.005", "amount", MONEY)).message).toBe(
      "amount allows at most 2 digits after the decimal point",
    );
    expect(refusal(() => decimalOf("12345678901", "amount", MONEY)).message).toBe(
      "amount allows at most 10 digits before the decimal point",
    );
    expect(refusal(() => decimalOf("-1", "amount", MONEY)).message).toBe("amount must not be negative");
  });

  it("writes money with two decimals and quantities with four; a missing amount stays null", () => {
    expect(moneyText(new Prisma.Decimal("3.1"))).toBe("3.10");
    expect(moneyText(new Prisma.Decimal(0))).toBe("0.00");
    expect(moneyText(null)).toBeNull();
    expect(quantityText(new Prisma.Decimal("2.5"))).toBe("2.5000");
  });

  it("refuses a zero quantity, and a negative one unless a return is recorded", () => {
    expect(refusal(() => quantityOf("0.0000", "quantity")).message).toBe("quantity must not be zero");
    expect(refusal(() => quantityOf("-1", "quantity", QUANTITY)).message).toBe("quantity must not be negative");
    expect(quantityOf("-1", "quantity", RETURNABLE_QUANTITY).toFixed()).toBe("-1");
  });
});

describe("text", () => {
  it("trims, refuses what is too long, and makes blank null unless the field is required", () => {
    expect(textOf("  a note ", "note", 10)).toBe("a note");
    expect(textOf("   ", "note", 10)).toBeNull();
    expect(refusal(() => textOf("   ", "reason", 10, true))).toEqual({
      status: 400,
      message: "reason must not be blank",
    });
    expect(refusal(() => textOf("x".repeat(11), "note", 10)).message).toBe("note allows at most 10 characters");
    expect(textOf(` ${"x".repeat(10)} `, "note", 10)).toHaveLength(10);
  });
});

describe("decimals read as PostgreSQL's text (json-rows)", () => {
  /** Everything an answer or a rule reads of a decimal, from `value`. */
  const seen = (value: Prisma.Decimal) => [
    value instanceof Prisma.Decimal,
    Prisma.Decimal.isDecimal(value),
    value.toFixed(),
    value.toFixed(0),
    value.toFixed(2),
    value.toFixed(4),
    value.toFixed(2, Prisma.Decimal.ROUND_DOWN),
    value.toString(),
    JSON.stringify(value),
    value.isZero(),
    value.isNegative(),
    value.plus("0.005").toFixed(2),
    value.times(3).constructor === Prisma.Decimal,
    value.comparedTo(1),
    Number(value),
  ];

  it("answer as the Decimal parsed from the same text, for any numeric text PostgreSQL writes", () => {
    // As numeric's output writes them: an optional sign, digits, and the column's scale of decimals.
    const numericText = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 14n }), fc.integer({ min: 0, max: 6 }))
      .map(([negative, digits, scale]) => {
        const text = digits.toString().padStart(scale + 1, "0");
        const number = scale ? `${text.slice(0, -scale)}.${text.slice(-scale)}` : text;
        return negative && digits !== 0n ? `-${number}` : number;
      });
    fc.assert(
      fc.property(numericText, (text) => {
        expect(seen(decimalFromText(text))).toEqual(seen(new Prisma.Decimal(text)));
      }),
      { numRuns: 500 },
    );
    for (const text of ["0.00", "100.0000", "8.8750", "-3.10", "7", "NaN", "0.0000001"])
      expect(seen(decimalFromText(text)), text).toEqual(seen(new Prisma.Decimal(text)));
  });

  it("compute as the parsed value before and after their text answered", () => {
    const value = decimalFromText("12.50");
    expect(moneyText(value)).toBe("12.50");
    expect(value.plus(1).toFixed(2)).toBe("13.50");
    expect(value.times(value).toFixed(4)).toBe("156.2500");
    expect(new Prisma.Decimal(value).equals("12.5")).toBe(true);
    expect(moneyText(value)).toBe("12.50");
  });
});
