// Walkthrough types: the walkthrough with its answers, photos, issues, scores and score bands, the
// survey it follows with the resolved heat map ranges, and the linked work orders.
import { builder } from "../core/builder.ts";
import { pageType } from "../core/list.ts";
import { WorkOrderRef } from "../work-orders/public.ts";
import { bandOf, linkedWorkOrders, resolveRanges, type HeatMapBand } from "./rules.ts";

const HeatMapBandRef = builder.objectRef<HeatMapBand>("HeatMapBand").implement({
  description: "A band of the heat map: from lowerRange up to the next band's lowerRange",
  fields: (t) => ({
    color: t.exposeString("color", { description: "Typically hex, e.g. #43a047" }),
    lowerRange: t.exposeFloat("lowerRange", { description: "Lowest score of the band" }),
  }),
});

const ScoreBandRef = builder.objectRef<{ score: number; band: HeatMapBand | null }>("WalkthroughScoreBand").implement({
  description:
    "A score with its band: the band with the highest lowerRange ≤ score (null below every band, or without ranges)",
  fields: (t) => ({
    score: t.exposeFloat("score"),
    color: t.string({ nullable: true, resolve: (s) => s.band?.color ?? null }),
    lowerRange: t.float({ nullable: true, resolve: (s) => s.band?.lowerRange ?? null }),
  }),
});

const RANGES_SELECT = { heatMapRanges: true, template: { select: { heatMapRanges: true } } } as const;

builder.prismaObject("SiteSurveyTask", {
  fields: (t) => ({ id: t.exposeInt("id"), title: t.exposeString("title") }),
});

builder.prismaObject("SiteSurvey", {
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    templateId: t.exposeInt("templateId", { nullable: true }),
    walkthroughHeatMapRanges: t.field({
      type: [HeatMapBandRef],
      nullable: true,
      description:
        "The survey's heat map ranges, else its template's, resolved at read time (sorted by lowerRange); null when neither has any",
      select: RANGES_SELECT,
      resolve: (survey) => resolveRanges(survey),
    }),
    tasks: t.relation("tasks", { query: { orderBy: { id: "asc" } } }),
  }),
});

builder.prismaObject("WalkthroughAnswer", {
  fields: (t) => ({
    id: t.exposeInt("id"),
    taskId: t.exposeInt("taskId", {
      description: "The survey task; siteSurveyTaskTitleId of a work order created for it",
    }),
    taskTitle: t.string({ select: { task: { select: { title: true } } }, resolve: (a) => a.task.title }),
    answer: t.exposeString("answer"),
    photos: t.exposeStringList("photos", { description: "Photo URLs" }),
  }),
});

builder.prismaObject("WalkthroughIssue", {
  description: "A problem found on the walkthrough, optionally at one task",
  fields: (t) => ({
    id: t.exposeInt("id"),
    taskId: t.exposeInt("taskId", { nullable: true }),
    title: t.exposeString("title"),
    description: t.exposeString("description", { nullable: true }),
    severity: t.exposeString("severity", { nullable: true }),
    photos: t.exposeStringList("photos", { description: "Photo URLs" }),
  }),
});

const CompletedByRef = builder
  .objectRef<{ id: number; email: string; nameGiven: string; nameFamily: string }>("WalkthroughContact")
  .implement({
    fields: (t) => ({
      id: t.exposeInt("id"),
      email: t.exposeString("email"),
      name: t.string({ resolve: (c) => `${c.nameGiven} ${c.nameFamily}`.trim() }),
    }),
  });

export const WalkthroughRef = builder.prismaObject("Walkthrough", {
  description: "A completed site survey walkthrough (read-only); see docs/walkthroughs.md",
  fields: (t) => ({
    id: t.exposeInt("id"),
    locationId: t.exposeInt("locationId"),
    surveyId: t.exposeInt("surveyId"),
    completedAt: t.expose("completedAt", { type: "DateTime" }),
    completedBy: t.field({
      type: CompletedByRef,
      nullable: true,
      select: { completedBy: { select: { id: true, email: true, nameGiven: true, nameFamily: true } } },
      resolve: (w) => w.completedBy,
    }),
    scores: t.exposeIntList("scores"),
    scoreBands: t.field({
      type: [ScoreBandRef],
      description:
        "Helper: each score (in the order of scores) with its heat map band, by the rule highest lowerRange ≤ score",
      select: { survey: { select: RANGES_SELECT } },
      resolve: (w) => {
        const bands = resolveRanges(w.survey);
        return w.scores.map((score) => ({ score, band: bandOf(score, bands) }));
      },
    }),
    notes: t.exposeString("notes", { nullable: true }),
    photos: t.exposeStringList("photos", { description: "Photo URLs of the walkthrough as a whole" }),
    answers: t.relation("answers", {
      description: "Task answers, by task",
      query: { orderBy: [{ taskId: "asc" }, { id: "asc" }] },
    }),
    issues: t.relation("issues", { query: { orderBy: { id: "asc" } } }),
    siteSurvey: t.relation("survey"),
    workOrders: t.field({
      type: [WorkOrderRef],
      description: "Work orders created from this walkthrough (walkThroughId) that the key may read",
      resolve: (w, _args, ctx) => linkedWorkOrders(ctx, w.id),
    }),
    location: t.relation("location", { subGraphs: ["graphql"] }),
  }),
});

export const WalkthroughPage = pageType("Walkthrough", WalkthroughRef);
