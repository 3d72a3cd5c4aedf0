// Work order notes over the API: append one note (with tagged users), append a batch of photos, and
// read the root buyer-supplier thread (which marks it read). Every write goes through notes.ts
// appendRootNotes, as the note of a status action does, so notifications and search stay the same.
import { builder } from "../builder.ts";
import { badInput } from "../common/errors.ts";
import { restRoute } from "../common/interfaces.ts";
import { findPage, listArgs, pageOf, pageQuery, pageType, type ListSpec } from "../common/list.ts";
import type { Context } from "../context.ts";
import { can } from "../identity/permissions.ts";
import { appendRootNotes, type NoteInput } from "./notes.ts";
import { actorOf, lockForChange, workOrderScope } from "./rules.ts";
import { emailOf } from "../common/email.ts";

export const MAX_TAGGED_USERS = 25;
export const MAX_BULK_NOTES = 25;

export const WorkOrderNoteRef = builder.prismaObject("WorkOrderNote", {
  description: "A note of a work order's root buyer-supplier thread",
  fields: (t) => ({
    id: t.exposeInt("id"),
    workOrderId: t.exposeInt("workOrderId"),
    text: t.exposeString("text"),
    noteAddedBy: t.exposeString("noteAddedBy"),
    noteAddedAt: t.expose("noteAddedAt", { type: "DateTime", description: "Set by the server clock" }),
    photo: t.exposeString("photo", { nullable: true }),
    video: t.exposeString("video", { nullable: true }),
    audio: t.exposeString("audio", { nullable: true }),
    otherFile: t.exposeString("otherFile", { nullable: true }),
    elements: t.expose("elements", { type: "JSON", description: 'Structured elements; a tagged user is {"type": "user", "email": …}' }),
  }),
});

export const WorkOrderNotePage = pageType("WorkOrderNote", WorkOrderNoteRef);

// ---------------------------------------------------------------- reading the body

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
 * Exported for any other path that takes a note object.
 */
export function parseNote(raw: unknown, what = "note"): NoteInput & { elements: unknown[] } {
  const note = objectOf(raw, what);
  if (typeof note.text !== "string" || !note.text.trim()) throw badInput(`${what}.text is required`);
  if (!given(note.noteAddedBy)) throw badInput(`${what}.noteAddedBy is required`);
  const elements = note.elements ?? [];
  if (!Array.isArray(elements)) throw badInput(`${what}.elements must be an array`);
  return { text: note.text, noteAddedBy: emailOf(note.noteAddedBy, `${what}.noteAddedBy`), elements, ...mediaOf(note, what) };
}

const userElementEmail = (element: unknown) => {
  const e = element as { type?: unknown; email?: unknown } | null;
  return e && typeof e === "object" && e.type === "user" && typeof e.email === "string" ? e.email.trim().toLowerCase() : undefined;
};

/**
 * Note rule 1: taggedUsers, trimmed and lowercased, at most 25, every one a valid email. Each user not
 * yet in the note's elements becomes a user element; every tagged user is subscribed.
 */
function tagUsers(note: NoteInput & { elements: unknown[] }, raw: unknown): { note: NoteInput; subscribe: string[] } {
  if (!given(raw)) return { note, subscribe: [] };
  if (!Array.isArray(raw)) throw badInput("taggedUsers must be an array of email addresses");
  if (raw.length > MAX_TAGGED_USERS) throw badInput(`taggedUsers takes at most ${MAX_TAGGED_USERS} emails, got ${raw.length}`);
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

// ---------------------------------------------------------------- writing

/** Matches no work order: a key without write permission gets the same 400 as for a foreign one. */
const DENIED = { id: { in: [] as number[] } };

/** Appends in one transaction under the work order's row lock; returns the created notes in order. */
async function append(ctx: Context, workOrderId: number, notes: NoteInput[], options: { subscribe?: string[]; bulk?: boolean }) {
  const scope = can(ctx.viewer, "workOrder.write") ? workOrderScope(ctx.viewer) : DENIED;
  const now = ctx.now();
  return ctx.db.$transaction(async (tx) => {
    const wo = await lockForChange(tx, workOrderId, scope);
    const ids = await appendRootNotes(tx, wo, notes, { now, addedByName: actorOf(ctx.viewer).name, ...options });
    return tx.workOrderNote.findMany({ where: { id: { in: ids } }, orderBy: { id: "asc" } });
  });
}

const AppendNoteInput = builder.inputType("WorkOrderAppendNoteInput", {
  fields: (t) => ({
    id: t.int({ required: true, description: "The work order" }),
    // JSON rather than input types: unknown keys of a note are ignored and the messages are the contract's.
    note: t.field({ type: "JSON", description: "{text, noteAddedBy (email), photo?, video?, audio?, otherFile?, elements?}; noteAddedAt is the server's" }),
    taggedUsers: t.field({ type: "JSON", description: `Emails (at most ${MAX_TAGGED_USERS}) to tag in the note and subscribe` }),
  }),
});

const AppendPhotoNotesInput = builder.inputType("WorkOrderAppendPhotoNotesInput", {
  fields: (t) => ({
    id: t.int({ required: true, description: "The work order" }),
    notes: t.field({ type: "JSON", description: `1 to ${MAX_BULK_NOTES} notes of one photo URL each ({photo, noteAddedBy?})` }),
  }),
});

builder.mutationField("appendWorkOrderNote", (t) =>
  t.field({
    ...restRoute({ interfaces: ["buyer"], method: "PATCH", path: "/work_order/work_orders/append_notes", type: "WorkOrderNote", bodyArg: "input" }),
    description: "Appends a note to the root thread; returns the created note.",
    type: WorkOrderNoteRef,
    args: { input: t.arg({ type: AppendNoteInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      if (!given(input.note)) throw badInput(given(input.taggedUsers) ? "taggedUsers needs a note object" : "note is required");
      const { note, subscribe } = tagUsers(parseNote(input.note), input.taggedUsers);
      return (await append(ctx, input.id, [note], { subscribe }))[0];
    },
  }),
);

builder.mutationField("appendWorkOrderPhotoNotes", (t) =>
  t.field({
    ...restRoute({
      interfaces: ["buyer"], method: "PATCH", path: "/work_order/work_orders/append_notes/bulk", type: "WorkOrderNote", list: true, bodyArg: "input",
    }),
    description: "Appends photo notes (same noteAddedAt, sent order) with one grouped notification; returns the created notes.",
    type: WorkOrderNotePage,
    args: { input: t.arg({ type: AppendPhotoNotesInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const data = await append(ctx, input.id, parsePhotoNotes(input.notes, ctx.viewer.email), { bulk: true });
      return { data, count: data.length };
    },
  }),
);

// ---------------------------------------------------------------- reading

const NOTE_LIST: ListSpec = { filters: {}, sortable: ["noteAddedAt", "id"], defaultSort: { field: "noteAddedAt", order: "asc" } };

builder.queryField("workOrderNotes", (t) =>
  t.field({
    ...restRoute({ interfaces: ["buyer", "supplier"], method: "GET", path: "/work_order/work_order_notes/:woId", type: "WorkOrderNote", list: true }),
    description: "The root thread, oldest first, paged like every list; marks it read for the key's contact. A work order the key may not read gives an empty list.",
    type: WorkOrderNotePage,
    args: { woId: t.arg.int({ required: true }), ...listArgs },
    resolve: async (_root, args, ctx, info) => {
      pageOf(args, NOTE_LIST);
      const wo = await ctx.db.workOrder.findFirst({ where: { AND: [{ id: args.woId }, workOrderScope(ctx.viewer)] }, select: { id: true } });
      if (!wo) return { data: [], count: 0 };
      const [page] = await Promise.all([
        findPage(ctx.db.workOrderNote, { workOrderId: wo.id, thread: "root" }, args, NOTE_LIST, pageQuery(ctx, info)),
        // Concurrent reads by one contact must not collide, hence ON CONFLICT rather than Prisma's upsert.
        ctx.db.$executeRaw`
          INSERT INTO "WorkOrderThreadRead" ("workOrderId", "contactId", thread, "readAt") VALUES (${wo.id}, ${ctx.viewer.contactId}, 'root', ${ctx.now()})
          ON CONFLICT ("workOrderId", "contactId", thread) DO UPDATE SET "readAt" = EXCLUDED."readAt"`,
      ]);
      return page;
    },
  }),
);
