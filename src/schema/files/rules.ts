// Files: who reads which (one scope), receiving an upload into the storage (streamed; a PDF checked by
// its first bytes), and the row that records it, written in the caller's transaction so that a failed
// write removes the stored bytes again. See docs/commerce.md "Files".
import type { Prisma, Tx } from "../../db.ts";
import type { Context } from "../core/context.ts";
import type { Viewer } from "../core/viewer.ts";
import { badInput } from "../core/errors.ts";
import { findInScope } from "../core/tenancy.ts";
import { inTransaction } from "../core/transaction.ts";
import type { StoredFile } from "../../generated/prisma/client.ts";

/** Limit of POST /file/upload (the contract names only the invoice PDF's 512 MB). */
export const FILE_MAX_BYTES = 100 * 1024 * 1024;

/**
 * Supplier keys read the files their facility uploaded. Buyer keys read the files attached to proposals
 * of their company and the PDFs of their company's invoices once published (a draft is invisible to the
 * buyer, its PDF too) — the same visibility as the proposals' and invoices' own buyer scopes.
 */
export function fileScope(viewer: Viewer): Prisma.StoredFileWhereInput {
  if (viewer.kind !== "buyer") return { supplierFacilityId: viewer.supplierFacilityId ?? -1 };
  const buyerCompanyId = viewer.buyerCompanyId ?? -1;
  return {
    OR: [
      { proposalLinks: { some: { proposal: { buyerCompanyId } } } },
      { invoicePdfOf: { some: { buyerCompanyId, status: { not: "draft" } } } },
    ],
  };
}

/** Where the caller's files are read back, on its own interface: the URL of a file is this and its id. */
export const filesUrl = (ctx: Context) =>
  `${ctx.publicUrl}/v1/${ctx.viewer.kind === "buyer" ? "buyer" : "supplier"}/file/files/`;

export const fileUrl = (ctx: Context, id: number) => `${filesUrl(ctx)}${id}`;

/** GET /file/files/{id}: the details (GraphQL), or over REST the bytes. 404 unknown, 400 not readable. */
export async function readFile(ctx: Context, id: number): Promise<StoredFile> {
  const file = await findInScope<StoredFile>(ctx.db.storedFile, id, fileScope(ctx.viewer));
  if (ctx.download)
    ctx.download({
      name: file.name,
      contentType: file.contentType,
      size: file.size,
      stream: await ctx.files.open(file.storageKey),
    });
  return file;
}

const PDF_MAGIC = Buffer.from("%PDF-");
const notPdf = () => badInput("the file is not a PDF: its content does not start with %PDF-");

/** Passes the bytes through, failing as soon as the first ones show they are not a PDF. */
async function* pdfOnly(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let head = Buffer.alloc(0);
  for await (const chunk of source) {
    if (head.length < PDF_MAGIC.length) {
      head = Buffer.concat([head, chunk.subarray(0, PDF_MAGIC.length)]);
      if (!head.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC.subarray(0, Math.min(head.length, PDF_MAGIC.length))))
        throw notPdf();
    }
    yield chunk;
  }
  if (head.length < PDF_MAGIC.length) throw notPdf();
}

/** A name to store: the client's base name without control characters, at most 255 characters. */
function fileName(sent: string, fallback: string): string {
  const name = sent
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what this strips
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, 255);
  return name || fallback;
}

const contentTypeOf = (sent: string) =>
  /^[\w.+-]+\/[\w.+-]+$/.test(sent) ? sent.toLowerCase() : "application/octet-stream";

interface Received {
  key: string;
  size: number;
  name: string;
  contentType: string;
}

async function receive(ctx: Context, options: { pdf: boolean }): Promise<Received> {
  if (!ctx.upload) throw badInput("this field takes a file: send it as multipart/form-data to its REST path");
  const incoming = await ctx.upload.file();
  const { key, size } = await ctx.files.put(options.pdf ? pdfOnly(incoming.stream) : incoming.stream);
  if (size === 0) {
    await ctx.files.remove(key);
    throw badInput("the file is empty");
  }
  return {
    key,
    size,
    name: fileName(incoming.name, options.pdf ? "invoice.pdf" : "upload"),
    contentType: options.pdf ? "application/pdf" : contentTypeOf(incoming.contentType),
  };
}

/**
 * Receives the request's file into the storage, then runs `work` in one transaction with the file's
 * row already written. If anything fails after the bytes were stored, they are removed again: an error
 * leaves neither a row nor a file. (Only a crash between the two could leave bytes without a row.)
 */
export async function withUploadedFile<T>(
  ctx: Context,
  options: { pdf: boolean },
  work: (tx: Tx, file: StoredFile) => Promise<T>,
): Promise<T> {
  const received = await receive(ctx, options);
  try {
    return await inTransaction(ctx.db, async (tx) => {
      const file = await tx.storedFile.create({
        data: {
          supplierFacilityId: ctx.viewer.supplierFacilityId!,
          uploadedById: ctx.viewer.contactId,
          name: received.name,
          contentType: received.contentType,
          size: received.size,
          storageKey: received.key,
        },
      });
      return work(tx, file);
    });
  } catch (error) {
    await ctx.files
      .remove(received.key)
      .catch((e: Error) => ctx.logger.warn({ err: e.message, key: received.key }, "could not remove a stored file"));
    throw error;
  }
}

/** POST /file/upload: stores the file for the caller's facility and returns its details. */
export function uploadFile(ctx: Context): Promise<StoredFile> {
  return withUploadedFile(ctx, { pdf: false }, async (_tx, file) => file);
}

/** The ids of `attachments`, each a file uploaded by the key's facility; otherwise a 400 naming the others. */
export async function attachableFiles(tx: Tx, viewer: Viewer, ids: number[]): Promise<number[]> {
  const unique = [...new Set(ids)];
  const own = await tx.storedFile.findMany({
    where: { id: { in: unique }, supplierFacilityId: viewer.supplierFacilityId ?? -1 },
    select: { id: true },
  });
  const stray = unique.filter((id) => !own.some((f) => f.id === id));
  if (stray.length) throw badInput(`attachments ${stray.join(", ")} are not files uploaded by this key's facility`);
  return unique;
}
