// Walkthroughs from outside: list, count_by and single reads with answers, photos, issues and scores;
// heat map ranges resolved from the survey, else its template, at read time; each score's band; role
// location and brand scoping; linked work orders within the caller's read scope; work orders created
// from a walkthrough.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE_FIXTURE, startTestApp, type TestApp } from "../support/app.ts";

const RED = { color: "#e53935", lowerRange: 0 };
const YELLOW = { color: "#fdd835", lowerRange: 60 };
const GREEN = { color: "#43a047", lowerRange: 85 };

function fixture() {
  const f = structuredClone(BASE_FIXTURE);
  f.locations[0].brandId = 1;
  f.locations[1].brandId = 2;
  f.siteSurveys.push(
    {
      ref: "survey-derived",
      company: "acme",
      name: "Store walk (from template)",
      template: "survey-tpl",
      tasks: [
        { ref: "task-d1", title: "Check doors" },
        { ref: "task-d2", title: "Check lights" },
      ],
    },
    {
      ref: "survey-own",
      company: "acme",
      name: "Own ranges",
      template: "survey-tpl",
      heatMapRanges: [
        { color: "#ffffff", lowerRange: 50 },
        { color: "#000000", lowerRange: 0 },
      ],
    },
    { ref: "survey-none", company: "acme", name: "No ranges" },
    { ref: "survey-empty", company: "acme", name: "Empty ranges", heatMapRanges: [] },
    { ref: "g-survey", company: "globex", name: "Globex walk", heatMapRanges: [RED] },
  );
  f.walkthroughs[0].completedAt = "2026-11-01T10:00:00Z";
  f.walkthroughs[0].photos = ["https://cdn.example/w1/front.jpg"];
  f.walkthroughs[0].notes = "All good";
  f.walkthroughs[0].answers[0].photos = ["https://cdn.example/w1/freezer.jpg"];
  f.walkthroughs[0].issues = [
    { task: "task-1", title: "Freezer door seal torn", severity: "high", photos: ["https://cdn.example/w1/seal.jpg"] },
    { title: "Lobby bulb out" },
  ];
  f.walkthroughs.push(
    {
      ref: "walk-2",
      survey: "survey-derived",
      location: "store-2",
      completedBy: "alice",
      completedAt: "2026-11-05T10:00:00Z",
      scores: [59, 60, 85, 100, -1],
      answers: [
        { task: "task-d2", answer: "2 bulbs out" },
        { task: "task-d1", answer: "ok" },
      ],
    },
    { ref: "walk-3", survey: "survey-own", location: "store-1", completedAt: "2026-11-03T10:00:00Z", scores: [49, 50] },
    { ref: "walk-4", survey: "survey-none", location: "store-1", completedAt: "2026-11-02T10:00:00Z", scores: [90] },
    { ref: "walk-5", survey: "survey-empty", location: "store-2", completedAt: "2026-10-01T10:00:00Z", scores: [90] },
    { ref: "walk-g", survey: "g-survey", location: "g-store", completedAt: "2026-11-04T10:00:00Z", scores: [10] },
  );
  f.contacts.push(
    {
      ref: "rita",
      email: "rita@acme.example",
      nameGiven: "Rita",
      nameFamily: "Store1",
      buyerFacility: "acme-hq",
      roles: ["facility_manager"],
    },
    {
      ref: "bree",
      email: "bree@acme.example",
      nameGiven: "Bree",
      nameFamily: "Brand2",
      buyerFacility: "acme-hq",
      roles: ["facility_manager"],
    },
    {
      ref: "nora",
      email: "nora@acme.example",
      nameGiven: "Nora",
      nameFamily: "Nothing",
      buyerFacility: "acme-hq",
      roles: ["facility_manager"],
    },
  );
  for (const ref of ["rita", "bree", "nora"])
    f.apiKeys.push({
      ref: `${ref}-key`,
      kind: "buyer",
      contact: ref,
      rateLimit: { requests: 1000, windowSeconds: 20 },
    });
  return f;
}

let t: TestApp;
let refs: Record<string, number>;
beforeAll(async () => {
  t = await startTestApp({ fixture: fixture() });
  refs = t.fixture.refs;
  // Role scoping as provisioning stores it.
  await t.db.contact.update({
    where: { id: refs.rita },
    data: { hasAccessToAllLocations: false, locationIds: [refs["store-1"]] },
  });
  await t.db.contact.update({ where: { id: refs.bree }, data: { brandIds: [2] } });
  await t.db.contact.update({
    where: { id: refs.nora },
    data: { hasAccessToAllLocations: false, locationIds: [refs["store-2"]], brandIds: [1] },
  });
  await t.keyChangesSeen();
});
afterAll(() => t?.close());

const WALKS = "/v1/buyer/site_survey/walkthroughs";
const ids = (reply: { body: { data: { id: number }[] } }) => reply.body.data.map((w) => w.id);

describe("GET /site_survey/walkthroughs", () => {
  it("lists the company's walkthroughs newest first, with filters and completedAt windows; count_by agrees", async () => {
    const list = await t.call("acme-key", "GET", WALKS);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ type: "Walkthrough", status: "ok", count: 5 });
    expect(ids(list)).toEqual([refs["walk-2"], refs["walk-3"], refs["walk-4"], refs["walk-1"], refs["walk-5"]]);
    const cases: [string, number[]][] = [
      [`locationId=${refs["store-2"]}`, [refs["walk-2"], refs["walk-5"]]],
      [`surveyId=${refs["survey-own"]},${refs["survey-none"]}`, [refs["walk-3"], refs["walk-4"]]],
      ["completedAtStart=2026-11-02T00:00:00Z&completedAtEnd=2026-11-03T23:59:59Z", [refs["walk-3"], refs["walk-4"]]],
      ["completedAt=,2026-11-01T10:00:00Z", [refs["walk-1"], refs["walk-5"]]],
      [`completedById=${refs.alice}`, [refs["walk-2"], refs["walk-1"]]],
      [`locationId=${refs["g-store"]}`, []],
    ];
    for (const [query, expected] of cases) {
      expect(ids(await t.call("acme-key", "GET", `${WALKS}?${query}`)), query).toEqual(expected);
      expect((await t.call("acme-key", "GET", `${WALKS}/count_by?${query}`)).body.data, query).toEqual({
        count: expected.length,
      });
    }
    expect((await t.call("acme-key", "GET", `${WALKS}/count_by?group_by=locationId`)).body.data).toEqual([
      { value: refs["store-1"], count: 3 },
      { value: refs["store-2"], count: 2 },
    ]);
    expect(ids(await t.call("acme-key", "GET", `${WALKS}?sort_by=id&order=asc&limit=2`))).toEqual([
      refs["walk-1"],
      refs["walk-2"],
    ]);
    for (const bad of ["score=3", "completedAt=soon", "sort_by=scores"])
      expect((await t.call("acme-key", "GET", `${WALKS}?${bad}`)).status, bad).toBe(400);
    expect(ids(await t.call("globex-key", "GET", WALKS))).toEqual([refs["walk-g"]]);
    expect((await t.call("inhouse-key", "GET", "/v1/supplier/site_survey/walkthroughs")).status).toBe(404);
  });

  it("reads one with task answers, photos, issues, scores, the survey with its tasks, and score bands", async () => {
    const reply = await t.call("acme-key", "GET", `${WALKS}/${refs["walk-1"]}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      type: "Walkthrough",
      data: {
        id: refs["walk-1"],
        locationId: refs["store-1"],
        surveyId: refs["survey-tpl"],
        completedAt: "2026-11-01T10:00:00.000Z",
        completedBy: { id: refs.alice, email: "alice@acme.example", name: "Alice Admin" },
        scores: [72],
        scoreBands: [{ score: 72, ...YELLOW }],
        notes: "All good",
        photos: ["https://cdn.example/w1/front.jpg"],
        answers: [
          {
            taskId: refs["task-1"],
            taskTitle: "Check freezer temps",
            answer: "-2F ok",
            photos: ["https://cdn.example/w1/freezer.jpg"],
          },
        ],
        issues: [
          {
            taskId: refs["task-1"],
            title: "Freezer door seal torn",
            severity: "high",
            description: null,
            photos: ["https://cdn.example/w1/seal.jpg"],
          },
          { taskId: null, title: "Lobby bulb out", severity: null, photos: [] },
        ],
        siteSurvey: {
          id: refs["survey-tpl"],
          name: "Monthly store walk",
          templateId: null,
          walkthroughHeatMapRanges: [RED, YELLOW, GREEN],
          tasks: [{ id: refs["task-1"], title: "Check freezer temps" }],
        },
        workOrders: [],
      },
    });
    expect((await t.call("acme-key", "GET", `${WALKS}/999999`)).status).toBe(404);
    expect((await t.call("acme-key", "GET", `${WALKS}/${refs["walk-g"]}`)).status).toBe(400);
  });
});

describe("heat map ranges and score bands", () => {
  const read = async (ref: string) => (await t.call("acme-key", "GET", `${WALKS}/${refs[ref]}`)).body.data;

  it("come from the survey, else its template, else null; each score takes the band with the highest lowerRange ≤ score", async () => {
    const derived = await read("walk-2");
    expect(derived.siteSurvey).toMatchObject({
      templateId: refs["survey-tpl"],
      walkthroughHeatMapRanges: [RED, YELLOW, GREEN],
    });
    expect(derived.scoreBands).toEqual([
      { score: 59, ...RED },
      { score: 60, ...YELLOW },
      { score: 85, ...GREEN },
      { score: 100, ...GREEN },
      { score: -1, color: null, lowerRange: null },
    ]);
    expect(derived.answers.map((a: { taskTitle: string }) => a.taskTitle)).toEqual(["Check doors", "Check lights"]);
    const own = await read("walk-3");
    expect(own.siteSurvey.walkthroughHeatMapRanges).toEqual([
      { color: "#000000", lowerRange: 0 },
      { color: "#ffffff", lowerRange: 50 },
    ]);
    expect(own.scoreBands).toEqual([
      { score: 49, color: "#000000", lowerRange: 0 },
      { score: 50, color: "#ffffff", lowerRange: 50 },
    ]);
    for (const ref of ["walk-4", "walk-5"]) {
      const none = await read(ref);
      expect(none.siteSurvey.walkthroughHeatMapRanges, ref).toBeNull();
      expect(none.scoreBands, ref).toEqual([{ score: 90, color: null, lowerRange: null }]);
    }
  });

  it("are resolved at read time: a template change shows on walkthroughs of derived surveys at once", async () => {
    await t.db.siteSurvey.update({
      where: { id: refs["survey-tpl"] },
      data: { heatMapRanges: [GREEN, { color: "#111111", lowerRange: 59.5 }] },
    });
    const derived = await read("walk-2");
    expect(derived.siteSurvey.walkthroughHeatMapRanges).toEqual([{ color: "#111111", lowerRange: 59.5 }, GREEN]);
    expect(derived.scoreBands.map((b: { color: string | null }) => b.color)).toEqual([
      null,
      "#111111",
      "#43a047",
      "#43a047",
      null,
    ]);
    await t.db.siteSurvey.update({ where: { id: refs["survey-tpl"] }, data: { heatMapRanges: [RED, YELLOW, GREEN] } });
  });
});

describe("role location and brand scoping", () => {
  it("narrows list, count_by and single reads to the contact's locations and brands", async () => {
    // Rita: store 1 only.
    expect(ids(await t.call("rita-key", "GET", WALKS))).toEqual([refs["walk-3"], refs["walk-4"], refs["walk-1"]]);
    expect((await t.call("rita-key", "GET", `${WALKS}/count_by`)).body.data).toEqual({ count: 3 });
    expect((await t.call("rita-key", "GET", `${WALKS}/${refs["walk-2"]}`)).status).toBe(400);
    expect(ids(await t.call("rita-key", "GET", `${WALKS}?locationId=${refs["store-2"]}`))).toEqual([]);
    // Bree: every location, but only brand 2 (store 2).
    expect(ids(await t.call("bree-key", "GET", WALKS))).toEqual([refs["walk-2"], refs["walk-5"]]);
    expect((await t.call("bree-key", "GET", `${WALKS}/${refs["walk-1"]}`)).status).toBe(400);
    // Nora: store 2, brand 1: nothing matches both.
    expect((await t.call("nora-key", "GET", WALKS)).body.count).toBe(0);
  });
});

describe("work orders linked to a walkthrough", () => {
  const WO = "/v1/buyer/work_order/work_orders";
  const create = (extra: Record<string, unknown>) =>
    t.call("acme-key", "POST", WO, {
      title: "From the walk",
      locationId: refs["store-2"],
      problemTypeId: refs.plumbing,
      buyerFacilityId: refs["acme-hq"],
      buyerCompanyId: refs.acme,
      createdBy: "alice@acme.example",
      ...extra,
    });

  it("carry the link, copy the task list on request, emit workorder.create, and show on the walkthrough within the caller's read scope", async () => {
    const reply = await create({
      walkThroughId: refs["walk-2"],
      siteSurveyTaskTitleId: refs["task-d2"],
      includeWalkthroughTaskList: true,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    const wo = reply.body.data;
    expect(wo).toMatchObject({
      walkThroughId: refs["walk-2"],
      siteSurveyTaskTitleId: refs["task-d2"],
      includeWalkthroughTaskList: true,
    });
    expect(wo.description).toBe("Walkthrough task list:\n- Check doors: ok\n- Check lights: 2 bulbs out");
    expect((await t.db.outboxEvent.findMany({ where: { workOrderId: wo.id } })).map((e) => e.eventType)).toEqual([
      "workorder.create",
    ]);
    // One at another location (store 1), and a stray row of another company pointing at the walkthrough.
    const atStore1 = (
      await create({
        locationId: refs["store-1"],
        problemTypeId: refs.hvac,
        walkThroughId: refs["walk-2"],
        siteSurveyTaskTitleId: refs["task-d1"],
      })
    ).body.data;
    await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs.globex,
        buyerFacilityId: refs["globex-hq"],
        locationId: refs["g-store"],
        problemTypeId: refs.hvac,
        title: "stray",
        status: "Unassigned",
        createdBy: "gina@globex.example",
        walkThroughId: refs["walk-2"],
        statusChangedAt: new Date(),
      },
    });
    // The stray row is outside every Acme key's work order scope: it never shows.
    const linked = async (key: string) =>
      (await t.call(key, "GET", `${WALKS}/${refs["walk-2"]}`)).body.data.workOrders.map((w: { id: number }) => w.id);
    expect(await linked("acme-key")).toEqual([wo.id, atStore1.id]);
    // Bree sees the walkthrough (brand 2) but not the work order at store 1 (brand 1).
    expect(await linked("bree-key")).toEqual([wo.id]);
    const listed = await t.call("acme-key", "GET", `${WALKS}?locationId=${refs["store-2"]}`);
    expect(listed.body.data[0].workOrders.map((w: { id: number; status: string }) => [w.id, w.status])).toEqual([
      [wo.id, "Unassigned"],
      [atStore1.id, "Unassigned"],
    ]);
    // The create rules still hold: both ids or neither, and the task must belong to the walkthrough's survey.
    expect((await create({ walkThroughId: refs["walk-2"] })).status).toBe(400);
    expect((await create({ walkThroughId: refs["walk-2"], siteSurveyTaskTitleId: refs["task-1"] })).status).toBe(400);
    expect((await create({ walkThroughId: refs["walk-g"], siteSurveyTaskTitleId: refs["task-d1"] })).status).toBe(400);
  });
});
