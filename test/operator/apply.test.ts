// applyFixture in process: the consistency rules that span several applies.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../../src/db.ts";
import { applyFixture, FixtureError } from "../../src/operator/apply.ts";
import { createTestDatabase } from "../support/databases.ts";

let db: Db;
let drop: () => Promise<void>;
const apply = (fixture: unknown) => applyFixture(db, fixture, { allowInsecureWebhooks: false });
const problemsOf = async (fixture: unknown) => {
  const error = await apply(fixture).then(
    () => undefined,
    (e) => e,
  );
  expect(error).toBeInstanceOf(FixtureError);
  return (error as FixtureError).problems.join("\n");
};

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  db = createDb(database.url, { max: 2 });
  await apply({
    buyerCompanies: [
      { ref: "a", name: "A" },
      { ref: "b", name: "B" },
    ],
    regions: [{ ref: "a-west", company: "a", name: "West" }],
    problemTypes: [{ ref: "b-hvac", company: "b", name: "HVAC" }],
  });
});
afterAll(async () => {
  await db.$disconnect();
  await drop();
});

describe("applyFixture across applies", () => {
  it("refuses a ref reused for another kind instead of corrupting the ref table", async () => {
    expect(await problemsOf({ problemTypes: [{ ref: "a-west", company: "a", name: "x" }] })).toContain(
      'ref "a-west" is already a region',
    );
    expect(await db.problemType.count()).toBe(1);
  });

  it("checks company ownership of refs created by an earlier apply", async () => {
    const problems = await problemsOf({
      locations: [{ ref: "b-store", company: "b", region: "a-west", name: "B store" }],
    });
    expect(problems).toContain("locations[0].region");
    expect(problems).toContain("another buyer company");
    expect(await db.location.count()).toBe(0);
  });

  it("names schema problems with [index] paths", async () => {
    expect(await problemsOf({ locations: [{ ref: "x", company: "a", name: "X", currency: "dollars" }] })).toContain(
      "locations[0].currency",
    );
  });

  it("reports a unique value taken outside the fixture as a fixture problem", async () => {
    await db.contact.create({ data: { email: "taken@b.example", nameGiven: "T", nameFamily: "K", roles: [] } });
    const problems = await problemsOf({
      buyerFacilities: [{ ref: "b-hq", company: "b", name: "HQ" }],
      contacts: [{ ref: "t", email: "taken@b.example", nameGiven: "T", nameFamily: "K", buyerFacility: "b-hq" }],
    });
    expect(problems).toContain("already exists");
    expect(await db.buyerFacility.count()).toBe(0);
  });
});
