// The supplier's private network (/v1/supplier/private_network): the caller's facility and its
// sub-contractor facilities (SupplierSupplierRelationship), their routing emails, and the sub-contractor
// invite. See docs/networks.md for the rules in prose.
import crypto from "node:crypto";
import { Prisma, type Tx } from "../../db.ts";
import type { Context } from "../core/context.ts";
import type { Viewer } from "../core/viewer.ts";
import { badInput, conflict, notFound } from "../core/errors.ts";
import { emailOf } from "../core/email.ts";
import type { ListSpec } from "../core/list.ts";
import { inTransaction } from "../core/transaction.ts";
import { queueMail, senderNamed, type MailMessage } from "../mail/public.ts";

/** The one scope: relationships whose source is the key's facility. */
export const privateNetworkScope = (viewer: Viewer): Prisma.SupplierSupplierRelationshipWhereInput => ({
  sourceSupplierFacilityId: viewer.supplierFacilityId ?? -1,
});

export const PRIVATE_NETWORK_LIST: ListSpec = {
  filters: { id: "int", supplierFacilityId: "int" },
  sortable: ["id", "supplierFacilityId", "createdAt", "updatedAt"],
  defaultSort: { field: "id", order: "asc" },
};

/** Limits of a sub-contractor relationship: its routing emails, the names on it, the invite note. */
export const SUB_CONTRACTOR_LIMITS = { routingEmails: 50, name: 100, note: 2000 };

/** The caller's facility, from the key's contact (invite rule 2: a contact without one is a 400). */
function callerFacilityId(viewer: Viewer): number {
  if (viewer.supplierFacilityId === null) throw badInput("the key's contact has no supplier facility");
  return viewer.supplierFacilityId;
}

const isUniqueViolation = (e: unknown) => e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002";

const relationshipMissing = (source: number, supplierFacilityId: number) =>
  notFound(
    `could not find supplier supplier relationship between your supplier facility ${source} and supplier facility ${supplierFacilityId}`,
  );

/**
 * A routing field of the body: absent keeps (undefined), null clears, else every entry an email (400
 * naming the field and index), lowercased and deduplicated. An address that is a contact must be a
 * contact of one of the two companies of the relationship (another tenant's contact is a 400).
 */
async function routingEmails(tx: Tx, field: string, value: unknown, companyIds: number[]) {
  if (value === undefined) return undefined;
  if (value === null) return [];
  if (!Array.isArray(value)) throw badInput(`${field} must be an array of email addresses`);
  const emails = [...new Set(value.map((v, i) => emailOf(v, `${field}[${i}]`)))];
  if (emails.length > SUB_CONTRACTOR_LIMITS.routingEmails)
    throw badInput(`${field} may hold at most ${SUB_CONTRACTOR_LIMITS.routingEmails} emails`);
  const foreign = await tx.contact.findMany({
    where: {
      OR: emails.map((email) => ({ email: { equals: email, mode: "insensitive" as const } })),
      NOT: { supplierFacility: { supplierCompanyId: { in: companyIds } } },
    },
    select: { email: true },
  });
  if (foreign.length) throw badInput(`${field}: ${foreign.map((c) => c.email).join(", ")} belong to another company`);
  return emails;
}

export interface RelationshipInput {
  supplierFacilityId: number;
  /** Arrays of emails; typed JSON so that a bare string is refused rather than read as a list of one. */
  workOrdersRoutedTo?: unknown;
  supplierAccountEmails?: unknown;
}

/** The routing fields of a body, checked against the relationship's two companies. */
async function routingData(tx: Tx, source: number, subCompanyId: number, input: RelationshipInput) {
  const own = await tx.supplierFacility.findUniqueOrThrow({
    where: { id: source },
    select: { supplierCompanyId: true },
  });
  const companies = [own.supplierCompanyId, subCompanyId];
  return {
    workOrdersRoutedTo: await routingEmails(tx, "workOrdersRoutedTo", input.workOrdersRoutedTo, companies),
    supplierAccountEmails: await routingEmails(tx, "supplierAccountEmails", input.supplierAccountEmails, companies),
  };
}

/** POST: adds supplierFacilityId to the caller's private network; an existing relationship is a 409. */
export async function createRelationship(ctx: Context, input: RelationshipInput, query: object) {
  const source = callerFacilityId(ctx.viewer);
  const target = input.supplierFacilityId;
  if (target === source) throw badInput(`supplierFacilityId ${target} is your own facility`);
  const exists = () =>
    conflict(`supplier facility ${target} is already in the private network of supplier facility ${source}`);
  try {
    return await inTransaction(ctx.db, async (tx) => {
      const sub = await tx.supplierFacility.findUnique({ where: { id: target }, select: { supplierCompanyId: true } });
      if (!sub) throw badInput(`supplierFacilityId ${target} is not a supplier facility`);
      const routing = await routingData(tx, source, sub.supplierCompanyId, input);
      const key = { sourceSupplierFacilityId: source, supplierFacilityId: target };
      if (
        await tx.supplierSupplierRelationship.findUnique({
          where: { sourceSupplierFacilityId_supplierFacilityId: key },
          select: { id: true },
        })
      ) {
        throw exists();
      }
      return tx.supplierSupplierRelationship.create({ ...query, data: { ...key, ...routing } });
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw exists(); // a concurrent create of the same pair won
    throw e;
  }
}

/** The caller's relationship with a supplier facility, or the contract's 404. */
async function ownRelationship(tx: Tx, source: number, supplierFacilityId: number) {
  const row = await tx.supplierSupplierRelationship.findUnique({
    where: { sourceSupplierFacilityId_supplierFacilityId: { sourceSupplierFacilityId: source, supplierFacilityId } },
    include: { supplierFacility: { select: { name: true, supplierCompanyId: true } } },
  });
  if (!row) throw relationshipMissing(source, supplierFacilityId);
  return row;
}

/** PUT: the routing fields of the relationship with supplierFacilityId (absent keeps, null or [] clears). */
export function updateRelationship(ctx: Context, input: RelationshipInput, query: object) {
  const source = callerFacilityId(ctx.viewer);
  return inTransaction(ctx.db, async (tx) => {
    const row = await ownRelationship(tx, source, input.supplierFacilityId);
    const routing = await routingData(tx, source, row.supplierFacility.supplierCompanyId, input);
    return tx.supplierSupplierRelationship.update({ ...query, where: { id: row.id }, data: routing });
  });
}

/** DELETE …/delete_by_supplier/{supplierFacilityId}: removes the relationship and answers it as it was. */
export function deleteRelationship(ctx: Context, supplierFacilityId: number, query: object) {
  const source = callerFacilityId(ctx.viewer);
  return inTransaction(ctx.db, async (tx) => {
    const row = await ownRelationship(tx, source, supplierFacilityId);
    return tx.supplierSupplierRelationship.delete({ ...query, where: { id: row.id } });
  });
}

// ---- the sub-contractor invite

const INVITE_SENT = { code: "subContractorInviteSent", message: "Emails sent!" } as const;

export interface SubContractorInviteFacts {
  toEmail: string;
  /** The invitee's first name for the greeting (the contact's, else the path's fN). */
  greetingName: string;
  referrerFirstName: string;
  referrerFullName: string;
  referrerEmail: string;
  facilityName: string;
  subContractorName: string;
  note: string | null;
  notifiedAt: string[];
  isNew: boolean;
  portalUrl: string;
}

/**
 * The invite mail (rule 4): `Your client` stands for an unresolved referrer name and `you` for an
 * unresolved sub-contractor facility name.
 */
export function subContractorInviteMail(f: SubContractorInviteFacts): MailMessage {
  const referrerFirst = f.referrerFirstName.trim() || "Your client";
  const referrerFull = f.referrerFullName.trim() || "Your client";
  const sub = f.subContractorName.trim() || "you";
  const portal = f.portalUrl.replace(/\/+$/, "");
  const lines = [
    f.greetingName.trim() ? `Hello ${f.greetingName.trim()},` : "Hello,",
    "",
    `${referrerFull} from ${f.facilityName} has added ${sub} as a sub-contractor.`,
    "",
  ];
  if (f.note) lines.push(f.note, "");
  lines.push(`Dispatched work will be notified at: ${f.notifiedAt.join(", ")}`, "");
  if (f.isNew)
    lines.push(
      "Sign up to receive and manage the work:",
      `${portal}/supplier/signup?email=${encodeURIComponent(f.toEmail)}`,
    );
  else lines.push("Sign in to receive and manage the work:", portal);
  return {
    to: f.toEmail,
    cc: f.referrerEmail,
    from: senderNamed(referrerFull),
    subject: `${referrerFirst} from ${f.facilityName} has added ${sub} as a sub-contractor`,
    text: `${lines.join("\n")}\n`,
  };
}

export interface InviteArgs {
  sfId: number;
  fromEmail: string;
  toEmail: string;
  fN: string;
  lN: string;
  note?: string | null;
}

const nameOf = (value: string, param: string) => {
  const name = value.trim();
  if (!name || name.length > SUB_CONTRACTOR_LIMITS.name)
    throw badInput(`${param} must be 1 to ${SUB_CONTRACTOR_LIMITS.name} characters`);
  return name;
};

/**
 * POST …/{sfId}/invite/{fromEmail}/{toEmail}/name/{fN}/{lN}: rules 1-5 of the contract. The invitee's
 * contact (when created) and the mail commit in one transaction; the worker sends the mail.
 */
export async function inviteSubContractor(ctx: Context, args: InviteArgs) {
  const source = callerFacilityId(ctx.viewer); // rule 2
  // Path values arrive URL-decoded; they are still checked like any input.
  const fromEmail = emailOf(args.fromEmail, "fromEmail");
  const toEmail = emailOf(args.toEmail, "toEmail");
  const firstName = nameOf(args.fN, "fN");
  const lastName = nameOf(args.lN, "lN");
  const note = args.note?.trim() || null;
  if (note && note.length > SUB_CONTRACTOR_LIMITS.note)
    throw badInput(`note must be at most ${SUB_CONTRACTOR_LIMITS.note} characters`);
  await inTransaction(ctx.db, async (tx) => {
    const relationship = await ownRelationship(tx, source, args.sfId); // rule 1
    const referrer = await tx.contact.findFirst({
      where: { email: { equals: fromEmail, mode: "insensitive" }, supplierFacilityId: source },
      select: { nameGiven: true, nameFamily: true, supplierFacility: { select: { name: true } } },
    });
    if (!referrer) throw badInput(`fromEmail ${fromEmail} is not a contact of your supplier facility`);
    const invitee = await inviteeContact(
      tx,
      toEmail,
      relationship.supplierFacilityId,
      relationship.supplierFacility.supplierCompanyId,
      {
        nameGiven: firstName,
        nameFamily: lastName,
        invitedAt: ctx.now(),
      },
    );
    const notifiedAt = [relationship.workOrdersRoutedTo, relationship.supplierAccountEmails].find(
      (list) => list.length,
    ) ?? [toEmail]; // rule 5
    const message = subContractorInviteMail({
      toEmail,
      greetingName: invitee.nameGiven,
      referrerFirstName: referrer.nameGiven,
      referrerFullName: `${referrer.nameGiven} ${referrer.nameFamily}`,
      referrerEmail: fromEmail,
      facilityName: referrer.supplierFacility!.name,
      subContractorName: relationship.supplierFacility.name,
      note,
      notifiedAt,
      isNew: invitee.isNew,
      portalUrl: ctx.portalUrl ?? "",
    });
    // Every invite is a mail of its own (a repeated invite is sent again); BullMQ ids allow no ":".
    await queueMail(tx, `subcontractor-invite-${relationship.id}-${crypto.randomUUID()}`, message);
  });
  return INVITE_SENT;
}

/**
 * Rule 3: the supplier contact for toEmail. One of the sub-contractor's company is used as it is; with
 * none, a contact is created at the sub-contractor facility and flagged new (it keeps the flag until it
 * signs up, so a repeated invite sends the signup link again). Any other contact is another tenant's: 400.
 */
async function inviteeContact(
  tx: Tx,
  email: string,
  supplierFacilityId: number,
  supplierCompanyId: number,
  fresh: { nameGiven: string; nameFamily: string; invitedAt: Date },
) {
  const select = { nameGiven: true, isNew: true, supplierFacility: { select: { supplierCompanyId: true } } } as const;
  // Rows written before emails were lowercased may differ in case only: look up without case.
  let contact = await tx.contact.findFirst({
    where: { email: { equals: email, mode: "insensitive" } },
    orderBy: { id: "asc" },
    select,
  });
  if (!contact) {
    // skipDuplicates: of two concurrent invites of one address, one creates the contact and both use it.
    await tx.contact.createMany({
      data: [{ email, ...fresh, supplierFacilityId, roles: [], isNew: true }],
      skipDuplicates: true,
    });
    contact = await tx.contact.findUniqueOrThrow({ where: { email }, select });
  }
  if (contact?.supplierFacility?.supplierCompanyId !== supplierCompanyId) {
    throw badInput(`toEmail ${email} is a contact of another company`);
  }
  return contact;
}
