// The operator CLI end to end: every check spawns the real CLI (src/operator/cli.ts, compiled once per
// run: test/support/operator-cli.ts) against a database of this file's own, and reads the database back
// with pg. Spawns that cannot affect each other run concurrently (each costs ~1 s of CPU).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "../../src/schema/core/keys.ts";
import { createTestDatabase } from "../support/databases.ts";
import { operatorCli, ROOT, type Run } from "../support/operator-cli.ts";

// The example the README and docs/operator.md point at.
const FIXTURE_PATH = path.join(ROOT, "examples/operator-fixture.json");
const FIXTURE = JSON.parse(fs.readFileSync(FIXTURE_PATH, "utf8"));
const DAY_MS = 24 * 60 * 60 * 1000;

interface ApplyOutput {
  refs: Record<string, number>;
  keys: Record<string, { apiKey: string; svcKey: string | null }>;
  webhooks: Record<string, { id: number; secret: string }>;
}

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let client: pg.Client;
let tmp: string;

/** Runs the CLI on this file's database; never rejects. WEBHOOK_ALLOW_INSECURE_URLS is unset unless `env` sets it. */
const cli = (args: string[], env: Record<string, string> = {}): Promise<Run> =>
  operatorCli(database.url, args, { env });

/** A fixture written to this file's temp directory; returns its path. */
function fixtureFile(name: string, content: unknown): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

/** Rows per table, but Prisma's migration log and the audit log (every successful command adds its entry: docs/audit.md). */
async function counts(): Promise<Record<string, number>> {
  const { rows: tables } = await client.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT IN ('_prisma_migrations', 'AuditEntry') ORDER BY 1`,
  );
  const { rows } = await client.query<{ name: string; n: number }>(
    tables.map((t) => `SELECT '${t.name}' AS name, count(*)::int AS n FROM "${t.name}"`).join(" UNION ALL "),
  );
  return Object.fromEntries(rows.map((r) => [r.name, r.n]));
}

/** Every ref a fixture declares, site survey task refs included. */
function refsOf(fixture: Record<string, unknown>): string[] {
  const refs: string[] = [];
  for (const items of Object.values(fixture)) {
    if (!Array.isArray(items)) continue;
    for (const item of items) {
      if (item.ref) refs.push(item.ref);
      for (const task of item.tasks ?? []) refs.push(task.ref);
    }
  }
  return refs;
}

const problemLines = (run: Run) => run.stderr.trimEnd().split("\n");

beforeAll(async () => {
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "operator-cli-"));
});

afterAll(async () => {
  await client?.end();
  await database?.drop();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

let first: ApplyOutput;
let afterApply: Record<string, number>;

describe("operator apply", () => {
  it("applies the example fixture and prints one JSON object with refs, keys and webhooks", async () => {
    expect(FIXTURE.apiKeys.length).toBeGreaterThan(0);
    expect(FIXTURE.webhookEndpoints.length).toBeGreaterThan(0);
    const run = await cli(["apply", FIXTURE_PATH]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    first = JSON.parse(run.stdout);
    expect(Object.keys(first).sort()).toEqual(["keys", "refs", "webhooks"]);

    const declared = refsOf(FIXTURE);
    expect(declared).toContain(FIXTURE.siteSurveys[0].tasks[0].ref);
    expect(Object.keys(first.refs).sort()).toEqual([...declared].sort());
    for (const ref of declared) expect(Number.isInteger(first.refs[ref]) && first.refs[ref] > 0, ref).toBe(true);

    expect(Object.keys(first.keys).sort()).toEqual(FIXTURE.apiKeys.map((k: { ref: string }) => k.ref).sort());
    for (const [ref, key] of Object.entries(first.keys)) {
      expect(key.apiKey, ref).toMatch(/^wok_[A-Za-z0-9_-]{16,}$/);
      expect(key.svcKey, ref).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    }
    const svcKeys = Object.values(first.keys).map((k) => k.svcKey);
    expect(new Set(svcKeys).size).toBe(svcKeys.length);

    expect(Object.keys(first.webhooks).sort()).toEqual(
      FIXTURE.webhookEndpoints.map((w: { ref: string }) => w.ref).sort(),
    );
    for (const [ref, hook] of Object.entries(first.webhooks)) {
      expect(hook.id, ref).toBe(first.refs[ref]);
      expect(hook.secret, ref).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    }

    afterApply = await counts();
    expect(afterApply.OperatorRef).toBe(declared.length);
    expect(afterApply.ApiKey).toBe(FIXTURE.apiKeys.length);
    expect(afterApply.WebhookEndpoint).toBe(FIXTURE.webhookEndpoints.length);
    expect(afterApply.Location).toBe(FIXTURE.locations.length);
    expect(afterApply.CurrencyRate).toBe(FIXTURE.currencyRates.length);
  });

  it("stores each key's svcKey as its SHA-256 digest (so the printed pair authenticates) with the fixture's settings", async () => {
    const { rows } = await client.query(`SELECT * FROM "ApiKey"`);
    for (const k of FIXTURE.apiKeys) {
      const printed = first.keys[k.ref];
      const row = rows.find((r) => r.apiKey === printed.apiKey);
      expect(row, k.ref).toBeDefined();
      expect(row.id).toBe(first.refs[k.ref]);
      expect(row.secretHash).toBe(hashSecret(printed.svcKey!));
      expect(row.kind).toBe(k.kind);
      expect(row.contactId).toBe(first.refs[k.contact]);
      expect(row.rateLimitRequests).toBe(k.rateLimit?.requests ?? null);
      expect(row.rateLimitWindowSeconds).toBe(k.rateLimit?.windowSeconds ?? null);
      expect(row.revokedAt).toBeNull();
    }
    const { rows: hooks } = await client.query(`SELECT id, secret, url FROM "WebhookEndpoint"`);
    for (const w of FIXTURE.webhookEndpoints) {
      const row = hooks.find((h) => h.id === first.webhooks[w.ref].id);
      expect(row, w.ref).toMatchObject({ secret: first.webhooks[w.ref].secret, url: w.url });
    }
  });

  it("applying the same file again keeps refs, keys and secrets, prints svcKey null and creates no rows", async () => {
    const { rows: hashesBefore } = await client.query(`SELECT id, "secretHash" FROM "ApiKey" ORDER BY id`);
    const run = await cli(["apply", FIXTURE_PATH]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const second: ApplyOutput = JSON.parse(run.stdout);
    expect(second.refs).toEqual(first.refs);
    expect(second.webhooks).toEqual(first.webhooks);
    for (const k of FIXTURE.apiKeys) {
      expect(second.keys[k.ref]).toEqual({ apiKey: first.keys[k.ref].apiKey, svcKey: k.svcKey ?? null });
    }
    expect(Object.keys(second.keys).sort()).toEqual(Object.keys(first.keys).sort());
    expect(await counts()).toEqual(afterApply);
    const { rows: hashesAfter } = await client.query(`SELECT id, "secretHash" FROM "ApiKey" ORDER BY id`);
    expect(hashesAfter).toEqual(hashesBefore);
  });
});

// Each invalid input fails at one stage (JSON, schema, duplicate refs, webhook URLs, then refs in the
// transaction, first problem only), so each gets its own spawn; they all run at once, and none may write.
describe("invalid input", () => {
  const insecureHook = {
    webhookEndpoints: [
      { ref: "dev-hook", buyerCompany: "acme", url: "http://hooks.acme.example/dev", events: ["workorder.create"] },
    ],
  };
  let runs: Record<string, Promise<Run>>;
  let insecureFile: string;

  beforeAll(() => {
    insecureFile = fixtureFile("insecure-hook.json", insecureHook);
    runs = {
      unknownRef: cli([
        "apply",
        fixtureFile("unknown-ref.json", {
          buyerCompanies: [{ ref: "rollback-co", name: "Rollback Co" }],
          regions: [{ ref: "rollback-region", company: "rollback-co", name: "North" }],
          locations: [{ ref: "rollback-loc", company: "rollback-co", region: "no-such-region", name: "Nowhere" }],
        }),
      ]),
      wrongKind: cli([
        "apply",
        fixtureFile("wrong-kind.json", {
          locations: [
            { ref: "ok-loc", company: "acme", name: "Fine" },
            { ref: "bad-loc", company: "acme", region: "hvac", name: "Region is a problem type" },
          ],
        }),
      ]),
      duplicate: cli([
        "apply",
        fixtureFile("duplicate.json", {
          buyerCompanies: [{ ref: "dup", name: "First" }],
          regions: [{ ref: "dup", company: "acme", name: "Second" }],
          siteSurveys: [{ ref: "survey-x", company: "acme", name: "S", tasks: [{ ref: "survey-x", title: "t" }] }],
        }),
      ]),
      currency: cli([
        "apply",
        fixtureFile("currency.json", {
          buyerCompanies: [{ ref: "cur-co", name: "Currency Co" }],
          locations: [{ ref: "cur-loc", company: "cur-co", name: "L", currency: "usd" }],
          supplierFacilities: [{ ref: "cur-sf", company: "coolco", name: "F", currency: "EURO" }],
        }),
      ]),
      insecure: cli(["apply", insecureFile]),
      badJson: cli(["apply", fixtureFile("broken.json", '{"buyerCompanies": [{"ref": "x", "name": "X"}')]),
      usage: cli(["frobnicate"]),
      keyWrongKind: cli(["keys", "issue", "--contact", "bob@coolco.example", "--kind", "buyer"]),
      badEvent: cli([
        "webhooks",
        "add",
        "--buyer-company",
        "1",
        "--url",
        "https://example.com/h",
        "--events",
        "workorder.create,workorder.exploded",
      ]),
    };
  });

  const failed = async (name: string, code = 1) => {
    const run = await runs[name];
    expect(run.stdout).toBe("");
    expect(run.code).toBe(code);
    return run;
  };

  it("names an unknown ref with its path", { timeout: 90_000 }, async () => {
    const run = await failed("unknownRef");
    expect(problemLines(run)).toEqual([
      "operator: the fixture is invalid:",
      '  locations[0].region: unknown ref "no-such-region"',
    ]);
  });

  it("names a ref of the wrong kind (a problem type given as a region)", { timeout: 90_000 }, async () => {
    const run = await failed("wrongKind");
    expect(problemLines(run)).toEqual([
      "operator: the fixture is invalid:",
      '  locations[1].region: ref "hvac" is a problemType, not a region',
    ]);
  });

  it("lists every duplicate ref, task refs included", { timeout: 90_000 }, async () => {
    const run = await failed("duplicate");
    expect(problemLines(run)).toEqual([
      "operator: the fixture is invalid:",
      '  regions[0]: ref "dup" is already used at buyerCompanies[0]',
      '  siteSurveys[0].tasks[0]: ref "survey-x" is already used at siteSurveys[0]',
    ]);
  });

  it("reports every bad currency code at once", { timeout: 90_000 }, async () => {
    const run = await failed("currency");
    // Schema problems are reported with zod's path; accept `locations.0.currency` or `locations[0].currency`.
    expect(problemLines(run)).toEqual([
      "operator: the fixture is invalid:",
      expect.stringMatching(/^ {2}locations(\.0|\[0\])\.currency: a three-letter currency code$/),
      expect.stringMatching(/^ {2}supplierFacilities(\.0|\[0\])\.currency: a three-letter currency code$/),
    ]);
  });

  it("refuses an http webhook URL unless WEBHOOK_ALLOW_INSECURE_URLS is set", { timeout: 90_000 }, async () => {
    const run = await failed("insecure");
    expect(problemLines(run)).toEqual([
      "operator: the fixture is invalid:",
      expect.stringMatching(/^ {2}webhookEndpoints\[0\]\.url: must be https .*WEBHOOK_ALLOW_INSECURE_URLS=true/),
    ]);
  });

  it("refuses a file that is not JSON", { timeout: 90_000 }, async () => {
    const run = await failed("badJson");
    const lines = problemLines(run);
    expect(lines[0]).toBe("operator: the fixture is invalid:");
    expect(lines[1]).toContain(`${path.join(tmp, "broken.json")} is not valid JSON:`);
    expect(lines).toHaveLength(2);
  });

  it("exits 2 with the usage on an unknown command", { timeout: 90_000 }, async () => {
    const run = await failed("usage", 2);
    expect(run.stderr).toMatch(/^unknown command\nusage:\n {2}operator apply <fixture\.json>\n/);
  });

  it("refuses a key whose kind does not fit the contact", { timeout: 90_000 }, async () => {
    const run = await failed("keyWrongKind");
    expect(run.stderr).toBe("operator: a buyer key needs a contact at a buyer facility\n");
  });

  it("refuses an unknown webhook event", { timeout: 90_000 }, async () => {
    const run = await failed("badEvent");
    expect(run.stderr).toMatch(/^operator: events must be some of workorder\.create, /);
  });

  it("writes nothing for any of them", { timeout: 90_000 }, async () => {
    await Promise.all(Object.values(runs));
    expect(await counts()).toEqual(afterApply);
    const { rows } = await client.query(`SELECT ref FROM "OperatorRef" WHERE ref = ANY($1)`, [
      ["rollback-co", "rollback-region", "rollback-loc", "ok-loc", "bad-loc", "dup", "survey-x", "cur-co", "dev-hook"],
    ]);
    expect(rows).toEqual([]);
  });

  it("accepts the http webhook URL with WEBHOOK_ALLOW_INSECURE_URLS=true, pointing at a ref of an earlier apply", async () => {
    const run = await cli(["apply", insecureFile], { WEBHOOK_ALLOW_INSECURE_URLS: "true" });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const out: ApplyOutput = JSON.parse(run.stdout);
    expect(out.keys).toEqual({});
    expect(Object.keys(out.webhooks)).toEqual(["dev-hook"]);
    expect(out.webhooks["dev-hook"].secret).toMatch(/^whsec_/);
    expect(out.refs["dev-hook"]).toBe(out.webhooks["dev-hook"].id);
    expect(out.refs.acme).toBe(first.refs.acme);
    const { rows } = await client.query(
      `SELECT url, "buyerCompanyId", mode, events FROM "WebhookEndpoint" WHERE id = $1`,
      [out.webhooks["dev-hook"].id],
    );
    expect(rows).toEqual([
      {
        url: "http://hooks.acme.example/dev",
        buyerCompanyId: first.refs.acme,
        mode: "production",
        events: ["workorder.create"],
      },
    ]);
    expect((await counts()).WebhookEndpoint).toBe(afterApply.WebhookEndpoint + 1);
  });
});

describe("operator keys and webhooks", () => {
  let issued: { id: number; apiKey: string; svcKey: string };
  let added: { id: number; secret: string };
  // Independent spawns start together: issue with add, then revoke with rotate.
  const started = new Map<string, Promise<Run & { at: number }>>();
  const start = (name: string, args: () => string[]) => {
    if (!started.has(name)) {
      const at = Date.now();
      started.set(
        name,
        cli(args()).then((run) => ({ ...run, at })),
      );
    }
    return started.get(name)!;
  };
  const issueArgs = () => [
    "keys",
    "issue",
    "--contact",
    "alice@acme.example",
    "--kind",
    "buyer",
    "--rate-limit",
    "5/10",
  ];
  const addArgs = () => [
    "webhooks",
    "add",
    "--buyer-company",
    String(first.refs.acme),
    "--url",
    "https://example.com/h",
    "--events",
    "workorder.create",
  ];
  const revokeArgs = () => ["keys", "revoke", issued.apiKey];
  const rotateArgs = () => ["webhooks", "rotate", String(added.id)];

  it("keys issue prints {id, apiKey, svcKey} and stores the key with its rate limit", async () => {
    start("add", addArgs);
    const run = await start("issue", issueArgs);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    issued = JSON.parse(run.stdout);
    expect(Object.keys(issued).sort()).toEqual(["apiKey", "id", "svcKey"]);
    expect(issued.apiKey).toMatch(/^wok_/);
    expect(Object.values(first.keys).map((k) => k.apiKey)).not.toContain(issued.apiKey);
    const { rows } = await client.query(`SELECT * FROM "ApiKey" WHERE id = $1`, [issued.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      apiKey: issued.apiKey,
      secretHash: hashSecret(issued.svcKey),
      kind: "buyer",
      contactId: first.refs.alice,
      rateLimitRequests: 5,
      rateLimitWindowSeconds: 10,
      revokedAt: null,
      expiresAt: null,
    });
  });

  it("webhooks add prints {id, secret} and stores the endpoint", async () => {
    const run = await start("add", addArgs);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    added = JSON.parse(run.stdout);
    expect(Object.keys(added).sort()).toEqual(["id", "secret"]);
    expect(added.secret).toMatch(/^whsec_/);
    const { rows } = await client.query(`SELECT * FROM "WebhookEndpoint" WHERE id = $1`, [added.id]);
    expect(rows[0]).toMatchObject({
      url: "https://example.com/h",
      events: ["workorder.create"],
      mode: "production",
      secret: added.secret,
      buyerCompanyId: first.refs.acme,
      supplierFacilityId: null,
      previousSecret: null,
    });
  });

  it("keys revoke sets revokedAt", async () => {
    if (added) start("rotate", rotateArgs);
    const run = await start("revoke", revokeArgs);
    const before = run.at;
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.apiKey).toBe(issued.apiKey);
    const { rows } = await client.query(`SELECT id, "revokedAt" FROM "ApiKey" WHERE "revokedAt" IS NOT NULL`);
    expect(rows.map((r) => r.id)).toEqual([issued.id]);
    const revokedAt: Date = rows[0].revokedAt;
    expect(out.revokedAt).toBe(revokedAt.toISOString());
    expect(revokedAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(revokedAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("keys list shows every key with its ref, tenant and state, filters, and never a secret", {
    timeout: 90_000,
  }, async () => {
    const [all, revoked, alice] = await Promise.all([
      cli(["keys", "list"]),
      cli(["keys", "list", "--status", "revoked"]),
      cli([
        "keys",
        "list",
        "--contact",
        "ALICE@acme.example",
        "--kind",
        "buyer",
        "--buyer-company",
        String(first.refs.acme),
      ]),
    ]);
    for (const run of [all, revoked, alice]) expect([run.code, run.stderr]).toEqual([0, ""]);
    const keys: Record<string, any>[] = JSON.parse(all.stdout);
    const { rows } = await client.query(`SELECT id FROM "ApiKey" ORDER BY id`);
    expect(keys.map((k) => k.id)).toEqual(rows.map((r) => r.id));
    const acmeKey = FIXTURE.apiKeys.find((k: { ref: string }) => k.ref === "acme-key");
    expect(keys.find((k) => k.ref === "acme-key")).toEqual({
      id: first.refs["acme-key"],
      ref: "acme-key",
      apiKey: first.keys["acme-key"].apiKey,
      kind: "buyer",
      status: "active",
      contact: "alice@acme.example",
      buyerCompanyId: first.refs.acme,
      buyerFacilityId: first.refs["acme-hq"],
      supplierFacilityId: null,
      rateLimit: acmeKey.rateLimit,
      graphqlBudget: null,
      createdAt: expect.any(String),
      expiresAt: null,
      revokedAt: null,
    });
    expect(keys.find((k) => k.id === issued.id)).toMatchObject({
      ref: null,
      status: "revoked",
      rateLimit: { requests: 5, windowSeconds: 10 },
    });
    expect(JSON.parse(revoked.stdout).map((k: { id: number }) => k.id)).toEqual([issued.id]);
    const alices = JSON.parse(alice.stdout);
    expect(alices.length).toBeGreaterThan(1);
    expect(
      alices.every((k: { contact: string; kind: string }) => k.contact === "alice@acme.example" && k.kind === "buyer"),
    ).toBe(true);
    for (const svcKey of Object.values(first.keys).map((k) => k.svcKey)) expect(all.stdout).not.toContain(svcKey);
  });

  it("webhooks rotate gives a new secret and keeps the old one for 24 hours", async () => {
    const run = await start("rotate", rotateArgs);
    const [before, after] = [run.at, Date.now()];
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.id).toBe(added.id);
    expect(out.secret).toMatch(/^whsec_/);
    expect(out.secret).not.toBe(added.secret);
    const expires = Date.parse(out.previousSecretExpiresAt);
    expect(expires).toBeGreaterThanOrEqual(before + DAY_MS - 1000);
    expect(expires).toBeLessThanOrEqual(after + DAY_MS + 1000);
    const { rows } = await client.query(
      `SELECT secret, "previousSecret", "previousSecretExpiresAt" FROM "WebhookEndpoint" WHERE id = $1`,
      [added.id],
    );
    expect(rows[0].secret).toBe(out.secret);
    expect(rows[0].previousSecret).toBe(added.secret);
    expect(rows[0].previousSecretExpiresAt.getTime()).toBe(expires);
  });

  it("webhooks list includes every endpoint, the rotated one as rotating, and no secrets", async () => {
    const run = await cli(["webhooks", "list"]);
    expect(run.code).toBe(0);
    const list: Record<string, unknown>[] = JSON.parse(run.stdout);
    const { rows } = await client.query(`SELECT id FROM "WebhookEndpoint" ORDER BY id`);
    expect(list.map((e) => e.id)).toEqual(rows.map((r) => r.id));
    expect(list.find((e) => e.id === added.id)).toEqual({
      id: added.id,
      url: "https://example.com/h",
      events: ["workorder.create"],
      mode: "production",
      buyerCompanyId: first.refs.acme,
      supplierFacilityId: null,
      rotating: true,
      disabledAt: null,
    });
    expect(list.filter((e) => e.rotating).map((e) => e.id)).toEqual([added.id]);
    expect(run.stdout).not.toContain("whsec_");
  });
});
