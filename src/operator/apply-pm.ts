// `operator apply` for planned maintenance and walkthroughs: the columns apply.ts writes for a
// location's time zone and brand, a walkthrough's photos, answers and issues, and a schedule. A
// schedule applied again with the same cadence and nextRunAt keeps its progress (the generator or an
// external scheduler may have advanced it since); a changed cadence or nextRunAt restarts the series.
import type { Tx } from "../db.ts";
import type { Fixture } from "./fixture.ts";

export const pmLocationData = (x: Fixture["locations"][number]) => ({
  timeZone: x.timeZone ?? "UTC",
  brandId: x.brandId ?? null,
});

type WalkthroughFixture = Fixture["walkthroughs"][number];

export const walkthroughData = (w: WalkthroughFixture) => ({ photos: w.photos, notes: w.notes ?? null });

/** Replaces a walkthrough's answers and issues with the fixture's; `task` resolves a task ref. */
export async function writeWalkthroughDetails(
  tx: Tx,
  walkthroughId: number,
  w: WalkthroughFixture,
  task: (ref: string, where: string) => number,
  where: string,
) {
  await tx.walkthroughAnswer.deleteMany({ where: { walkthroughId } });
  await tx.walkthroughAnswer.createMany({
    data: w.answers.map((a, j) => ({
      walkthroughId,
      answer: a.answer,
      photos: a.photos,
      taskId: task(a.task, `${where}.answers[${j}].task`),
    })),
  });
  await tx.walkthroughIssue.deleteMany({ where: { walkthroughId } });
  await tx.walkthroughIssue.createMany({
    data: w.issues.map((issue, j) => ({
      walkthroughId,
      title: issue.title,
      description: issue.description ?? null,
      severity: issue.severity ?? null,
      photos: issue.photos,
      taskId: issue.task ? task(issue.task, `${where}.issues[${j}].task`) : null,
    })),
  });
}

type ScheduleFixture = Fixture["plannedMaintenanceSchedules"][number];

/** The create and update of one schedule; `refs` are the resolved ids of its references. */
export function pmScheduleWrite(
  tx: Tx,
  x: ScheduleFixture,
  refs: {
    buyerCompanyId: number;
    locationId: number;
    problemTypeId: number;
    supplierFacilityId: number | null;
    assetIds: number[];
  },
) {
  const nextRunAt = new Date(x.nextRunAt);
  const data = {
    ...refs,
    title: x.title,
    description: x.description ?? null,
    woPriority: x.woPriority ?? null,
    needApproval: x.needApproval ?? null,
    cadence: x.cadence,
    endsAt: x.endsAt ? new Date(x.endsAt) : null,
    isActive: x.isActive ?? true,
  };
  const restart = { anchorAt: nextRunAt, sequence: 0, nextRunAt };
  return {
    create: () => tx.plannedMaintenanceSchedule.create({ data: { ...data, ...restart } }),
    update: async (id: number) => {
      const stored = await tx.plannedMaintenanceSchedule.findUniqueOrThrow({
        where: { id },
        select: { cadence: true, anchorAt: true },
      });
      const same = stored.cadence === x.cadence && stored.anchorAt.getTime() === nextRunAt.getTime();
      return tx.plannedMaintenanceSchedule.update({ where: { id }, data: { ...data, ...(same ? {} : restart) } });
    },
  };
}
