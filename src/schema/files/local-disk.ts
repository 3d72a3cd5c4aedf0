// The default file storage: a directory on local disk (FILE_STORAGE_DIR). An object is written to
// `.incoming/<uuid>` first, flushed to disk (fsync) and only then renamed to its key `<2 hex>/<uuid>`,
// so a key never names a partial file; a failed write removes its temporary file once the file stream has
// closed. Keys are checked against that shape before any path is built from them.
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { FileStorage } from "../core/files.ts";

const KEY = /^[0-9a-f]{2}\/[0-9a-f-]{36}$/;

export class LocalDiskStorage implements FileStorage {
  constructor(private readonly dir: string) {}

  private pathOf(key: string): string {
    if (!KEY.test(key)) throw new Error(`not a storage key: ${JSON.stringify(key)}`);
    return path.join(this.dir, key);
  }

  async put(source: Readable | AsyncIterable<Buffer>): Promise<{ key: string; size: number }> {
    const id = crypto.randomUUID();
    const key = `${id.slice(0, 2)}/${id}`;
    const incoming = path.join(this.dir, ".incoming");
    const temp = path.join(incoming, id);
    await fs.promises.mkdir(incoming, { recursive: true });
    // flush: fsync before close, so the rename below never publishes bytes still in the page cache.
    const out = fs.createWriteStream(temp, { flags: "wx", flush: true });
    try {
      await pipeline(source, out);
      const target = this.pathOf(key);
      await fs.promises.mkdir(path.dirname(target), { recursive: true });
      await fs.promises.rename(temp, target);
      return { key, size: out.bytesWritten };
    } catch (error) {
      // pipeline rejects before the file stream has closed; if the source failed at once, the file may
      // not even be opened yet. Removing it before 'close' would let the pending open create it again.
      out.destroy();
      if (!out.closed) await new Promise<void>((resolve) => out.once("close", () => resolve()));
      await fs.promises.rm(temp, { force: true });
      throw error;
    }
  }

  async open(key: string): Promise<Readable> {
    const file = this.pathOf(key);
    await fs.promises.access(file, fs.constants.R_OK);
    return fs.createReadStream(file);
  }

  async remove(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }
}
