// The base fixture plus what the planned maintenance tests need: location time zones, schedules of
// both cadence forms (one inactive, one of Globex), and a buyer key whose roles cannot write work orders.
import { BASE_FIXTURE } from "../support/app.ts";

export function pmFixture(options: { builtIn?: boolean } = {}) {
  const f = structuredClone(BASE_FIXTURE);
  if (options.builtIn) f.buyerCompanies[0].config.pmScheduling = "built_in";
  f.locations[0].timeZone = "America/Los_Angeles";
  f.locations[1].timeZone = "America/Vancouver";
  f.plannedMaintenanceSchedules.push(
    {
      ref: "pm-2",
      company: "acme",
      location: "store-2",
      problemType: "plumbing",
      title: "Monthly grease trap",
      description: "Pump and inspect",
      woPriority: 48,
      cadence: "RRULE:FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0",
      nextRunAt: "2027-01-04T17:00:00Z",
    },
    {
      ref: "pm-off",
      company: "acme",
      location: "store-1",
      problemType: "hvac",
      title: "Retired filter swap",
      cadence: "P1M",
      nextRunAt: "2026-06-01T16:00:00Z",
      isActive: false,
    },
    {
      ref: "pm-g",
      company: "globex",
      location: "g-store",
      problemType: "g-problem",
      title: "Globex PM",
      cadence: "P1W",
      nextRunAt: "2026-12-02T10:00:00Z",
    },
  );
  f.problemTypes.push({ ref: "g-problem", company: "globex", name: "Globex HVAC" });
  f.contacts.push({
    ref: "val",
    email: "val@acme.example",
    nameGiven: "Val",
    nameFamily: "Viewer",
    buyerFacility: "acme-hq",
    roles: ["viewer"],
  });
  f.apiKeys.push({
    ref: "acme-viewer-key",
    kind: "buyer",
    contact: "val",
    rateLimit: { requests: 1000, windowSeconds: 20 },
  });
  return f;
}
