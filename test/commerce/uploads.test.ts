// Files and upload_and_publish over the wire: streamed multipart (busboy) with the limit enforced while
// streaming, a PDF recognised by its content, every malformed request a 400 with nothing stored or
// changed, a client that drops mid-upload leaving nothing behind, and files read back only by keys
// allowed to. The app's uploads are capped at 1 MB (UPLOAD_MAX_BYTES) so the limit is cheap to reach;
// the 512 MB route limit itself is exercised by `npm run bench -- uploads`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSchemas } from "../../src/schema/index.ts";
import { waitFor } from "../support/wait.ts";
import {
  commerceFixture,
  filePart,
  multipartBody,
  pdf,
  post,
  startCommerceApp,
  streamingPost,
  upload,
  workOrder,
  type CommerceApp,
} from "./helpers.ts";

const CAP = 1024 * 1024;
let t: CommerceApp;
let refs: Record<string, number>;
const UPLOAD = "/v1/supplier/file/upload";
const publishPath = (id: number) => `/v1/supplier/invoice/file/upload_and_publish/${id}`;

beforeAll(async () => {
  const fixture = commerceFixture();
  fixture.apiKeys.push({
    ref: "coolco-limited-key",
    kind: "supplier",
    contact: "bob",
    rateLimit: { requests: 1, windowSeconds: 60 },
  });
  t = await startCommerceApp({ uploadMaxBytes: CAP, fixture });
  refs = t.fixture.refs;
});
afterAll(() => t?.close());

/** Nothing stored and nothing written since `before`. */
async function unchanged(before: { files: string[]; rows: number }) {
  await waitFor(
    () => JSON.stringify(t.storedFiles().sort()) === JSON.stringify(before.files),
    5_000,
    "the storage to be as before",
  );
  expect(await t.db.storedFile.count()).toBe(before.rows);
}
const snapshot = async () => ({ files: t.storedFiles().sort(), rows: await t.db.storedFile.count() });

const download = async (keyRef: string, url: string) => {
  const response = await fetch(url.replace(/^http:\/\/localhost:\d+/, t.url), { headers: t.headers(keyRef) });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
};

describe("POST /v1/supplier/file/upload", () => {
  it("stores the file as sent and returns its details; the facility reads the same bytes back", async () => {
    const bytes = pdf(50_000, 7);
    const reply = await upload(t, "coolco-key", UPLOAD, [
      { name: "note", content: "ignored field" },
      filePart(bytes, "Quote März.pdf"),
    ]);
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body).toMatchObject({
      type: "File",
      status: "ok",
      data: {
        name: "Quote März.pdf",
        contentType: "application/pdf",
        size: 50_000,
        supplierFacilityId: refs["coolco-pdx"],
      },
    });
    expect(reply.body.data.url).toMatch(new RegExp(`/v1/supplier/file/files/${reply.body.data.id}$`));
    const back = await download("coolco-key", reply.body.data.url);
    expect(back.status).toBe(200);
    expect(back.bytes.equals(bytes)).toBe(true);
    expect(back.headers.get("content-type")).toBe("application/pdf");
    expect(back.headers.get("content-disposition")).toBe(
      `attachment; filename="Quote M_rz.pdf"; filename*=UTF-8''Quote%20M%C3%A4rz.pdf`,
    );
    expect(back.headers.get("x-content-type-options")).toBe("nosniff");
    const gql = await t.graphql("coolco-key", `query($id: Int!) { file(id: $id) { name size url } }`, {
      id: reply.body.data.id,
    });
    expect(gql.body.data.file).toEqual({ name: "Quote März.pdf", size: 50_000, url: reply.body.data.url });
  });

  it("accepts exactly the limit and refuses one byte more while streaming, removing the partial file", async () => {
    const atLimit = await upload(t, "coolco-key", UPLOAD, [
      filePart(Buffer.alloc(CAP, 1), "big.bin", "application/octet-stream"),
    ]);
    expect(atLimit.status, atLimit.body.message).toBe(200);
    expect(atLimit.body.data.size).toBe(CAP);
    const before = await snapshot();
    // Chunked (no Content-Length), so only the parser can tell: the limit is enforced on the stream.
    const { body, contentType } = multipartBody([filePart(Buffer.alloc(CAP + 1, 2), "big.bin")]);
    const stream = streamingPost(t, "coolco-key", UPLOAD, contentType);
    for (let at = 0; at < body.length; at += 64 * 1024) await stream.write(body.subarray(at, at + 64 * 1024));
    stream.end();
    const reply = (await stream.reply) as { status: number; body: any };
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({
      type: "invalidInputDataException",
      message: "the file is larger than 1 MB (1048576 bytes), the limit of this endpoint",
    });
    await unchanged(before);
  });

  it("refuses a body whose declared length is over the limit before reading it", async () => {
    const before = await snapshot();
    const stream = streamingPost(t, "coolco-key", UPLOAD, "multipart/form-data; boundary=x", 600 * 1024 * 1024);
    const reply = (await stream.reply) as { status: number; body: any; headers: Headers };
    expect(reply.status).toBe(400);
    expect(reply.body.message).toContain("the file is larger than 1 MB");
    expect(reply.headers.get("connection")).toBe("close");
    stream.destroy();
    await unchanged(before);
  });

  it("answers 400 for malformed multipart, a missing or second file part, and stores nothing", async () => {
    const before = await snapshot();
    const cases: [string, Promise<{ status: number; body: any }>][] = [
      ["the body must be multipart/form-data", post(t, "coolco-key", UPLOAD, Buffer.from("{}"), "application/json")],
      ["the body must be multipart/form-data", post(t, "coolco-key", UPLOAD, Buffer.from("x"), "multipart/form-data")],
      [
        "malformed multipart body: Unexpected end of form",
        post(
          t,
          "coolco-key",
          UPLOAD,
          multipartBody([filePart(pdf())]).body.subarray(0, 1000),
          multipartBody([]).contentType,
        ),
      ],
      ['no file part named "file"', upload(t, "coolco-key", UPLOAD, [{ name: "other", content: "x" }])],
      ['no file part named "file"', upload(t, "coolco-key", UPLOAD, [])],
      [
        "only one file part is accepted",
        upload(t, "coolco-key", UPLOAD, [filePart(pdf()), filePart(pdf(), "second.pdf")]),
      ],
      [
        'unexpected file part "attachment"',
        upload(t, "coolco-key", UPLOAD, [{ ...filePart(pdf()), name: "attachment" }]),
      ],
      ['part "file" must be a file', upload(t, "coolco-key", UPLOAD, [{ name: "file", content: "just text" }])],
      ["the file is empty", upload(t, "coolco-key", UPLOAD, [filePart("", "empty.pdf")])],
    ];
    for (const [message, pending] of cases) {
      const reply = await pending;
      expect(reply.status, message).toBe(400);
      expect(reply.body.type).toBe("invalidInputDataException");
      expect(reply.body.message).toContain(message);
    }
    await unchanged(before);
  });

  it("leaves nothing behind when the client disconnects mid-upload", async () => {
    const before = await snapshot();
    const { body, contentType } = multipartBody([filePart(Buffer.alloc(CAP - 100, 3), "dropped.bin")]);
    const stream = streamingPost(t, "coolco-key", UPLOAD, contentType);
    await stream.write(body.subarray(0, 300 * 1024));
    await waitFor(
      () => t.storedFiles().some((f) => f.startsWith(".incoming/")),
      5_000,
      "the upload to reach the storage",
    );
    stream.destroy();
    await unchanged(before);
  });

  it("checks the key and the rate limit before reading the body", async () => {
    for (const [key, status] of [
      [null, 401],
      ["acme-key", 401],
      ["inhouse-partner-key", 401],
    ] as const) {
      const stream = streamingPost(t, key, UPLOAD, "multipart/form-data; boundary=x", 100 * 1024);
      expect(((await stream.reply) as { status: number }).status).toBe(status);
      stream.destroy();
    }
    expect((await t.call("coolco-limited-key", "GET", "/v1/supplier/quote/proposals")).status).toBe(200);
    const stream = streamingPost(t, "coolco-limited-key", UPLOAD, "multipart/form-data; boundary=x", 100 * 1024);
    expect(((await stream.reply) as { status: number }).status).toBe(429);
    stream.destroy();
  });

  it("needs the billing permission, and is REST only", async () => {
    const before = await snapshot();
    const denied = await upload(t, "coolco-tech-key", UPLOAD, [filePart(pdf())]);
    expect(denied.status).toBe(400);
    expect(denied.body.message).toContain("this key may not write proposals, invoices and files");
    const gql = await t.graphql("coolco-key", "mutation { uploadFile { id } }");
    expect(gql.body.errors[0].message).toContain("send it as multipart/form-data to its REST path");
    await unchanged(before);
  });
});

describe("reading files back", () => {
  it("is the uploader's facility's, and the buyer's once attached to its proposal", async () => {
    const file = (await upload(t, "coolco-key", UPLOAD, [filePart("photo bytes", "site.jpg", "image/jpeg")])).body.data;
    const other = (await upload(t, "unrelated-supplier-key", UPLOAD, [filePart(pdf(), "theirs.pdf")])).body.data;
    const supplierPath = (id: number) => `/v1/supplier/file/files/${id}`;
    const buyerPath = (id: number) => `/v1/buyer/file/files/${id}`;
    expect((await t.call("unrelated-supplier-key", "GET", supplierPath(file.id))).status).toBe(400);
    expect((await t.call("coolco-key", "GET", supplierPath(other.id))).status).toBe(400);
    expect((await t.call("coolco-key", "GET", supplierPath(999999))).status).toBe(404);
    expect((await t.call("acme-key", "GET", buyerPath(file.id))).status).toBe(400);
    const wo = await workOrder(t, "confirmed");
    const proposal = await t.call("coolco-key", "POST", "/v1/supplier/quote/proposals", {
      workOrderId: wo,
      totalAfterTax: "0",
      attachments: [file],
    });
    expect(proposal.status, proposal.body.message).toBe(200);
    const seen = await t.call("acme-key", "GET", `/v1/buyer/quote/proposals/${proposal.body.data.id}`);
    const url = seen.body.data.attachments[0].url as string;
    expect(url).toMatch(new RegExp(`/v1/buyer/file/files/${file.id}$`));
    const back = await download("acme-key", url);
    expect(back.status).toBe(200);
    expect(back.bytes.toString()).toBe("photo bytes");
    expect((await t.call("globex-key", "GET", buyerPath(file.id))).status).toBe(400);
  });
});

describe("POST /v1/supplier/invoice/file/upload_and_publish/{invoiceId}", () => {
  /** A draft invoice of coolco-pdx on a work order in `until`. */
  async function draft(
    until: Parameters<typeof workOrder>[1] = "WaitingForReview",
    body: Record<string, unknown> = {},
    options: Parameters<typeof workOrder>[2] = {},
  ) {
    const wo = await workOrder(t, until, options);
    const reply = await t.call(options.supplierKey ?? "coolco-key", "POST", "/v1/supplier/invoice/invoices", {
      workOrderId: wo,
      ...body,
    });
    expect(reply.status, reply.body.message).toBe(200);
    return { wo, id: reply.body.data.id as number };
  }
  const invoiceRow = (id: number) => t.db.invoice.findUniqueOrThrow({ where: { id } });

  it("publishes: the PDF (recognised by its content) replaces the invoice's PDF and the invoice becomes pending", async () => {
    const { id } = await draft("WaitingForReview", { invoicePDFLink: "https://files.coolco.example/old.pdf" });
    const bytes = pdf(300_000, 9);
    const reply = await upload(t, "coolco-key", publishPath(id), [
      { name: "file", content: bytes, filename: "scan.txt", type: "text/plain" },
    ]);
    expect(reply.status, reply.body.message).toBe(200);
    expect(reply.body.type).toBe("Invoice");
    const data = reply.body.data;
    expect(data).toMatchObject({
      id,
      status: "pending",
      invoicePdf: { name: "scan.txt", contentType: "application/pdf", size: 300_000 },
    });
    expect(data.invoicePDFLink).toBe(data.invoicePdf.url);
    expect(data.invoicePdf.url).toMatch(new RegExp(`/v1/supplier/file/files/${data.invoicePdf.fileId}$`));
    expect(Date.parse(data.publishedAt)).toBeGreaterThan(Date.now() - 60_000);
    // The buyer now sees the invoice and reads its PDF on its own path.
    const seen = await t.call("acme-key", "GET", `/v1/buyer/invoice/invoices/${id}`);
    expect(seen.body.data.invoicePDFLink).toMatch(new RegExp(`/v1/buyer/file/files/${data.invoicePdf.fileId}$`));
    const back = await download("acme-key", seen.body.data.invoicePDFLink);
    expect(back.bytes.equals(bytes)).toBe(true);
    // Published once: a second publish is refused by the table.
    const again = await upload(t, "coolco-key", publishPath(id), [filePart(pdf())]);
    expect(again.status).toBe(400);
    expect(again.body.message).toBe(`cannot publish invoice ${id} in status pending; allowed from draft, disputed`);
  });

  it("refuses a file that is not a PDF whatever its name and type, leaving nothing", async () => {
    const { id } = await draft();
    const before = await snapshot();
    const row = await invoiceRow(id);
    for (const content of [Buffer.from("PK\x03\x04 zip pretending"), Buffer.from("%PD"), Buffer.from(" %PDF-1.7")]) {
      const reply = await upload(t, "coolco-key", publishPath(id), [
        filePart(content, "invoice.pdf", "application/pdf"),
      ]);
      expect(reply.status).toBe(400);
      expect(reply.body.message).toBe("the file is not a PDF: its content does not start with %PDF-");
    }
    await unchanged(before);
    expect(await invoiceRow(id)).toEqual(row);
  });

  it("answers the contract's 400 for each precondition, before reading the body", async () => {
    const notCompleted = await draft("confirmed");
    const foreign = await draft(
      "WaitingForReview",
      {},
      { supplier: "coolco-van", supplierKey: "van-key", location: "store-2" },
    );
    const before = await snapshot();
    const wrong = await upload(t, "coolco-key", publishPath(notCompleted.id), [filePart(pdf())]);
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe(
      `invoice ${notCompleted.id} cannot be published: work order ${notCompleted.wo} is ConfirmedByServiceProvider, not in display status Completed (WaitingForReview, WorkReviewedAndCompleted, PaymentMade)`,
    );
    const notOwned = await upload(t, "coolco-key", publishPath(foreign.id), [filePart(pdf())]);
    const unknown = await upload(t, "coolco-key", publishPath(777777), [filePart(pdf())]);
    expect(notOwned.status).toBe(400);
    expect(notOwned.body.message).toBe(`no invoice ${foreign.id} that this key may change`);
    expect(unknown.body.message).toBe("no invoice 777777 that this key may change");
    await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { supplierInvoiceEditing: false } });
    try {
      const ok = await draft();
      // A declared 600 MB body is answered at once: the precondition fails before a byte of it is read.
      const stream = streamingPost(
        t,
        "coolco-key",
        publishPath(ok.id),
        "multipart/form-data; boundary=x",
        600 * 1024 * 1024 - 1,
      );
      const reply = (await stream.reply) as { status: number; body: any };
      stream.destroy();
      expect(reply.status).toBe(400);
    } finally {
      await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { supplierInvoiceEditing: true } });
    }
    const disallowed = await draft();
    await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { supplierInvoiceEditing: false } });
    try {
      const reply = await upload(t, "coolco-key", publishPath(disallowed.id), [filePart(pdf())]);
      expect(reply.status).toBe(400);
      expect(reply.body.message).toBe(
        `invoice ${disallowed.id} cannot be published: the configuration of Acme Foods does not allow supplier invoice editing`,
      );
    } finally {
      await t.db.buyerCompany.update({ where: { id: refs.acme }, data: { supplierInvoiceEditing: true } });
    }
    for (const { id } of [notCompleted, foreign, disallowed]) expect((await invoiceRow(id)).status).toBe("draft");
    await unchanged(before);
  });

  it("refuses a second file part, an oversized PDF and a dropped upload with nothing changed", async () => {
    const { id } = await draft();
    const row = await invoiceRow(id);
    const before = await snapshot();
    const two = await upload(t, "coolco-key", publishPath(id), [filePart(pdf()), filePart(pdf(), "again.pdf")]);
    expect(two.status).toBe(400);
    expect(two.body.message).toContain("only one file part is accepted");
    const big = await upload(t, "coolco-key", publishPath(id), [filePart(pdf(CAP + 1))]);
    expect(big.status).toBe(400);
    expect(big.body.message).toBe("the file is larger than 1 MB (1048576 bytes), the limit of this endpoint");
    const { body, contentType } = multipartBody([filePart(pdf(CAP - 200))]);
    const stream = streamingPost(t, "coolco-key", publishPath(id), contentType, body.length);
    await stream.write(body.subarray(0, 200 * 1024));
    await waitFor(
      () => t.storedFiles().some((f) => f.startsWith(".incoming/")),
      5_000,
      "the upload to reach the storage",
    );
    stream.destroy();
    await unchanged(before);
    expect(await invoiceRow(id)).toEqual(row);
  });

  it("refuses internal service team keys (403) and GraphQL (no upload there)", async () => {
    const own = await draft(
      "WaitingForReview",
      {},
      { supplier: "coolco-van", supplierKey: "van-key", location: "store-2" },
    );
    const before = await snapshot();
    const reply = await upload(t, "inhouse-key", publishPath(own.id), [filePart(pdf())]);
    expect(reply.status).toBe(403);
    expect(reply.body.message).toBe("invoices are not available to internal service team keys");
    const gql = await t.graphql("coolco-key", `mutation { uploadAndPublishInvoice(invoiceId: ${own.id}) { id } }`);
    expect(gql.body.errors).toHaveLength(1);
    await unchanged(before);
  });

  it("declares the 512 MB limit on the route and documents multipart in OpenAPI", async () => {
    const route = buildSchemas().rest.supplier.getMutationType()!.getFields().uploadAndPublishInvoice.extensions
      .rest as { upload: { field: string; maxBytes: number } };
    expect(route.upload).toEqual({ field: "file", maxBytes: 512 * 1024 * 1024 });
    const doc = (await t.call(null, "GET", "/v1/supplier/openapi.json")).body;
    const op = doc.paths["/v1/supplier/invoice/file/upload_and_publish/{invoiceId}"].post;
    expect(op.requestBody.content["multipart/form-data"].schema.required).toEqual(["file"]);
    // The bytes go out with the content type stored with the file, so the document declares any type.
    expect(doc.paths["/v1/supplier/file/files/{id}"].get.responses["200"].content).toEqual({
      "*/*": { schema: { type: "string", format: "binary" } },
    });
    expect(doc.paths["/v1/supplier/invoice/invoices"].post.responses).toHaveProperty("406");
  });
});
