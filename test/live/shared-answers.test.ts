// One execution per event and answer class (src/schema/live/shared-answers.ts): subscribers that must
// get the same answer share it, and no one gets another's. First over real websockets with one document
// for every kind of key (buyer, third-party supplier, in-house supplier, another tenant), then the
// machinery on a small schema whose resolvers count their executions.
import {
  GraphQLBoolean,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
  type ExecutionResult,
  type GraphQLFieldResolver,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Viewer } from "../../src/schema/core/viewer.ts";
import { subscribeSharingAnswers } from "../../src/schema/live/public.ts";
import { writeEvent } from "../../src/schema/work-orders/events.ts";
import type { TestApp } from "../support/app.ts";
import { waitFor } from "../support/wait.ts";
import { startLiveApp, subscribe, type Subscriber } from "./client.ts";

describe("over websockets, one document for every kind of key", () => {
  let t: TestApp;
  let refs: Record<string, number>;
  beforeAll(async () => {
    t = await startLiveApp();
    refs = t.fixture.refs;
  });
  afterAll(() => t?.close());

  /** A work order of `tenant` (assigned to `supplier`) with a budget code, and a note on it. */
  async function noteOn(tenant: "acme" | "globex", supplier: string | null, glCode: string) {
    const acme = tenant === "acme";
    const supplierFacilityId = supplier === null ? null : refs[supplier];
    const workOrder = await t.db.workOrder.create({
      data: {
        buyerCompanyId: refs[tenant],
        buyerFacilityId: refs[acme ? "acme-hq" : "globex-hq"],
        locationId: refs[acme ? "store-1" : "g-store"],
        problemTypeId: refs.hvac,
        supplierFacilityId,
        title: `Shared answers ${glCode}`,
        glCode,
        status: "ConfirmedByServiceProvider",
        createdBy: "bench@example.com",
        statusChangedAt: new Date(),
      },
    });
    const context = {
      workOrderId: workOrder.id,
      buyerCompanyId: refs[tenant],
      customer: acme ? "Acme Foods" : "Globex Retail",
      location: "Store",
      supplierFacilityId,
      visibleToSupplierFacilityIds: [],
      status: "ConfirmedByServiceProvider" as const,
    };
    const note = { newNote: `about ${glCode}`, addedBy: "Alice Admin", addedAt: new Date().toISOString() };
    await t.db.$transaction((tx) => writeEvent(tx, "workorder.new_note", context, note));
    return workOrder.id;
  }

  it("gives each key its own tenant's events with its own masking, and keys of one contact the same answers", async () => {
    const fields = "id eventType workOrderId workOrder { id title glCode buyerCompanyId }";
    const start = (await t.graphql("acme-key", "{ workOrderEventsHead }")).body.data.workOrderEventsHead;
    const variables = { after: start, eventTypes: ["workorder.new_note"] }; // the same for everyone
    const subs: Record<string, Subscriber> = {};
    for (const key of ["acme-key", "acme-key-default-limit", "coolco-key", "inhouse-key", "globex-key"])
      subs[key] = subscribe(t.url, t.headers(key), variables, fields);
    const toCoolco = await noteOn("acme", "coolco-pdx", "GL-COOLCO");
    const toInhouse = await noteOn("acme", "inhouse-west", "GL-INHOUSE");
    const ofGlobex = await noteOn("globex", null, "GL-GLOBEX");
    try {
      await waitFor(
        () => subs["acme-key"].events.length >= 2 && subs["acme-key-default-limit"].events.length >= 2,
        10_000,
        "acme's two notes on both of its keys",
      );
      await waitFor(
        () => ["coolco-key", "inhouse-key", "globex-key"].every((key) => subs[key].events.length >= 1),
        10_000,
        "one note for each of the others",
      );
      const seen = (key: string) => subs[key].events.map((e) => e.workOrder);
      const workOrder = (id: number, glCode: string | null, tenant: string) => ({
        id,
        title: expect.stringMatching(/^Shared answers GL-/),
        glCode,
        buyerCompanyId: refs[tenant],
      });
      expect(seen("acme-key")).toEqual([
        workOrder(toCoolco, "GL-COOLCO", "acme"),
        workOrder(toInhouse, "GL-INHOUSE", "acme"),
      ]);
      expect(subs["acme-key-default-limit"].events).toEqual(subs["acme-key"].events);
      expect(seen("coolco-key")).toEqual([workOrder(toCoolco, null, "acme")]); // third party: masked
      expect(seen("inhouse-key")).toEqual([workOrder(toInhouse, "GL-INHOUSE", "acme")]); // in-house: not
      expect(seen("globex-key")).toEqual([workOrder(ofGlobex, "GL-GLOBEX", "globex")]);
      for (const s of Object.values(subs)) expect(s.errors).toEqual([]);
    } finally {
      await Promise.all(Object.values(subs).map((s) => s.close()));
    }
  });
});

describe("the machinery, on a schema that counts executions", () => {
  /** One event object, as the instance hands the same message to every subscriber of its tenant (new per test). */
  type Event = { seq: number; text: string };
  let event: Event;
  let executions = 0;
  const text: GraphQLFieldResolver<Event, { viewer: Viewer }> = (e, _args, ctx) => {
    executions++;
    return ctx.viewer.isThirdParty ? null : e.text;
  };
  const EventType = new GraphQLObjectType<Event, { viewer: Viewer }>({
    name: "Event",
    fields: {
      text: { type: GraphQLString, resolve: text },
      shout: {
        type: GraphQLString,
        args: { loud: { type: GraphQLBoolean } },
        resolve: (e, args) => (args.loud ? e.text.toUpperCase() : e.text),
      },
    },
  });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: "Query", fields: { ok: { type: GraphQLString } } }),
    subscription: new GraphQLObjectType({
      name: "Subscription",
      fields: {
        events: {
          type: EventType,
          args: { after: { type: GraphQLString } },
          subscribe: async function* () {
            yield event;
          },
          resolve: (e) => e,
        },
      },
    }),
  });
  const document = parse(`subscription($after: String, $loud: Boolean) {
    events(after: $after) { text shout(loud: $loud) }
  }`);
  const viewer: Viewer = {
    keyId: 1,
    kind: "supplier",
    contactId: 10,
    email: "bob@coolco.example",
    displayName: "Bob Tech",
    roles: ["dispatcher"],
    buyerCompanyId: null,
    buyerFacilityId: null,
    supplierFacilityId: 100,
    supplierCompanyId: 1000,
    isThirdParty: false,
    rateLimit: null,
    graphqlBudget: null,
  };

  /** The first result of a subscription with these variables, for this viewer. */
  async function firstResult(who: Viewer, variableValues: Record<string, unknown>) {
    const results = await subscribeSharingAnswers({ schema, document, variableValues, contextValue: { viewer: who } });
    if (!(Symbol.asyncIterator in results)) throw new Error(JSON.stringify(results));
    const { value } = await results.next();
    await results.return?.();
    return value as ExecutionResult;
  }

  it("executes an event once for viewers that differ only in key and limits, and arguments of the subscription field", async () => {
    event = { seq: 7, text: "gate code 4321" };
    executions = 0;
    const answers = await Promise.all([
      firstResult(viewer, { after: "1" }),
      firstResult({ ...viewer, keyId: 2, rateLimit: { requests: 5, windowSeconds: 1 } }, { after: "5" }),
    ]);
    expect(executions).toBe(1);
    for (const answer of answers) {
      expect(answer).toEqual({
        data: { events: { text: "gate code 4321", shout: "gate code 4321" } },
        extensions: { eventId: "7" },
      });
    }
  });

  it("executes it apart for another masking class, tenant, facility, contact or variable below the field", async () => {
    event = { seq: 8, text: "gate code 4321" };
    executions = 0;
    const [plain, thirdParty, otherTenant, otherFacility, otherContact, loud] = await Promise.all([
      firstResult(viewer, {}),
      firstResult({ ...viewer, isThirdParty: true }, {}),
      firstResult({ ...viewer, buyerCompanyId: 2 }, {}),
      firstResult({ ...viewer, supplierFacilityId: 101 }, {}),
      firstResult({ ...viewer, contactId: 11 }, {}),
      firstResult(viewer, { loud: true }),
    ]);
    expect(executions).toBe(6);
    expect(thirdParty.data).toEqual({ events: { text: null, shout: "gate code 4321" } });
    for (const answer of [plain, otherTenant, otherFacility, otherContact])
      expect(answer.data).toEqual({ events: { text: "gate code 4321", shout: "gate code 4321" } });
    expect(loud.data).toEqual({ events: { text: "gate code 4321", shout: "GATE CODE 4321" } });
  });
});
