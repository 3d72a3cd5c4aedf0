// `operator apply`: creates or updates everything a fixture describes, in one transaction, keyed by
// ref so that applying the same file again changes nothing. Refs from earlier applies may be used.
import type { Db } from "../db.ts";
import { Prisma, type Tx } from "../db.ts";
import { fixtureSchema, type Fixture } from "./fixture.ts";
import { hashSecret, newApiKey, newSecret } from "../schema/core/keys.ts";
import { inTransaction } from "../schema/core/transaction.ts";
import { endpointUrlProblem, newSigningSecret } from "../schema/webhooks/public.ts";
import { applyBuyerSupplierRelationships } from "./apply-networks.ts";
import { pmLocationData, pmScheduleWrite, walkthroughData, writeWalkthroughDetails } from "./apply-pm.ts";

export interface ApplyResult {
  refs: Record<string, number>;
  /** svcKey is null for a key that already existed: secrets are stored hashed and shown once. */
  keys: Record<string, { apiKey: string; svcKey: string | null }>;
  webhooks: Record<string, { id: number; secret: string }>;
}

export class FixtureError extends Error {
  constructor(readonly problems: string[]) {
    super(`the fixture is invalid:\n  ${problems.join("\n  ")}`);
  }
}

type Kind =
  | "buyerCompany"
  | "buyerFacility"
  | "region"
  | "locationType"
  | "location"
  | "problemType"
  | "label"
  | "assetType"
  | "asset"
  | "supplierCompany"
  | "supplierFacility"
  | "relationship"
  | "contact"
  | "apiKey"
  | "webhookEndpoint"
  | "siteSurvey"
  | "siteSurveyTask"
  | "walkthrough"
  | "pmSchedule"
  | "meterType";

/** Ref bookkeeping: what each ref points at, and which buyer company owns it (for consistency checks). */
class Refs {
  private readonly byRef = new Map<string, { kind: Kind; id: number }>();
  readonly owner = new Map<string, number>();
  readonly problems: string[] = [];

  constructor(rows: { kind: string; ref: string; entityId: number }[]) {
    for (const r of rows) this.byRef.set(r.ref, { kind: r.kind as Kind, id: r.entityId });
  }

  /** Owners of buyer-owned refs from earlier applies, so cross-company checks cover them too. */
  async loadOwners(tx: Tx): Promise<void> {
    const tables: Partial<Record<Kind, { findMany(args: object): Promise<{ id: number; buyerCompanyId: number }[]> }>> =
      {
        buyerFacility: tx.buyerFacility,
        region: tx.region,
        locationType: tx.locationType,
        location: tx.location,
        problemType: tx.problemType,
        label: tx.label,
        assetType: tx.assetType,
        asset: tx.asset,
        meterType: tx.meterType,
        siteSurvey: tx.siteSurvey,
        pmSchedule: tx.plannedMaintenanceSchedule,
      };
    for (const [kind, table] of Object.entries(tables)) {
      const refsOfKind = [...this.byRef].filter(([, v]) => v.kind === kind);
      if (!refsOfKind.length) continue;
      const rows = await table!.findMany({
        where: { id: { in: refsOfKind.map(([, v]) => v.id) } },
        select: { id: true, buyerCompanyId: true },
      });
      const owner = new Map(rows.map((r) => [r.id, r.buyerCompanyId]));
      for (const [ref, v] of refsOfKind) if (owner.has(v.id)) this.owner.set(ref, owner.get(v.id)!);
    }
    for (const [ref, v] of this.byRef) if (v.kind === "buyerCompany") this.owner.set(ref, v.id);
  }

  existing(kind: Kind, ref: string): number | undefined {
    const hit = this.byRef.get(ref);
    return hit?.kind === kind ? hit.id : undefined;
  }

  id(kind: Kind, ref: string, where: string): number {
    const hit = this.byRef.get(ref);
    if (!hit) this.problems.push(`${where}: unknown ref ${JSON.stringify(ref)}`);
    else if (hit.kind !== kind)
      this.problems.push(`${where}: ref ${JSON.stringify(ref)} is a ${hit.kind}, not a ${kind}`);
    else return hit.id;
    throw new FixtureError(this.problems);
  }

  sameCompany(ref: string, company: number, where: string): void {
    const owner = this.owner.get(ref);
    if (owner !== undefined && owner !== company) {
      this.problems.push(`${where}: ${JSON.stringify(ref)} belongs to another buyer company`);
      throw new FixtureError(this.problems);
    }
  }

  async put(tx: Tx, kind: Kind, ref: string, id: number): Promise<number> {
    const taken = this.byRef.get(ref);
    if (taken && taken.kind !== kind) {
      this.problems.push(
        `ref ${JSON.stringify(ref)} is already a ${taken.kind} (from an earlier apply); refs name one thing`,
      );
      throw new FixtureError(this.problems);
    }
    if (this.existing(kind, ref) === undefined) {
      await tx.operatorRef.create({ data: { kind, ref, entityId: id } });
      this.byRef.set(ref, { kind, id });
    }
    return id;
  }

  all(): Record<string, number> {
    return Object.fromEntries([...this.byRef].map(([ref, v]) => [ref, v.id]));
  }
}

function parseFixture(input: unknown): Fixture {
  const parsed = fixtureSchema.safeParse(input);
  if (!parsed.success) {
    const path = (parts: PropertyKey[]) =>
      parts.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i ? "." : ""}${String(p)}`)).join("");
    throw new FixtureError(parsed.error.issues.map((i) => `${path(i.path) || "(file)"}: ${i.message}`));
  }
  const seen = new Map<string, string>();
  const problems: string[] = [];
  const note = (ref: string, where: string) => {
    if (seen.has(ref)) problems.push(`${where}: ref ${JSON.stringify(ref)} is already used at ${seen.get(ref)}`);
    else seen.set(ref, where);
  };
  const f = parsed.data;
  for (const [section, items] of Object.entries(f)) {
    if (!Array.isArray(items)) continue;
    items.forEach((item: { ref?: string; tasks?: { ref: string }[] }, i) => {
      if (item.ref) note(item.ref, `${section}[${i}]`);
      for (const [j, t] of (item.tasks ?? []).entries()) note(t.ref, `${section}[${i}].tasks[${j}]`);
    });
  }
  if (problems.length) throw new FixtureError(problems);
  return f;
}

type Write = { create: () => Promise<{ id: number }>; update: (id: number) => Promise<unknown> };

/** One apply's transaction, its refs and what it reports: what every section of the fixture writes with. */
class FixtureWriter {
  constructor(
    readonly tx: Tx,
    readonly refs: Refs,
    readonly result: ApplyResult,
  ) {}

  /** Creates the row the first time, updates it to the fixture's values afterwards. */
  async upsert(kind: Kind, ref: string, write: Write): Promise<number> {
    const id = this.refs.existing(kind, ref);
    if (id !== undefined) {
      await write.update(id);
      return id;
    }
    return this.refs.put(this.tx, kind, ref, (await write.create()).id);
  }

  companyOf(ref: string, where: string): number {
    return this.refs.id("buyerCompany", ref, where);
  }

  /** The records of one section that a buyer company owns: each item's company ref, then its row. */
  async owned(
    kind: Kind,
    section: string,
    items: { ref: string; company: string }[],
    write: (item: any, company: number, where: string) => Write,
  ): Promise<void> {
    for (const [i, item] of items.entries()) {
      const where = `${section}[${i}]`;
      const company = this.companyOf(item.company, `${where}.company`);
      await this.upsert(kind, item.ref, write(item, company, where));
      this.refs.owner.set(item.ref, company);
    }
  }
}

export async function applyFixture(
  db: Db,
  input: unknown,
  options: { allowInsecureWebhooks: boolean },
): Promise<ApplyResult> {
  const f = parseFixture(input);
  for (const [i, w] of f.webhookEndpoints.entries()) {
    const problem = endpointUrlProblem(w.url, options.allowInsecureWebhooks);
    if (problem) throw new FixtureError([`webhookEndpoints[${i}].url: ${problem}`]);
  }
  const result: ApplyResult = { refs: {}, keys: {}, webhooks: {} };

  // inTransaction: a caller's transaction is joined (the operator CLI writes its audit entry in it).
  await inTransaction(
    db,
    async (tx) => {
      const refs = new Refs(await tx.operatorRef.findMany());
      await refs.loadOwners(tx);
      const w = new FixtureWriter(tx, refs, result);
      // In this order: a section refers only to refs written before it (or by earlier applies).
      await applyBuyerCompanies(w, f);
      await applyPlaces(w, f);
      await applyAssetCatalogs(w, f);
      await applySuppliers(w, f);
      await applyContacts(w, f);
      await applyApiKeys(w, f);
      await applyWebhookEndpoints(w, f);
      await applyCurrencyRates(w, f);
      await applySiteSurveys(w, f);
      await applyWalkthroughs(w, f);
      await applyPmSchedules(w, f);
      result.refs = refs.all();
    },
    { timeout: 120_000, maxWait: 10_000 },
  ).catch((error: { code?: string; meta?: { target?: unknown } }) => {
    // A unique value the fixture repeats from rows it does not own (a contact's email, a fixed apiKey).
    if (error.code === "P2002")
      throw new FixtureError([
        `a record with the same ${JSON.stringify(error.meta?.target ?? "values")} already exists outside this fixture`,
      ]);
    throw error;
  });
  return result;
}

async function applyBuyerCompanies(w: FixtureWriter, f: Fixture) {
  const { tx, refs } = w;
  for (const c of f.buyerCompanies) {
    const data = { name: c.name, ...c.config };
    const id = await w.upsert("buyerCompany", c.ref, {
      create: () => tx.buyerCompany.create({ data }),
      update: (id) => tx.buyerCompany.update({ where: { id }, data }),
    });
    refs.owner.set(c.ref, id);
  }
}

/** The buyer companies' facilities, regions, location types, locations and problem types. */
async function applyPlaces(w: FixtureWriter, f: Fixture) {
  const { tx, refs } = w;
  await w.owned("buyerFacility", "buyerFacilities", f.buyerFacilities, (x, buyerCompanyId) => ({
    create: () => tx.buyerFacility.create({ data: { name: x.name, buyerCompanyId } }),
    update: (id) => tx.buyerFacility.update({ where: { id }, data: { name: x.name, buyerCompanyId } }),
  }));
  await w.owned("region", "regions", f.regions, (x, buyerCompanyId) => ({
    create: () => tx.region.create({ data: { name: x.name, buyerCompanyId } }),
    update: (id) => tx.region.update({ where: { id }, data: { name: x.name, buyerCompanyId } }),
  }));
  await w.owned("locationType", "locationTypes", f.locationTypes, (x, buyerCompanyId) => ({
    create: () => tx.locationType.create({ data: { name: x.name, fields: x.fields, buyerCompanyId } }),
    update: (id) => tx.locationType.update({ where: { id }, data: { name: x.name, fields: x.fields, buyerCompanyId } }),
  }));
  await w.owned("location", "locations", f.locations, (x: Fixture["locations"][number], buyerCompanyId, where) => {
    if (x.region) refs.sameCompany(x.region, buyerCompanyId, `${where}.region`);
    if (x.locationType) refs.sameCompany(x.locationType, buyerCompanyId, `${where}.locationType`);
    const data = {
      name: x.name,
      buyerCompanyId,
      currency: x.currency,
      internalCode: x.internalCode ?? null,
      storeContacts: x.storeContacts ?? [],
      locationTypeDetails: (x.locationTypeDetails ?? {}) as object,
      regionId: x.region ? refs.id("region", x.region, `${where}.region`) : null,
      locationTypeId: x.locationType ? refs.id("locationType", x.locationType, `${where}.locationType`) : null,
      ...pmLocationData(x),
    };
    return {
      create: () => tx.location.create({ data }),
      update: (id) => tx.location.update({ where: { id }, data }),
    };
  });
  await w.owned("problemType", "problemTypes", f.problemTypes, (x, buyerCompanyId) => ({
    create: () => tx.problemType.create({ data: { name: x.name, buyerCompanyId } }),
    update: (id) => tx.problemType.update({ where: { id }, data: { name: x.name, buyerCompanyId } }),
  }));
}

/** The buyer companies' labels (asset and work order), asset types, assets and meter types. */
async function applyAssetCatalogs(w: FixtureWriter, f: Fixture) {
  const { tx, refs } = w;
  for (const [section, kind] of [
    ["assetLabels", "asset"],
    ["workOrderLabels", "work_order"],
  ] as const) {
    await w.owned("label", section, f[section], (x, buyerCompanyId) => {
      const data = { name: x.name, color: x.color ?? null, kind, buyerCompanyId };
      return { create: () => tx.label.create({ data }), update: (id) => tx.label.update({ where: { id }, data }) };
    });
  }
  await w.owned("assetType", "assetTypes", f.assetTypes, (x: Fixture["assetTypes"][number], buyerCompanyId) => {
    const data = {
      name: x.name,
      buyerCompanyId,
      usesRefrigerant: x.usesRefrigerant ?? false,
      refrigerantTypeCode: x.refrigerantTypeCode ?? null,
      fullChargeLb: x.fullChargeLb ?? null,
      applianceCategory: x.applianceCategory ?? null,
    };
    return {
      create: () => tx.assetType.create({ data }),
      update: (id) => tx.assetType.update({ where: { id }, data }),
    };
  });
  await w.owned("asset", "assets", f.assets, (x: Fixture["assets"][number], buyerCompanyId, where) => {
    refs.sameCompany(x.location, buyerCompanyId, `${where}.location`);
    refs.sameCompany(x.assetType, buyerCompanyId, `${where}.assetType`);
    if (x.parent) refs.sameCompany(x.parent, buyerCompanyId, `${where}.parent`);
    const data = {
      name: x.name,
      buyerCompanyId,
      serialNumber: x.serialNumber ?? null,
      manufacturer: x.manufacturer ?? null,
      isActive: x.isActive ?? true,
      isLeased: x.isLeased ?? false,
      locationId: refs.id("location", x.location, `${where}.location`),
      assetTypeId: refs.id("assetType", x.assetType, `${where}.assetType`),
      parentId: x.parent ? refs.id("asset", x.parent, `${where}.parent`) : null,
    };
    return { create: () => tx.asset.create({ data }), update: (id) => tx.asset.update({ where: { id }, data }) };
  });
  await w.owned("meterType", "meterTypes", f.meterTypes, (x: Fixture["meterTypes"][number], buyerCompanyId) => {
    const data = { name: x.name, valueType: x.valueType, valueUnit: x.valueUnit ?? null, buyerCompanyId };
    return {
      create: () => tx.meterType.create({ data }),
      update: (id) => tx.meterType.update({ where: { id }, data }),
    };
  });
}

/** Supplier companies (an internal team names its buyer company), their facilities, the buyers' networks. */
async function applySuppliers(w: FixtureWriter, f: Fixture) {
  const { tx, refs } = w;
  for (const [i, s] of f.supplierCompanies.entries()) {
    const data = {
      name: s.name,
      internalTeamOfId: s.internalTeamOf
        ? w.companyOf(s.internalTeamOf, `supplierCompanies[${i}].internalTeamOf`)
        : null,
    };
    await w.upsert("supplierCompany", s.ref, {
      create: () => tx.supplierCompany.create({ data }),
      update: (id) => tx.supplierCompany.update({ where: { id }, data }),
    });
  }
  for (const [i, s] of f.supplierFacilities.entries()) {
    const data = {
      name: s.name,
      currency: s.currency ?? "USD",
      supplierCompanyId: refs.id("supplierCompany", s.company, `supplierFacilities[${i}].company`),
    };
    await w.upsert("supplierFacility", s.ref, {
      create: () => tx.supplierFacility.create({ data }),
      update: (id) => tx.supplierFacility.update({ where: { id }, data }),
    });
  }
  await applyBuyerSupplierRelationships(
    tx,
    f.buyerSupplierRelationships,
    refs,
    (ref, where) => w.companyOf(ref, where),
    (ref, write) => w.upsert("relationship", ref, write),
  );
}

async function applyContacts(w: FixtureWriter, f: Fixture) {
  const { tx, refs } = w;
  for (const [i, c] of f.contacts.entries()) {
    const where = `contacts[${i}]`;
    const data = {
      email: c.email.toLowerCase(),
      nameGiven: c.nameGiven,
      nameFamily: c.nameFamily,
      roles: c.roles,
      buyerFacilityId: c.buyerFacility ? refs.id("buyerFacility", c.buyerFacility, `${where}.buyerFacility`) : null,
      supplierFacilityId: c.supplierFacility
        ? refs.id("supplierFacility", c.supplierFacility, `${where}.supplierFacility`)
        : null,
    };
    await w.upsert("contact", c.ref, {
      create: () => tx.contact.create({ data }),
      update: (id) => tx.contact.update({ where: { id }, data }),
    });
  }
}

/** API keys: a new key's secret is returned once (result.keys); an existing key keeps its secret unless the fixture sets one. */
async function applyApiKeys(w: FixtureWriter, f: Fixture) {
  const { tx, refs, result } = w;
  for (const [i, k] of f.apiKeys.entries()) {
    const where = `apiKeys[${i}]`;
    const contactId = refs.id("contact", k.contact, `${where}.contact`);
    const contact = await tx.contact.findUniqueOrThrow({ where: { id: contactId } });
    if ((k.kind === "buyer") !== (contact.buyerFacilityId !== null)) {
      refs.problems.push(
        `${where}: a ${k.kind} key needs a contact at a ${k.kind === "buyer" ? "buyer" : "supplier"} facility`,
      );
      throw new FixtureError(refs.problems);
    }
    const settings = {
      kind: k.kind,
      contactId,
      rateLimitRequests: k.rateLimit?.requests ?? null,
      rateLimitWindowSeconds: k.rateLimit?.windowSeconds ?? null,
      graphqlBudgetPoints: k.graphqlBudget?.points ?? null,
      graphqlBudgetWindowSeconds: k.graphqlBudget?.windowSeconds ?? null,
      expiresAt: k.expiresAt ? new Date(k.expiresAt) : null,
      ...(k.svcKey ? { secretHash: hashSecret(k.svcKey) } : {}),
    };
    const existing = refs.existing("apiKey", k.ref);
    if (existing !== undefined) {
      const row = await tx.apiKey.update({ where: { id: existing }, data: settings });
      result.keys[k.ref] = { apiKey: row.apiKey, svcKey: k.svcKey ?? null };
    } else {
      const svcKey = k.svcKey ?? newSecret();
      const row = await tx.apiKey.create({
        data: { ...settings, apiKey: k.apiKey ?? newApiKey(), secretHash: hashSecret(svcKey) },
      });
      await refs.put(tx, "apiKey", k.ref, row.id);
      result.keys[k.ref] = { apiKey: row.apiKey, svcKey };
    }
  }
}

/** Webhook endpoints: each one's id and signing secret are returned (result.webhooks). */
async function applyWebhookEndpoints(w: FixtureWriter, f: Fixture) {
  const { tx, refs, result } = w;
  for (const [i, e] of f.webhookEndpoints.entries()) {
    const where = `webhookEndpoints[${i}]`;
    const data = {
      url: e.url,
      events: e.events,
      mode: e.mode,
      buyerCompanyId: e.buyerCompany ? w.companyOf(e.buyerCompany, `${where}.buyerCompany`) : null,
      supplierFacilityId: e.supplierFacility
        ? refs.id("supplierFacility", e.supplierFacility, `${where}.supplierFacility`)
        : null,
      ...(e.secret ? { secret: e.secret } : {}),
    };
    const id = await w.upsert("webhookEndpoint", e.ref, {
      create: () => tx.webhookEndpoint.create({ data: { ...data, secret: e.secret ?? newSigningSecret() } }),
      update: (id) => tx.webhookEndpoint.update({ where: { id }, data }),
    });
    const row = await tx.webhookEndpoint.findUniqueOrThrow({ where: { id } });
    result.webhooks[e.ref] = { id, secret: row.secret };
  }
}

/** Currency rates have no ref: (base, target, at) names one. */
async function applyCurrencyRates({ tx }: FixtureWriter, f: Fixture) {
  for (const r of f.currencyRates) {
    const key = { base: r.base, target: r.target, at: new Date(r.at) };
    await tx.currencyRate.upsert({
      where: { base_target_at: key },
      create: { ...key, rate: r.rate },
      update: { rate: r.rate },
    });
  }
}

/** Site surveys (a template is another survey of the same company), then their tasks. */
async function applySiteSurveys(w: FixtureWriter, f: Fixture) {
  const { tx, refs } = w;
  await w.owned(
    "siteSurvey",
    "siteSurveys",
    f.siteSurveys,
    (x: Fixture["siteSurveys"][number], buyerCompanyId, where) => {
      if (x.template) refs.sameCompany(x.template, buyerCompanyId, `${where}.template`);
      const data = {
        name: x.name,
        buyerCompanyId,
        heatMapRanges: x.heatMapRanges === undefined || x.heatMapRanges === null ? Prisma.DbNull : x.heatMapRanges,
        templateId: x.template ? refs.id("siteSurvey", x.template, `${where}.template`) : null,
      };
      return {
        create: () => tx.siteSurvey.create({ data }),
        update: (id) => tx.siteSurvey.update({ where: { id }, data }),
      };
    },
  );
  for (const [i, s] of f.siteSurveys.entries()) {
    const surveyId = refs.id("siteSurvey", s.ref, `siteSurveys[${i}]`);
    for (const t of s.tasks) {
      await w.upsert("siteSurveyTask", t.ref, {
        create: () => tx.siteSurveyTask.create({ data: { surveyId, title: t.title } }),
        update: (id) => tx.siteSurveyTask.update({ where: { id }, data: { surveyId, title: t.title } }),
      });
    }
  }
}

/** Walkthroughs of a survey at a location of the survey's company, with their details (apply-pm.ts). */
async function applyWalkthroughs(w: FixtureWriter, f: Fixture) {
  const { tx, refs } = w;
  for (const [i, x] of f.walkthroughs.entries()) {
    const where = `walkthroughs[${i}]`;
    const surveyCompany = refs.owner.get(x.survey);
    if (surveyCompany !== undefined) refs.sameCompany(x.location, surveyCompany, `${where}.location`);
    const data = {
      surveyId: refs.id("siteSurvey", x.survey, `${where}.survey`),
      locationId: refs.id("location", x.location, `${where}.location`),
      completedById: x.completedBy ? refs.id("contact", x.completedBy, `${where}.completedBy`) : null,
      scores: x.scores,
      ...walkthroughData(x),
      ...(x.completedAt ? { completedAt: new Date(x.completedAt) } : {}),
    };
    const id = await w.upsert("walkthrough", x.ref, {
      create: () => tx.walkthrough.create({ data }),
      update: (id) => tx.walkthrough.update({ where: { id }, data }),
    });
    await writeWalkthroughDetails(tx, id, x, (task, at) => refs.id("siteSurveyTask", task, at), where);
  }
}

async function applyPmSchedules(w: FixtureWriter, f: Fixture) {
  const { tx, refs } = w;
  await w.owned(
    "pmSchedule",
    "plannedMaintenanceSchedules",
    f.plannedMaintenanceSchedules,
    (x: Fixture["plannedMaintenanceSchedules"][number], buyerCompanyId, where) => {
      refs.sameCompany(x.location, buyerCompanyId, `${where}.location`);
      refs.sameCompany(x.problemType, buyerCompanyId, `${where}.problemType`);
      for (const [j, a] of x.assets.entries()) refs.sameCompany(a, buyerCompanyId, `${where}.assets[${j}]`);
      return pmScheduleWrite(tx, x, {
        buyerCompanyId,
        locationId: refs.id("location", x.location, `${where}.location`),
        problemTypeId: refs.id("problemType", x.problemType, `${where}.problemType`),
        supplierFacilityId: x.supplierFacility
          ? refs.id("supplierFacility", x.supplierFacility, `${where}.supplierFacility`)
          : null,
        assetIds: x.assets.map((a, j) => refs.id("asset", a, `${where}.assets[${j}]`)),
      });
    },
  );
}
