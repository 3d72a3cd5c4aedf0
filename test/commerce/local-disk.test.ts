// The local-disk storage on its own: a write whose source fails leaves no temporary file behind. The
// pipeline gives up before the file stream has closed (when the source fails at once, before the file is
// even open), so the removal must wait for 'close'; otherwise the pending open can create the file again
// after it was removed — seen as a stray `.incoming` file under load.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { LocalDiskStorage } from "../../src/schema/files/local-disk.ts";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wo-disk-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

async function* failing(first: Buffer | undefined): AsyncGenerator<Buffer> {
  if (first) yield first;
  throw new Error("source failed");
}

describe("LocalDiskStorage.put", () => {
  it("has closed and removed the temporary file when a failed write reports, whenever the source failed", async () => {
    const created = vi.spyOn(fs, "createWriteStream");
    const storage = new LocalDiskStorage(dir);
    for (const first of [undefined, Buffer.from("%PD")]) {
      await expect(storage.put(failing(first))).rejects.toThrow("source failed");
      const stream = created.mock.results.at(-1)?.value as fs.WriteStream;
      expect(stream.closed).toBe(true);
    }
    expect(created).toHaveBeenCalledTimes(2);
    expect(fs.readdirSync(path.join(dir, ".incoming"))).toEqual([]);
  });

  it("stores a complete write under its key and reads it back", async () => {
    const storage = new LocalDiskStorage(dir);
    const { key, size } = await storage.put(Readable.from([Buffer.from("%PDF-1.7 hello")]));
    expect(size).toBe(14);
    const chunks: Buffer[] = [];
    for await (const chunk of await storage.open(key)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe("%PDF-1.7 hello");
    expect(fs.readdirSync(path.join(dir, ".incoming"))).toEqual([]);
  });
});
