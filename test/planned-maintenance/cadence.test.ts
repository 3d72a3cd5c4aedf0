// Cadences as calendar rules in the location's time zone: ISO 8601 durations and RRULEs across month
// ends, leap days and DST changes. Pure functions: no server needed.
import { describe, expect, it } from "vitest";
import {
  CadenceError,
  nextDue,
  parseCadence,
  upcoming,
  type Series,
} from "../../src/schema/planned-maintenance/rules/cadence.ts";

const series = (cadence: string, anchorAt: string, timeZone = "UTC", endsAt: string | null = null): Series => ({
  cadence,
  timeZone,
  anchorAt: new Date(anchorAt),
  endsAt: endsAt ? new Date(endsAt) : null,
});
const iso = (dates: Date[]) => dates.map((d) => d.toISOString());
const runs = (s: Series, count: number) => iso(upcoming(s, 0, s.anchorAt, count));

describe("cadence format", () => {
  it("accepts durations of whole units of at least an hour and RRULEs without DTSTART/TZID or sub-hour frequencies", () => {
    for (const ok of [
      "P3M",
      "P1Y",
      "P2W",
      "P14D",
      "P1DT12H",
      "PT1H",
      "PT90M",
      "RRULE:FREQ=MONTHLY;BYDAY=1MO",
      "RRULE:FREQ=HOURLY;INTERVAL=6",
      "rrule:FREQ=YEARLY;COUNT=3",
    ]) {
      expect(() => parseCadence(ok), ok).not.toThrow();
    }
    for (const bad of [
      "",
      "3M",
      "P",
      "PT",
      "P0D",
      "PT30M",
      "P1.5M",
      "P-1M",
      "every month",
      "RRULE:",
      "RRULE:FREQ=MINUTELY",
      "RRULE:FREQ=SECONDLY",
      "RRULE:FREQ=FORTNIGHTLY",
      "RRULE:BYDAY=MO",
      "RRULE:FREQ=DAILY;DTSTART=20260101T000000Z",
    ]) {
      expect(() => parseCadence(bad), bad).toThrow(CadenceError);
    }
  });
});

describe("ISO 8601 durations", () => {
  it("count from the anchor, so month ends clamp without drifting (Jan 31 → Feb 29 in a leap year → Mar 31 → Apr 30)", () => {
    expect(runs(series("P1M", "2024-01-31T09:00:00Z"), 5)).toEqual([
      "2024-01-31T09:00:00.000Z",
      "2024-02-29T09:00:00.000Z",
      "2024-03-31T09:00:00.000Z",
      "2024-04-30T09:00:00.000Z",
      "2024-05-31T09:00:00.000Z",
    ]);
    expect(runs(series("P1M", "2025-01-31T09:00:00Z"), 2)[1]).toBe("2025-02-28T09:00:00.000Z");
    expect(runs(series("P3M", "2025-11-30T09:00:00Z"), 3)).toEqual([
      "2025-11-30T09:00:00.000Z",
      "2026-02-28T09:00:00.000Z",
      "2026-05-30T09:00:00.000Z",
    ]);
  });

  it("handle leap days: a yearly series anchored on Feb 29 falls on Feb 28 in common years and on Feb 29 again in the next leap year", () => {
    expect(runs(series("P1Y", "2024-02-29T12:00:00Z"), 5)).toEqual([
      "2024-02-29T12:00:00.000Z",
      "2025-02-28T12:00:00.000Z",
      "2026-02-28T12:00:00.000Z",
      "2027-02-28T12:00:00.000Z",
      "2028-02-29T12:00:00.000Z",
    ]);
  });

  it("keep the local wall-clock time across DST for calendar units, and count absolute hours for time units", () => {
    // New York: DST starts 2026-03-08 (UTC-5 → UTC-4) and ends 2026-11-01.
    const daily = series("P1D", "2026-03-07T14:00:00Z", "America/New_York"); // 09:00 EST
    expect(runs(daily, 3)).toEqual([
      "2026-03-07T14:00:00.000Z",
      "2026-03-08T13:00:00.000Z",
      "2026-03-09T13:00:00.000Z",
    ]);
    const weekly = series("P1W", "2026-10-26T13:00:00Z", "America/New_York"); // Monday 09:00 EDT
    expect(runs(weekly, 2)).toEqual(["2026-10-26T13:00:00.000Z", "2026-11-02T14:00:00.000Z"]);
    const hours = series("PT24H", "2026-03-07T14:00:00Z", "America/New_York");
    expect(runs(hours, 2)).toEqual(["2026-03-07T14:00:00.000Z", "2026-03-08T14:00:00.000Z"]); // 10:00 EDT
  });

  it("read the same duration in different zones as different instants", () => {
    const berlin = series("P1M", "2026-03-15T08:00:00Z", "Europe/Berlin"); // 09:00 CET
    expect(runs(berlin, 2)[1]).toBe("2026-04-15T07:00:00.000Z"); // 09:00 CEST
    const utc = series("P1M", "2026-03-15T08:00:00Z", "UTC");
    expect(runs(utc, 2)[1]).toBe("2026-04-15T08:00:00.000Z");
  });

  it("stop at endsAt", () => {
    const s = series("P1M", "2026-01-15T09:00:00Z", "UTC", "2026-03-15T09:00:00Z");
    expect(runs(s, 10)).toEqual(["2026-01-15T09:00:00.000Z", "2026-02-15T09:00:00.000Z", "2026-03-15T09:00:00.000Z"]);
    expect(nextDue(s, 2, new Date("2026-03-15T09:00:00Z"))).toBeNull();
  });
});

describe("RRULE calendar rules", () => {
  it("the first Monday of the month at 09:00 local time, across the DST change", () => {
    const s = series(
      "RRULE:FREQ=MONTHLY;BYDAY=1MO;BYHOUR=9;BYMINUTE=0;BYSECOND=0",
      "2026-01-05T14:00:00Z",
      "America/New_York",
    );
    expect(runs(s, 4)).toEqual([
      "2026-01-05T14:00:00.000Z",
      "2026-02-02T14:00:00.000Z",
      "2026-03-02T14:00:00.000Z",
      "2026-04-06T13:00:00.000Z",
    ]);
  });

  it("the last day of the month (BYMONTHDAY=-1) including Feb 29 of a leap year", () => {
    const s = series("RRULE:FREQ=MONTHLY;BYMONTHDAY=-1", "2028-01-31T09:00:00Z");
    expect(runs(s, 4)).toEqual([
      "2028-01-31T09:00:00.000Z",
      "2028-02-29T09:00:00.000Z",
      "2028-03-31T09:00:00.000Z",
      "2028-04-30T09:00:00.000Z",
    ]);
  });

  it("a wall-clock time skipped by DST moves forward by the gap; a repeated one is taken once", () => {
    // 02:30 does not exist in New York on 2026-03-08: that due time is 03:30 EDT.
    const spring = series(
      "RRULE:FREQ=DAILY;BYHOUR=2;BYMINUTE=30;BYSECOND=0",
      "2026-03-07T07:30:00Z",
      "America/New_York",
    );
    expect(runs(spring, 3)).toEqual([
      "2026-03-07T07:30:00.000Z",
      "2026-03-08T07:30:00.000Z",
      "2026-03-09T06:30:00.000Z",
    ]);
    // 01:30 happens twice in New York on 2026-11-01: one due time, not two.
    const fall = series("RRULE:FREQ=DAILY;BYHOUR=1;BYMINUTE=30;BYSECOND=0", "2026-10-31T05:30:00Z", "America/New_York");
    const [, nov1, nov2] = upcoming(fall, 0, fall.anchorAt, 3);
    expect(["2026-11-01T05:30:00.000Z", "2026-11-01T06:30:00.000Z"]).toContain(nov1.toISOString());
    expect(nov2.toISOString()).toBe("2026-11-02T06:30:00.000Z");
  });

  it("ends with COUNT", () => {
    const s = series("RRULE:FREQ=WEEKLY;BYDAY=MO,TH;COUNT=3", "2026-06-01T08:00:00Z");
    expect(runs(s, 10)).toEqual(["2026-06-01T08:00:00.000Z", "2026-06-04T08:00:00.000Z", "2026-06-08T08:00:00.000Z"]);
  });
});
