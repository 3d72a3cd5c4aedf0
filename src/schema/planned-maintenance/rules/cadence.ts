// A schedule's cadence: when its due times fall. Two forms (docs/planned-maintenance.md):
//   - an ISO 8601 duration ("P3M", "P2W", "P1DT12H"): due time n = anchor + n × duration, added in the
//     location's time zone by luxon (calendar units keep the wall-clock time across DST, months clamp to
//     the month's last day without drifting: Jan 31, Feb 28/29, Mar 31, …);
//   - an RFC 5545 recurrence rule ("RRULE:FREQ=MONTHLY;BYDAY=1MO" = the first Monday of the month),
//     expanded by rrule on the location's wall-clock time and placed in its time zone by luxon.
// Nothing here does calendar arithmetic itself.
import { createRequire } from "node:module";
import { DateTime, Duration, IANAZone } from "luxon";
import type { Options, RRule as RRuleType } from "rrule";

// rrule ships a UMD bundle for Node and an ES build for bundlers; require() gets the same one everywhere.
const { RRule } = createRequire(import.meta.url)("rrule") as typeof import("rrule");

/** Shortest cadence accepted: a finer one would flood a location with work orders. */
const MIN_INTERVAL_HOURS = 1;

export type Cadence =
  | { kind: "duration"; duration: Duration }
  | { kind: "rrule"; options: ReturnType<typeof RRule.parseString> };

export class CadenceError extends Error {}

const DURATION = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/;

/** Parses and checks a cadence; the message of a CadenceError says what is wrong. */
export function parseCadence(text: string): Cadence {
  const value = text.trim();
  if (value.startsWith("P")) {
    if (!DURATION.test(value))
      throw new CadenceError(
        `cadence ${JSON.stringify(text)} is not an ISO 8601 duration of whole units such as P3M, P2W or P1DT12H`,
      );
    const duration = Duration.fromISO(value);
    if (!duration.isValid || duration.as("hours") < MIN_INTERVAL_HOURS) {
      throw new CadenceError(`cadence ${JSON.stringify(text)} must be at least PT${MIN_INTERVAL_HOURS}H`);
    }
    return { kind: "duration", duration };
  }
  if (value.toUpperCase().startsWith("RRULE:")) {
    let options: Cadence & { kind: "rrule" };
    try {
      options = { kind: "rrule", options: RRule.parseString(value.slice(6)) };
    } catch (error) {
      throw new CadenceError(`cadence ${JSON.stringify(text)} is not a valid RRULE: ${(error as Error).message}`);
    }
    const o = options.options;
    if (o.freq === undefined) throw new CadenceError(`cadence ${JSON.stringify(text)} needs FREQ`);
    if (o.freq === RRule.SECONDLY || o.freq === RRule.MINUTELY) {
      throw new CadenceError(
        `cadence ${JSON.stringify(text)}: FREQ=SECONDLY and FREQ=MINUTELY are finer than ${MIN_INTERVAL_HOURS} hour`,
      );
    }
    if (o.dtstart || o.tzid)
      throw new CadenceError(
        `cadence ${JSON.stringify(text)}: DTSTART and TZID come from the schedule (anchor and location time zone)`,
      );
    return options;
  }
  throw new CadenceError(
    `cadence ${JSON.stringify(text)} must be an ISO 8601 duration (P3M) or an RRULE (RRULE:FREQ=MONTHLY;BYDAY=1MO)`,
  );
}

export function timeZoneProblem(zone: string): string | null {
  return IANAZone.isValidZone(zone)
    ? null
    : `timeZone ${JSON.stringify(zone)} is not an IANA time zone such as America/New_York`;
}

/** What decides a schedule's due times. Due time number 0 is anchorAt. */
export interface Series {
  cadence: string;
  timeZone: string;
  anchorAt: Date;
  endsAt: Date | null;
}

// rrule works on "floating" times: the wall-clock time in the location written as if it were UTC.
const toFloating = (at: Date, zone: string) =>
  DateTime.fromJSDate(at, { zone }).setZone("utc", { keepLocalTime: true }).toJSDate();
// A wall-clock time that does not exist (the hour skipped when DST starts) moves forward by the gap.
const fromFloating = (at: Date, zone: string) =>
  DateTime.fromJSDate(at, { zone: "utc" }).setZone(zone, { keepLocalTime: true }).toJSDate();

function ruleOf(series: Series, options: Partial<Options>): RRuleType {
  return new RRule({ ...options, dtstart: toFloating(series.anchorAt, series.timeZone) });
}

/**
 * Due time number `sequence + 1` of the series, given number `sequence` (`due`); null when the series
 * has ended (endsAt passed, or the rule's COUNT/UNTIL).
 */
export function nextDue(series: Series, sequence: number, due: Date): Date | null {
  const cadence = parseCadence(series.cadence);
  let next: Date | null;
  if (cadence.kind === "duration") {
    const step = cadence.duration.mapUnits((n) => n * (sequence + 1));
    next = DateTime.fromJSDate(series.anchorAt, { zone: series.timeZone }).plus(step).toJSDate();
  } else {
    const floating = ruleOf(series, cadence.options).after(toFloating(due, series.timeZone), false);
    next = floating && fromFloating(floating, series.timeZone);
    // A due time moved forward by a DST gap can land on or before the one it follows: take the next.
    if (next && next <= due) return nextDue(series, sequence, new Date(due.getTime() + 1));
  }
  return next && series.endsAt && next > series.endsAt ? null : next;
}

/** The next `count` due times from number `sequence` (`due`, included), for previews. */
export function upcoming(series: Series, sequence: number, due: Date | null, count: number): Date[] {
  const out: Date[] = [];
  for (let n = sequence, at = due; at && out.length < count; n++) {
    out.push(at);
    at = nextDue(series, n, at);
  }
  return out;
}
