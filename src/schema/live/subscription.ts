// One subscriber's stream: replay from the outbox after the id it gives, then live, with no gap and
// no duplicate at the seam, and a bounded buffer. The seam: the subscriber starts listening first (its
// live messages wait in its buffer), learning the instance's position P; the replay reads (after, P]
// from the outbox; the buffer holds exactly the messages after P. A subscriber whose buffer fills is
// sent an error carrying the last id it got, and ended.
import type { Db } from "../../db.ts";
import { badInput } from "../core/errors.ts";
import type { Audience } from "../work-orders/public.ts";
import { eventsExpired } from "./errors.ts";
import { readStream, relayedAt, streamHead, type LiveMessage } from "./stream.ts";
import type { LiveEvents } from "./tail.ts";

/** What a subscription yields: a message, or the notice that it fell too far behind. */
export type LiveItem = LiveMessage | { tooSlow: true; resumeAfter: string };

export interface StreamRequest {
  audience: Audience;
  accepts: (m: LiveMessage) => boolean;
  /** Resume after this message number. */
  after?: number;
  keyId: number;
  /** Ends the subscriber's connection (websockets: the socket; SSE ends with the stream). */
  disconnect?: () => void;
}

/**
 * The message number of an `after` argument or Last-Event-ID header, checked: a number the stream
 * has given, within the retention window.
 */
export async function resumePoint(
  db: Db,
  after: string,
  window: { now: Date; retentionHours: number },
): Promise<number> {
  const seq = /^\d{1,15}$/.test(after.trim()) ? Number(after) : NaN;
  if (Number.isNaN(seq)) throw badInput(`after must be an event id (digits), got ${JSON.stringify(after)}`, "after");
  const head = await streamHead(db);
  if (seq > head) throw badInput(`after names event ${seq}, which does not exist yet`, "after");
  if (seq === head) return seq; // nothing to replay
  const at = await relayedAt(db, seq);
  if (!at || at.getTime() < window.now.getTime() - window.retentionHours * 3_600_000) {
    throw eventsExpired(after, window.retentionHours);
  }
  return seq;
}

/** Messages waiting for one subscriber, up to a limit; past it, the buffer is dropped and marked. */
class Buffer {
  private items: LiveMessage[] = [];
  private head = 0;
  overflowed = false;
  constructor(private readonly limit: number) {}
  push(m: LiveMessage) {
    if (this.overflowed) return;
    if (this.items.length - this.head >= this.limit) {
      this.overflowed = true;
      this.items = [];
      this.head = 0;
    } else this.items.push(m);
  }
  shift(): LiveMessage | undefined {
    if (this.head === this.items.length) return undefined;
    const m = this.items[this.head++];
    // Messages handed over are not kept (each holds its answers while it lives, shared-answers.ts):
    // an emptied buffer starts again, a long one drops its head now and then.
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return m;
  }
}

export function openStream(live: LiveEvents, db: Db, request: StreamRequest): AsyncIterableIterator<LiveItem> {
  const release = live.admit(request.keyId);
  const buffer = new Buffer(live.settings.bufferLimit);
  let ended = false;
  let wake: (() => void) | undefined;
  const nudge = () => {
    wake?.();
    wake = undefined;
  };
  const listener = {
    push(m: LiveMessage) {
      if (!request.accepts(m)) return;
      buffer.push(m);
      nudge();
    },
    end() {
      ended = true;
      nudge();
    },
  };

  async function* messages(): AsyncGenerator<LiveItem> {
    const { position, stop } = await live.listen(listener);
    try {
      // The last number handed over; a message without one (an older relay's) always goes out.
      let last = request.after ?? position;
      const fresh = (m: LiveMessage) => !(m.seq <= last);
      for (let from = request.after; from !== undefined && !ended; ) {
        const page = await readStream(db, { after: from, upTo: position, audience: request.audience });
        for (const m of page.messages.filter(request.accepts)) yield m;
        last = Math.max(last, page.messages.at(-1)?.seq ?? last);
        from = page.last;
      }
      while (!ended) {
        const m = buffer.shift();
        if (m) {
          if (fresh(m)) yield m;
          last = Math.max(last, m.seq ?? last);
        } else if (buffer.overflowed) {
          // Everything up to `last` was handed over or filtered out: resuming after it misses nothing.
          yield { tooSlow: true, resumeAfter: String(last) };
          request.disconnect?.(); // after the notice went out
          return;
        } else await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      stop();
      release();
    }
  }

  const generator = messages();
  let started = false;
  return {
    next: () => {
      started = true;
      return generator.next();
    },
    // A generator waiting for its next message cannot be returned from until it is woken.
    return: async () => {
      ended = true;
      nudge();
      if (!started) release();
      return generator.return(undefined);
    },
    throw: (error) => generator.throw(error),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
