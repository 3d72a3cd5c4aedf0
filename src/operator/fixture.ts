// The format of `operator apply <file.json>` (see docs/operator.md and
// ../shared/spec/operator-fixture.example.json), as a zod schema.
import { z } from "zod";
import { EVENT_TYPES } from "../schema/work-orders/public.ts";
import { buyerSupplierRelationship } from "./fixture-networks.ts";
import { pmCompanyConfig, pmFixtureSections, pmLocationFields } from "./fixture-pm.ts";

const ref = z.string().min(1).max(100);
const currency = z.string().regex(/^[A-Z]{3}$/, "a three-letter currency code");
const timestamp = z.string().datetime({ offset: true });

const companyConfig = z
  .object({
    subAssetsEnabled: z.boolean(),
    serviceRequestsNeedApproval: z.boolean(),
    cancellationLock: z.boolean(),
    supplierInvoiceEditing: z.boolean(),
    declineAutoPick: z.boolean(),
    visibilityWebhooks: z.boolean(),
    ...pmCompanyConfig,
  })
  .partial()
  .strict();

const label = z.object({ ref, company: ref, name: z.string().min(1), color: z.string().optional() }).strict();

export const fixtureSchema = z
  .object({
    $comment: z.string().optional(),
    buyerCompanies: z
      .array(z.object({ ref, name: z.string().min(1), config: companyConfig.optional() }).strict())
      .default([]),
    buyerFacilities: z.array(z.object({ ref, company: ref, name: z.string().min(1) }).strict()).default([]),
    regions: z.array(z.object({ ref, company: ref, name: z.string().min(1) }).strict()).default([]),
    locationTypes: z
      .array(
        z
          .object({
            ref,
            company: ref,
            name: z.string().min(1),
            fields: z
              .array(z.object({ key: z.string().min(1), type: z.enum(["string", "number", "boolean"]) }).strict())
              .default([]),
          })
          .strict(),
      )
      .default([]),
    locations: z
      .array(
        z
          .object({
            ref,
            company: ref,
            region: ref.optional(),
            locationType: ref.optional(),
            name: z.string().min(1),
            currency: currency.default("USD"),
            internalCode: z.string().optional(),
            storeContacts: z.array(z.string()).optional(),
            locationTypeDetails: z.record(z.string(), z.unknown()).optional(),
            ...pmLocationFields,
          })
          .strict(),
      )
      .default([]),
    problemTypes: z.array(z.object({ ref, company: ref, name: z.string().min(1) }).strict()).default([]),
    assetLabels: z.array(label).default([]),
    workOrderLabels: z.array(label).default([]),
    assetTypes: z
      .array(
        z
          .object({
            ref,
            company: ref,
            name: z.string().min(1),
            usesRefrigerant: z.boolean().optional(),
            refrigerantTypeCode: z.string().optional(),
            fullChargeLb: z.number().positive().optional(),
            applianceCategory: z.string().optional(),
          })
          .strict(),
      )
      .default([]),
    assets: z
      .array(
        z
          .object({
            ref,
            company: ref,
            location: ref,
            assetType: ref,
            name: z.string().min(1),
            serialNumber: z.string().optional(),
            manufacturer: z.string().optional(),
            parent: ref.optional(),
            isActive: z.boolean().optional(),
            isLeased: z.boolean().optional(),
          })
          .strict(),
      )
      .default([]),
    meterTypes: z
      .array(
        z
          .object({
            ref,
            company: ref,
            name: z.string().min(1),
            valueType: z.string().min(1),
            valueUnit: z.string().optional(),
          })
          .strict(),
      )
      .default([]),
    supplierCompanies: z
      .array(z.object({ ref, name: z.string().min(1), internalTeamOf: ref.optional() }).strict())
      .default([]),
    supplierFacilities: z
      .array(z.object({ ref, company: ref, name: z.string().min(1), currency: currency.optional() }).strict())
      .default([]),
    buyerSupplierRelationships: z.array(buyerSupplierRelationship(ref)).default([]),
    contacts: z
      .array(
        z
          .object({
            ref,
            email: z.string().email(),
            nameGiven: z.string(),
            nameFamily: z.string(),
            buyerFacility: ref.optional(),
            supplierFacility: ref.optional(),
            roles: z.array(z.string()).default([]),
          })
          .strict()
          .refine(
            (c) => !!c.buyerFacility !== !!c.supplierFacility,
            "a contact belongs to exactly one of buyerFacility or supplierFacility",
          ),
      )
      .default([]),
    apiKeys: z
      .array(
        z
          .object({
            ref,
            kind: z.enum(["buyer", "supplier", "partner"]),
            contact: ref,
            rateLimit: z
              .object({ requests: z.number().int().positive(), windowSeconds: z.number().int().positive() })
              .strict()
              .optional(),
            // GraphQL's points per window (docs/api.md, "GraphQL cost and budget"); default 5000 per 20 s.
            graphqlBudget: z
              .object({ points: z.number().int().positive(), windowSeconds: z.number().int().positive() })
              .strict()
              .optional(),
            expiresAt: timestamp.optional(),
            apiKey: z.string().min(16).max(200).optional(),
            svcKey: z.string().min(16).max(200).optional(),
          })
          .strict(),
      )
      .default([]),
    webhookEndpoints: z
      .array(
        z
          .object({
            ref,
            buyerCompany: ref.optional(),
            supplierFacility: ref.optional(),
            url: z.string(),
            events: z.array(z.enum(EVENT_TYPES)).min(1),
            mode: z.enum(["test", "production"]).default("production"),
            secret: z.string().min(16).optional(),
          })
          .strict()
          .refine(
            (w) => !!w.buyerCompany !== !!w.supplierFacility,
            "an endpoint belongs to exactly one of buyerCompany or supplierFacility",
          ),
      )
      .default([]),
    currencyRates: z
      .array(
        z
          .object({
            base: currency,
            target: currency,
            rate: z.string().regex(/^\d+(\.\d+)?$/, "a decimal string"),
            at: timestamp,
          })
          .strict(),
      )
      .default([]),
    siteSurveys: z
      .array(
        z
          .object({
            ref,
            company: ref,
            name: z.string().min(1),
            template: ref.optional(),
            heatMapRanges: z
              .array(z.object({ color: z.string(), lowerRange: z.number() }).strict())
              .nullable()
              .optional(),
            tasks: z.array(z.object({ ref, title: z.string().min(1) }).strict()).default([]),
          })
          .strict(),
      )
      .default([]),
    ...pmFixtureSections(ref, timestamp),
  })
  .strict();

export type Fixture = z.infer<typeof fixtureSchema>;
