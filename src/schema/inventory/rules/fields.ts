// The internal teams' records: the team scope, and the per-field rules that create (absent = default)
// and PATCH (absent keeps, null clears) share. Values are read as core/values.ts reads them.
import type { Viewer } from "../../core/viewer.ts";
import { badInput, forbidden } from "../../core/errors.ts";
import { decimalOf, MONEY, textOf } from "../../core/values.ts";
import { emailOf } from "../../core/email.ts";

/**
 * The internal service team of a key: its supplier company when that company is a buyer's in-house
 * team. Catalogs, stock and purchasing records belong to it, shared by all its facilities. Only partner
 * keys reach these fields (their REST routes and the GraphQL interface guard); a partner key of a
 * third-party supplier company has no team.
 */
const teamIdOf = (viewer: Viewer) => (viewer.isThirdParty ? null : viewer.supplierCompanyId);

/** `where` for the key's team's records (a key without a team matches nothing). */
export const teamScope = (viewer: Viewer) => ({ supplierCompanyId: teamIdOf(viewer) ?? -1 });

/** The team a new record belongs to; a key without one may not create any (403). */
export function teamOf(viewer: Viewer): number {
  const team = teamIdOf(viewer);
  if (team === null)
    throw forbidden(
      "the internal teams interface serves keys of internal service teams; this key's supplier company is not one",
    );
  return team;
}

/** One writable field: how its value is read, whether a create needs it, whether it may be cleared. */
export interface FieldRule {
  /** A create must send it (and it can never be null). */
  required?: boolean;
  /** It has a value always (a column default on create); null is refused. */
  notNull?: boolean;
  read: (value: any, field: string) => unknown;
}

export const text = (max: number, required = false): FieldRule => ({
  required,
  read: (v: string, f) => textOf(v, f, max, required),
});
export const email = (): FieldRule => ({ read: (v: string, f) => (v.trim() ? emailOf(v, f) : null) });
export const money = (): FieldRule => ({ read: (v, f) => decimalOf(v, f, MONEY) });
export const flag = (): FieldRule => ({ notNull: true, read: (v: boolean) => v });
/** The id of another record; the caller checks it is the team's (checkReferences). */
export const reference = (): FieldRule => ({ read: (v: number) => v });

/**
 * The columns a write sets from `input`. Create: a missing required field is a 400, others take the
 * column default. Update: an absent key keeps the stored value, an explicit null clears it (a 400 for
 * required fields). Reference checks (ids of other records) are the caller's, after this.
 */
export function columnsOf(
  input: Record<string, unknown>,
  rules: Record<string, FieldRule>,
  creating: boolean,
): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [field, rule] of Object.entries(rules)) {
    const value = input[field];
    if (value === undefined) {
      if (creating && rule.required) throw badInput(`${field} is required`);
      continue;
    }
    if (value === null) {
      if (rule.required || rule.notNull) throw badInput(`${field} must not be null`);
      data[field] = null;
      continue;
    }
    data[field] = rule.read(value, field);
  }
  return data;
}

interface Lookup {
  count(args: any): Promise<number>;
}

/**
 * Every id in `data` named by `references` must be a record of the key's team: otherwise a 400 naming
 * the field (unknown and foreign ids alike, so other teams' ids cannot be probed).
 */
export async function checkReferences(
  viewer: Viewer,
  data: Record<string, unknown>,
  references: Record<string, { noun: string; table: Lookup }>,
) {
  for (const [field, { noun, table }] of Object.entries(references)) {
    const id = data[field];
    if (id === undefined || id === null) continue;
    if ((await table.count({ where: { id, ...teamScope(viewer) } })) === 0)
      throw badInput(`${field} ${id} is not a ${noun} of this team`);
  }
}
