// Appending to a work order's root buyer-supplier thread: the one function every path uses (the
// append_notes endpoints and the note attached to a status action).
import type { Prisma } from "../../generated/prisma/client.ts";
import { writeEvent } from "../../events/outbox.ts";
import { eventContext, type WorkOrderForChange } from "./rules.ts";
import { refreshSearchVector } from "./search.ts";

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
 * post is one grouped notification with every photo URL. Caller supplies the transaction.
 */
export async function appendRootNotes(
  tx: Prisma.TransactionClient,
  wo: WorkOrderForChange,
  notes: NoteInput[],
  options: { now: Date; addedByName: string; subscribe?: string[]; bulk?: boolean },
): Promise<number[]> {
  const ids: number[] = [];
  for (const note of notes) {
    const row = await tx.workOrderNote.create({
      data: {
        workOrderId: wo.id, thread: "root", text: note.text ?? "", noteAddedBy: note.noteAddedBy, noteAddedAt: options.now,
        photo: note.photo ?? null, video: note.video ?? null, audio: note.audio ?? null, otherFile: note.otherFile ?? null,
        elements: (note.elements ?? []) as object[],
      },
    });
    ids.push(row.id);
  }
  const emails = [...new Set([...notes.map((n) => n.noteAddedBy), ...(options.subscribe ?? [])].map((e) => e.trim().toLowerCase()))];
  await tx.workOrderSubscriber.createMany({ data: emails.map((email) => ({ workOrderId: wo.id, email })), skipDuplicates: true });
  const first = notes[0];
  await writeEvent(tx, "workorder.new_note", eventContext(wo), {
    newNote: options.bulk ? "" : first.text ?? "",
    photo: first.photo ?? null,
    video: first.video ?? null,
    ...(options.bulk ? { photos: notes.map((n) => n.photo!).filter(Boolean) } : {}),
    addedBy: options.addedByName,
    addedAt: options.now.toISOString(),
  });
  await refreshSearchVector(tx, wo.id);
  return ids;
}
