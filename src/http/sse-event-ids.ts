// Server-sent events of subscriptions carry each event's stream id as the SSE `id:` field, so a client
// (EventSource does it by itself) resumes with Last-Event-ID after a disconnect. yoga writes the
// frames; this pass adds the `id:` line to every `next` frame whose result has extensions.eventId.
import { Transform } from "node:stream";

function withId(frame: string): string {
  if (!frame.startsWith("event: next\n")) return frame;
  const data = frame.slice(frame.indexOf("\n") + 1);
  if (!data.startsWith("data: ")) return frame;
  try {
    const id = (JSON.parse(data.slice("data: ".length)) as { extensions?: { eventId?: unknown } }).extensions?.eventId;
    return typeof id === "string" ? `id: ${id}\n${frame}` : frame;
  } catch {
    return frame;
  }
}

/** Frames end with a blank line; one may arrive in several chunks. */
export function sseEventIds(): Transform {
  let pending = "";
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      pending += chunk.toString("utf8");
      const frames = pending.split("\n\n");
      pending = frames.pop() ?? "";
      done(null, frames.map((frame) => `${withId(frame)}\n\n`).join(""));
    },
    flush(done) {
      done(null, pending);
    },
  });
}
