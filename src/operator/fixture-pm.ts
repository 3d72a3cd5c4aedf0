// Fixture pieces of planned maintenance and walkthroughs (docs/operator.md, docs/planned-maintenance.md):
// the company's scheduling mode, the location's time zone and brand, walkthroughs with photos and
// issues, and schedules with their cadence and work order template. fixture.ts spreads them in.
import { z } from "zod";
import { CadenceError, parseCadence, timeZoneProblem } from "../schema/planned-maintenance/public.ts";

/** Fields of `buyerCompanies[].config`. */
export const pmCompanyConfig = { pmScheduling: z.enum(["external", "built_in"]) };

/** Fields of `locations[]`. */
export const pmLocationFields = {
  timeZone: z
    .string()
    .refine((zone) => timeZoneProblem(zone) === null, "an IANA time zone such as America/New_York")
    .optional(),
  brandId: z.number().int().positive().optional(),
};

const cadence = z.string().superRefine((text, ctx) => {
  try {
    parseCadence(text);
  } catch (error) {
    if (!(error instanceof CadenceError)) throw error;
    ctx.addIssue({ code: "custom", message: (error as CadenceError).message });
  }
});

/** The walkthroughs and plannedMaintenanceSchedules sections, built on fixture.ts's ref and timestamp. */
export function pmFixtureSections(ref: z.ZodString, timestamp: z.ZodString) {
  const photos = z.array(z.string().url()).default([]);
  return {
    walkthroughs: z
      .array(
        z
          .object({
            ref,
            survey: ref,
            location: ref,
            completedBy: ref.optional(),
            completedAt: timestamp.optional(),
            scores: z.array(z.number().int()).default([]),
            photos,
            notes: z.string().optional(),
            answers: z.array(z.object({ task: ref, answer: z.string(), photos }).strict()).default([]),
            issues: z
              .array(
                z
                  .object({
                    task: ref.optional(),
                    title: z.string().min(1),
                    description: z.string().optional(),
                    severity: z.string().optional(),
                    photos,
                  })
                  .strict(),
              )
              .default([]),
          })
          .strict(),
      )
      .default([]),
    plannedMaintenanceSchedules: z
      .array(
        z
          .object({
            ref,
            company: ref,
            location: ref,
            problemType: ref,
            title: z.string().min(1),
            description: z.string().optional(),
            woPriority: z.number().int().positive().optional(),
            needApproval: z.boolean().optional(),
            cadence,
            nextRunAt: timestamp,
            endsAt: timestamp.optional(),
            isActive: z.boolean().optional(),
            supplierFacility: ref.optional(),
            assets: z.array(ref).default([]),
          })
          .strict()
          .refine(
            (s) => !s.endsAt || Date.parse(s.endsAt) >= Date.parse(s.nextRunAt),
            "endsAt must not be before nextRunAt",
          ),
      )
      .default([]),
  };
}
