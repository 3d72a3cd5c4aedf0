// GET /v1/buyer/currency_exchange/latest/{target}/{base}: the latest stored rate by effective time,
// code validation, the rate's decimal text, and 404 for a pair with no rate.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
const latest = (target: string, base: string, key = "acme-key") =>
  t.call(key, "GET", `/v1/buyer/currency_exchange/latest/${target}/${base}`);

beforeAll(async () => {
  t = await startTestApp();
  // Inserted newest first, so "latest" must come from `at`, not from insertion order.
  await t.db.currencyRate.createMany({
    data: [
      { base: "EUR", target: "USD", rate: "1.08123456", at: new Date("2026-11-20T00:00:00Z") },
      { base: "EUR", target: "USD", rate: "1.0700", at: new Date("2026-10-01T00:00:00Z") },
      { base: "EUR", target: "USD", rate: "1.0900", at: new Date("2026-11-10T12:30:00Z") },
      { base: "GBP", target: "USD", rate: "1.5", at: new Date("2026-11-01T00:00:00Z") },
      { base: "USD", target: "JPY", rate: "151.2", at: new Date("2026-11-01T00:00:00Z") },
      { base: "JPY", target: "USD", rate: "0.00661200", at: new Date("2026-11-01T00:00:00Z") },
    ],
  });
});
afterAll(() => t?.close());

describe("latest exchange rate", () => {
  it("returns the operator's rate from base to target as stored", async () => {
    const reply = await latest("CAD", "USD");
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      type: "CurrencyExchangeRate",
      status: "ok",
      data: { baseCurrency: "USD", targetCurrency: "CAD", rate: "1.3650", effectiveAt: "2026-11-01T00:00:00.000Z" },
    });
  });

  it("picks the most recent rate by effective time", async () => {
    expect((await latest("USD", "EUR")).body.data).toEqual({
      baseCurrency: "EUR",
      targetCurrency: "USD",
      rate: "1.08123456",
      effectiveAt: "2026-11-20T00:00:00.000Z",
    });
  });

  it("keeps at least 4 decimals and every significant digit", async () => {
    expect((await latest("USD", "GBP")).body.data.rate).toBe("1.5000");
    expect((await latest("JPY", "USD")).body.data.rate).toBe("151.2000");
    expect((await latest("USD", "JPY")).body.data.rate).toBe("0.006612");
  });

  it("accepts lower-case codes and answers with upper-case ones", async () => {
    expect((await latest("cad", "uSd")).body.data).toMatchObject({
      baseCurrency: "USD",
      targetCurrency: "CAD",
      rate: "1.3650",
    });
  });

  it("gives 404 for a pair with no stored rate, including the reverse of a stored one", async () => {
    for (const [target, base] of [
      ["USD", "CAD"],
      ["XYZ", "USD"],
      ["EUR", "EUR"],
    ]) {
      const reply = await latest(target, base);
      expect(reply.status, `${base}->${target}`).toBe(404);
      expect(reply.body.type).toBe("NotFoundException");
    }
  });

  it("rejects anything but three letters with 400", async () => {
    for (const [target, base] of [
      ["CA", "USD"],
      ["CAD", "USDX"],
      ["C4D", "USD"],
      ["CAD", "U%24D"],
      ["CAD", "%20US"],
      ["123", "USD"],
    ]) {
      const reply = await latest(target, base);
      expect(reply.status, `${target}/${base}`).toBe(400);
      expect(reply.body.type).toBe("invalidInputDataException");
    }
  });

  it("serves every buyer the same reference rates, and is not on the supplier interface", async () => {
    expect((await latest("CAD", "USD", "globex-key")).body.data.rate).toBe("1.3650");
    expect((await t.call("inhouse-key", "GET", "/v1/supplier/currency_exchange/latest/CAD/USD")).status).toBe(404);
  });
});
