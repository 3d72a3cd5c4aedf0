// Waiting in tests: `waitFor` is the one polling helper (every folder, the fault suite included); `sleep`
// is for the few places that must let time pass rather than wait for a condition.

/**
 * Calls `probe` every 25 ms until it returns something truthy, and returns that; throws after `ms`
 * naming `what`. A probe that returns a boolean resolves to `true`.
 */
export async function waitFor<T>(
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  ms = 10_000,
  what = "condition",
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(25);
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
