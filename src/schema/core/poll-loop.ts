// The shape of every background hand-over (outbox relay, mail hand-over, …): run a step again at once
// while it finds work, otherwise wait `intervalMs` or until poked; a failed round is logged and retried
// next time.
import type { Logger } from "../../logger.ts";

/** One round of work; true when it did something (so the next round runs at once). */
export type Step = () => Promise<boolean>;

export interface PollLoop {
  /** Work may have appeared: run a round now (or right after the one running) instead of at the next interval. */
  poke(): void;
  close(): Promise<void>;
}

export function startPollLoop(name: string, step: Step, intervalMs: number, logger: Logger): PollLoop {
  let stopped = false;
  let poked = false;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (!stopped) {
      let busy = false;
      poked = false; // a poke from here on is for work this round may not see
      try {
        busy = await step();
      } catch (err) {
        logger.warn({ err: (err as Error).message, loop: name }, "background round failed; will retry");
      }
      if (!busy && !poked && !stopped)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, intervalMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      wake = undefined;
    }
  })();
  return {
    poke() {
      poked = true;
      wake?.();
    },
    async close() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}
