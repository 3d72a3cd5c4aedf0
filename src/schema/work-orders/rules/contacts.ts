// Contact e-mails a body names (createdBy, note authors, taggedUsers, supplierPrimaryContactEmail,
// technicianEmail) may name people without an account here, but never a contact of an unrelated
// tenant: such a contact would be subscribed to, or named on, another company's work order.
import { Prisma, type Tx } from "../../../db.ts";
import { badInput } from "../../core/errors.ts";

/** Whose contacts a work order may name: its buyer company and the supplier facilities on it. */
export interface Related {
  buyerCompanyId: number | null;
  supplierFacilityIds: readonly (number | null)[];
}

export interface NamedEmail {
  field: string;
  email: string;
}

const normalized = (email: string) => email.trim().toLowerCase();

/** The distinct e-mails of `named` as stored (trimmed, lowercased): what subscriptions and checks compare. */
export const emailsOf = (named: readonly NamedEmail[]) => [...new Set(named.map((n) => normalized(n.email)))];

/**
 * A SQL expression: the (lowercased) e-mails among `named` that are contacts of a company or facility
 * outside `related`, as a text array. An expression, so that a write can check its e-mails in a
 * statement it sends anyway (work order creation reads its references in one).
 */
export function contactsOutsideSql(named: readonly NamedEmail[], related: Related): Prisma.Sql {
  const emails = emailsOf(named);
  // A buyer facility's contact is outside unless of the buyer company; any other contact unless its
  // facility (or its lack of one) is among the suppliers'. Contact e-mails are unique ignoring case.
  return Prisma.sql`ARRAY(
    SELECT lower(c.email) FROM "Contact" c LEFT JOIN "BuyerFacility" f ON f.id = c."buyerFacilityId"
     WHERE lower(c.email) = ANY(${emails}::text[])
       AND CASE WHEN c."buyerFacilityId" IS NOT NULL THEN f."buyerCompanyId" IS DISTINCT FROM ${related.buyerCompanyId}::int
           ELSE NOT EXISTS (SELECT 1 FROM unnest(${[...related.supplierFacilityIds]}::int[]) s(id)
                             WHERE s.id IS NOT DISTINCT FROM c."supplierFacilityId") END)`;
}

/** 400 naming the first field whose e-mail is among `outside` (what contactsOutsideSql answered). */
export function refuseOutsideContacts(named: readonly NamedEmail[], outside: readonly string[]): void {
  const offending = named.find((n) => outside.includes(normalized(n.email)));
  if (offending)
    throw badInput(`${offending.field} ${offending.email} is a contact of a company unrelated to this work order`);
}

/** 400 naming the first field whose e-mail is a contact of a company or facility outside `related`. */
export async function checkContactEmails(tx: Tx, named: readonly NamedEmail[], related: Related): Promise<void> {
  if (named.length === 0) return;
  const [{ outside }] = await tx.$queryRaw<{ outside: string[] }[]>`
    SELECT ${contactsOutsideSql(named, related)} AS outside`;
  refuseOutsideContacts(named, outside);
}
