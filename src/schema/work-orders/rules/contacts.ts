// Contact e-mails a body names (createdBy, note authors, taggedUsers, supplierPrimaryContactEmail,
// technicianEmail) may name people without an account here, but never a contact of an unrelated
// tenant: such a contact would be subscribed to, or named on, another company's work order.
import type { Tx } from "../../../db.ts";
import { badInput } from "../../core/errors.ts";

/** Whose contacts a work order may name: its buyer company and the supplier facilities on it. */
export interface Related {
  buyerCompanyId: number | null;
  supplierFacilityIds: readonly (number | null)[];
}

/** 400 naming the first field whose e-mail is a contact of a company or facility outside `related`. */
export async function checkContactEmails(
  tx: Tx,
  named: readonly { field: string; email: string }[],
  related: Related,
): Promise<void> {
  if (named.length === 0) return;
  const emails = [...new Set(named.map((n) => n.email.trim().toLowerCase()))];
  const contacts = await tx.contact.findMany({
    where: { email: { in: emails, mode: "insensitive" } },
    select: { email: true, supplierFacilityId: true, buyerFacility: { select: { buyerCompanyId: true } } },
  });
  const outside = new Set(
    contacts
      .filter((c) =>
        c.buyerFacility
          ? c.buyerFacility.buyerCompanyId !== related.buyerCompanyId
          : !related.supplierFacilityIds.includes(c.supplierFacilityId),
      )
      .map((c) => c.email.toLowerCase()),
  );
  const offending = named.find((n) => outside.has(n.email.trim().toLowerCase()));
  if (offending)
    throw badInput(`${offending.field} ${offending.email} is a contact of a company unrelated to this work order`);
}
