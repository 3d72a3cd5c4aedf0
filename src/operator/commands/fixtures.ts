// `operator apply`: fixtures (format: docs/operator.md; example: examples/operator-fixture.json).
import fs from "node:fs";
import { applyFixture, FixtureError } from "../apply.ts";
import type { Command } from "../command.ts";

export const fixtureCommands: Command[] = [
  {
    name: "apply",
    usage: "<fixture.json>",
    args: ["fixture.json"],
    help: `Creates or updates everything a fixture file describes, in one transaction, idempotently.
Prints {refs, keys, webhooks}: the database id of every ref, each key's apiKey and svcKey (the svcKey
only when the key is created), each webhook endpoint's id and signing secret.
Example: examples/operator-fixture.json. Format: docs/operator.md.`,
    writes: (result: { refs: Record<string, number> }) =>
      Object.entries(result.refs).map(([ref, id]) => `${ref}:${id}`),
    async run({ args: [file], config, db }) {
      const text = fs.readFileSync(file, "utf8");
      let input: unknown;
      try {
        input = JSON.parse(text);
      } catch (error) {
        throw new FixtureError([`${file} is not valid JSON: ${(error as Error).message}`]);
      }
      return applyFixture(db(), input, { allowInsecureWebhooks: config.webhookAllowInsecureUrls });
    },
  },
];
