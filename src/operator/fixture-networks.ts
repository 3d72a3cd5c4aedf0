// The fixture's supplier network section (`buyerSupplierRelationships`): relationships with their
// details and rankings. Hooked into fixture.ts; applied by apply-networks.ts.
import { z } from "zod";

const emails = z.array(z.string().email()).default([]);

export const buyerSupplierRelationship = (ref: z.ZodString) =>
  z
    .object({
      ref,
      buyer: ref,
      supplierFacility: ref,
      isPreferred: z.boolean().default(false),
      trades: z.array(z.string().trim().min(1)).default([]),
      workOrdersRoutedTo: emails,
      supplierAccountEmails: emails,
      rankings: z
        .array(z.object({ location: ref, problemType: ref, rank: z.number().int().positive() }).strict())
        .default([]),
    })
    .strict();
