// A work order's root buyer-supplier thread: appending (appendRootNotes, the one function every path
// uses: the append_notes endpoints and the note attached to a status action), the append bodies' rules,
// and reading the thread.
import { Prisma, type Tx } from "../../../db.ts";
import type { WorkOrderNote } from "../../../generated/prisma/client.ts";
import { badInput } from "../../core/errors.ts";
import { emailOf } from "../../core/email.ts";
import type { Context } from "../../core/context.ts";
import { findPage, type ListArgs, type ListSpec } from "../../core/list.ts";
import { writeEvent } from "../events.ts";
import {
  actorOf,
  lockForChange,
  relatedTo,
  workOrderScope,
  workOrderScopeSql,
  type WorkOrderForChange,
} from "./scope.ts";
import { eventContext } from "./status.ts";
import { refreshSearchVector } from "../search/vector.ts";
import { contactsOutsideSql, emailsOf, refuseOutsideContacts } from "./contacts.ts";
import { inTransaction } from "../../core/transaction.ts";
import { findWritable } from "../../core/tenancy.ts";

export const MAX_TAGGED_USERS = 25;
export const MAX_BULK_NOTES = 25;

export interface NoteInput {
  text?: string;
  noteAddedBy: string;
  photo?: string | null;
  video?: string | null;
  audio?: string | null;
  otherFile?: string | null;
  /** Structured elements; a user element is written for each mention. */
  elements?: unknown[];
}

/**
 * Writes notes (one, or a bulk batch sharing one noteAddedAt, in order), subscribes the author (and any
 * extra emails) to the buyer subscriber list, and records one workorder.new_note event: a bulk photo
 * post is one grouped notification with every photo URL. Caller supplies the transaction. Returns the
 * notes written, in order.
 */
export async function appendRootNotes(
  tx: Tx,
  wo: WorkOrderForChange,
  notes: NoteInput[],
  options: {
    now: Date;
    addedByName: string;
    subscribe?: string[];
    bulk?: boolean;
    formerSupplierFacilityId?: number | null;
  },
): Promise<WorkOrderNote[]> {
  const authors = notes.map((n, i) => ({
    field: notes.length > 1 ? `notes[${i}].noteAddedBy` : "note.noteAddedBy",
    email: n.noteAddedBy,
  }));
  const tagged = (options.subscribe ?? []).map((email, i) => ({ field: `taggedUsers[${i}]`, email }));
  const related = relatedTo(wo);
  // The note of an action that took the work order from its supplier (decline) is still that supplier's.
  if (options.formerSupplierFacilityId !== undefined)
    related.supplierFacilityIds.push(options.formerSupplierFacilityId);
  // Every named e-mail (authors and tagged users) is subscribed, unless one is a contact of an unrelated
  // tenant: then the 400 rolls the append back. One statement: the check and the subscriptions.
  const named = [...authors, ...tagged];
  const [{ outside }] = await tx.$queryRaw<{ outside: string[] }[]>`
    WITH outside AS (SELECT ${contactsOutsideSql(named, related)} AS emails),
         subscribed AS (
           INSERT INTO "WorkOrderSubscriber" ("workOrderId", email)
           SELECT ${wo.id}::int, e FROM outside, unnest(${emailsOf(named)}::text[]) e
            WHERE cardinality(outside.emails) = 0
           ON CONFLICT DO NOTHING)
    SELECT emails AS outside FROM outside`;
  refuseOutsideContacts(named, outside);
  // One statement for the batch: its rows come back in the order given (ids follow VALUES order).
  const created = await tx.workOrderNote.createManyAndReturn({
    data: notes.map((note) => ({
      workOrderId: wo.id,
      thread: "root" as const,
      text: note.text ?? "",
      noteAddedBy: note.noteAddedBy,
      noteAddedAt: options.now,
      photo: note.photo ?? null,
      video: note.video ?? null,
      audio: note.audio ?? null,
      otherFile: note.otherFile ?? null,
      elements: (note.elements ?? []) as object[],
    })),
  });
  const first = notes[0];
  await writeEvent(tx, "workorder.new_note", eventContext(wo), {
    newNote: options.bulk ? "" : (first.text ?? ""),
    photo: first.photo ?? null,
    video: first.video ?? null,
    ...(options.bulk ? { photos: notes.map((n) => n.photo!).filter(Boolean) } : {}),
    addedBy: options.addedByName,
    addedAt: options.now.toISOString(),
  });
  await refreshSearchVector(tx, wo.id);
  return created.sort((a, b) => a.id - b.id);
}

// ---- the append bodies

const MEDIA = ["photo", "video", "audio", "otherFile"] as const;
const given = (value: unknown) => value !== undefined && value !== null;

function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw badInput(`${what} must be an object`);
  return value as Record<string, unknown>;
}

function mediaOf(note: Record<string, unknown>, what: string) {
  const media: Partial<Record<(typeof MEDIA)[number], string>> = {};
  for (const key of MEDIA) {
    const value = note[key];
    if (!given(value) || value === "") continue;
    if (typeof value !== "string") throw badInput(`${what}.${key} must be a URL string`);
    media[key] = value.trim();
  }
  return media;
}

/**
 * The `note` of an append body: text and noteAddedBy (the author's email, subscribed to the work order)
 * are required; a sent noteAddedAt and unknown keys are ignored (the server clock sets the time).
 */
function parseNote(raw: unknown, what = "note"): NoteInput & { elements: unknown[] } {
  const note = objectOf(raw, what);
  if (typeof note.text !== "string" || !note.text.trim()) throw badInput(`${what}.text is required`);
  if (!given(note.noteAddedBy)) throw badInput(`${what}.noteAddedBy is required`);
  const elements = note.elements ?? [];
  if (!Array.isArray(elements)) throw badInput(`${what}.elements must be an array`);
  return {
    text: note.text,
    noteAddedBy: emailOf(note.noteAddedBy, `${what}.noteAddedBy`),
    elements,
    ...mediaOf(note, what),
  };
}

const userElementEmail = (element: unknown) => {
  const e = element as { type?: unknown; email?: unknown } | null;
  return e && typeof e === "object" && e.type === "user" && typeof e.email === "string"
    ? e.email.trim().toLowerCase()
    : undefined;
};

/**
 * Note rule 1: taggedUsers, trimmed and lowercased, at most 25, every one a valid email. Each user not
 * yet in the note's elements becomes a user element; every tagged user is subscribed.
 */
function tagUsers(note: NoteInput & { elements: unknown[] }, raw: unknown): { note: NoteInput; subscribe: string[] } {
  if (!given(raw)) return { note, subscribe: [] };
  if (!Array.isArray(raw)) throw badInput("taggedUsers must be an array of email addresses");
  if (raw.length > MAX_TAGGED_USERS)
    throw badInput(`taggedUsers takes at most ${MAX_TAGGED_USERS} emails, got ${raw.length}`);
  const emails = [...new Set(raw.map((email, i) => emailOf(email, `taggedUsers[${i}]`)))];
  const tagged = new Set(note.elements.map(userElementEmail));
  const added = emails.filter((email) => !tagged.has(email)).map((email) => ({ type: "user", email }));
  return { note: { ...note, elements: [...note.elements, ...added] }, subscribe: emails };
}

/** Note rule 2: 1 to 25 notes, each a photo URL and nothing else, no URL twice. */
function parsePhotoNotes(raw: unknown, defaultAuthor: string): NoteInput[] {
  if (!Array.isArray(raw) || raw.length < 1 || raw.length > MAX_BULK_NOTES) {
    throw badInput(`notes must be an array of 1 to ${MAX_BULK_NOTES} photo notes`);
  }
  const seen = new Set<string>();
  return raw.map((item, i) => {
    const what = `notes[${i}]`;
    const note = objectOf(item, what);
    const { photo, ...others } = mediaOf(note, what);
    if (!photo) throw badInput(`${what}.photo is required: every bulk note is a photo`);
    const extra = [
      ...(given(note.text) && note.text !== "" ? ["text"] : []),
      ...Object.keys(others),
      // An empty list carries nothing, so it counts as absent.
      ...(given(note.elements) && !(Array.isArray(note.elements) && note.elements.length === 0) ? ["elements"] : []),
    ];
    if (extra.length) throw badInput(`${what} must carry a photo and nothing else; remove ${extra.join(", ")}`);
    if (seen.has(photo)) throw badInput(`${what}.photo repeats ${photo}; each photo may be sent once`);
    seen.add(photo);
    const author = given(note.noteAddedBy) ? emailOf(note.noteAddedBy, `${what}.noteAddedBy`) : defaultAuthor;
    return { text: "", photo, noteAddedBy: author };
  });
}

// ---- appending and reading over the API

/** Appends in one transaction under the work order's row lock; returns the created notes in order. */
async function append(
  ctx: Context,
  workOrderId: number,
  notes: NoteInput[],
  options: { subscribe?: string[]; bulk?: boolean },
) {
  const scope = workOrderScope(ctx.viewer);
  const now = ctx.now();
  return inTransaction(ctx.db, async (tx) => {
    const wo = await lockForChange(tx, workOrderId, scope);
    return appendRootNotes(tx, wo, notes, { now, addedByName: actorOf(ctx.viewer).name, ...options });
  });
}

/** PATCH /append_notes: one note (with tagged users) on the root thread; returns the created note. */
export async function appendNote(ctx: Context, input: { id: number; note?: unknown; taggedUsers?: unknown }) {
  if (!given(input.note))
    throw badInput(given(input.taggedUsers) ? "taggedUsers needs a note object" : "note is required");
  const { note, subscribe } = tagUsers(parseNote(input.note), input.taggedUsers);
  return (await append(ctx, input.id, [note], { subscribe }))[0];
}

/** PATCH /append_notes/bulk: photo notes (same noteAddedAt, sent order) with one grouped notification. */
export async function appendPhotoNotes(ctx: Context, input: { id: number; notes?: unknown }) {
  const data = await append(ctx, input.id, parsePhotoNotes(input.notes, ctx.viewer.email), { bulk: true });
  return { data, count: data.length };
}

export const NOTE_LIST: ListSpec = {
  filters: {},
  sortable: ["noteAddedAt", "id"],
  defaultSort: { field: "noteAddedAt", order: "asc" },
};

/**
 * The root thread, paged. Read over REST it is marked read for the key's contact (the contract's GET),
 * in the page's own statement; over GraphQL a read never writes: markWorkOrderNotesRead does. A work order
 * the key may not read: empty, and nothing marked (the scope is the notes' condition and the mark's).
 */
export async function rootThread(ctx: Context, woId: number, args: ListArgs, query: object) {
  return findPage(
    ctx.db.workOrderNote,
    { workOrderId: woId, thread: "root", workOrder: workOrderScope(ctx.viewer) },
    args,
    NOTE_LIST,
    query,
    ctx.channel === "graphql" ? undefined : { sql: markReadSql(ctx, woId, ctx.now()), db: ctx.db },
  );
}

/** Sets the root thread's read mark of the key's contact to `readAt`, if the key may read the work order. */
function markReadSql(ctx: Context, workOrderId: number, readAt: Date): Prisma.Sql {
  // Concurrent reads by one contact must not collide, hence ON CONFLICT rather than Prisma's upsert.
  return Prisma.sql`
    INSERT INTO "WorkOrderThreadRead" ("workOrderId", "contactId", thread, "readAt")
    SELECT w.id, ${ctx.viewer.contactId}, 'root', ${readAt} FROM "WorkOrder" w
     WHERE w.id = ${workOrderId} AND ${workOrderScopeSql(ctx.viewer)}
    ON CONFLICT ("workOrderId", "contactId", thread) DO UPDATE SET "readAt" = EXCLUDED."readAt"`;
}

/**
 * markWorkOrderNotesRead: marks the root thread of a work order the key may read as read for its
 * contact. Unknown and foreign ids answer alike (findWritable's 400), so other tenants' ids cannot be probed.
 */
export async function markRootThreadRead(ctx: Context, workOrderId: number): Promise<Date> {
  const wo = await findWritable<{ id: number }>(
    ctx.db.workOrder,
    "work order",
    workOrderId,
    workOrderScope(ctx.viewer),
    {
      select: { id: true },
    },
  );
  const readAt = ctx.now();
  await ctx.db.$executeRaw(markReadSql(ctx, wo.id, readAt));
  return readAt;
}
