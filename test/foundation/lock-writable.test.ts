// The one "find and lock the record a write changes" helper (src/schema/core/tenancy.ts lockWritable):
// the row in scope comes back as the query asks, anything else is the contract's 400 (or the caller's
// error), and the row stays locked until the transaction ends.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badInput } from "../../src/schema/core/errors.ts";
import { lockWritable } from "../../src/schema/core/tenancy.ts";
import { startTestApp, type TestApp } from "../support/app.ts";

let t: TestApp;
let acme: number;
beforeAll(async () => {
  t = await startTestApp();
  acme = t.fixture.refs.acme;
});
afterAll(() => t?.close());

describe("lockWritable", () => {
  it("reads the row in scope as the query asks", async () => {
    const row = await t.db.$transaction((tx) =>
      lockWritable(tx, "BuyerCompany", "company", acme, { id: acme }, { select: { id: true } }),
    );
    expect(row).toEqual({ id: acme });
  });

  it("answers an id outside the scope and an unknown id alike: the 400 naming the record", async () => {
    for (const [id, scope] of [
      [acme, { id: -1 }],
      [987654, {}],
    ] as const) {
      await expect(
        t.db.$transaction((tx) => lockWritable(tx, "BuyerCompany", "company", id, scope)),
      ).rejects.toMatchObject({
        status: 400,
        type: "invalidInputDataException",
        message: `no company ${id} that this key may change`,
      });
    }
  });

  it("answers with the caller's error when it brings one", async () => {
    const refuse = () => badInput("companyId is not yours");
    await expect(
      t.db.$transaction((tx) => lockWritable(tx, "BuyerCompany", "company", acme, { id: -1 }, {}, refuse)),
    ).rejects.toMatchObject({ status: 400, message: "companyId is not yours" });
  });

  it("holds the row lock until the transaction ends", async () => {
    const tryLock = () => t.db.$queryRaw`SELECT id FROM "BuyerCompany" WHERE id = ${acme} FOR UPDATE NOWAIT`;
    await t.db.$transaction(async (tx) => {
      await lockWritable(tx, "BuyerCompany", "company", acme, { id: acme });
      await expect(tryLock()).rejects.toThrow(/could not obtain lock/);
    });
    await expect(tryLock()).resolves.toHaveLength(1);
  });
});
