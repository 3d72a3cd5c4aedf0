// The shape of every background hand-over (outbox relay, mail hand-over, …): run a step again at once
// while it finds work, otherwise wait `intervalMs`; a failed round is logged and retried next time.
import type { Logger } from "../../logger.ts";

/** One round of work; true when it did something (so the next round runs at once). */
export type Step = () => Promise<boolean>;

export function startPollLoop(name: string, step: Step, intervalMs: number, logger: Logger) {
  let stopped = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      let busy = false;
      try {
        busy = await step();
      } catch (err) {
        logger.warn({ err: (err as Error).message, loop: name }, "background round failed; will retry");
      }
      if (!busy && !stopped)
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, intervalMs);
        });
    }
  })();
  return {
    async close() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}
