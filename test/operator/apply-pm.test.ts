// operator apply for planned maintenance and walkthroughs: scheduling mode, location time zone and
// brand, cadence checks, walkthrough photos and issues, and schedules that keep their progress when the
// same file is applied again.
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

const base = (schedule: Record<string, unknown> = {}) => ({
  buyerCompanies: [{ ref: "a", name: "A", config: { pmScheduling: "built_in" } }],
  locations: [{ ref: "a-store", company: "a", name: "Store", timeZone: "Europe/Berlin", brandId: 3 }],
  problemTypes: [{ ref: "a-hvac", company: "a", name: "HVAC" }],
  siteSurveys: [{ ref: "a-survey", company: "a", name: "Walk", tasks: [{ ref: "a-task", title: "Doors" }] }],
  walkthroughs: [
    {
      ref: "a-walk",
      survey: "a-survey",
      location: "a-store",
      scores: [80],
      photos: ["https://cdn.example/1.jpg"],
      notes: "n",
      answers: [{ task: "a-task", answer: "ok", photos: ["https://cdn.example/2.jpg"] }],
      issues: [{ task: "a-task", title: "Hinge loose", severity: "low" }],
    },
  ],
  plannedMaintenanceSchedules: [
    {
      ref: "a-pm",
      company: "a",
      location: "a-store",
      problemType: "a-hvac",
      title: "Monthly",
      cadence: "RRULE:FREQ=MONTHLY;BYDAY=1MO",
      nextRunAt: "2027-01-04T08:00:00Z",
      woPriority: 24,
      ...schedule,
    },
  ],
});

beforeAll(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  db = createDb(database.url, { max: 2 });
});
afterAll(async () => {
  await db.$disconnect();
  await drop();
});

describe("planned maintenance and walkthrough fixtures", () => {
  it("apply the scheduling mode, time zone, brand, walkthrough photos and issues, and the schedule's series", async () => {
    const { refs } = await apply(base());
    expect(await db.buyerCompany.findUniqueOrThrow({ where: { id: refs.a } })).toMatchObject({
      pmScheduling: "built_in",
    });
    expect(await db.location.findUniqueOrThrow({ where: { id: refs["a-store"] } })).toMatchObject({
      timeZone: "Europe/Berlin",
      brandId: 3,
    });
    const walk = await db.walkthrough.findUniqueOrThrow({
      where: { id: refs["a-walk"] },
      include: { answers: true, issues: true },
    });
    expect(walk).toMatchObject({
      photos: ["https://cdn.example/1.jpg"],
      notes: "n",
      answers: [{ answer: "ok", photos: ["https://cdn.example/2.jpg"] }],
    });
    expect(walk.issues).toMatchObject([{ taskId: refs["a-task"], title: "Hinge loose", severity: "low", photos: [] }]);
    expect(await db.plannedMaintenanceSchedule.findUniqueOrThrow({ where: { id: refs["a-pm"] } })).toMatchObject({
      anchorAt: new Date("2027-01-04T08:00:00Z"),
      nextRunAt: new Date("2027-01-04T08:00:00Z"),
      sequence: 0,
      woPriority: 24,
      isActive: true,
    });
  });

  it("keep a schedule's progress when the same file is applied again, and restart it when cadence or nextRunAt change", async () => {
    const { refs } = await apply(base());
    await db.plannedMaintenanceSchedule.update({
      where: { id: refs["a-pm"] },
      data: { sequence: 2, nextRunAt: new Date("2027-03-01T08:00:00Z") },
    });
    await apply(base());
    expect(await db.plannedMaintenanceSchedule.findUniqueOrThrow({ where: { id: refs["a-pm"] } })).toMatchObject({
      sequence: 2,
      nextRunAt: new Date("2027-03-01T08:00:00Z"),
    });
    await apply(base({ cadence: "P1M" }));
    expect(await db.plannedMaintenanceSchedule.findUniqueOrThrow({ where: { id: refs["a-pm"] } })).toMatchObject({
      sequence: 0,
      nextRunAt: new Date("2027-01-04T08:00:00Z"),
      cadence: "P1M",
    });
    expect(await db.walkthroughIssue.count()).toBe(1); // replaced, not added
  });

  it("refuse bad cadences, time zones, scheduling modes and an end before the first run", async () => {
    expect(await problemsOf(base({ cadence: "monthly" }))).toContain("plannedMaintenanceSchedules[0].cadence");
    expect(await problemsOf(base({ cadence: "PT15M" }))).toContain("at least PT1H");
    expect(await problemsOf(base({ cadence: "RRULE:FREQ=MINUTELY" }))).toContain("FREQ=MINUTELY");
    expect(await problemsOf(base({ endsAt: "2026-01-01T00:00:00Z" }))).toContain("endsAt must not be before nextRunAt");
    const zone = base();
    zone.locations[0].timeZone = "Mars/Olympus";
    expect(await problemsOf(zone)).toContain("locations[0].timeZone");
    const mode = base();
    (mode.buyerCompanies[0].config as Record<string, string>).pmScheduling = "cron";
    expect(await problemsOf(mode)).toContain("pmScheduling");
  });
});
